"""Mermaid flowchart parser: ``flowchart``/``graph`` source -> nodes, labelled edges, subgraphs.

Flow-path units need every directed edge of a flowchart (the reference paper, section 2.3); a
regex misses nested structures and non-English labels (section 5), so this is a small scanner and
statement parser, without dependencies, for the grammar Mermaid documents: every header, node
shape, link kind and label form, chains and ``&`` groups, nested subgraphs, Unicode ids.

Decisions: a bidirectional link gives two edges; open links are edges (``head="open"``), invisible
ones (``~~~``) none; the last label given to a node wins; a Markdown fence is unwrapped first.

Raises :class:`NotAFlowchartError` for another diagram type, and
:class:`~structaware_readers.errors.MalformedInputError` (naming line and column) for text without
a header, a flowchart without nodes, or a bad statement when ``strict=True`` (with ``strict=False``
it is listed in :attr:`Flowchart.skipped`).

Modules in reading order: :mod:`.fences`, :mod:`.parser` (:func:`parse_mermaid`) over
:mod:`.scanner` and :mod:`.labels`, into :mod:`.model`; :mod:`.writer` (:func:`to_mermaid`).
"""

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
