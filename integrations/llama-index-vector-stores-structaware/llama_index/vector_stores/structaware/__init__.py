"""LlamaIndex vector store over a structaware index (your embedding model + BM25, fused in Qdrant).

``from llama_index.vector_stores.structaware import StructureAwareVectorStore``
"""

from llama_index.vector_stores.structaware.base import StructureAwareVectorStore
from llama_index.vector_stores.structaware.filters import to_filter_group, to_point_filter

__all__ = ["StructureAwareVectorStore", "to_filter_group", "to_point_filter"]
