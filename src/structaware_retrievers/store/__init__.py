"""Qdrant storage backends behind one interface (:class:`VectorStore`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from structaware_retrievers.store.base import (
    DENSE,
    HNSW_FILTER_FIELDS,
    PAYLOAD_INDEXES,
    SPARSE,
    PointRecord,
    ScoredRecord,
    VectorStore,
)

if TYPE_CHECKING:
    from structaware_retrievers.store.client import ClientStore
    from structaware_retrievers.store.edge import EdgeStore

__all__ = [
    "DENSE",
    "HNSW_FILTER_FIELDS",
    "PAYLOAD_INDEXES",
    "SPARSE",
    "ClientStore",
    "EdgeStore",
    "PointRecord",
    "ScoredRecord",
    "VectorStore",
]


def __getattr__(name: str) -> Any:
    if name == "EdgeStore":
        from structaware_retrievers.store.edge import EdgeStore

        return EdgeStore
    if name == "ClientStore":
        from structaware_retrievers.store.client import ClientStore

        return ClientStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
