"""structaware: structure-aware evidence units from guideline PDFs, searched in Qdrant.

The front door: the few names a user needs, imported on first use (PEP 562) so that
``import structaware`` stays cheap::

    import structaware

    index = structaware.StructureIndex("./index")
    index.ingest(["guideline.pdf"])
    for hit in index.query("blood pressure target", k=5):
        print(hit.relevance, hit.unit.pages, hit.unit.text)
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

from structaware_readers import errors
from structaware_readers.errors import (
    EmptyDocumentError,
    IndexNotFoundError,
    InputNotFoundError,
    MalformedInputError,
    MissingExtraError,
    ModelMismatchError,
    ParserUnavailableError,
    StoreError,
    StructawareError,
    UnknownFilterError,
    UnknownFormatError,
    UnsupportedFilterError,
)

try:
    __version__ = version("structaware")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

#: public name -> the module that defines it, imported on first access
_LAZY: dict[str, str] = {
    "StructureIndex": "structaware_retrievers.index.structure_index",
    "SearchHit": "structaware_retrievers.search.results",
    "IngestSummary": "structaware_retrievers.search.results",
    "IngestReport": "structaware_retrievers.search.results",
    "SearchFilter": "structaware_retrievers.query.filters",
    "Rerank": "structaware_retrievers.search.rerank",
    "SearchOptions": "structaware_retrievers.search.options",
    "load_document": "structaware_readers.load.loader",
    "build_units": "structaware_readers.units",
    "UnitOptions": "structaware_readers.units.options",
    "ParsedDocument": "structaware_readers.models",
    "Unit": "structaware_readers.models",
    "UnitType": "structaware_readers.models",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'structaware' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "EmptyDocumentError",
    "IndexNotFoundError",
    "IngestReport",
    "IngestSummary",
    "InputNotFoundError",
    "MalformedInputError",
    "MissingExtraError",
    "ModelMismatchError",
    "ParsedDocument",
    "ParserUnavailableError",
    "Rerank",
    "SearchFilter",
    "SearchOptions",
    "SearchHit",
    "StoreError",
    "StructawareError",
    "StructureIndex",
    "Unit",
    "UnitOptions",
    "UnitType",
    "UnknownFilterError",
    "UnknownFormatError",
    "UnsupportedFilterError",
    "__version__",
    "build_units",
    "errors",
    "load_document",
]
