"""The read side of a :class:`~structaware_retrievers.index.structure_index.StructureIndex`: a question in, hits out.

One query, in order:

1. the question embedded (BM25 terms; the dense vector unless there is no BM25 term or the question is mostly CJK
   and the dense model lacks those languages);
2. one Qdrant query: dense and sparse prefetches fused inside Qdrant (a question that asks for a grade adds a
   BM25 prefetch among recommendation units: ``SearchOptions.grade_focus``);
3. the fused list packed (table rows grouped, linked units above their hit), re-ordered with ``rerank``, given
   calibrated relevance, cut under ``min_score``, expanded on request and fitted to the character budget.

Steps 2 and 3 run in one ``VectorStore.hold`` block, so a hit's neighbours come from the same version of its
document.
"""

from __future__ import annotations

from typing import Any

from structaware_readers.errors import IndexNotFoundError, MalformedInputError
from structaware_readers.models import Unit
from structaware_retrievers.encoders import DenseEncoder, SparseEncoder
from structaware_retrievers.encoders.sparse import NO_BM25_TERMS
from structaware_retrievers.query.filter_keys import check_keys
from structaware_retrievers.query.filters import FilterLike, HasId, PointFilter, evidence_default, to_point_filter
from structaware_retrievers.query.intent import asks_for_grade
from structaware_retrievers.search import calibration, evidence
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import Rerank, rerank_order, resolve_rerank
from structaware_retrievers.search.results import SearchHit
from structaware_retrievers.store.base import ScoredRecord, VectorStore

__all__ = ["IndexSearcher"]

#: The units the grade prefetch searches among.
GRADED = PointFilter.match("unit_type", "recommendation")


