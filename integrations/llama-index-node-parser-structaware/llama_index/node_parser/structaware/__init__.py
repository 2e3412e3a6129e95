"""LlamaIndex node parser for structaware: one ``TextNode`` per structure-aware evidence unit.

``from llama_index.node_parser.structaware import StructureAwareNodeParser``
"""

from llama_index.node_parser.structaware.base import StructureAwareNodeParser
from llama_index.node_parser.structaware.filters import to_filter_group
from llama_index.node_parser.structaware.nodes import (
    EMBED_VISIBLE_KEYS,
    LLM_VISIBLE_KEYS,
    element_boxes,
    node_to_unit,
    unit_metadata,
    unit_to_node,
)
from llama_index.node_parser.structaware.pictures import evidence_image

__all__ = [
    "EMBED_VISIBLE_KEYS",
    "LLM_VISIBLE_KEYS",
    "StructureAwareNodeParser",
    "element_boxes",
    "evidence_image",
    "node_to_unit",
    "to_filter_group",
    "unit_metadata",
    "unit_to_node",
]
