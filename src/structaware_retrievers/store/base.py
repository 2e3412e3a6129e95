"""The ``VectorStore`` interface every Qdrant backend implements.

One store is one collection (or edge shard), one point per unit: id the unit id (idempotent
upserts), named vectors ``dense`` (cosine) and ``sparse`` (BM25 with ``Modifier.IDF``), payload
``Unit.to_payload()`` with indexes on :data:`PAYLOAD_INDEXES`. Hybrid search is fused inside Qdrant:
one filtered prefetch per vector, then RRF or DBSF. The dense prefetch weighs
:data:`RRF_DENSE_WEIGHT` (just above 1) so that exact RRF ties are ordered the same on every
backend.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from structaware_readers.errors import StoreError
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.query.fusion import DEFAULT_PREFETCH_LIMIT, DEFAULT_RRF_K, DEFAULT_WEIGHTS

__all__ = [
    "DENSE",
    "HNSW_FILTER_FIELDS",
    "PAYLOAD_INDEXES",
    "PENDING",
    "RRF_DENSE_WEIGHT",
    "SPARSE",
    "SUPERSEDED",
    "Fusion",
    "Mode",
    "PointRecord",
    "QueryPlan",
    "ScoredRecord",
    "VectorStore",
    "plan_query",
]

DENSE = "dense"
SPARSE = "sparse"

#: RRF weight of the dense prefetch (BM25 weighs 1.0): a deterministic tie-break, see the module docstring.
RRF_DENSE_WEIGHT = 1.001

Mode = Literal["hybrid", "dense", "sparse"]
Fusion = Literal["rrf", "dbsf"]

#: Write-protocol payload markers (:mod:`structaware_retrievers.index.commit`): a point whose payload
#: carries either one, a positive transaction number, is still being written (``_pending``) or was
#: replaced by a newer version (``_superseded``). Every read (count, scroll, retrieve, query)
#: skips such points unless it asks for them (``PointFilter(include_hidden=True)``), so a
#: document is visible only once all its points are written. Committed points carry neither.
PENDING = "_pending"
SUPERSEDED = "_superseded"

#: Payload fields indexed in every collection, with their Qdrant index type.
PAYLOAD_INDEXES: dict[str, Literal["keyword", "integer"]] = {
    "doc_id": "keyword",
    "doc_name": "keyword",
    "source": "keyword",
    "file_name": "keyword",
    "page": "integer",
    "pages": "integer",
    "unit_type": "keyword",
    "grade_label": "keyword",
    PENDING: "integer",
    SUPERSEDED: "integer",
}

#: The indexed fields whose filtered searches get their own HNSW links (Qdrant's payload sub-graphs,
#: the index's ``enable_hnsw``): the unit type and the grade, filters that keep a large share of a
#: library (a fifth of it for ``unit_type == table_row``). Every other field of
#: :data:`PAYLOAD_INDEXES` is indexed with ``enable_hnsw=False``: its filters (one document, a page
#: range, the write markers) keep few points, which Qdrant's query planner scores exactly from the
#: payload index, so their sub-graphs would be build time for nothing (more than half of
#: ``optimize()``'s: docs/benchmarks/scale.md).
HNSW_FILTER_FIELDS: frozenset[str] = frozenset({"unit_type", "grade_label"})


@dataclass
class PointRecord:
    """One stored point: id, vectors and payload (vectors may be ``None`` when not requested)."""

    id: str
    payload: dict[str, Any]
    dense: list[float] | None = None
    sparse: SparseVector | None = None


@dataclass
class ScoredRecord:
    """A search result: point id, fused (or single-vector) score, payload."""

    id: str
    score: float
    payload: dict[str, Any]


class VectorStore(ABC):
    """A Qdrant collection of evidence units (see the module docstring for its layout)."""

    #: where the data lives, for messages (folder path, URL or ``:memory:``) + collection name
    location: str

    # -- collection ------------------------------------------------------------------------
    @abstractmethod
    def exists(self) -> bool:
        """Whether the collection exists (it may be empty)."""

    @abstractmethod
    def create(self, dim: int, metadata: dict[str, Any]) -> None:
        """Create the collection (``dense`` of ``dim`` dims, cosine; ``sparse`` with IDF), its payload
        indexes, and store ``metadata`` (the index config) with it. Fails if it already exists."""

    @abstractmethod
    def dense_dim(self) -> int:
        """Dimension of the ``dense`` vector of the existing collection."""

    @abstractmethod
    def metadata(self) -> dict[str, Any]:
        """The metadata stored by :meth:`create` (``{}`` when none)."""

    # -- writes ----------------------------------------------------------------------------
    @abstractmethod
    def upsert(self, points: Sequence[PointRecord]) -> None:
        """Insert or replace points (both vectors required). Raises StoreError on a dimension mismatch."""

    @abstractmethod
    def delete_ids(self, ids: Sequence[str]) -> None:
        """Delete points by id (missing ids are ignored)."""

    @abstractmethod
    def delete(self, flt: PointFilter) -> int:
        """Delete the points matching ``flt`` (which must not be empty); return how many there were."""

    @abstractmethod
    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set the given payload keys on the points ``ids`` (one engine operation: all or none)."""

    @abstractmethod
    def delete_payload(self, ids: Sequence[str], keys: Sequence[str]) -> None:
        """Remove payload ``keys`` from the points ``ids`` (one engine operation: all or none)."""

    @abstractmethod
    def ensure_payload_indexes(self) -> list[str]:
        """Create the payload indexes of :data:`PAYLOAD_INDEXES` the existing collection lacks (a
        collection made by an older version has none on ``_pending``/``_superseded``, so every read
        would scan its payloads); idempotent. Returns the fields indexed now (sorted, ``[]`` when
        none was missing)."""

    def hold(self) -> contextlib.AbstractContextManager[None]:
        """Keep the engine for the block (several operations that belong together, e.g. one write
        transaction): the embedded backend lets another process use the data only between
        operations, and not inside this block. A no-op elsewhere."""
        return contextlib.nullcontext()

    def flush(self) -> None:  # noqa: B027 - optional hook
        """Make written data durable (no-op where the engine does it itself)."""

    def prepare(self, dim: int) -> None:  # noqa: B027 - optional hook
        """Do the slow part of :meth:`create` ahead, aside, while the caller does other work (a
        writer embeds meanwhile); nothing is visible until :meth:`create`. Best effort (a failure
        leaves :meth:`create` to do it all); no-op where creating is cheap."""

    def discard_prepared(self) -> None:  # noqa: B027 - optional hook
        """Undo :meth:`prepare` when no :meth:`create` follows (the writer's embedding failed)."""

    def release(self, *, only_if_wanted: bool = False) -> None:  # noqa: B027 - optional hook
        """Let other processes use the data until this handle's next operation (the embedded
        backend closes its shard if no other handle of the process has it open; with
        ``only_if_wanted`` only when another process waits for it); no-op elsewhere."""

    def optimize(self) -> None:  # noqa: B027 - optional hook
        """Run index optimisation (HNSW build, vacuum of deleted points) where the backend needs it."""

    # -- reads -----------------------------------------------------------------------------
    @abstractmethod
    def count(self, flt: PointFilter | None = None) -> int:
        """Exact number of points matching ``flt`` (all points when ``None``)."""

    @abstractmethod
    def scroll(
        self,
        flt: PointFilter | None = None,
        *,
        fields: Sequence[str] | None = None,
        with_vectors: bool = False,
        batch: int = 1000,
    ) -> Iterator[PointRecord]:
        """Iterate the matching points (payload limited to ``fields`` when given), in id order."""

    @abstractmethod
    def retrieve(
        self, ids: Sequence[str], *, with_vectors: bool = False, include_hidden: bool = False
    ) -> list[PointRecord]:
        """Points by id (missing ids, and hidden points unless ``include_hidden``, are skipped)."""

    def query(
        self,
        *,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        limit: int,
        mode: Mode = "hybrid",
        fusion: Fusion = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        flt: PointFilter | None = None,
        weights: tuple[float, float] = DEFAULT_WEIGHTS,
        mmr: tuple[float, int] | None = None,
        focus: tuple[PointFilter, float] | None = None,
    ) -> list[ScoredRecord]:
        """Search, best first; ``[]`` for an empty collection or an empty sparse query in sparse mode.

        ``"hybrid"`` prefetches ``prefetch_limit`` candidates per vector and fuses them inside Qdrant (RRF(``rrf_k``)
        with the (dense, BM25) ``weights``, or DBSF); ``flt`` applies inside every prefetch and at the top level.
        ``focus=(filter, weight)`` adds, to a hybrid RRF search with a BM25 query, a third prefetch: BM25 among the
        points ``filter`` also holds, fused with ``weight``.
        ``mmr=(lambda_mult, candidates)`` orders the dense search by maximal marginal relevance (1: relevance only, 0:
        diversity only). Raises ``StoreError`` (a mode without its vector, ``lambda_mult`` outside [0, 1], the engine
        refuses).
        """
        plan = plan_query(
            dense=dense, sparse=sparse, limit=limit, mode=mode, fusion=fusion, rrf_k=rrf_k,
            prefetch_limit=prefetch_limit, flt=flt, location=self.location, weights=weights, mmr=mmr, focus=focus,
        )  # fmt: skip
        return self._search(plan) if plan is not None else []

    async def aquery(
        self,
        *,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        limit: int,
        mode: Mode = "hybrid",
        fusion: Fusion = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        flt: PointFilter | None = None,
        weights: tuple[float, float] = DEFAULT_WEIGHTS,
        mmr: tuple[float, int] | None = None,
        focus: tuple[PointFilter, float] | None = None,
    ) -> list[ScoredRecord]:
        """Async :meth:`query` (same arguments and errors), through :meth:`_asearch`."""
        plan = plan_query(
            dense=dense, sparse=sparse, limit=limit, mode=mode, fusion=fusion, rrf_k=rrf_k,
            prefetch_limit=prefetch_limit, flt=flt, location=self.location, weights=weights, mmr=mmr, focus=focus,
        )  # fmt: skip
        return await self._asearch(plan) if plan is not None else []

    @abstractmethod
    def _search(self, plan: QueryPlan) -> list[ScoredRecord]:
        """Run ``plan`` on the engine, best first (translating it to the engine's request)."""

    async def _asearch(self, plan: QueryPlan) -> list[ScoredRecord]:
        """Async :meth:`_search`; the default runs it in a worker thread (``asyncio.to_thread``)."""
        import asyncio  # not at module level: asyncio (with ssl) stays off every CLI query

        return await asyncio.to_thread(self._search, plan)

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the engine (files, locks, connections)."""

    def __enter__(self) -> VectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True)
class QueryPlan:
    """One search, in engine-neutral terms (see :meth:`VectorStore.query` for the meaning): ``searches`` holds
    ``(vector name, query vector, RRF weight)`` per vector (dense first); ``fusion`` is ``None`` for a single-vector
    search; ``depth`` is the candidates per prefetch; ``flt`` applies in every prefetch and at the top level;
    ``focus`` holds further prefetches ``(vector name, query vector, RRF weight, filter)`` whose ``filter`` applies
    with ``flt``.
    """

    limit: int
    searches: tuple[tuple[str, list[float] | SparseVector, float], ...]
    fusion: Fusion | None
    rrf_k: int
    depth: int
    flt: PointFilter | None
    mmr_lambda: float | None = None
    focus: tuple[tuple[str, SparseVector, float, PointFilter], ...] = ()


def plan_query(
    *,
    dense: Sequence[float] | None,
    sparse: SparseVector | None,
    limit: int,
    mode: Mode,
    fusion: Fusion,
    rrf_k: int,
    prefetch_limit: int,
    flt: PointFilter | None,
    location: str,
    weights: tuple[float, float] = DEFAULT_WEIGHTS,
    mmr: tuple[float, int] | None = None,
    focus: tuple[PointFilter, float] | None = None,
) -> QueryPlan | None:
    """The :class:`QueryPlan` for :meth:`VectorStore.query`'s arguments; ``None`` when the answer is ``[]`` without
    asking the engine (sparse mode with no query terms). Raises ``StoreError``.
    """
    if len(weights) != 2 or not all(isinstance(w, (int, float)) and 0 < w < float("inf") for w in weights):
        raise StoreError(f"RRF weights must be two positive numbers, got {weights!r}", path=location, field="weights")
    if mmr is not None:
        lam, candidates = mmr
        if not 0.0 <= lam <= 1.0:
            raise StoreError(f"the MMR lambda must be in [0, 1], got {lam!r}", path=location, field="lambda_mult")
        if dense is None:
            raise StoreError("MMR needs a dense query vector", path=location, field="dense")
        return QueryPlan(
            limit=limit, searches=((DENSE, list(dense), 1.0),), fusion=None, rrf_k=rrf_k,
            depth=max(int(candidates), limit), flt=flt, mmr_lambda=float(lam),
        )  # fmt: skip
    searches: list[tuple[str, list[float] | SparseVector, float]] = []
    if dense is not None and mode != "sparse":
        searches.append((DENSE, list(dense), float(weights[0]) * RRF_DENSE_WEIGHT))
    if sparse is not None and sparse.indices and mode != "dense":
        searches.append((SPARSE, sparse, float(weights[1])))
    if mode == "dense" and not searches:
        raise StoreError("dense mode needs a dense query vector", path=location, field="dense")
    if mode == "sparse" and not searches:
        return None
    if not searches:
        raise StoreError("hybrid mode needs at least one query vector", path=location, field="query")
    fused = None if mode in ("dense", "sparse") else fusion
    focused: tuple[tuple[str, SparseVector, float, PointFilter], ...] = ()
    if focus is not None and focus[1] > 0 and fused == "rrf" and len(searches) == 2 and sparse is not None:
        focused = ((SPARSE, sparse, float(focus[1]), focus[0]),)
    return QueryPlan(
        limit=limit,
        searches=tuple(searches),
        fusion=fused,
        rrf_k=rrf_k,
        depth=max(prefetch_limit, limit),
        flt=flt,
        focus=focused,
    )