class IndexSearcher:
    """Searches one collection of ``store`` with the ``dense`` and ``sparse`` encoders.

    :meth:`query` takes a :class:`~structaware_retrievers.search.options.SearchOptions` (its fields are
    documented at :meth:`StructureIndex.query <structaware_retrievers.index.structure_index.StructureIndex.query>`).
    """

    def __init__(self, store: VectorStore, dense: DenseEncoder, sparse: SparseEncoder, *, collection: str) -> None:
        self.store = store
        self.dense = dense
        self.sparse = sparse
        self.collection = collection
        self.known_keys: set[str] = set()  # metadata paths some point was found to carry

    def check_filter(self, flt: PointFilter | None) -> None:
        """Raises :class:`~structaware_readers.errors.UnknownFilterError` when the compiled filter
        ``flt`` names a metadata key no unit of the index carries (:mod:`structaware_retrievers.query.filter_keys`)."""
        check_keys(self.store, flt, self.known_keys)

    def require_index(self) -> None:
        """Raises :class:`IndexNotFoundError` (naming the store's location) when the collection is
        missing or empty."""
        if not self.store.exists() or self.store.count() == 0:
            raise IndexNotFoundError(
                "the index is missing or empty: ingest documents first (StructureIndex.ingest(paths) or"
                " `structaware ingest <files>`), or point to the right index (path=, $STRUCTAWARE_INDEX, url=,"
                f" collection={self.collection!r})",
                path=self.store.location,
            )

    def _prepare(self, text: str, options: SearchOptions) -> dict[str, Any]:
        """Check the question and embed it: the keyword arguments of :meth:`VectorStore.query` for
        ``options`` (checked when they were made; raises as :meth:`StructureIndex.query` documents)."""
        if not isinstance(text, str) or not text.strip():
            raise MalformedInputError("query text is empty", field="text")
        self.require_index()
        flt = to_point_filter(options.filter)
        self.check_filter(flt)
        mode = options.mode
        use_dense = mode != "sparse"
        sparse = self.sparse.embed_query(text) if mode != "dense" else None
        if sparse is not None and not sparse.indices:
            if mode == "sparse":  # BM25 alone was asked for: never answer with dense hits instead
                raise MalformedInputError(NO_BM25_TERMS, field="text")
            sparse, use_dense = None, True  # only stop words or punctuation: the dense search answers
        elif mode == "hybrid" and not self._dense_covers(text):
            use_dense = False  # a dense model that lacks the query's language adds noise, not evidence
        dense = self.dense.embed_query(text) if use_dense else None
        mode = "hybrid" if dense is not None and sparse is not None else "dense" if dense is not None else "sparse"
        return {
            "dense": dense,
            "sparse": sparse,
            "limit": max(options.k, options.prefetch_limit),  # rows to group and linked units come from below k
            "mode": mode,
            "fusion": options.fusion,
            "rrf_k": options.rrf_k,
            "prefetch_limit": options.prefetch_limit,
            "flt": evidence_default(flt),  # reference / front matter units only when the filter asks
            "weights": options.weights,
            "focus": (GRADED, options.grade_focus) if options.grade_focus and asks_for_grade(text) else None,
        }

    def _dense_covers(self, text: str) -> bool:
        """False when the query is mostly Chinese/Japanese/Korean and the dense model lacks those languages."""
        covers = getattr(self.dense, "covers", None)  # a user-supplied encoder may not say
        return covers is None or covers(text)

    @staticmethod
    def _hits(records: list[ScoredRecord]) -> list[SearchHit]:
        return [SearchHit(unit=Unit.from_payload(r.payload), score=r.score, rank=i) for i, r in enumerate(records, 1)]

    def query(self, text: str, options: SearchOptions) -> list[SearchHit]:
        """Steps 1-3 of the module docstring (with the re-scoring stage unless ``options.rerank``
        turns it off); best first."""
        prep = self._prepare(text, options)
        with self.store.hold():  # one version of every document for all the reads below
            hits = self._hits(self.store.query(**prep))
            return self._deliver(text, hits, prep, options)

    def _deliver(
        self, text: str, hits: list[SearchHit], prep: dict[str, Any], options: SearchOptions
    ) -> list[SearchHit]:
        """Step 3, with the re-scoring stage re-ordering the first ``rerank.pool`` packed hits (table
        groups, linked units) before the cut to ``k``, then the calibration (hits and group rows under
        ``min_score`` dropped), the expansion and the budget. The stage may put a discussion above the
        recommendation the packing brought for it: keeping each recommendation just above its
        discussion undid most of its gain (cpg PH@1 83 -> 71 of 100, docs/benchmarks/rerank.md)."""
        k, group_size = options.k, options.group_size
        rerank = resolve_rerank(options.rerank, options.mode)
        if rerank is None:
            top = self.finish(hits, k, None, False, group_size, prep["flt"])
        else:
            packed = self.finish(hits, max(k, rerank.pool), None, False, group_size, prep["flt"])
            ordered = self.rescore(text, packed[: rerank.pool], prep, rerank) + packed[rerank.pool :]
            top = [h.model_copy(update={"rank": n}) for n, h in enumerate(ordered[:k], 1)]
        return self.fit(self.calibrate(text, top, prep, options.min_score or 0.0), options.budget_chars, options.expand)

    def calibrate(self, text: str, hits: list[SearchHit], prep: dict[str, Any], min_score: float) -> list[SearchHit]:
        """Each hit with its calibrated ``relevance`` (:func:`calibration.relevances`, from the query
        vectors ``prep`` holds; a query searched by BM25 alone is judged on its term coverage; a unit
        a hit links to is at least as relevant as that hit) and its group rows at or above
        ``min_score`` only; hits under ``min_score`` dropped, ranks renumbered."""
        ids = [u.unit_id for h in hits for u in (h.unit, *h.group)]
        dense = prep["dense"]
        # a dense search is judged on the question's terms too: a unit's relevance is the same in every mode
        # that embeds the question densely
        sparse = prep["sparse"] if prep["sparse"] is not None else self.sparse.embed_query(text)
        rel = calibration.relevances(
            self.store, text, [float(x) for x in dense] if dense is not None else None, sparse, ids, prep.get("idfs")
        )
        # a unit brought for a hit that links to it (a discussion's recommendation, placed just above
        # it) is that hit's evidence: it is as relevant as the hit at least
        for h in hits:
            for linked in h.unit.linked_ids:
                if linked in rel:
                    rel[linked] = max(rel[linked], rel.get(h.unit.unit_id, 0.0))
        out: list[SearchHit] = []
        for h in hits:
            value = rel.get(h.unit.unit_id, 0.0)
            if value < min_score:
                continue
            group = [g for g in h.group if rel.get(g.unit_id, 0.0) >= min_score]
            out.append(h.model_copy(update={"relevance": value, "group": group, "rank": len(out) + 1}))
        return out

    def rescore(self, text: str, hits: list[SearchHit], prep: dict[str, Any], options: Rerank) -> list[SearchHit]:
        """The hits re-ordered by :meth:`stage_scores`, each with its own ``score`` (the search's)."""
        return [hits[i] for i, _ in self.stage_scores(text, hits, prep, options)]

    def stage_scores(
        self, text: str, hits: list[SearchHit], prep: dict[str, Any], options: Rerank
    ) -> list[tuple[int, float]]:
        """The re-scoring stage (:mod:`structaware_retrievers.search.rerank`) over the packed ``hits`` (best first) of
        the question ``text`` prepared by :meth:`_prepare`: ``(index in hits, stage score)``, best first.
        """
        if len(hits) < 2:
            return [(i, 1.0) for i in range(len(hits))]
        only = PointFilter(must=(HasId(tuple(dict.fromkeys(h.unit.unit_id for h in hits))),))
        scored: dict[str, dict[str, float]] = {}
        for vector in ("dense", "sparse"):
            query = prep[vector]
            if query is None or (vector == "sparse" and not query.indices):
                continue
            kw = {"dense": None, "sparse": None, vector: query}
            found = self.store.query(**kw, limit=len(hits), mode=vector, flt=only)
            own = {r.id: r.score for r in found}
            for r in found:
                for linked in r.payload.get("linked_ids") or ():
                    own[linked] = max(own.get(linked, r.score), r.score)
            scored[vector] = own
        units = [evidence.hit_unit(h) for h in hits]
        terms = self.sparse.tokenize(text)
        return rerank_order(
            terms,
            [f"{u.context}\n{u.text}" for u in units],
            [scored.get("dense", {}).get(h.unit.unit_id) for h in hits],
            [scored.get("sparse", {}).get(h.unit.unit_id) for h in hits],
            self.sparse.tokenize,
            options,
            self._term_idfs(terms, prep) if options.coverage or options.phrase else None,
        )

    def _term_idfs(self, terms: list[str], prep: dict[str, Any]) -> dict[str, float]:
        """Each of the question's BM25 ``terms`` with its IDF in the collection
        (:func:`calibration.term_idfs`), kept in ``prep["idfs"]`` (by term id) so that the calibration
        of the same question reads them once."""
        ids = {t: self.sparse.token_id(t) for t in dict.fromkeys(terms)}
        known = prep.setdefault("idfs", {})
        missing = [i for i in dict.fromkeys(ids.values()) if i not in known]
        if missing:
            known.update(calibration.term_idfs(self.store, missing))
        return {t: known[i] for t, i in ids.items()}

    def rerank_units(self, text: str, unit_ids: list[str], options: Rerank) -> list[tuple[str, float]]:
        """The second stage over given units of the index (a framework's candidates): ``(unit_id, stage score)`` best
        first, each unit's dense and BM25 scores read for it alone. Raises ``MalformedInputError``.
        """
        ids = list(dict.fromkeys(unit_ids))
        if not ids:
            return []
        prep = self._prepare(text, SearchOptions(k=len(ids), rrf_k=1, prefetch_limit=len(ids)))
        only = PointFilter(must=(HasId(tuple(ids)),))
        units = {r.id: Unit.from_payload(r.payload) for r in self.store.scroll(only)}
        missing = [i for i in ids if i not in units]
        if missing:
            raise MalformedInputError(
                f"{len(missing)} of {len(ids)} unit ids are not in this index (first: {missing[0]!r})", field="unit_ids"
            )
        hits = [SearchHit(unit=units[i], score=0.0, rank=n) for n, i in enumerate(ids, 1)]
        return [(ids[i], score) for i, score in self.stage_scores(text, hits, prep, options)]

    async def aquery(self, text: str, options: SearchOptions) -> list[SearchHit]:
        """Async :meth:`query`: query embedding (and the re-scoring stage) in a worker thread; the search
        through ``AsyncQdrantClient`` for a server, in a worker thread otherwise."""
        import asyncio  # not at module level: asyncio (with ssl) is off the CLI's query path

        args = await asyncio.to_thread(self._prepare, text, options)
        held = self.store.hold()  # as query(): one version of every document for all the reads;
        await asyncio.to_thread(held.__enter__)  # entered and left in a worker thread: it may wait for the shard
        try:
            hits = self._hits(await self.store.aquery(**args))
            return await asyncio.to_thread(self._deliver, text, hits, args, options)
        finally:
            await asyncio.to_thread(held.__exit__, None, None, None)

    def finish(
        self,
        hits: list[SearchHit],
        k: int,
        budget_chars: int | None,
        expand: bool,
        group_size: int,
        flt: PointFilter | None = None,
    ) -> list[SearchHit]:
        """Step 3: the fused candidates (best first) grouped by table, each hit's linked unit brought up
        (from among them, else read from the store if it passes ``flt``, the query's filter), expanded
        and fitted to the budget."""
        top = evidence.group_table_rows(hits, group_size, k)
        return self.fit(
            evidence.bring_linked(top, [*hits, *self._unfound_links(top, hits, flt)], k), budget_chars, expand
        )

    def fit(self, hits: list[SearchHit], budget_chars: int | None, expand: bool) -> list[SearchHit]:
        """The end of step 3: each hit expanded to its neighbourhood (``expand``), the hits fitted to the budget."""
        if expand:
            hits = [h.model_copy(update={"neighbours": evidence.neighbours(self.store, h.unit)}) for h in hits]
        if budget_chars is not None:
            hits = evidence.fit_budget(hits, budget_chars)
        return hits

    def _unfound_links(self, top: list[SearchHit], found: list[SearchHit], flt: PointFilter | None) -> list[SearchHit]:
        """For each hit of ``top`` none of whose linked units is among ``found``: its first linked unit,
        read from the store when it passes ``flt`` (score 0, after every candidate)."""
        have = {h.unit.unit_id for h in found}
        want = {h.unit.linked_ids[0] for h in top if h.unit.linked_ids and not have.intersection(h.unit.linked_ids)}
        if not want:
            return []
        records = self.store.scroll(PointFilter(must=(HasId(tuple(sorted(want))),)) & flt)
        return [SearchHit(unit=Unit.from_payload(r.payload), score=0.0, rank=len(found) + 1) for r in records]

    def count(self, filter: FilterLike = None) -> int:
        """Number of units matching ``filter`` (all units when ``None``); 0 when there is no index."""
        if not self.store.exists():
            return 0
        flt = to_point_filter(filter)
        self.check_filter(flt)
        return self.store.count(flt)

    def documents(self) -> list[dict[str, Any]]:
        """One dict per indexed document: ``doc_id``, ``doc_name``, ``source``, ``units`` (count),
        sorted by name then id. ``[]`` when there is no index."""
        if not self.store.exists():
            return []
        docs: dict[str, dict[str, Any]] = {}
        for r in self.store.scroll(fields=["doc_id", "doc_name", "source"]):
            d = docs.get(r.payload.get("doc_id", ""))
            if d is None:
                d = docs[r.payload.get("doc_id", "")] = {
                    "doc_id": r.payload.get("doc_id", ""),
                    "doc_name": r.payload.get("doc_name", ""),
                    "source": r.payload.get("source", ""),
                    "units": 0,
                }
            d["units"] += 1
        return sorted(docs.values(), key=lambda d: (d["doc_name"], d["doc_id"]))
