"""Query-time evidence packing over :class:`~structaware_retrievers.search.results.SearchHit` lists.

Lengths are characters of what an LLM is handed, ``len(unit.embedding_text())``.
:func:`group_table_rows` makes a table's best row the hit and lets up to ``group_size - 1`` further
matched rows ride along in ``SearchHit.group`` (short ones: a paragraph-long row is evidence of its own),
so the top k shows k different pieces of evidence.
:func:`bring_linked` places a discussion's recommendation (``Unit.linked_ids``) just above it.
:func:`fit_budget` keeps the best hits within a character budget. :func:`neighbours` reads a hit's
neighbourhood from the store (:data:`WINDOW` units either side): adjacent rows of a table row, the
section lead of a recommendation, flowchart edges sharing a node, adjacent parts of a section.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from structaware_readers.models import Unit, UnitType
from structaware_retrievers.query.filters import Match, PointFilter, Range
from structaware_retrievers.query.fusion import GROUP_LONG_ROW_CHARS, GROUP_SHORT_ROW_CHARS
from structaware_retrievers.search.results import SearchHit, hit_unit, row_line

if TYPE_CHECKING:
    from structaware_retrievers.store.base import VectorStore

__all__ = [
    "WINDOW",
    "bring_linked",
    "evidence_units",
    "fit_budget",
    "group_table_rows",
    "hit_unit",
    "neighbours",
    "unit_chars",
]

#: units of the same document read either side of a hit (by ``ordinal``) to find its neighbours
WINDOW = 40
_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s+|(?<=[。！？；])")


def unit_chars(unit: Unit) -> int:
    """Characters handed to an LLM for a unit: ``len(context + "\\n" + text)``."""
    return len(unit.embedding_text())


def group_table_rows(
    hits: Sequence[SearchHit],
    group_size: int,
    k: int,
    *,
    short_row_chars: int = GROUP_SHORT_ROW_CHARS,
    long_row_chars: int = GROUP_LONG_ROW_CHARS,
) -> list[SearchHit]:
    """Merge the rows of one table among ``hits`` (fused candidates, best first) into one hit: a row joins the
    group of the table's best row when its line (:func:`row_line`, characters) is at most ``long_row_chars``,
    a row past the second at most ``short_row_chars``. A row left out is a hit of its own after the others."""
    if group_size <= 1:
        return list(hits[:k])
    out: list[SearchHit] = []
    rest = list(hits)
    while rest and len(out) < k:
        more, rest = _group_once(rest, group_size, short_row_chars, long_row_chars)
        out.extend(more)
    return [h.model_copy(update={"rank": i}) for i, h in enumerate(out[:k], 1)]


def _group_once(
    hits: Sequence[SearchHit], group_size: int, short_row_chars: int, long_row_chars: int
) -> tuple[list[SearchHit], list[SearchHit]]:
    """One pass of :func:`group_table_rows`: ``(hits with their groups, rows set aside)``."""
    out: list[SearchHit] = []
    overflow: list[SearchHit] = []
    head: dict[tuple[str, str], SearchHit] = {}  # (doc_id, table_id) -> the hit holding its group
    for hit in hits:
        table = hit.unit.table if hit.unit.unit_type == UnitType.TABLE_ROW else None
        key = (hit.unit.doc_id, table.table_id) if table is not None else None
        if key is not None and key in head:
            group = head[key].group
            size = len(row_line(hit.unit))
            fits = size <= (short_row_chars if group else long_row_chars)
            if len(group) < group_size - 1 and fits:
                group.append(hit.unit)
            else:
                overflow.append(hit)
            continue
        new = hit.model_copy(update={"group": []})
        if key is not None:
            head[key] = new
        out.append(new)
    return out, overflow


def bring_linked(hits: Sequence[SearchHit], candidates: Sequence[SearchHit], k: int) -> list[SearchHit]:
    """Each hit's linked unit placed just above it, unless already placed higher; the first ``k`` hits, ranked 1..k
    again.
    """
    position = {h.unit.unit_id: i for i, h in reversed(list(enumerate(candidates)))}
    by_id = {**{h.unit.unit_id: h for h in candidates}, **{h.unit.unit_id: h for h in hits}}
    placed: set[str] = set()
    out: list[SearchHit] = []
    for hit in hits:
        if hit.unit.unit_id in placed:
            continue
        found = [uid for uid in hit.unit.linked_ids if uid in position and uid not in placed]
        if found:
            uid = min(found, key=position.__getitem__)
            out.append(by_id[uid].model_copy(update={"score": hit.score}))
            placed.add(uid)
        out.append(hit)
        placed.add(hit.unit.unit_id)
    return [h.model_copy(update={"rank": i}) for i, h in enumerate(out[:k], 1)]


def fit_budget(hits: Sequence[SearchHit], budget_chars: int) -> list[SearchHit]:
    """The best hits that fit ``budget_chars`` together, then what still fits of their extras."""
    kept: list[SearchHit] = []
    left = budget_chars
    for hit in hits:
        need = unit_chars(hit.unit)
        if need <= left:
            kept.append(hit)
            left -= need
    out: list[SearchHit] = []
    for hit in kept:
        extras: dict[str, list[Unit]] = {"group": [], "neighbours": []}
        for name, got in extras.items():
            for n in getattr(hit, name):
                need = len(row_line(n)) + 1 if name == "group" else unit_chars(n)
                if need <= left:
                    got.append(n)
                    left -= need
        changed = len(extras["group"]) != len(hit.group) or len(extras["neighbours"]) != len(hit.neighbours)
        out.append(hit.model_copy(update=extras) if changed else hit)
    return out


def evidence_units(hits: Sequence[SearchHit]) -> Iterator[tuple[SearchHit, Unit, str | None]]:
    """Every unit the hits hand over, in order: each hit's unit (:func:`hit_unit`: with its table-group rows), then its
    neighbours (``expand=True``).
    """
    seen: set[str] = set()
    for hit in hits:
        if hit.unit.unit_id not in seen:
            yield hit, hit_unit(hit), None
            seen.update([hit.unit.unit_id, *(u.unit_id for u in hit.group)])
        else:  # its record would repeat a unit: its rows not given yet follow on their own
            for row in hit.group:
                if row.unit_id not in seen:
                    seen.add(row.unit_id)
                    yield hit, row, hit.unit.unit_id
        for unit in hit.neighbours:
            if unit.unit_id in seen:
                continue
            seen.add(unit.unit_id)
            yield hit, unit, hit.unit.unit_id


def _lead_sentence(text: str) -> str:
    first = _SENTENCE.split(text.strip(), maxsplit=1)[0]
    return first.strip()


def neighbours(store: VectorStore, unit: Unit) -> list[Unit]:
    """The evidence neighbourhood of ``unit`` (see the module docstring), in document order."""
    if unit.unit_type not in (UnitType.TABLE_ROW, UnitType.RECOMMENDATION, UnitType.FLOW_PATH, UnitType.SECTION):
        return []
    flt = PointFilter(
        must=(
            Match("doc_id", (unit.doc_id,)),
            Range("ordinal", gte=max(0, unit.ordinal - WINDOW), lte=unit.ordinal + WINDOW),
        )
    )
    window = sorted((Unit.from_payload(r.payload) for r in store.scroll(flt)), key=lambda u: u.ordinal)
    window = [u for u in window if u.unit_id != unit.unit_id]
    if unit.unit_type == UnitType.TABLE_ROW and unit.table is not None:
        i, tid = unit.table.row_index, unit.table.table_id
        return [
            u for u in window if u.table is not None and u.table.table_id == tid and abs(u.table.row_index - i) == 1
        ]
    if unit.unit_type == UnitType.FLOW_PATH and unit.flow is not None:
        f = unit.flow
        return [
            u
            for u in window
            if u.flow is not None
            and u.flow.flowchart_id == f.flowchart_id
            and (u.flow.target == f.source or u.flow.source == f.target or u.flow.source == f.source)
        ]
    same_section = [u for u in window if u.unit_type == UnitType.SECTION and u.section_path == unit.section_path]
    if unit.unit_type == UnitType.SECTION:
        return [u for u in same_section if abs(u.ordinal - unit.ordinal) == 1]
    parents = [u for u in same_section if u.ordinal < unit.ordinal]  # recommendation
    if not parents:
        return []
    parent = parents[0]
    lead = _lead_sentence(parent.text)
    return [parent.model_copy(update={"text": lead})] if lead else []
