"""The result models of :class:`~structaware_retrievers.index.structure_index.StructureIndex`: what a query returns
(:class:`SearchHit`) and what an ingest did (:class:`IngestReport`, :class:`IngestSummary`,
:class:`IngestFailure`, :class:`IngestError`).

Plain pydantic models with no store or encoder behind them, so every module that hands results on
(the evidence packing, the ingest pipeline, the CLI, ``serve``, the framework faces) imports them
from here without importing the index.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from structaware_readers.common.column_spans import merged_once
from structaware_readers.errors import IngestError
from structaware_readers.models import Unit

__all__ = ["IngestError", "IngestFailure", "IngestReport", "IngestSummary", "SearchHit", "hit_unit", "row_line"]


class SearchHit(BaseModel):
    """One search result: the full unit, its score and its 1-based rank.

    ``score`` is, higher being better: for hybrid RRF, the sum over the two prefetches of
    ``1 / (r / w + rrf_k - 1)`` with ``r`` the 1-based rank in that prefetch (Qdrant's definition;
    ``w`` = 1.001 for dense, 1 for BM25, a deterministic tie-break: see ``store/base.py``), so a
    unit first in both lists scores about ``2 / rrf_k``;
    for hybrid DBSF, the sum of each prefetch's scores normalised by mean +- 3 standard deviations;
    for dense search, the cosine similarity; for sparse search, the BM25 score (TF weight x IDF).
    These orders are per question: the best hit of any question scores alike.

    ``relevance`` is the calibrated score in [0, 1] that means the same from question to question
    (:mod:`structaware_retrievers.search.calibration`): below ``DEFAULT_MIN_SCORE`` (0.5), "not in this
    library"; ``None`` on a hit that was not calibrated.
    """

    unit: Unit
    score: float
    rank: int = Field(ge=1)
    relevance: float | None = Field(default=None, ge=0.0, le=1.0)
    #: the unit's evidence neighbourhood when the query asked for ``expand=True`` (adjacent table
    #: rows, the parent section's lead sentence, neighbouring flow edges, adjacent section parts;
    #: see :mod:`structaware_retrievers.search.evidence`), in document order; empty otherwise
    neighbours: list[Unit] = Field(default_factory=list)
    #: other matched rows of the hit's table (``group_size`` > 1 and a ``table_row`` hit), best
    #: first: rows that ranked below the hit among the fused candidates (see
    #: :func:`structaware_retrievers.search.evidence.group_table_rows`); empty otherwise
    group: list[Unit] = Field(default_factory=list)

    def to_record(self, unit: Unit | None = None) -> dict[str, Any]:
        """A flat JSON-safe dict (``structaware serve``; the fields of ``structaware query --json``): ``rank``,
        ``score``, ``relevance``, ``unit_type``, ``unit_id``, ``doc``, ``doc_id``, ``pages`` (1-based), ``element_ids``,
        ``bboxes`` (0..1 of the page, origin top-left), ``element_pages`` (the 1-based page of each
        element and bbox), ``context``, ``text``, ``grade`` (or ``None``), ``group_unit_ids`` (the unit ids
        of the table-group rows the record holds after its own, best first; ``[]`` for none).

        ``unit``: one of :attr:`neighbours`, recorded under this hit's rank and score (default: the unit
        the hit hands over, :func:`hit_unit`: with its table-group rows). The hit's own unit given here
        (as :func:`~structaware_retrievers.search.evidence.evidence_units` yields it) is recorded as the default
        is, its group rows' ids with it: the record's text holds those rows.
        """
        own = unit is None or unit.unit_id == self.unit.unit_id
        group = self.group if own else []
        u = hit_unit(self) if own else unit
        return {
            "rank": self.rank,
            "score": self.score,
            "relevance": self.relevance,
            "unit_type": u.unit_type.value,
            "unit_id": u.unit_id,
            "doc": u.doc_name,
            "doc_id": u.doc_id,
            "pages": u.pages,
            "element_ids": u.element_ids,
            "bboxes": u.bboxes,
            "element_pages": u.element_pages,
            "context": u.context,
            "text": u.text,
            "grade": u.grade.model_dump() if u.grade else None,
            "group_unit_ids": [g.unit_id for g in group],
        }


def row_line(unit: Unit) -> str:
    """A table row as one line of a group: its cells ``" | "``-joined, empty cells kept so the
    columns stay in place (``Vitamin B12 | X | Xa | Xa``), as the rows of a Markdown table; the
    unit's ``text`` for a unit without cells. The group's first row, the hit's own, keeps its
    ``header: value`` text and the hit's context names the columns, so the headers are not repeated
    on every row (on a 10-Q statement they are most of a row's characters). A cell merged across
    columns (longer than :data:`~structaware_readers.common.column_spans.MERGED_CELL_CHARS` and the same as the last
    filled cell left of it) is given once, its repeats left empty, as the row's own text gives it."""
    line = merged_once(unit.table.cells) if unit.table is not None else []
    return " | ".join(line) if any(line) else unit.text


def hit_unit(hit: SearchHit) -> Unit:
    """The unit a hit hands over: its own unit, or, when it has ``group`` rows, one unit holding the
    hit's row then its group rows, best first (``text``: the hit's row text, then one
    :func:`row_line` per group row, newline-joined; the hit's ``context`` once;
    ``pages``, ``element_ids``/``bboxes``/``element_pages`` and ``source_element_ids`` of every row).
    Ids, type, grade and ``table`` stay the hit's (the best row), so a node or document of a grouped
    hit is addressed by its best row; the other rows' ids are ``[u.unit_id for u in hit.group]``."""
    if not hit.group:
        return hit.unit
    rows = [hit.unit, *hit.group]
    refs = list(
        dict.fromkeys(
            (e, tuple(b) if b is not None else None, p)
            for u in rows
            for e, b, p in zip(u.element_ids, u.bboxes, u.element_pages)
        )
    )
    return hit.unit.model_copy(
        update={
            "text": "\n".join([hit.unit.text, *(row_line(u) for u in hit.group)]),
            "pages": sorted({p for u in rows for p in u.pages}),
            "element_ids": [e for e, _, _ in refs],
            "bboxes": [b for _, b, _ in refs],
            "element_pages": [p for _, _, p in refs],
            "source_element_ids": list(dict.fromkeys(i for u in rows for i in u.source_element_ids)),
        }
    )


class IngestReport(BaseModel):
    """What :meth:`StructureIndex.add_document <structaware_retrievers.index.structure_index.StructureIndex.add_document>`
    did for one document.

    Attributes:
        doc_id, doc_name, source: the document.
        units: number of units given.
        skipped: the index already held exactly these units for this document: nothing written.
        written: points upserted.
        removed_stale: points of this ``doc_id`` that are not in the new unit set.
        removed_old_versions: points of the same ``source`` path under another ``doc_id``
            (an older version of the file).
        embedded: texts the dense encoder actually ran (cache misses).
        seconds: wall time of the call; embed_seconds: of which embedding (dense + sparse).
        warnings: the document's ``ParsedDocument.warnings`` (problems met while reading it that
            did not stop it, each naming its page and element).
    """

    doc_id: str
    doc_name: str = ""
    source: str = ""
    units: int
    skipped: bool = False
    written: int = 0
    removed_stale: int = 0
    removed_old_versions: int = 0
    embedded: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    warnings: list[str] = Field(default_factory=list)


class IngestFailure(BaseModel):
    """One input that could not be ingested: its path, the error class name and message."""

    path: str
    error_type: str
    message: str


class IngestSummary(BaseModel):
    """Result of :meth:`StructureIndex.ingest <structaware_retrievers.index.structure_index.StructureIndex.ingest>`.

    Attributes:
        documents: documents written (new or changed).
        units: units written.
        skipped_unchanged: documents already indexed with identical units.
        failed: inputs that failed (the others were still ingested).
        skipped_files: files in the given folders that no reader takes (a ``.txt``, a ``.docx``;
            :func:`structaware_readers.common.inputs.scan_inputs`), as paths.
        seconds: total wall time; embedding_seconds: of which embedding.
        reports: one :class:`IngestReport` per document that was read.
    """

    documents: int = 0
    units: int = 0
    skipped_unchanged: int = 0
    failed: list[IngestFailure] = Field(default_factory=list)
    skipped_files: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    embedding_seconds: float = 0.0
    reports: list[IngestReport] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def raise_for_errors(self) -> None:
        """Raise :class:`IngestError` listing the failed inputs, if any."""
        if self.failed:
            raise IngestError(self.failed)
