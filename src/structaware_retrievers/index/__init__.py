"""The index: one folder of Qdrant points and the machinery that writes it (ingest, parse workers, the ledger, atomic
per-document commits); :class:`StructureIndex` is its front.
"""

from __future__ import annotations

from importlib import import_module

_FRONT = "structaware_retrievers.index.structure_index"
#: names of the index front (and what it re-exported), importable from this package
_NAMES = frozenset(
    {
        "StructureIndex",
        "open_index_folder",
        "DEFAULT_INDEX_PATH",
        "ENV_INDEX",
        "default_index_path",
        "INDEX_FORMAT",
        "IndexWriter",
        "IngestError",
        "IngestFailure",
        "IngestReport",
        "IngestSummary",
        "SearchHit",
    }
)


def __getattr__(name: str) -> object:
    if name in _NAMES:
        return getattr(import_module(_FRONT), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_NAMES)  # noqa: PLE0605 - a list of the names served above
