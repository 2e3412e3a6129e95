"""CSCO recommendation levels ``Ⅰ级推荐``/``Ⅱ级推荐``/``Ⅲ级推荐`` and evidence categories ``1A类证据``."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal

SYSTEM = "CSCO"

# OCR reads the roman I as l, 1 or |: "Ill" / "I1l" / "lI" are II or III
_ROMAN_OCR = r"[Il1|]{1,3}"
_CSCO_LEVEL = re.compile(rf"(?<![A-Za-z0-9])({_ROMAN_OCR}|[一二三])\s*级\s*(?:专家)?推荐")
_CSCO_EVIDENCE = re.compile(r"(?<![A-Za-z0-9.])(1A|1B|2A|2B|1|2|3)\s*类\s*(?:的\s*)?证据", re.IGNORECASE)
# "（1A类）", "(1B 类)": CSCO's own evidence categories (NCCN has no 1A/1B; "(2A类)" is read as NCCN first)
_CSCO_EVIDENCE_BRACKET = re.compile(r"[(\[]\s*(1A|1B)\s*类\s*[)\]]", re.IGNORECASE)
_ZH_NUM = {"一": "I", "二": "II", "三": "III"}


def _roman(value: str) -> str:
    return _ZH_NUM.get(value) or "I" * len(value)


def _h_csco_level(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=_roman(m.group(1))))


def _h_csco_evidence(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1).upper()))


LEVEL: Detector = (_CSCO_LEVEL, _h_csco_level)
EVIDENCE: Detector = (_CSCO_EVIDENCE, _h_csco_evidence)
EVIDENCE_BRACKET: Detector = (_CSCO_EVIDENCE_BRACKET, _h_csco_evidence)
