"""One recommendation unit for a statement the document prints twice.

Journal guidelines print each recommendation in a summary near the front (``Summary of recommendation
statements``) and again in its chapter above the discussion. Two units of one statement fill two of a
search's first places with the same words and leave a third unit out. :func:`merge_repeated` keeps one
unit per statement with every place it is printed: the pages, element ids and bboxes of each copy, in
reading order. The copy kept (its context, section path and id) is the one a discussion links to, else the
last one (the chapter's); its text is the longest copy's; a grade or an abbreviation long form only another
copy has is added.

Two units are copies when both are ``recommendation`` units whose grades do not disagree and one's text
(after NFKC and whitespace folding) is the other's or opens it, the shorter being a whole statement: numbered
(``Recommendation 1.9.1:``, ``Practice Point 2.1:``) or at least :data:`MIN_STATEMENT_CHARS` characters. A
summary may print a statement with the lines that follow it while the chapter's unit ends at the statement and
leaves those lines to the discussion's section. A short bullet said in two protocols (``ask about sleep at every review``)
is two statements in two places and stays two units.
"""

from __future__ import annotations

import re
import unicodedata

from structaware_readers.models import Unit, UnitType

__all__ = ["MIN_STATEMENT_CHARS", "merge_repeated"]

#: Shortest unnumbered statement (characters) that, printed twice, is one recommendation printed twice.
MIN_STATEMENT_CHARS = 100
#: A statement that opens with its own label and number.
_NUMBERED = re.compile(r"^(?:[A-Z][\w-]*\s+){1,3}[A-Z]?\d+(?:\.\d+)*[a-z]?\s*[:.]\s")


def merge_repeated(units: list[Unit]) -> list[Unit]:
    """Return ``units`` (one document's, in order) with each repeated statement merged into one unit
    (module docstring); ordinals are renumbered, ids kept, links to a dropped copy point at the kept one."""
    linked = {target for unit in units for target in unit.linked_ids}
    dropped: dict[str, str] = {}  # id of a dropped copy -> id of the kept one
    merged: dict[int, Unit] = {}
    for members in _copies(units):
        for kept, copies in _partition(units, members, linked):
            merged[kept] = _merge(units[kept], [units[j] for j in copies])
            dropped.update({units[j].unit_id: units[kept].unit_id for j in copies})
    if not dropped:
        return units
    out: list[Unit] = []
    for i, unit in enumerate(units):
        if unit.unit_id in dropped:
            continue
        unit = merged.get(i, unit)
        if any(t in dropped for t in unit.linked_ids):
            unit.linked_ids = list(dict.fromkeys(dropped.get(t, t) for t in unit.linked_ids))
        unit.ordinal = len(out)
        out.append(unit)
    return out


def _copies(units: list[Unit]) -> list[list[int]]:
    """Groups (2+ positions, in order) of recommendation units whose folded texts are equal or one opens
    another, the shorter a whole statement."""
    texts = sorted(
        (_folded(u.text), i)
        for i, u in enumerate(units)
        if u.unit_type is UnitType.RECOMMENDATION and _is_statement(u.text)
    )
    groups: list[list[int]] = []
    head = ""
    for text, i in texts:  # sorted: a text that opens others comes just before them
        if groups and text.startswith(head):
            groups[-1].append(i)
        else:
            head = text
            groups.append([i])
    return [sorted(g) for g in groups if len(g) > 1]


def _folded(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()


def _is_statement(text: str) -> bool:
    text = " ".join(text.split())
    return len(text) >= MIN_STATEMENT_CHARS or bool(_NUMBERED.match(text))


def _grade_key(unit: Unit) -> tuple[str, str] | None:
    return None if unit.grade is None else (unit.grade.system, unit.grade.grade)


def _partition(units: list[Unit], members: list[int], linked: set[str]) -> list[tuple[int, list[int]]]:
    """Split one text's units into groups whose grades agree; each group with 2+ units gives its kept unit
    and the copies merged into it."""
    out: list[tuple[int, list[int]]] = []
    rest = list(members)
    while len(rest) > 1:
        key = next((_grade_key(units[i]) for i in rest if units[i].grade is not None), None)
        group = [i for i in rest if _grade_key(units[i]) in (key, None)]
        rest = [i for i in rest if i not in group]
        if len(group) > 1:
            kept = next((i for i in reversed(group) if units[i].unit_id in linked), group[-1])
            out.append((kept, [i for i in group if i != kept]))
    return out


def _merge(kept: Unit, copies: list[Unit]) -> Unit:
    """``kept`` holding every copy's elements in reading order (by ordinal), the longest text, its grade or a
    copy's."""
    places = sorted([kept, *copies], key=lambda u: u.ordinal)
    longest = max(places, key=lambda u: len(_folded(u.text)))
    element_ids = [e for u in places for e in u.element_ids]
    bboxes = [b for u in places for b in u.bboxes]
    element_pages = [p for u in places for p in u.element_pages]
    return kept.model_copy(
        update={
            "text": kept.text if len(_folded(kept.text)) == len(_folded(longest.text)) else longest.text,
            "pages": sorted({p for u in places for p in u.pages}),
            "element_ids": element_ids,
            "bboxes": bboxes,
            "element_pages": element_pages,
            "source_element_ids": [e for u in places for e in u.source_element_ids],
            "grade": kept.grade or next((u.grade for u in copies if u.grade is not None), None),
            "expansions": list(dict.fromkeys(e for u in (kept, *copies) for e in u.expansions)),
        }
    )
