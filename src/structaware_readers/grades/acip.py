"""CDC / ACIP recommendation categories ``A``/``B`` with evidence types ``1``..``4``.

The CDC prints each recommendation of an ACIP-adapted GRADE guideline with both, in brackets at
its end: ``(recommendation category: A; evidence type: 3)``. Category A applies to all persons
(a strong recommendation), category B to individual decisions; evidence type 1 (randomized trials)
to 4 (clinical experience, observational studies with important limitations). The category needs
its ``recommendation category`` label and the type its ``evidence type`` label, so the method text
("assigned one of two categories (category A or B)", "type 1 or type 2 evidence") stays ungraded.
A label split over two lines keeps working: whitespace between the words may be a line break. An
evidence type alone (``(evidence type 2)`` after a review's finding) grades cited evidence, not a
recommendation: no grade; so is a category the text talks about ("Recommendation category B
acknowledges ..."): the category must be followed by a delimiter or its evidence type.

Source: CDC Clinical Practice Guideline for Prescribing Opioids for Pain, 2022 (MMWR Recomm Rep
71(3)), Box 3; ACIP Grading of Recommendations, Assessment, Development and Evaluation.
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
