"""LlamaIndex embedding for structaware: the offline default dense encoder.

``from llama_index.embeddings.structaware import StructureAwareEmbedding``
"""

from llama_index.embeddings.structaware.base import StructureAwareEmbedding

__all__ = ["StructureAwareEmbedding"]
