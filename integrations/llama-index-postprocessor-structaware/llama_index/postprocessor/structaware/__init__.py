"""LlamaIndex node postprocessor for structaware: the second stage over retrieved nodes.

``from llama_index.postprocessor.structaware import StructureAwareRerank``
"""

from llama_index.postprocessor.structaware.base import StructureAwareRerank

__all__ = ["StructureAwareRerank"]
