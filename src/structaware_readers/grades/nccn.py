"""NCCN categories of evidence and consensus: ``1``, ``2A``, ``2B``, ``3`` (also ``2A类推荐``, ``（2B类）``)."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import Detector, Scan, Signal, after_classifier

SYSTEM = "NCCN"

#: NCCN preference tiers printed with the category (NCCN Categories of Preference): name -> stored value
PREFERENCE = {
    "preferred": "preferred",
    "other recommended": "other recommended",
    "useful in certain circumstances": "useful in certain circumstances",
}
_NCCN = re.compile(
    r"(?i)\b(?:NCCN\s+)?categor(?:y|ies)(?:\s+of\s+evidence(?:\s+and\s+consensus)?)?\s*[:]?\s*"
    r"(2A|2B|1|3)(?!\w|\.\d)"
    r"(?:\s*[,;]\s*(preferred|other\s+recommended|useful\s+in\s+certain\s+circumstances)\b)?"
)
_NCCN_ZH = re.compile(r"(?<![A-Za-z0-9.])(2A|2B|1|3)\s*类\s*推荐", re.IGNORECASE)
_NCCN_ZH_BRACKET = re.compile(r"[(\[]\s*(2A|2B|1|3)\s*类\s*[)\]]", re.IGNORECASE)


# a bare "category 1/3" must read as a label: "(category 1)", "category 3: useful in ...", "a category 1
# recommendation"; "a Category 3 hurricane" and "BI-RADS category 3" are not grades
_FOLLOW = re.compile(r"(?i)\s*(?:$|[)\],;.:|/\n]|recommendation|evidence|and\b|or\b|preferred)")


def _h_nccn(scan: Scan, m: re.Match[str]) -> None:
    grade = m.group(1).upper()
    if after_classifier(scan.norm, m.start()):
        return  # "BI-RADS category 3", "Bethesda category 2": an imaging or cytology class
    if grade in ("1", "3") and "nccn" not in m.group(0).lower() and not _FOLLOW.match(scan.norm, m.end()):
        return
    tier = PREFERENCE[" ".join(m.group(2).lower().split())] if m.group(2) else ""
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=grade, preference=tier))


def _h_nccn_zh(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1).upper()))


CATEGORY: Detector = (_NCCN, _h_nccn)
CATEGORY_ZH: Detector = (_NCCN_ZH, _h_nccn_zh)
CATEGORY_ZH_BRACKET: Detector = (_NCCN_ZH_BRACKET, _h_nccn_zh)
