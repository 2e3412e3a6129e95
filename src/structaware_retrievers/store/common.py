"""Backend-neutral helpers the Qdrant stores share: argument and point checks, result conversion, filter translation."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from structaware_readers.errors import StoreError
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import HasId, IsEmpty, Match, PointFilter, Range
from structaware_retrievers.store.base import DENSE, PENDING, SPARSE, SUPERSEDED, PointRecord, ScoredRecord
from structaware_retrievers.store.validate import check_point

#: Conditions met by the points the write protocol hides (see ``store/base.py``).
HIDDEN: tuple[Range, ...] = (Range(PENDING, gte=1), Range(SUPERSEDED, gte=1))

__all__ = [
    "HIDDEN",
    "check_dim",
    "checked_batches",
    "is_hidden",
    "require_filter",
    "to_point_record",
    "to_scored_record",
    "translate_filter",
]

Condition = Match | Range | IsEmpty | HasId


def check_dim(dim: int, location: str) -> None:
    """Raise :class:`StoreError` (field ``dim``) unless the dense dimension is >= 1."""
    if dim < 1:
        raise StoreError(f"dense dimension must be >= 1, got {dim}", path=location, field="dim")


def require_filter(flt: PointFilter, location: str) -> None:
    """Raise :class:`StoreError` (field ``filter``) for an empty delete filter (it would delete everything)."""
    if flt.is_empty:
        raise StoreError("refusing to delete with an empty filter", path=location, field="filter")


def checked_batches(
    points: Sequence[PointRecord], dim: int, location: str, size: int
) -> Iterator[Sequence[PointRecord]]:
    """Check every point first (:func:`~structaware_retrievers.store.validate.check_point`: canonical UUID id, both
    vectors, ``dim`` finite dense values, a valid sparse vector, sorted and merged), then yield them in slices of
    ``size``. Raises ``StoreError``.
    """
    for p in points:
        check_point(p, dim, location)
    for i in range(0, len(points), size):
        yield points[i : i + size]


def is_hidden(payload: dict[str, Any]) -> bool:
    """Whether a point's payload carries a write-protocol marker (see ``store/base.py``)."""
    return bool(payload.get(PENDING) or payload.get(SUPERSEDED))


def to_point_record(r: Any, with_vectors: bool) -> PointRecord:
    """A :class:`PointRecord` from an engine record with ``id``, ``payload`` and ``vector`` (a mapping of
    vector name to a float list or a sparse vector with ``indices``/``values``; both engines use this shape)."""
    rec = PointRecord(id=str(r.id), payload=dict(r.payload or {}))
    if with_vectors and r.vector:
        d = r.vector.get(DENSE)
        sp = r.vector.get(SPARSE)
        rec.dense = list(d) if d is not None else None
        rec.sparse = SparseVector(list(sp.indices), list(sp.values)) if sp is not None else None
    return rec


def to_scored_record(h: Any) -> ScoredRecord:
    """A :class:`ScoredRecord` from an engine hit with ``id``, ``score`` and ``payload``."""
    return ScoredRecord(id=str(h.id), score=float(h.score), payload=dict(h.payload or {}))


def translate_filter(flt: PointFilter | None, condition: Callable[[Condition], Any], make: Callable[..., Any]) -> Any:
    """An engine filter from a :class:`PointFilter`; unless ``flt.include_hidden``, it also excludes the points the
    write protocol hides (:data:`HIDDEN`). ``None`` when nothing is left to filter.
    """
    must = list(flt.must) if flt is not None else []
    should = list(flt.should) if flt is not None else []
    must_not = list(flt.must_not) if flt is not None else []
    if flt is None or not flt.include_hidden:
        must_not.extend(HIDDEN)
    if not must and not should and not must_not:
        return None
    return _group(must, should, must_not, condition, make)


def _group(
    must: Sequence[Any],
    should: Sequence[Any],
    must_not: Sequence[Any],
    condition: Callable[[Condition], Any],
    make: Callable[..., Any],
) -> Any:
    def one(c: Any) -> Any:
        return _group(c.must, c.should, c.must_not, condition, make) if isinstance(c, PointFilter) else condition(c)

    return make(
        must=[one(c) for c in must] or None,
        should=[one(c) for c in should] or None,
        must_not=[one(c) for c in must_not] or None,
    )
