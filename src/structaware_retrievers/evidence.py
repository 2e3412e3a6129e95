"""Query-time evidence packing: fit hits to a character budget, expand a hit to its neighbourhood.

Both work on :class:`~structaware_retrievers.index.SearchHit` lists returned by
``StructureIndex.query`` (``budget_chars=``, ``expand=``); lengths are characters of what an LLM is
handed for a unit, ``len(unit.embedding_text())`` (``context + "\\n" + text``), the measure of the
evaluation's budgeted page hit (paper Table 5).

Neighbourhood of a hit (units of the same document, read from the store around the hit's
``ordinal``; :data:`WINDOW` units either side):

* ``table_row``: the rows just above and below in the same table (``table.row_index`` +- 1). The
  header row travels with every row already: it is part of the row's ``context``.
* ``recommendation``: the lead sentence of its parent section (the nearest section unit before it
  with the same ``section_path``), as a copy of that unit whose ``text`` is cut to its first sentence.
* ``flow_path``: the edges of the same flowchart that share a node with it (into its source, out of
  its target, or from the same source).
* ``section``: the adjacent parts of the same section (a long section is split in parts of at most
  ``UnitOptions.max_section_chars``).
* ``figure`` and baseline types: none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from structaware_readers.models import Unit, UnitType
from structaware_retrievers.filters import Match, PointFilter, Range

if TYPE_CHECKING:
    from structaware_retrievers.index import SearchHit
    from structaware_retrievers.store.base import VectorStore

__all__ = ["WINDOW", "evidence_units", "fit_budget", "neighbours", "unit_chars"]

#: units of the same document read either side of a hit (by ``ordinal``) to find its neighbours
WINDOW = 40
_SENTENCE = re.compile(r"(?<=[.!?。！？;；])\s+|(?<=[。！？；])")


def unit_chars(unit: Unit) -> int:
    """Characters handed to an LLM for a unit: ``len(context + "\\n" + text)``."""
    return len(unit.embedding_text())


def fit_budget(hits: Sequence[SearchHit], budget_chars: int) -> list[SearchHit]:
    """The best hits that fit ``budget_chars`` together: hits in rank order, each kept when it
    still fits (``unit_chars`` of the unit plus those of its ``neighbours``; neighbours that do not
    fit are dropped first), else skipped so that a later, shorter hit may still enter.
    Ranks are kept as retrieved (so gaps show skipped hits)."""
    out: list[SearchHit] = []
    left = budget_chars
    for hit in hits:
        need = unit_chars(hit.unit)
        if need > left:
            continue
        left -= need
        kept: list[Unit] = []
        for n in hit.neighbours:
            if unit_chars(n) <= left:
                kept.append(n)
                left -= unit_chars(n)
        out.append(hit.model_copy(update={"neighbours": kept}) if len(kept) != len(hit.neighbours) else hit)
    return out


def evidence_units(hits: Sequence[SearchHit]) -> Iterator[tuple[SearchHit, Unit, str | None]]:
    """Every unit the hits hand over, in order: each hit's unit, then its neighbours (``expand=True``).

    Yields ``(hit, unit, expanded_from)``: ``expanded_from`` is ``None`` for the hit's own unit, else the
    hit's unit id; a unit already given (a neighbour that is also a hit) is not repeated. The one walk
    behind ``structaware query``, the LlamaIndex retriever's nodes and the LangChain retriever's documents.
    """
    seen: set[str] = set()
    for hit in hits:
        for unit in [hit.unit, *hit.neighbours]:
            if unit.unit_id in seen:
                continue
            seen.add(unit.unit_id)
            yield hit, unit, (None if unit is hit.unit else hit.unit.unit_id)


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
    window = sorted(
        (Unit.from_payload(r.payload) for r in store.scroll(flt)), key=lambda u: u.ordinal
    )
    window = [u for u in window if u.unit_id != unit.unit_id]
    if unit.unit_type == UnitType.TABLE_ROW and unit.table is not None:
        i, tid = unit.table.row_index, unit.table.table_id
        return [u for u in window if u.table is not None and u.table.table_id == tid and abs(u.table.row_index - i) == 1]
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
