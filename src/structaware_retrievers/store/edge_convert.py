"""Our store types in Qdrant Edge's (``qdrant_edge``): filters, points, vectors, the shard config and
payload indexes, for :class:`~structaware_retrievers.store.edge.EdgeStore`."""

from __future__ import annotations

from typing import Any

import qdrant_edge as E

from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import HasId, IsEmpty, Match, PointFilter, Range
from structaware_retrievers.store.base import DENSE, HNSW_FILTER_FIELDS, SPARSE, PointRecord
from structaware_retrievers.store.common import translate_filter

__all__ = [
    "field_index_operation",
    "shard_config",
    "to_edge_filter",
    "to_edge_point",
    "to_edge_sparse",
    "to_edge_vector",
]


def _edge_condition(c: Match | Range | IsEmpty | HasId) -> Any:
    if isinstance(c, Match):
        if len(c.values) == 1:
            return E.FieldCondition(key=c.key, match=E.MatchValue(c.values[0]))
        return E.FieldCondition(key=c.key, match=E.MatchAny(list(c.values)))
    if isinstance(c, Range):
        return E.FieldCondition(key=c.key, range=E.RangeFloat(gte=c.gte, lte=c.lte, gt=c.gt, lt=c.lt))
    if isinstance(c, IsEmpty):
        return E.IsEmptyCondition(c.key)
    return E.HasIdCondition({str(i) for i in c.ids})


def to_edge_filter(flt: PointFilter | None) -> Any:
    """Translate a :class:`PointFilter` to ``qdrant_edge.Filter`` (``None`` for no filter)."""
    return translate_filter(flt, _edge_condition, E.Filter)


def to_edge_sparse(v: SparseVector) -> Any:
    """A sparse vector as ``qdrant_edge.SparseVector``."""
    return E.SparseVector(indices=list(v.indices), values=list(v.values))


def to_edge_vector(v: list[float] | SparseVector) -> Any:
    """A dense (list of floats, as it is) or sparse query vector for ``qdrant_edge.Query``."""
    return to_edge_sparse(v) if isinstance(v, SparseVector) else v


def to_edge_point(p: PointRecord) -> Any:
    """A point as ``qdrant_edge.Point`` with the named vectors ``dense`` and ``sparse``."""
    return E.Point(id=p.id, vector={DENSE: list(p.dense), SPARSE: to_edge_sparse(p.sparse)}, payload=p.payload)  # type: ignore[arg-type]


def shard_config(dim: int) -> Any:
    """The shard config of a collection: ``dense`` (``dim``-d, cosine) and ``sparse`` (IDF modifier)."""
    return E.EdgeConfig(
        vectors={DENSE: E.EdgeVectorParams(size=dim, distance=E.Distance.Cosine)},
        sparse_vectors={SPARSE: E.EdgeSparseVectorParams(modifier=E.Modifier.Idf)},
    )


def field_index_operation(name: str, kind: str) -> Any:
    """The update operation that creates payload index ``name`` (``kind`` ``"keyword"``, else integer:
    exact and range matches), with HNSW sub-graphs only for :data:`HNSW_FILTER_FIELDS`."""
    hnsw = name in HNSW_FILTER_FIELDS
    if kind == "keyword":
        params: Any = E.KeywordIndexParams(enable_hnsw=hnsw)
    else:
        params = E.IntegerIndexParams(lookup=True, range=True, enable_hnsw=hnsw)
    return E.UpdateOperation.create_field_index(name, params)
