"""LangChain face of structaware: a unit loader, a Qdrant-native hybrid retriever and its agent tool,
a vector store that takes your own embedding model, and a document compressor that re-orders
candidates by structaware's second stage.

``from langchain_structaware import StructureAwareLoader, StructureAwareRetriever, StructureAwareVectorStore, StructureAwareRerank``
"""

from langchain_structaware.compressor import StructureAwareRerank
from langchain_structaware.documents import METADATA_KEYS, document_to_unit, unit_to_document
from langchain_structaware.embeddings import StructureAwareEmbeddings
from langchain_structaware.loader import StructureAwareLoader
from langchain_structaware.pictures import evidence_image
from langchain_structaware.retriever import StructureAwareRetriever
from langchain_structaware.vectorstores import StructureAwareVectorStore

__all__ = [
    "METADATA_KEYS",
    "StructureAwareEmbeddings",
    "StructureAwareLoader",
    "StructureAwareRerank",
    "StructureAwareRetriever",
    "StructureAwareVectorStore",
    "document_to_unit",
    "evidence_image",
    "unit_to_document",
]
