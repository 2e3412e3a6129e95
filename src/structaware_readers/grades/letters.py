"""Labelled letter grades and levels with no named system (``[Grade A]``, ``Grade: B``, ``Level of evidence: C``,
``Strength of recommendation (A)``) and English expert-consensus grades.
"""

from __future__ import annotations

import re

from structaware_readers.grades.signals import (
    Detector,
    Scan,
    Signal,
    after_classifier,
    standalone,
)
from structaware_readers.grades.uspstf import system_for

SYSTEM = "letter"

_LETTER_BRACKET = re.compile(r"(?i)\[\s*grade\s*[:]?\s*((?-i:[A-D]))\s*\]")
_LETTER_GRADE = re.compile(
    r"(?i)\b(?:(?:grade|strength|level)\s+of\s+recommendation|recommendation\s+grade|grade)\s*[:]?\s*"
    r"\(?((?-i:[A-DI]))\)?(?![\w+\-])"
)
_LETTER_LEVEL = re.compile(
    r"(?i)\b(?:(?:level|quality)\s+of\s+evidence|evidence\s+level|LOE|LoE|level)\s*[:]?\s*"
    r"\(?((?-i:[A-D]))\)?(?![\w+\-])"
)
_ROMAN_LEVEL = re.compile(
    r"(?i)\b(?:level\s+of\s+evidence|evidence\s+level|LOE|LoE)\s*[:]?\s*((?-i:III|II|IV|I|V)(?:-[123])?)(?![\w+])"
)
_CONSENSUS = re.compile(
    r"(?i)(?:\b(?:grade|level\s+of\s+evidence|evidence\s+level|strength\s+of\s+recommendation|LOE)\s*[:]\s*|[(\[]\s*)"
    r"(expert\s+opinion|expert\s+consensus|consensus)\b"
)
_FOLLOW = re.compile(r"(?i)\s*(?:$|[)\]},;:.|/\n?!。、]|recommendation|statement|evidence)")


def _h_letter_bracket(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1)))


def _h_letter_grade(scan: Scan, m: re.Match[str]) -> None:
    if after_classifier(scan.norm, m.start()) or not _FOLLOW.match(scan.norm, m.end()):
        return
    system = system_for(scan)
    if m.group(1) == "I" and system != "USPSTF":
        return  # "grade I" is a disease grade unless the USPSTF "I statement" is meant
    labelled = "recommendation" in m.group(0).lower() or system == "USPSTF"
    scan.add(Signal(system, m.start(), m.end(), grade=m.group(1), ambiguous=not labelled))


def _h_letter_level(scan: Scan, m: re.Match[str]) -> None:
    if after_classifier(scan.norm, m.start()) or not _FOLLOW.match(scan.norm, m.end()):
        return
    keyword = scan.norm[m.start() : m.end()].lower()
    bare = keyword.startswith("level") and "evidence" not in keyword and "of" not in keyword
    if bare:
        # bare "Level A": only as a label or when "evidence" follows
        tail = scan.norm[m.end() : m.end() + 12].lower()
        bare = not tail.lstrip().startswith("evidence")
        if bare and not standalone(scan.norm, m.start(), m.end()):
            return
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1), ambiguous=bare))


def _h_roman_level(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1)))


def _h_consensus(scan: Scan, m: re.Match[str]) -> None:
    if m.group(0).lstrip()[:1] in "([" and not standalone(scan.norm, m.start() + 1, m.end()):
        return
    phrase = re.sub(r"\s+", " ", m.group(1).lower())
    grade = "expert consensus" if phrase == "consensus" else phrase
    scan.add(Signal("consensus", m.start(), m.end(), grade=grade))


BRACKET: Detector = (_LETTER_BRACKET, _h_letter_bracket)
GRADE: Detector = (_LETTER_GRADE, _h_letter_grade)
LEVEL: Detector = (_LETTER_LEVEL, _h_letter_level)
ROMAN_LEVEL: Detector = (_ROMAN_LEVEL, _h_roman_level)
CONSENSUS: Detector = (_CONSENSUS, _h_consensus)
