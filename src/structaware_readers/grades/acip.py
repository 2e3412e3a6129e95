"""CDC / ACIP recommendation categories ``A``/``B`` with evidence types ``1``..``4``."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal

SYSTEM = "CDC/ACIP"

#: ACIP category -> strength, as the GRADE working group's paradigm the CDC cites names it
STRENGTH = {"A": "strong", "B": "conditional"}

_CATEGORY_TYPE = re.compile(
    r"(?i)\brecommendation\s+category\s*[:]?\s*((?-i:[AB]))(?![\w+\-])(?=\s*(?:[;,)\].]|$|evidence\b))"
    r"(?:\s*[;,]?\s*evidence\s+type\s*[:]?\s*([1-4])(?![\w+\-.]))?"
)


def _h_category_type(scan: Scan, m: re.Match[str]) -> None:
    category, etype = m.group(1), m.group(2) or ""
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=category, level=etype, strength=STRENGTH.get(category, "")))


CATEGORY_TYPE: Detector = (_CATEGORY_TYPE, _h_category_type)
