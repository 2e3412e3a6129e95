"""``flow_path`` units: one per directed edge of a Mermaid flowchart, ``A -(label)-> B``.

Source: the reference paper, section 2.3 (flowchart paths); node labels in any language.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from structaware_readers.errors import MalformedInputError
from structaware_readers.mermaid import Flowchart, FlowEdge, parse_mermaid
from structaware_readers.models import BBox, Block, FlowEdgeInfo, UnitType
from structaware_readers.units.common import title
from structaware_readers.units.figures import emit_figure

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext

#: (element id, bbox, 1-based page) of a region a unit points at.
Ref = tuple[str, "BBox | None", int]


def emit_flowchart(builder: EmitContext, block: Block) -> None:
    """One ``flow_path`` unit per edge of ``block``'s chart (:attr:`Block.flowchart`, else its Mermaid
    source); a figure unit when it has none. An edge that names the elements stating it
    (``FlowEdge.element_ids``: an algorithm's image and the paragraph of its text description) points
    at those elements and their pages; any other edge at the whole block; an edge whose two boxes'
    places on the chart are known points at those two boxes (:func:`_edge_refs`)."""
    chart = block.flowchart
    if chart is None:
        try:
            # lenient: one bad line from a vision model must not lose the whole chart
            chart = parse_mermaid(block.mermaid or "", path=builder.doc.source, strict=False)
        except MalformedInputError:
            emit_figure(builder, block)
            return
    if not chart.edges:
        emit_figure(builder, block)
        return
    # the figure's caption, else the Mermaid front-matter title; never the source's first line
    chart_title = title(block.caption.strip()) if block.caption.strip() else chart.title
    builder.flush_section()
    head = f"Flowchart: {chart_title}" if chart_title else "Flowchart"
    context = " | ".join(s for s in (head, _section(builder, chart_title), _document(builder, chart_title)) if s)
    where = {eid: (eid, box, page) for eid, box, page in block.element_refs()}
    for j, edge in enumerate(chart.edges):
        label = f" -({edge.label})-> " if edge.label else " -> "
        text = f"{edge.source_label}{label}{edge.target_label}"
        refs = _edge_refs(block, chart, edge, where)
        builder.emit(
            UnitType.FLOW_PATH,
            text,
            context,
            [block],
            refs=refs,
            pages=sorted({page for _, _, page in refs}) if refs else None,
            flow=FlowEdgeInfo(
                flowchart_id=block.block_id,
                source=edge.source_label,
                target=edge.target_label,
                label=edge.label,
                title=chart_title,
            ),
            extra=f"edge{j}",
        )


def _edge_refs(block: Block, chart: Flowchart, edge: FlowEdge, where: dict[str, Ref]) -> list[Ref] | None:
    """The (element id, bbox, page) an edge's unit points at: the elements that state it, else the whole block; when
    the chart knows both boxes' places on the page (``Flowchart.node_bboxes``), those two boxes and the connector
    (``FlowEdge.arrow_bbox``) instead of the whole chart.
    """
    refs = [where[e] for e in edge.element_ids if e in where]
    ends = [chart.node_bboxes.get(edge.source), chart.node_bboxes.get(edge.target)]
    if block.bbox is None or not all(ends):
        return refs or None
    boxes: list[Ref] = [(block.block_id, box, block.page) for box in ends if box is not None]
    if edge.arrow_bbox is not None:
        boxes.append((block.block_id, edge.arrow_bbox, block.page))
    if not refs:
        return boxes
    return [r for ref in refs for r in (boxes if ref[0] == block.block_id else [ref])]


_WORD = re.compile(r"\w+")


def _section(builder: EmitContext, chart_title: str) -> str:
    """The section part of a flow path's context: :meth:`EmitContext.section_context`, without its last
    heading when that heading is the chart's title again (``Flowchart: Module B: Treatment | Section:
    V. Algorithm``, not ``... | Section: V. Algorithm > B. Module B: Treatment``): the same words twice
    in every edge of the chart cost characters of every hit and tell nothing."""
    context = builder.section_context()
    path = builder.section_path
    if not path or not chart_title or not _same_title(path[-1], chart_title):
        return context
    full = f"Section: {' > '.join(path)}"
    if not context.startswith(full):
        return context
    parent = f"Section: {' > '.join(path[:-1])}" if len(path) > 1 else ""
    return " | ".join(s for s in (parent, context[len(full) :].removeprefix(" | ")) if s)


def _same_title(heading: str, chart_title: str) -> bool:
    """Whether a heading and a chart title say the same, enumerators aside (``B. Module B: Treatment`` /
    ``Module B: Treatment``; ``Inhaled Corticosteroids Usage`` / ``Inhaled Corticosteroid Usage``): at
    least 80 % of each one's words of two or more characters are the other's."""
    a = [w for w in _WORD.findall(heading.casefold()) if len(w) > 1]
    b = [w for w in _WORD.findall(chart_title.casefold()) if len(w) > 1]
    if not a or not b:
        return False
    return sum(w in set(b) for w in a) >= 0.8 * len(a) and sum(w in set(a) for w in b) >= 0.8 * len(b)


def _document(builder: EmitContext, chart_title: str) -> str:
    """``Document: <title>`` for a flow path's context: the filing cover's label when the document has one (as table
    rows carry it), else the document's title (:attr:`ParsedDocument.title`, at most 160 characters); ``""`` without
    either, when the chart's title already holds it, or with ``UnitOptions.document_context`` off.
    """
    if not builder.options.document_context:
        return ""
    if builder.document:
        return builder.document
    doc_title = title(builder.doc.title.strip()) if builder.doc.title.strip() else ""
    if not doc_title or doc_title.casefold() in chart_title.casefold():
        return ""
    return f"Document: {doc_title}"
