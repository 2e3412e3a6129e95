"""LlamaIndex retriever for structaware: Qdrant-native hybrid search over evidence units.

``from llama_index.retrievers.structaware import StructureAwareRetriever``
"""

from llama_index.node_parser.structaware.pictures import evidence_image
from llama_index.retrievers.structaware.base import StructureAwareRetriever, hits_to_nodes
from llama_index.retrievers.structaware.filters import to_filter_group, to_point_filter

__all__ = ["StructureAwareRetriever", "evidence_image", "hits_to_nodes", "to_filter_group", "to_point_filter"]
