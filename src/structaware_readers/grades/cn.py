"""Chinese consensus recommendation classes ``Ⅰ``/``Ⅱa``/``Ⅱb``/``Ⅲ类推荐`` and evidence levels ``1a``..``5``."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal

SYSTEM = "CN"

_CLASS = re.compile(r"(?<![A-Za-z0-9])(III|II\s*[ab]|II|IV|I)(?![A-Za-z0-9])\s*类\s*推\s*荐")
_EVIDENCE = re.compile(r"(?<![A-Za-z0-9.])([1-5][abc]?)\s*级?\s*证\s*据\s*(?:等\s*级|级\s*别)")


def _h_class(scan: Scan, m: re.Match[str]) -> None:
    value = re.sub(r"\s+", "", m.group(1))
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=value))  # Ⅲ: disagreement in some tables, against in others


def _h_evidence(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1)))


CLASS: Detector = (_CLASS, _h_class)
EVIDENCE: Detector = (_EVIDENCE, _h_evidence)
