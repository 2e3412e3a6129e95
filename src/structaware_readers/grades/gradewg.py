"""GRADE (Grading of Recommendations Assessment, Development and Evaluation) as guideline writers print it."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import (
    CERT_WORD,
    Detector,
    Scan,
    Signal,
    after_determiner,
    cert_word,
    standalone,
)

SYSTEM = "GRADE"

STRENGTH_WORD = r"(strong|conditional|weak|discretionary)"
STRENGTH_MAP = {
    "strong": "strong",
    "conditional": "conditional",
    "weak": "weak",
    "discretionary": "conditional",
}

_SYMBOLS = re.compile(r"(?<![⊕⨁⊝○◯⊖〇])([⊕⨁]{1,4})([⊝○◯⊖〇O]{0,3})(?![⊕⨁⊝○◯⊖〇O])")
_SYMBOL_CERT = {4: "high", 3: "moderate", 2: "low", 1: "very low"}


def _h_symbols(scan: Scan, m: re.Match[str]) -> None:
    if len(m.group(1)) + len(m.group(2)) == 4:
        scan.add(Signal(SYSTEM, m.start(), m.end(), certainty=_SYMBOL_CERT[len(m.group(1))]))


_STRENGTH_CERT = re.compile(
    rf"(?i)\b{STRENGTH_WORD}(?:\s+recommendation)?(?:\s+(for|against))?\s*[,;/]\s*{CERT_WORD}[- ](?:quality|certainty)"
    r"(?:\s+(?:of\s+(?:the\s+)?)?evidence)?\b"
)


def _h_strength_cert(scan: Scan, m: re.Match[str]) -> None:
    # "Strong, very low quality" (WHO tables) or "Strong recommendation, moderate quality of evidence"
    scan.add(
        Signal(
            SYSTEM,
            m.start(),
            m.end(),
            strength=STRENGTH_MAP[m.group(1).lower()],
            direction=(m.group(2) or "").lower(),
            certainty=cert_word(m.group(3)),
        )
    )


_STRENGTH = re.compile(rf"(?i)\b{STRENGTH_WORD}\s+recommendation(?!s)\b(?:\s+(for|against)\b)?")


def _h_strength(scan: Scan, m: re.Match[str]) -> None:
    if not after_determiner(scan.norm, m.start()):
        direction = (m.group(2) or "").lower()
        scan.add(
            Signal(
                SYSTEM,
                m.start(),
                m.end(),
                strength=STRENGTH_MAP[m.group(1).lower()],
                direction=direction,
            )
        )


_STRENGTH_LABELLED = re.compile(
    r"(?i)\b(?:strength\s+of\s+(?:the\s+)?recommendation|recommendation\s+strength|strength)\s*[:]\s*"
    + STRENGTH_WORD
    + r"\b(?:\s+(for|against)\b)?"
)


def _h_strength_labelled(scan: Scan, m: re.Match[str]) -> None:
    direction = (m.group(2) or "").lower()
    scan.add(
        Signal(
            SYSTEM,
            m.start(),
            m.end(),
            strength=STRENGTH_MAP[m.group(1).lower()],
            direction=direction,
        )
    )


# "Weakfor": a table cell whose words the text layer glued
_FOR_AGAINST = re.compile(r"(?i)\b(strong|weak|conditional)\s*(for|against)\b(?:\s+the\s+(?:intervention|option))?")
_STATUS_AFTER = re.compile(r"\s*[|;,]\s*")


def _h_for_against(scan: Scan, m: re.Match[str]) -> None:
    # "(Strong for)", "(Strong for| Reviewed, New-replaced)": a label, or followed by a status
    sep = _STATUS_AFTER.match(scan.norm, m.end())
    followed_by_status = bool(sep and _STATUS.match(scan.norm, sep.end()))
    if followed_by_status or standalone(scan.norm, m.start(), m.end()):
        scan.add(
            Signal(
                SYSTEM,
                m.start(),
                m.end(),
                strength=STRENGTH_MAP[m.group(1).lower()],
                direction=m.group(2).lower(),
            )
        )


#: VA/DoD's fifth strength-and-direction category: the evidence is insufficient to recommend for or against
NEITHER = "neither"
_NEITHER = re.compile(r"(?i)\bneither\s+for\s+nor\s+against\b")


def _h_neither(scan: Scan, m: re.Match[str]) -> None:
    # "(Neither for nor against | Reviewed, New-added)", a Strength cell "Neither for nor against"
    sep = _STATUS_AFTER.match(scan.norm, m.end())
    if (sep and _STATUS.match(scan.norm, sep.end())) or standalone(scan.norm, m.start(), m.end()):
        scan.add(Signal(SYSTEM, m.start(), m.end(), direction=NEITHER))


# VA/DoD recommendation categories: "Reviewed, New-added", "Not reviewed, Amended", ... ("New- replaced" in OCR)
_STATUS = re.compile(
    r"(?i)(Not\s+reviewed|Reviewed)\s*,\s*(New\s*-\s*added|New\s*-\s*replaced|Not\s+changed|Amended|Deleted)\b"
)


def _status_label(m: re.Match[str]) -> str:
    first = "Not reviewed" if m.group(1).lower().startswith("not") else "Reviewed"
    second = re.sub(r"\s*-\s*", "-", re.sub(r"\s+", " ", m.group(2))).lower()
    second = {
        "new-added": "New-added",
        "new-replaced": "New-replaced",
        "not changed": "Not changed",
    }.get(second, second.capitalize())
    return f"{first}, {second}"


def _h_status(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), status=_status_label(m)))


_CERT_LABELLED = re.compile(
    r"(?i)\b(?:(?:quality|certainty)\s+of\s+(?:the\s+)?evidence|evidence\s+(?:quality|certainty)|"
    r"(?:level\s+of\s+)?certainty|quality)\s*:\s*" + CERT_WORD + r"\b"
)


def _h_cert_labelled(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), certainty=cert_word(m.group(1))))


_CERT_PHRASE = re.compile(
    rf"(?i)\b{CERT_WORD}[- ](?:quality|certainty)(?:\s+(?:of\s+(?:the\s+)?)?evidence|\s+evidence)"
)


def _h_cert_phrase(scan: Scan, m: re.Match[str]) -> None:
    if standalone(scan.norm, m.start(), m.end()):
        scan.add(Signal(SYSTEM, m.start(), m.end(), certainty=cert_word(m.group(1))))


#: whole-cell forms (WHO recommendation tables): a cell that is only ``very low quality`` or ``Strong``
CERT_CELL = re.compile(rf"(?i)^\W*{CERT_WORD}[- ](?:quality|certainty)\w*\W*$")
STRENGTH_CELL = re.compile(rf"(?i)^\W*{STRENGTH_WORD}\W*$")

SYMBOLS: Detector = (_SYMBOLS, _h_symbols)
STRENGTH_CERTAINTY: Detector = (_STRENGTH_CERT, _h_strength_cert)
STRENGTH_LABELLED: Detector = (_STRENGTH_LABELLED, _h_strength_labelled)
STRENGTH: Detector = (_STRENGTH, _h_strength)
FOR_AGAINST: Detector = (_FOR_AGAINST, _h_for_against)
NEITHER_FOR_NOR_AGAINST: Detector = (_NEITHER, _h_neither)
STATUS: Detector = (_STATUS, _h_status)
CERTAINTY_LABELLED: Detector = (_CERT_LABELLED, _h_cert_labelled)
CERTAINTY_PHRASE: Detector = (_CERT_PHRASE, _h_cert_phrase)
