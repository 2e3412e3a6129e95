"""LangChain face of structaware: a unit loader, a Qdrant-native hybrid retriever and its agent tool.

``from langchain_structaware import StructureAwareLoader, StructureAwareRetriever``
"""

from langchain_structaware.documents import METADATA_KEYS, unit_to_document
from langchain_structaware.loader import StructureAwareLoader
from langchain_structaware.retriever import StructureAwareRetriever

__all__ = ["METADATA_KEYS", "StructureAwareLoader", "StructureAwareRetriever", "unit_to_document"]
