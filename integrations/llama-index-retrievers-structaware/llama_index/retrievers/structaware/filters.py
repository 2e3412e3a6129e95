"""LlamaIndex ``MetadataFilters`` -> structaware's filter (the translation the vector store shares; see
:mod:`llama_index.node_parser.structaware.filters` and :mod:`structaware_retrievers.query.filters`)."""

from llama_index.node_parser.structaware.filters import to_filter_group, to_point_filter

__all__ = ["to_filter_group", "to_point_filter"]
