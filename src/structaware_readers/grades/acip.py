"""CDC / ACIP recommendation categories ``A``/``B`` with evidence types ``1``..``4``.

CDC guidelines print ``(recommendation category: A; evidence type: 3)`` after each recommendation.
Each needs its label, so method text ("category A or B") stays ungraded; an evidence type alone
grades cited evidence, not a recommendation, and a category the text talks about (no delimiter or
evidence type after it) is none. Source: CDC Clinical Practice Guideline for Prescribing Opioids for
Pain (MMWR Recomm Rep 71(3)), Box 3.
"""

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
    scan.add(
        Signal(SYSTEM, m.start(), m.end(), grade=category, level=etype, strength=STRENGTH.get(category, ""))
    )


CATEGORY_TYPE: Detector = (_CATEGORY_TYPE, _h_category_type)
