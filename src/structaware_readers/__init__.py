"""structaware_readers: parser output (MinerU, Unstructured) -> blocks -> structure-aware evidence units."""

from structaware_readers.common import moved, telemetry
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MalformedInputError,
    ParserUnavailableError,
    StructawareError,
    UnknownFormatError,
)

moved.install()  # old module paths (structaware_readers.loader ...) keep importing for one release
telemetry.opt_out()  # before any dependency (ONNX Runtime) initialises; see structaware_readers.common.telemetry

#: The data model, imported on first access (PEP 562): it imports pydantic, which a
#: ``structaware query`` answered by a running server never needs (about 0.1 s).
_MODELS = frozenset(
    {"Block", "BlockKind", "FlowEdgeInfo", "Grade", "ParsedDocument", "TableGrid", "TableRowInfo", "Unit", "UnitType"}
)


def __getattr__(name: str) -> object:
    if name in _MODELS:
        from structaware_readers import models

        return getattr(models, name)
    raise AttributeError(f"module 'structaware_readers' has no attribute {name!r}")


__all__ = [
    "Block",
    "BlockKind",
    "EmptyDocumentError",
    "FlowEdgeInfo",
    "Grade",
    "InputNotFoundError",
    "MalformedInputError",
    "ParsedDocument",
    "ParserUnavailableError",
    "StructawareError",
    "TableGrid",
    "TableRowInfo",
    "Unit",
    "UnitType",
    "UnknownFormatError",
]
