"""SIGN levels of evidence ``1++`` .. ``4``, SIGN grades ``A``..``D`` when labelled SIGN, good practice points."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import (
    OPENERS,
    SENTENCE_END,
    Detector,
    Scan,
    Signal,
    after_determiner,
    standalone,
)

SYSTEM = "SIGN"

_SIGN_STRONG = re.compile(r"(?<![\w+.])([12])\+\+(?![\w+])")
_SIGN_WEAK = re.compile(r"(?<![\w+.])([1-4])(\+|-)(?![\w+\-])")
_SIGN_LABEL = re.compile(
    r"(?i)(?:level\s+of\s+evidence|evidence\s+level|\bLoE|\bLOE|\bSIGN\b|证据等级|证据级别)[^.;]{0,25}$"
)
_SIGN_GRADE = re.compile(r"(?i)\bSIGN\b[^.;]{0,20}?\bgrade\s*[:]?\s*((?-i:[A-D]))(?!\w)")
_GOOD_PRACTICE = re.compile(
    r"(?i)\b(good\s+practice\s+point|GPP|good\s+practice\s+statement|best\s+practice\s+statement)(?!s|\w)"
)


# a WHO box title's year and dash before the label: "Preventing relapse (2015 – good practice statement)"
_YEAR_DASH = re.compile(r"[(\[]\s*(?:19|20)\d\d\s*[-–—]$")


def _h_sign_strong(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(0)))


def _h_sign_weak(scan: Scan, m: re.Match[str]) -> None:
    if _SIGN_LABEL.search(scan.norm[max(0, m.start() - 40) : m.start()]):
        scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(0)))


def _h_sign_grade(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1)))


def _h_good_practice(scan: Scan, m: re.Match[str]) -> None:
    phrase = re.sub(r"\s+", " ", m.group(1).lower())
    if after_determiner(scan.norm, m.start()):
        return
    if phrase == "gpp":
        if not standalone(scan.norm, m.start(), m.end()):
            return
        phrase = "good practice point"
    elif phrase != "good practice point":
        # statements: a label or the head of a statement, not a mention inside a sentence
        before = scan.norm[max(0, m.start() - 40) : m.start()].rstrip(" \t")
        if before and before[-1] not in OPENERS + SENTENCE_END + "。" and not _YEAR_DASH.search(before):
            return
    if phrase == "good practice point":
        scan.add(Signal(SYSTEM, m.start(), m.end(), grade=phrase))
    else:  # GRADE/WHO: ungraded by design, the statement's kind is its strength
        scan.add(Signal("GRADE", m.start(), m.end(), grade=phrase, strength="good practice statement"))


LEVEL_STRONG: Detector = (_SIGN_STRONG, _h_sign_strong)
LEVEL_WEAK: Detector = (_SIGN_WEAK, _h_sign_weak)
GRADE_LABELLED: Detector = (_SIGN_GRADE, _h_sign_grade)
GOOD_PRACTICE: Detector = (_GOOD_PRACTICE, _h_good_practice)
