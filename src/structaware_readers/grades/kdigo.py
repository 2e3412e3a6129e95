"""The numeric-letter grades of KDIGO and CHEST/ACCP (``1A`` .. ``2D``) and KDIGO's practice points."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import (
    OPENERS,
    SENTENCE_END,
    Detector,
    Scan,
    Signal,
    after_classifier,
)

SYSTEM = "GRADE"

_NUMLETTER = re.compile(r"(?i)\b(?:grade|class)\s*[:]?\s*([12])((?-i:[A-D]))(?![\w+\-])")
_NUMLETTER_BRACKET = re.compile(r"\(\s*([12])([A-D])\s*\)")
_RECOMMEND_VERB = re.compile(r"(?i)\b(?:recommend|suggest)|推荐|建议")
_PRACTICE_POINT = re.compile(r"(?i)\b(?:ungraded\s+)?practice\s+point(?!s)\b")
_NUMBERED = re.compile(r"\s*\d+(?:\.\d+)*")
_CERT = {"A": "high", "B": "moderate", "C": "low", "D": "very low"}


def _signal(m: re.Match[str]) -> Signal:
    return Signal(
        SYSTEM,
        m.start(),
        m.end(),
        grade=m.group(1) + m.group(2),
        strength="strong" if m.group(1) == "1" else "weak",
        certainty=_CERT[m.group(2)],
    )


def _h_numletter(scan: Scan, m: re.Match[str]) -> None:
    if not after_classifier(scan.norm, m.start()):
        scan.add(_signal(m))


def _h_numletter_bracket(scan: Scan, m: re.Match[str]) -> None:
    first = scan.first(_RECOMMEND_VERB)  # "(1A)" counts after "We recommend/suggest" (KDIGO style)
    if 0 <= first < m.start():
        scan.add(_signal(m))


def _h_practice_point(scan: Scan, m: re.Match[str]) -> None:
    # "Practice Point 1.2.1: ..." heads a statement; "ungraded practice point" is a label anywhere
    before = scan.norm[max(0, m.start() - 40) : m.start()].rstrip(" \t")
    if m.group(0).lower().startswith("ungraded") or not before or before[-1] in OPENERS + SENTENCE_END:
        # KDIGO numbers its practice points and calls them ungraded; a bare "Practice point:" is
        # other guidelines' consensus label too (read as KDIGO in a KDIGO document, :mod:`.document`)
        own = m.group(0).lower().startswith("ungraded") or _NUMBERED.match(scan.norm, m.end()) is not None
        scan.add(Signal("KDIGO" if own else "consensus", m.start(), m.end(), grade="practice point"))


NUMLETTER: Detector = (_NUMLETTER, _h_numletter)
NUMLETTER_BRACKET: Detector = (_NUMLETTER_BRACKET, _h_numletter_bracket)
PRACTICE_POINT: Detector = (_PRACTICE_POINT, _h_practice_point)
