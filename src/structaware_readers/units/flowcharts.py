"""``flow_path`` units: one per directed edge of a Mermaid flowchart, ``A -(label)-> B``.

Source: the reference paper, section 2.3 (flowchart paths); node labels in any language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from structaware_readers.errors import MalformedInputError
from structaware_readers.mermaid import parse_mermaid
from structaware_readers.models import Block, FlowEdgeInfo, UnitType
from structaware_readers.units.common import title
from structaware_readers.units.figures import emit_figure

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext


def emit_flowchart(builder: EmitContext, block: Block) -> None:
    """One ``flow_path`` unit per edge of ``block``'s chart (:attr:`Block.flowchart`, else its Mermaid
    source); a figure unit when it has none. An edge that names the elements stating it
    (``FlowEdge.element_ids``: an algorithm's image and the paragraph of its text description) points
    at those elements and their pages; any other edge at the whole block."""
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
    context = " | ".join(s for s in (head, builder.section_context(), _document(builder.doc.title, chart_title)) if s)
    where = {eid: (eid, box, page) for eid, box, page in block.element_refs()}
    for j, edge in enumerate(chart.edges):
        label = f" -({edge.label})-> " if edge.label else " -> "
        text = f"{edge.source_label}{label}{edge.target_label}"
        refs = [where[e] for e in edge.element_ids if e in where] or None
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


def _document(doc_title: str, chart_title: str) -> str:
    """``Document: <title>`` for a flow path's context, or ``""`` when the document has no title or the
    chart's title already holds it.

    A figure's own title seldom names its subject (``Algorithm``, ``Module B: Treatment``): across a
    library of guidelines the hypertension and the kidney-disease algorithms both have a ``Patient
    declines`` box, and only the document's title (:attr:`ParsedDocument.title`, at most 160
    characters) says which condition an edge belongs to.
    """
    doc_title = title(doc_title.strip()) if doc_title.strip() else ""
    if not doc_title or doc_title.casefold() in chart_title.casefold():
        return ""
    return f"Document: {doc_title}"
