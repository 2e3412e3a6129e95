"""The model a Mermaid flowchart is parsed into: :class:`Flowchart` (nodes, edges, subgraphs) and
:class:`FlowEdge`, and :class:`NotAFlowchartError` for a diagram of another type."""

from __future__ import annotations

from dataclasses import dataclass, field

from structaware_readers.errors import NotAFlowchartError

__all__ = ["FlowEdge", "Flowchart", "NotAFlowchartError"]


@dataclass
class FlowEdge:
    """One directed edge of a flowchart.

    Attributes:
        source, target: node (or subgraph) ids as written in the source.
        label: the edge text (``"yes"`` in ``A -->|yes| B``), cleaned; ``""`` when unlabelled.
        source_label, target_label: the display labels of both ends (node text, or the subgraph
            title for a subgraph id), cleaned.
        edge_id: the Mermaid edge id (``e1`` in ``A e1@--> B``) or ``""``.
        stroke: ``"normal"``, ``"dotted"`` or ``"thick"``.
        head: arrow head at the target: ``"arrow"``, ``"open"`` (no head), ``"circle"``, ``"cross"``.
        bidirectional: the link had markers at both ends (this edge is one of its two edges).
        element_ids: ids of the document elements that state this edge (``p{page}-e{j}``), when
            the chart was read from a document rather than from one Mermaid source (an algorithm's
            text description: the paragraph that says ``If the answer is "Yes" to Box 2, then Box
            3``, and the algorithm's image); empty for parsed Mermaid source.
        arrow_bbox: where the connector from source to target is drawn on the chart's page, ``(x0,
            y0, x1, y1)`` in 0..1 of the displayed page, origin top-left, when it was read from an
            image (the connector's whole ink: a trunk shared by a branch reaches further); else ``None``.
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

    Attributes:
        direction: ``"TB"``, ``"TD"``, ``"BT"``, ``"RL"`` or ``"LR"`` as written (``"TB"`` when
            absent; the old ``>``/``<``/``^``/``v`` become ``LR``/``RL``/``BT``/``TB``).
        nodes: node id -> display label, in order of first appearance.
        edges: edges in source order (chains left to right, ``&`` groups source-major).
        title: front-matter ``title``, or ``""``.
        subgraphs: subgraph id -> ids of the nodes mentioned inside it, at any depth, in order of
            first mention there.
        subgraph_titles: subgraph id -> its title (the id when no title is given).
        subgraph_parents: subgraph id -> id of the enclosing subgraph (nested subgraphs only).
        skipped: statements skipped with ``strict=False``, as ``"line N: <statement>"``.
        node_bboxes: node id -> where the node's box is drawn on the chart's page, ``(x0, y0, x1,
            y1)`` in 0..1 of the displayed page, origin top-left; only for charts read from an
            image (or placed on one), empty otherwise. Evidence pictures outline an edge's two boxes
            there rather than the whole chart.
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
