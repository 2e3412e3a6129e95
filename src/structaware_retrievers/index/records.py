"""Points embedded by any model: the layer the LlamaIndex and LangChain vector stores stand on.

:class:`RecordIndex` keeps structaware's index shape, over a :class:`StructureIndex`, for points
embedded with the user's own model: the same collection (named vectors ``dense`` and ``sparse``,
hybrid search fused inside Qdrant), the same config guard (an index built with one model refuses
another, :class:`~structaware_readers.errors.StoreError`), and payloads every reader understands
(``Unit.to_payload()``; a foreign document becomes a ``unit_type="chunk"`` unit), so
``structaware query``, the retrievers and both framework stores read the same collection.

Point ids: a UUID is used as is; any other string becomes ``uuid5(RECORD_NAMESPACE, id)`` with the
original kept in the payload key :data:`ORIGINAL_ID_KEY`, so re-adding replaces, never duplicates.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from structaware_readers.errors import MalformedInputError, StoreError
from structaware_readers.models import Unit, UnitType
from structaware_retrievers.encoders.sparse import NO_BM25_TERMS, tie_broken
from structaware_retrievers.index.commit import recover, write_document
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.filters import METADATA_KEY, HasId, PointFilter, evidence_default, to_point_filter
from structaware_retrievers.search import calibration
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import Rerank, resolve_rerank
from structaware_retrievers.search.results import SearchHit
from structaware_retrievers.store.base import PointRecord, ScoredRecord

__all__ = [
    "METADATA_KEY",
    "ORIGINAL_ID_KEY",
    "RECORD_NAMESPACE",
    "RecordIndex",
    "UserDenseEncoder",
    "absolute_source",
    "chunk_unit",
    "point_id",
]

#: UUID namespace of point ids derived from framework ids that are not UUIDs.
RECORD_NAMESPACE = uuid.UUID("6b1f4c1e-2f4f-5a0e-9d0c-3f2b7c1a9e51")
#: Payload key holding a framework id that is not a UUID (the point id is its ``uuid5``).
ORIGINAL_ID_KEY = "record_id"

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def point_id(record_id: str) -> str:
    """The Qdrant point id of a framework id: the id itself when it is a UUID, else its ``uuid5``."""
    if _UUID.match(record_id):
        return str(uuid.UUID(record_id))
    return str(uuid.uuid5(RECORD_NAMESPACE, record_id))


def absolute_source(source: str) -> str:
    """``source`` as ``structaware ingest`` records a file: a relative path naming an existing local
    file or folder becomes absolute; anything else (a URL, an absolute path, a name) is kept as given."""
    if not source or "://" in source or Path(source).is_absolute():
        return source
    path = Path(source).expanduser()
    try:
        return str(path.resolve()) if path.exists() else source
    except OSError:  # a name too long for the file system, a loop of links
        return source


def chunk_unit(record_id: str, text: str, *, doc_id: str = "", doc_name: str = "", source: str = "") -> Unit:
    """The unit a framework document without structaware provenance becomes: ``unit_type="chunk"``,
    no pages and no elements (the framework keeps its own metadata beside it in the payload);
    ``source`` is made absolute (:func:`absolute_source`)."""
    return Unit(
        unit_id=point_id(record_id),
        unit_type=UnitType.CHUNK,
        text=text,
        doc_id=doc_id,
        doc_name=doc_name,
        source=absolute_source(source),
        pages=[],
        element_ids=[],
        bboxes=[],
        element_pages=[],
    )


class UserDenseEncoder:
    """A user's embedding model as the dense encoder of an index (no vector cache: frameworks cache themselves).
    ``model_id`` is recorded in the index config and checked on open. Raises ``StoreError`` when the model's
    dimension changes.
    """

    cache = None  # StructureIndex gives encoders without a cache its own; this one never reads it

    def __init__(
        self,
        embed_documents: Callable[[list[str]], Sequence[Sequence[float]]],
        embed_query: Callable[[str], Sequence[float]],
        *,
        model_id: str,
        dim: int | None = None,
    ) -> None:
        if not model_id:
            raise MalformedInputError(
                "name the embedding model (e.g. 'openai/text-embedding-3-small')", field="model_id"
            )
        self._embed_documents = embed_documents
        self._embed_query = embed_query
        self.model_name = model_id
        self.model_id = model_id
        self._dim = dim
        self.computed = 0
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        """Output dimension (known after the first embedding when not given)."""
        if self._dim is None:
            raise StoreError(
                f"the dimension of {self.model_id!r} is not known before its first embedding; pass dim=",
                field="dense.dim",
            )
        return self._dim

    def note_dim(self, n: int) -> None:
        """Record (or check) the output dimension from a vector of length ``n``."""
        with self._lock:
            if self._dim is None:
                self._dim = n
            elif n != self._dim:
                raise StoreError(f"{self.model_id!r} returned {n}-d vectors, earlier {self._dim}-d", field="dense.dim")

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """Embed document texts into a ``(len(texts), dim)`` float32 array."""
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        vecs = np.asarray(self._embed_documents(list(texts)), dtype=np.float32)
        self.computed += len(texts)
        self.note_dim(int(vecs.shape[-1]))
        return vecs

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        vec = [float(x) for x in self._embed_query(text)]
        self.note_dim(len(vec))
        return vec

    def __repr__(self) -> str:
        return f"UserDenseEncoder(model_id={self.model_id!r}, dim={self._dim})"


class RecordIndex:
    """Add, search, get and delete points of a :class:`StructureIndex` whose dense vectors come from the caller (see
    the module docstring). Writes hold the index's writer lock (:meth:`StructureIndex.writing`) and become visible
    at once (:func:`~structaware_retrievers.index.commit.write_document`).
    """

    def __init__(self, index: StructureIndex) -> None:
        self.index = index

    @property
    def store(self):  # the index's VectorStore
        return self.index.store

    # -- writes ----------------------------------------------------------------------------
    def add(
        self,
        payloads: Sequence[dict[str, Any]],
        sparse_texts: Sequence[str],
        dense: Sequence[Sequence[float]] | None = None,
    ) -> list[str]:
        """Upsert one point per payload (``Unit.to_payload()`` plus framework keys, ``unit_id`` the point id); return the
        ids. ``dense=None`` embeds ``sparse_texts`` with the index's encoder. Raises ``MalformedInputError`` (lengths
        differ, no ``unit_id``), ``StoreError`` (another dense model or dimension; nothing written).
        """
        if len(payloads) != len(sparse_texts) or (dense is not None and len(dense) != len(payloads)):
            raise MalformedInputError(
                f"{len(payloads)} payloads, {len(sparse_texts)} texts, {len(dense) if dense is not None else '-'} vectors",
                field="add",
            )
        if not payloads:
            return []
        ids = []
        for p in payloads:
            if not p.get("unit_id"):
                raise MalformedInputError("a payload has no unit_id", field="unit_id")
            ids.append(str(p["unit_id"]))
        idx = self.index
        with idx.writing():  # the index's writer lock (across processes for a folder index)
            if self.store.exists():
                recover(self.store)
                idx.writer.check_config()  # refuse another model before embedding anything
            idx.writer.ensure_cache()
            vectors = (
                np.asarray(dense, dtype=np.float32) if dense is not None else idx.dense.embed_array(list(sparse_texts))
            )
            note = getattr(idx.dense, "note_dim", None)
            if note is not None:
                note(int(vectors.shape[-1]))
            sparse = tie_broken(idx.sparse.embed_documents(list(sparse_texts)), ids)
            idx.writer.ensure_collection()  # creates it with this model's id and dimension
            points = [
                PointRecord(id=i, payload=dict(p), dense=v.tolist(), sparse=s)
                for i, p, v, s in zip(ids, payloads, vectors, sparse, strict=True)
            ]
            replaced = [r.id for r in self.store.retrieve(ids)]
            try:  # the batch becomes visible at once, replacing earlier versions of the same ids
                write_document(self.store, points, replaced, src=self.store.location)
            finally:
                self.store.release(only_if_wanted=True)
        return ids

    def delete_ids(self, ids: Sequence[str]) -> None:
        """Delete points by point id (missing ids are ignored; no collection: nothing to do)."""
        if ids and self.store.exists():
            with self.index.writing():
                recover(self.store)
                self.store.delete_ids(list(ids))
                self.store.flush()

    def delete(self, flt: PointFilter) -> int:
        """Delete the points matching a non-empty filter; return how many there were. Raises ``UnknownFilterError``."""
        if not self.store.exists():
            return 0
        self.index.searcher.check_filter(flt)
        with self.index.writing():
            recover(self.store)
            n = self.store.delete(flt)
            self.store.flush()
            return n

    def clear(self) -> None:
        """Delete every point (the collection and its config stay)."""
        if self.store.exists():
            with self.index.writing():
                recover(self.store)
                self.store.delete_ids([r.id for r in self.store.scroll(fields=[])])
                self.store.flush()

    # -- reads -----------------------------------------------------------------------------
    def get(
        self, ids: Sequence[str] | None = None, flt: PointFilter | None = None, *, with_vectors: bool = False
    ) -> list[PointRecord]:
        """Points by id (in the order given, missing ones skipped) and/or matching ``flt``.

        Raises:
            UnknownFilterError: ``flt`` names a metadata key no point carries.
        """
        if not self.store.exists():
            return []
        self.index.searcher.check_filter(flt)
        if ids is not None:
            flt = PointFilter(must=(HasId(tuple(ids)),)) & flt if ids else None
            if flt is None:
                return []
            found = {r.id: r for r in self.store.scroll(flt, with_vectors=with_vectors)}
            return [found[i] for i in ids if i in found]
        return list(self.store.scroll(flt, with_vectors=with_vectors))

    def search(
        self,
        text: str | None,
        *,
        dense: Sequence[float] | None,
        options: SearchOptions,
        mmr: tuple[float, int] | None = None,
        relevance: bool = False,
    ) -> list[ScoredRecord]:
        """Search, best first; ``[]`` when the collection does not exist or is empty.

        ``text`` is the BM25 half (``None``: dense only); ``dense`` the user's query vector (``None``: ``text`` embedded by
        the index). Only the search fields of ``options`` are used. ``mmr=(lambda_mult, fetch_k)`` orders the ``fetch_k``
        nearest points by maximal marginal relevance; ``relevance`` gives calibrated scores in [0, 1]. Raises
        ``MalformedInputError`` (no text, no vector), ``UnknownFilterError``, ``StoreError`` (dimension differs).
        """
        k, mode, flt = options.k, options.mode, options.filter
        if flt is not None and not isinstance(flt, PointFilter):
            flt = to_point_filter(flt)
        stage = resolve_rerank(options.rerank, mode)
        if mmr is not None:
            mode, stage = "dense", None
        if text is None and dense is None:
            raise MalformedInputError("give a query text or a query vector", field="query")
        if not self.store.exists() or self.store.count() == 0:
            return []
        self.index.searcher.check_filter(flt)
        if dense is None and text is not None and mode != "sparse":
            dense = self.index.dense.embed_query(text)
        if dense is not None and len(dense) != self.store.dense_dim():
            raise StoreError(
                f"the query vector has {len(dense)} dimensions, the collection {self.store.dense_dim()}",
                path=self.store.location,
                field="dense",
            )
        sparse = self.index.sparse.embed_query(text) if text and mode != "dense" else None
        if mode == "sparse" and not text:
            raise MalformedInputError("a BM25-only search (mode 'sparse') needs a query text", field="query")
        if mode == "sparse" and (sparse is None or not sparse.indices):
            raise MalformedInputError(NO_BM25_TERMS, field="query")
        weights = (float(options.weights[0]), float(options.weights[1]))
        stage = stage if text else None
        records = self.store.query(
            dense=dense if mode != "sparse" else None,
            sparse=sparse,
            limit=max(k, stage.pool) if stage else k,
            mode=mode,
            fusion=options.fusion,
            rrf_k=options.rrf_k,
            prefetch_limit=options.prefetch_limit,
            flt=evidence_default(flt),  # reference / front matter units only when the filter names unit types
            weights=weights,
            mmr=mmr,
        )
        prep: dict[str, Any] = {"dense": dense if mode != "sparse" else None, "sparse": sparse}
        if stage is not None:  # the stage keeps the question's term IDFs in ``prep`` for the calibration
            records = self._rescore(text, records, prep, stage)[:k]
        if not relevance:
            return records
        terms = sparse if sparse is not None or not text else self.index.sparse.embed_query(text)
        rel = calibration.relevances(
            self.store,
            text or "",
            [float(x) for x in dense] if dense is not None else None,
            terms,
            [r.id for r in records],
            prep.get("idfs"),
        )
        return [dataclasses.replace(r, score=rel.get(r.id, 0.0)) for r in records]

    def _rescore(
        self, text: str, records: list[ScoredRecord], prep: dict[str, Any], options: Rerank
    ) -> list[ScoredRecord]:
        """The first ``options.pool`` records re-ordered by the second stage (:meth:`IndexSearcher.stage_scores
        <structaware_retrievers.search.searcher.IndexSearcher.stage_scores>`, with the query vectors already
        made, ``prep["dense"]`` and ``prep["sparse"]``); the rest keep the fused order."""
        head = records[: options.pool]
        hits = [SearchHit(unit=Unit.from_payload(r.payload), score=r.score, rank=n) for n, r in enumerate(head, 1)]
        order = self.index.searcher.stage_scores(text, hits, prep, options)
        return [head[i] for i, _ in order] + records[options.pool :]
