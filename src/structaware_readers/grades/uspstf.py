"""USPSTF letter grades ``A``, ``B``, ``C``, ``D`` and the ``I statement`` (insufficient evidence)."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal, after_classifier

SYSTEM = "USPSTF"

MENTION = re.compile(r"(?i)\bUSPSTF\b|\bTask\s+Force\b")

_GRADE_FOR = re.compile(
    r"(?i)\bgrade\s*[:]?\s*((?-i:[A-D]|I))\s+for\s+[^;.\n]{1,80}"
    r"(?:;\s*grade\s*[:]?\s*(?-i:[A-D]|I)\s+for\s+[^;.\n]{1,80})*"
)
_I_STATEMENT = re.compile(
    r"(?:^|(?<=[(\[,;:|])|(?<=USPSTF )|(?<=[Gg]rade ))\s*(I)\s+statement\b",
    re.MULTILINE,
)


def system_for(scan: Scan) -> str:
    """``USPSTF`` when the text names the Task Force, else ``letter``."""
    return SYSTEM if scan.first(MENTION) >= 0 else "letter"


def _h_grade_for(scan: Scan, m: re.Match[str]) -> None:
    if not after_classifier(scan.norm, m.start()):
        system = system_for(scan)
        scan.add(Signal(system, m.start(), m.end(), grade=m.group(1), ambiguous=system != SYSTEM))


def _h_i_statement(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(1), m.end(), grade="I", ambiguous=system_for(scan) != SYSTEM))


GRADE_FOR: Detector = (_GRADE_FOR, _h_grade_for)
I_STATEMENT: Detector = (_I_STATEMENT, _h_i_statement)
