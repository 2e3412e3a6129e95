"""Mermaid flowchart parser: ``flowchart``/``graph`` source -> nodes, labelled edges, subgraphs."""

from structaware_readers.mermaid.fences import find_flowchart_source, find_mermaid_blocks
from structaware_readers.mermaid.model import Flowchart, FlowEdge, NotAFlowchartError
from structaware_readers.mermaid.parser import parse_mermaid
from structaware_readers.mermaid.writer import to_mermaid

__all__ = [
    "FlowEdge",
    "Flowchart",
    "NotAFlowchartError",
    "find_flowchart_source",
    "find_mermaid_blocks",
    "parse_mermaid",
    "to_mermaid",
]
