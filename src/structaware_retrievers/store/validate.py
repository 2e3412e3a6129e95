"""Checks every point before it reaches a Qdrant engine, whatever encoder made its vectors.

Qdrant Edge panics (a Rust ``PanicException``, no ``Exception``) or stores garbage on input the
server would refuse, and qdrant-client's local mode accepts ids the server refuses, so every
backend runs :func:`check_point` first: the id is a canonical UUID string (Qdrant would merge other
spellings into one point); the dense vector has the collection's dimension and finite values; the
sparse vector has matching lengths, indices in ``0 .. 2**32 - 1`` and finite values, sorted, with
duplicates merged by summing (the server requires unique indices).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any

from structaware_readers.errors import StoreError
from structaware_retrievers.encoders import SparseVector

__all__ = ["MAX_SPARSE_INDEX", "canonical_id", "check_dense", "check_point", "normalise_sparse"]

#: Largest sparse index Qdrant accepts (indices are unsigned 32-bit integers).
MAX_SPARSE_INDEX = 2**32 - 1


def canonical_id(pid: Any, location: str) -> str:
    """``pid`` when it is a canonical UUID string.

    Raises:
        StoreError: any other id (field ``id``), with the canonical spelling when there is one.
    """
    if not isinstance(pid, str):
        raise StoreError(f"point id must be a UUID string, got {type(pid).__name__}", path=location, field="id")
    try:
        canon = str(uuid.UUID(pid))
    except ValueError:
        raise StoreError(f"point id {pid[:80]!r} is not a UUID", path=location, field="id") from None
    if canon != pid:
        raise StoreError(
            f"point id {pid!r} is not in canonical form ({canon!r}); Qdrant would store it as {canon!r}",
            path=location,
            field="id",
        )
    return pid


def normalise_sparse(v: Any, where: str, location: str) -> SparseVector:
    """A :class:`SparseVector` with sorted unique indices (duplicates summed). Raises ``StoreError``."""
    indices, values = getattr(v, "indices", None), getattr(v, "values", None)
    if not isinstance(indices, Sequence) or not isinstance(values, Sequence):
        raise StoreError(f"{where}: the sparse vector needs indices and values lists", path=location, field="sparse")
    if len(indices) != len(values):
        raise StoreError(
            f"{where}: the sparse vector has {len(indices)} indices but {len(values)} values",
            path=location,
            field="sparse",
        )
    merged: dict[int, float] = {}
    for i, x in zip(indices, values):
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i <= MAX_SPARSE_INDEX:
            raise StoreError(
                f"{where}: sparse index {i!r} is not an integer in 0..{MAX_SPARSE_INDEX}", path=location, field="sparse"
            )
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
            raise StoreError(f"{where}: sparse value {x!r} is not a finite number", path=location, field="sparse")
        merged[i] = merged.get(i, 0.0) + float(x)
    keys = sorted(merged)
    if list(indices) == keys and all(type(x) is float for x in values):
        return v if isinstance(v, SparseVector) else SparseVector(list(indices), list(values))
    return SparseVector(keys, [merged[k] for k in keys])


def check_dense(dense: Any, dim: int, where: str, location: str) -> None:
    """Raise :class:`StoreError` (field ``dense``) unless ``dense`` has ``dim`` finite values."""
    if len(dense) != dim:
        raise StoreError(
            f"{where}: dense vector has {len(dense)} dimensions, the collection {dim}", path=location, field="dense"
        )
    try:  # a sum is finite when every value is (NaN and infinities carry through); only a sum that
        # is not (overflow of huge values, or a bad value) needs the value-by-value check
        ok = math.isfinite(sum(dense)) or all(math.isfinite(x) for x in dense)
    except TypeError:
        ok = False
    if not ok:
        raise StoreError(
            f"{where}: dense vector holds a value that is not a finite number", path=location, field="dense"
        )


def check_point(p: Any, dim: int, location: str) -> Any:
    """Validate one :class:`~structaware_retrievers.store.base.PointRecord` in place (its sparse vector normalised) and
    return it. Raises ``StoreError``.
    """
    canonical_id(p.id, location)
    where = f"point {p.id}"
    if p.dense is None or p.sparse is None:
        raise StoreError(f"{where} lacks a vector", path=location, field="vector")
    check_dense(p.dense, dim, where, location)
    p.sparse = normalise_sparse(p.sparse, where, location)
    return p
