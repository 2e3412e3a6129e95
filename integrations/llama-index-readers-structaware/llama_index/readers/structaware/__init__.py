"""LlamaIndex readers for structaware: MinerU / Unstructured output -> one ``Document`` per file.

``from llama_index.readers.structaware import MinerUReader, UnstructuredReader``
"""

from llama_index.readers.structaware.base import (
    DOCUMENT_METADATA_KEY,
    MinerUReader,
    UnstructuredReader,
    document_from_parsed,
    parsed_from_document,
)

__all__ = [
    "DOCUMENT_METADATA_KEY",
    "MinerUReader",
    "UnstructuredReader",
    "document_from_parsed",
    "parsed_from_document",
]
