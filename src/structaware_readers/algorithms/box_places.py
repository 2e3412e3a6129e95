"""Where each box of an algorithm is drawn on its page, so that an edge's evidence is its two boxes.

A ``flow_path`` unit read from a text description points at the whole algorithm image.
:func:`place_described_boxes` reads the image's boxes
(:func:`~structaware_readers.algorithms.image_flow.read_flowchart_image`, text from the text layer or
OCR), matches them to the described boxes by number or text, and sets the chart's ``node_bboxes``
and each edge's ``arrow_bbox``; an unmatched box keeps no place. :func:`fit_description_lines` fits
the description paragraphs to the text layer's lines. Places are 0..1 of the displayed page,
origin top-left.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from structaware_readers.algorithms.described import MIN_IMAGE_AREA
from structaware_readers.algorithms.images import (
    DPI,
    MIN_LAYER_CHARS,
    arrow_places,
    node_places,
    padded,
    pdfium_module,
    render_region,
    text_layer_lines,
)
from structaware_readers.algorithms.score import match_boxes
from structaware_readers.common.limits import render_scale
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

if TYPE_CHECKING:
    from structaware_readers.algorithms.image_flow import ImageFlow
    from structaware_readers.algorithms.images import ReadLines

__all__ = ["described_images", "fit_description_lines", "place_described_boxes"]


def described_images(doc: ParsedDocument) -> list[Block]:
    """Flowchart blocks read from a text description and standing on the algorithm's image
    (:func:`_on_image`) whose boxes have no place yet."""
    return [b for b in doc.blocks if _on_image(b) and not b.flowchart.node_bboxes]  # type: ignore[union-attr]


def _on_image(b: Block) -> bool:
    """A flowchart block read from a text description that stands on the algorithm's image: every
    edge names the block itself first (without an image only the edges stated in the outline's
    first paragraph would), and the block is image-sized."""
    chart = b.flowchart
    if b.kind is not BlockKind.FLOWCHART or chart is None or b.bbox is None or not chart.edges:
        return False
    box = b.bbox
    if (box[2] - box[0]) * (box[3] - box[1]) < MIN_IMAGE_AREA:
        return False
    return all(e.element_ids[:1] == [b.block_id] for e in chart.edges)


def place_described_boxes(
    doc: ParsedDocument, pdf: str | Path | bytes, *, read_lines: ReadLines | None = None
) -> ParsedDocument:
    """``doc`` with the boxes of its described algorithms placed on their images (module docstring); ``doc`` itself
    when there is none or none is found. Raises ``MissingExtraError``.
    """
    from structaware_readers.algorithms.image_flow import read_flowchart_image

    targets = described_images(doc)
    if not targets:
        return doc
    document = pdfium_module().PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    changed: dict[str, Block] = {}
    try:
        for block in targets:
            page = document[block.page - 1]
            region = padded(block.bbox)  # type: ignore[arg-type]
            try:
                size = page.get_size()
                if render_scale(*size, DPI / 72) < DPI / 72:  # an absurd page box: the edges keep the whole image
                    continue
                lines = text_layer_lines(page, region, block.bbox)  # type: ignore[arg-type]
                image = render_region(page, region)
                if sum(len(line.text) for line in lines) < MIN_LAYER_CHARS:
                    lines = read_lines(image) if read_lines is not None else []
            finally:
                page.close()
            if not lines:
                continue
            flow = read_flowchart_image(image, lines, dpi=DPI)
            places, arrows = _described_places(flow, block, region, size)
            if places:
                edges = [replace(e, arrow_bbox=arrows.get((e.source, e.target))) for e in block.flowchart.edges]  # type: ignore[union-attr]
                chart = replace(block.flowchart, node_bboxes=places, edges=edges)  # type: ignore[type-var]
                changed[block.block_id] = block.model_copy(update={"flowchart": chart})
    finally:
        document.close()
    if not changed:
        return doc
    return doc.model_copy(update={"blocks": [changed.get(b.block_id, b) for b in doc.blocks]})


def _described_places(
    flow: ImageFlow, block: Block, region: BBox, size: tuple[float, float]
) -> tuple[dict[str, BBox], dict[tuple[str, str], BBox]]:
    """Described box number -> its place, for the read boxes matched to a described box (the first
    read box of a number wins); and (source, target) number -> the connector's place, for the read
    edges whose two boxes are matched."""
    read = flow.to_flowchart()
    places = node_places(flow, region, size, DPI)
    ids = [flow.node_id(i) for i in range(len(flow.boxes))]
    mapping = match_boxes(read, block.flowchart)  # type: ignore[arg-type]
    out: dict[str, BBox] = {}
    for i, node in enumerate(ids):
        described = mapping.get(node)
        if described is not None and described not in out:
            out[described] = places[i]
    arrows: dict[tuple[str, str], BBox] = {}
    for (s, t), place in arrow_places(flow, region, size, DPI).items():
        pair = (mapping.get(ids[s]), mapping.get(ids[t]))
        if pair[0] is not None and pair[1] is not None:
            arrows.setdefault(pair, place)  # type: ignore[arg-type]
    return out, arrows


def fit_description_lines(doc: ParsedDocument, pdf: str | Path | bytes) -> ParsedDocument:
    """``doc`` with the boxes of the description paragraphs its flowchart edges point at fitted to the PDF's text
    layer: each becomes the union of the text runs whose middle lies inside it (a parser's paragraph box may end a
    few points short of its lines' ends, or above its last line's descenders). A box with no run inside is kept.
    Raises ``InputNotFoundError``, ``MalformedInputError``.
    """
    from structaware_readers.table_recovery.pdfium_text import PdfiumText, runs_in

    targets = [
        i
        for i, b in enumerate(doc.blocks)
        if b.kind is BlockKind.FLOWCHART and b.flowchart is not None and any(e.element_ids for e in b.flowchart.edges)
    ]
    if not targets:
        return doc
    blocks = list(doc.blocks)
    with PdfiumText(pdf) as text:
        if len(text) != doc.page_count:
            return doc

        def fit(page: int, box: BBox | None) -> BBox | None:
            inside = runs_in(text.runs(page), box) if box is not None else []
            if not inside:
                return box
            return (
                round(min(r.x0 for r in inside), 4),
                round(min(r.y0 for r in inside), 4),
                round(max(r.x1 for r in inside), 4),
                round(max(r.y1 for r in inside), 4),
            )

        for i in targets:
            b = blocks[i]
            stated = {eid for e in b.flowchart.edges for eid in e.element_ids}  # type: ignore[union-attr]
            update: dict[str, object] = {}
            if len(b.extra_bboxes) == len(b.extra_pages) == len(b.extra_ids):
                update["extra_bboxes"] = [
                    fit(page, box) if eid in stated else box
                    for eid, page, box in zip(b.extra_ids, b.extra_pages, b.extra_bboxes)
                ]
            if b.block_id in stated and not _on_image(b):
                update["bbox"] = fit(b.page, b.bbox)  # the outline's first paragraph stands for the chart
            if update:
                blocks[i] = b.model_copy(update=update)
    return doc.model_copy(update={"blocks": blocks})
