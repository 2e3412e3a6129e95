"""The model a Mermaid flowchart is parsed into: :class:`Flowchart` (nodes, edges, subgraphs) and
:class:`FlowEdge`, and :class:`NotAFlowchartError` for a diagram of another type."""

from __future__ import annotations

from dataclasses import dataclass, field

from structaware_readers.errors import NotAFlowchartError

__all__ = ["FlowEdge", "Flowchart", "NotAFlowchartError"]


@dataclass
class FlowEdge:
    """One directed edge of a flowchart.

    ``source``/``target`` are node (or subgraph) ids as written, ``label`` the cleaned edge text (``""`` when
    unlabelled), ``stroke`` ``normal``/``dotted``/``thick``, ``head`` ``arrow``/``open``/``circle``/``cross``.
    ``element_ids`` name the document elements that state the edge (``p{page}-e{j}``) when the chart was read from
    a document; ``arrow_bbox`` is where the connector is drawn when read from an image, ``(x0, y0, x1, y1)`` in 0..1
    of the displayed page, origin top-left (else ``None``).
    """

    source: str
    target: str
    label: str = ""
    source_label: str = ""
    target_label: str = ""
    edge_id: str = ""
    stroke: str = "normal"
    head: str = "arrow"
    bidirectional: bool = False
    element_ids: list[str] = field(default_factory=list)
    arrow_bbox: tuple[float, float, float, float] | None = None

    def text(self) -> str:
        """The flow-path unit text: ``"A label -(yes)-> B label"``, or ``"A -> B"`` when unlabelled."""
        if self.label:
            return f"{self.source_label} -({self.label})-> {self.target_label}"
        return f"{self.source_label} -> {self.target_label}"


@dataclass
class Flowchart:
    """A parsed Mermaid flowchart.

    ``direction`` as written (``"TB"`` when absent), ``nodes`` id -> label in order of first appearance, ``edges``
    in source order, ``subgraphs`` id -> the node ids inside it at any depth, ``skipped`` the statements skipped with
    ``strict=False`` (``"line N: <statement>"``). ``node_bboxes``: node id -> its box on the chart's page,
    ``(x0, y0, x1, y1)`` in 0..1 of the displayed page, origin top-left; only for charts read from an image.
    """

    direction: str = "TB"
    nodes: dict[str, str] = field(default_factory=dict)
    edges: list[FlowEdge] = field(default_factory=list)
    title: str = ""
    subgraphs: dict[str, list[str]] = field(default_factory=dict)
    subgraph_titles: dict[str, str] = field(default_factory=dict)
    subgraph_parents: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    node_bboxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    def label(self, node_id: str) -> str:
        """Display label of a node or subgraph id (the id itself when unknown)."""
        if node_id in self.nodes:
            return self.nodes[node_id]
        return self.subgraph_titles.get(node_id, node_id)

    def edge_texts(self) -> list[str]:
        """One unit text per edge, ``["A label -(yes)-> B label", "B label -> C label", ...]``."""
        return [e.text() for e in self.edges]
