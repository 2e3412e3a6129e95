"""structaware_readers: parser output (MinerU, Unstructured) -> blocks -> structure-aware evidence units."""

from structaware_readers import telemetry
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MalformedInputError,
    ParserUnavailableError,
    StructawareError,
    UnknownFormatError,
)
from structaware_readers.models import (
    Block,
    BlockKind,
    FlowEdgeInfo,
    Grade,
    ParsedDocument,
    TableGrid,
    TableRowInfo,
    Unit,
    UnitType,
)

telemetry.opt_out()  # before any dependency (ONNX Runtime) initialises; see structaware_readers.telemetry

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
