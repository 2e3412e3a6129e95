"""How :func:`.harness.run_eval` indexes and searches: one :class:`~structaware_retrievers.index.structure_index.StructureIndex`
collection per unit-construction method (:func:`open_method_index`), searched through
:class:`MethodSearcher` (or a peer pipeline of :mod:`.peers`: anything that is a :class:`Searcher`),
with encoders that share one embedding cache (:func:`default_encoders`, :func:`prewarm`) and the
product's own budget packing (:func:`packed_budget_hits`)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from structaware_readers.errors import StoreError
from structaware_readers.models import Unit
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder

__all__ = [
    "MethodSearcher",
    "NoDenseEncoder",
    "Searcher",
    "default_encoders",
    "open_method_index",
    "packed_budget_hits",
    "prewarm",
]


class Searcher(Protocol):
    """Anything that returns ranked units for a query (our index per method, or a peer pipeline)."""

    def search(self, text: str, *, k: int, mode: str, doc_id: str | None) -> list[Unit]: ...


class MethodSearcher:
    """One method's units in a :class:`StructureIndex` collection; the same search code for all methods."""

    def __init__(self, index: Any, rerank: Any = None):
        self.index = index
        #: the ``rerank=`` of every query (:mod:`structaware_retrievers.search.rerank`; ``None``: the product default,
        #: on for hybrid search; ``False``: the fused order)
        self.rerank = rerank
        #: the hits of the last :meth:`search` (for the product's own budget packing, policy ``pack``)
        self.last_hits: list[Any] = []

    def search(self, text: str, *, k: int, mode: str, doc_id: str | None) -> list[Unit]:
        """Top ``k`` results (best first), one unit per hit with the index's default table groups: a hit whose
        ``group`` holds other rows of its table is judged as the one unit the retrievers hand over for it
        (:func:`structaware_retrievers.search.evidence.hit_unit`).
        """
        from structaware_retrievers.query.filters import SearchFilter
        from structaware_retrievers.search.evidence import hit_unit
        from structaware_retrievers.search.options import SearchOptions

        flt = SearchFilter(doc_ids=[doc_id]) if doc_id is not None else None
        self.last_hits = []
        if mode == "sparse" and not self.index.sparse.embed_query(text).indices:
            return []  # the index would answer with its dense fallback: not BM25's result
        options = SearchOptions(k=k, mode=mode, filter=flt, prefetch_limit=max(50, k), rerank=self.rerank, min_score=0)
        hits = self.index.query(text, options)
        self.last_hits = sorted(hits, key=lambda h: h.rank)
        return [hit_unit(h) for h in self.last_hits]


def packed_budget_hits(
    hits: Sequence[Any], doc_id: str, gold_pages: Sequence[int], budgets: Sequence[int]
) -> dict[int, bool]:
    """Policy ``pack``: whether ``StructureIndex.query(..., budget_chars=B)`` would hand over a unit of
    ``doc_id`` on a gold page, for each budget B (:func:`structaware_retrievers.search.evidence.fit_budget`
    over the same hits: skip what does not fit, drop group rows before hits)."""
    from structaware_retrievers.search.evidence import evidence_units, fit_budget

    wanted = set(gold_pages)
    return {
        b: any(u.doc_id == doc_id and wanted.intersection(u.pages) for _, u, _ in evidence_units(fit_budget(hits, b)))
        for b in budgets
    }


def open_method_index(method: str, root: Path, dense: Any, sparse: Any, say: Callable[[str], None]) -> Any:
    """The method's index in ``root/<method>`` (``<method>.bm25-only`` with the placeholder dense
    encoder). An index there that was built with other encoders (its config does not match) is
    derived data of an earlier run: it is removed and rebuilt (the embedding cache stays)."""
    from structaware_retrievers.index.structure_index import StructureIndex

    folder = root / (method if not isinstance(dense, NoDenseEncoder) else f"{method}.bm25-only")
    try:
        return StructureIndex(folder, collection=f"eval_{method}", dense=dense, sparse=sparse)
    except StoreError as exc:
        if not (folder / f"eval_{method}").is_dir():
            raise
        say(f"[{method}] rebuilding the evaluation index: {exc.message}")
        shutil.rmtree(folder / f"eval_{method}")
        return StructureIndex(folder, collection=f"eval_{method}", dense=dense, sparse=sparse)


class NoDenseEncoder(DenseEncoder):
    """Placeholder dense encoder for BM25-only runs: every text gets the same unit vector, no model
    is loaded, and no query uses the vector (sparse mode searches BM25 only). It lets a BM25-only
    run over a large corpus skip the dense model, the slow part of indexing."""

    def __init__(self, cache: EmbeddingCache | None = None):
        super().__init__(cache=cache)
        self.model_name = "structaware-eval/no-dense"
        self.model_id = "structaware-eval/no-dense@1"

    def _compute(self, texts: list[str]) -> list[Any]:
        v = np.zeros(self.dim, dtype=np.float32)
        v[0] = 1.0
        return [v] * len(texts)

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("the BM25-only placeholder encoder cannot embed queries")


def default_encoders(cache_dir: Path, *, need_dense: bool = True) -> tuple[DenseEncoder, SparseEncoder]:
    """The package's default encoders sharing one persistent embedding cache (SQLite, keyed by
    model id and content hash) under ``cache_dir``: a text embedded once is reused by every method
    and every later run with the same ``index_dir``. Without ``need_dense`` (BM25-only runs) the
    dense encoder is :class:`NoDenseEncoder`, which loads no model."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(cache_dir / "embeddings.sqlite")
    dense = DenseEncoder(cache=cache) if need_dense else NoDenseEncoder(cache=cache)
    return dense, SparseEncoder(cache=cache)


def prewarm(encoders: Sequence[Any], texts: Sequence[str], say: Callable[[str], None], label: str) -> None:
    """Embed the distinct ``texts`` once, shortest first, into the encoders' caches before indexing.

    Batches of similar length pad less (the dense model pads a batch to its longest text), and
    texts already embedded for another method or an earlier run are cache hits."""
    uniq = sorted(set(texts), key=len)
    step = 1024
    t0 = time.perf_counter()
    for i in range(0, len(uniq), step):
        part = uniq[i : i + step]
        for enc in encoders:
            enc.embed_documents(part)
        done = min(i + step, len(uniq))
        say(f"[{label}] embedded {done}/{len(uniq)} distinct texts ({time.perf_counter() - t0:.0f}s)")
