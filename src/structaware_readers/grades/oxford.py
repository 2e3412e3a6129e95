"""Oxford CEBM levels of evidence ``1a`` .. ``5`` (``Level 1a``, ``LoE 2b``, ``Level of evidence: 3``)."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal, standalone

SYSTEM = "Oxford"

_OXFORD_SUFFIX = re.compile(
    r"(?i)\b(Level(?:\s+of\s+evidence)?|LoE|LOE|Evidence\s+level|EL)\s*[:]?\s*([1-5])([abc])(?![\w+\-])"
    r"(\s+evidence)?"
)
_OXFORD_PLAIN = re.compile(
    r"(?i)\b(Level\s+of\s+evidence|LoE|Evidence\s+level|Level)\s*[:]?\s*([1-5])(?![\w+\-.]|\.\d)(\s+evidence)?"
)


# the fair-value hierarchy of financial statements (ASC 820 / IFRS 13): Level 1, 2, 3 inputs
_FAIR_VALUE = re.compile(r"(?i)fair\s+value|hierarch|\binputs?\b|quoted\s+prices|observable|unobservable")


def _level(scan: Scan, m: re.Match[str], value: str, explicit: bool) -> None:
    if not (explicit or standalone(scan.norm, m.start(), m.end())):
        return
    if not explicit and _FAIR_VALUE.search(scan.norm, max(0, m.start() - 60), m.end() + 60):
        return
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=value, ambiguous=not explicit))


def _h_oxford_suffix(scan: Scan, m: re.Match[str]) -> None:
    _level(
        scan,
        m,
        m.group(2) + m.group(3).lower(),
        m.group(1).lower() != "level" or bool(m.group(4)),
    )


def _h_oxford_plain(scan: Scan, m: re.Match[str]) -> None:
    _level(scan, m, m.group(2), m.group(1).lower() != "level" or bool(m.group(3)))


LEVEL_SUFFIX: Detector = (_OXFORD_SUFFIX, _h_oxford_suffix)
LEVEL_PLAIN: Detector = (_OXFORD_PLAIN, _h_oxford_plain)
