"""Chinese grade wording without a named system: ``证据等级：A``, ``推荐强度：弱``, ``A级推荐``, ``【A级】``, ``（强推荐，高质量证据）``, ``不推荐``,
``（专家共识）``.
"""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal, standalone

SYSTEM = "zh"

_ZH_VALUE = (
    r"(专家共识|极低|非常低|中等|中|高|低|强烈|强|弱|有条件|条件性|"
    r"(?:III|IIa|IIb|II|IV|I)(?![A-Za-z])|1A|1B|2A|2B|[1-5][abc]?|[A-E](?![A-Za-z]))\s*(级|类)?"
)
_ZH_LABELLED = re.compile(
    r"(推荐|证据)\s*(?:意见\s*)?(等级|级别|强度|类别|分级|水平|质量|确定性)\s*[:]?\s*(?:为|是)?\s*" + _ZH_VALUE
)
_ZH_CERT = {
    "高": "high",
    "中": "moderate",
    "中等": "moderate",
    "低": "low",
    "极低": "very low",
    "非常低": "very low",
}
_ZH_STRENGTH = {
    "强": "strong",
    "强烈": "strong",
    "弱": "weak",
    "有条件": "conditional",
    "条件性": "conditional",
}
_OXFORD_LEVEL = re.compile(r"[1-5][abc]")


def _h_zh_labelled(scan: Scan, m: re.Match[str]) -> None:
    kind, value = m.group(1), m.group(3)
    s, e = m.start(), m.end()
    if value == "专家共识":
        scan.add(Signal(SYSTEM, s, e, grade="expert consensus"))
    elif value in _ZH_STRENGTH:
        if kind == "推荐":
            scan.add(Signal("GRADE", s, e, strength=_ZH_STRENGTH[value]))
    elif value in _ZH_CERT:
        if kind == "证据":
            scan.add(Signal("GRADE", s, e, certainty=_ZH_CERT[value]))
    elif _OXFORD_LEVEL.fullmatch(value):
        scan.add(Signal("Oxford", s, e, level=value))
    elif kind == "推荐":
        scan.add(
            Signal(
                SYSTEM,
                s,
                e,
                grade=value.upper() if len(value) <= 2 and value[0].isdigit() else value,
            )
        )
    else:
        scan.add(Signal(SYSTEM, s, e, level=value.upper() if value[0].isdigit() else value))


_ZH_LETTER = re.compile(r"(?<![A-Za-z0-9])([A-E])\s*级\s*(推荐|证据)")


def _h_zh_letter(scan: Scan, m: re.Match[str]) -> None:
    if m.group(2) == "推荐":
        scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1)))
    else:
        scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1)))


_ZH_BRACKET_LETTER = re.compile(r"[(\[]\s*([A-E])\s*级\s*[)\]]")


def _h_zh_bracket_letter(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1)))


_ZH_CONSENSUS = re.compile(r"[(\[]\s*(?:基于)?专家共识\s*[)\]]")


def _h_zh_consensus(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade="expert consensus"))


_ZH_STRENGTH_RE = re.compile(
    r"(?<![加增])(强烈|强|弱|有条件的?|条件性)\s*(不)?\s*推荐(?!意见|等级|级别|强度|类别|分级)"
)


def _h_zh_strength(scan: Scan, m: re.Match[str]) -> None:
    strength = _ZH_STRENGTH[m.group(1).rstrip("的")]
    scan.add(
        Signal(
            "GRADE",
            m.start(),
            m.end(),
            strength=strength,
            direction="against" if m.group(2) else "for",
        )
    )


_ZH_CERT_RE = re.compile(r"(?<![降减])(极低|非常低|中等|高|中|低)\s*(?:质量|确定性|可信度|级别|等级)\s*(?:的\s*)?证据")


def _h_zh_cert(scan: Scan, m: re.Match[str]) -> None:
    if standalone(scan.norm, m.start(), m.end()):
        scan.add(Signal("GRADE", m.start(), m.end(), certainty=_ZH_CERT[m.group(1)]))


LABELLED: Detector = (_ZH_LABELLED, _h_zh_labelled)
LETTER: Detector = (_ZH_LETTER, _h_zh_letter)
BRACKET_LETTER: Detector = (_ZH_BRACKET_LETTER, _h_zh_bracket_letter)
CONSENSUS: Detector = (_ZH_CONSENSUS, _h_zh_consensus)
STRENGTH: Detector = (_ZH_STRENGTH_RE, _h_zh_strength)
CERTAINTY: Detector = (_ZH_CERT_RE, _h_zh_cert)
