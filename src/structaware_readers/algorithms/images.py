"""Algorithm images a document leaves unread become flowchart blocks (or at least searchable text).

For each text-less figure titled as an algorithm
(:func:`~structaware_readers.algorithms.unread.is_algorithm_title`) that no text description covers,
:func:`read_algorithm_images` renders its region (:data:`DPI`), takes its lines from the text layer
or else OCR, and reads the chart (:func:`~structaware_readers.algorithms.image_flow.read_flowchart_image`).
Edges found: a FLOWCHART block with each box's place in ``node_bboxes``. Boxes or text only: a
searchable figure and a warning. Nothing read: left alone (:mod:`.unread` names it).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from structaware_readers.algorithms.described import MIN_IMAGE_AREA, figure_titles
from structaware_readers.algorithms.image_flow import ImageFlow, TextLine, read_flowchart_image
from structaware_readers.algorithms.unread import is_algorithm_title
from structaware_readers.common.limits import render_scale
from structaware_readers.errors import MissingExtraError
from structaware_readers.mermaid import to_mermaid
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

__all__ = [
    "DPI",
    "MIN_LAYER_CHARS",
    "algorithm_images",
    "arrow_places",
    "engine_lines",
    "node_places",
    "padded",
    "pdfium_module",
    "read_algorithm_images",
    "render_region",
    "text_layer_lines",
]

#: Resolution the figure regions are rendered at (dots per inch).
DPI = 200
#: A text layer with fewer characters than this inside a figure is not its text (a stray page number).
MIN_LAYER_CHARS = 12

#: Reads the text lines of an image (an RGB uint8 array): the OCR engine's job.
ReadLines = Callable[[Any], list[TextLine]]


def engine_lines(engine: Any = None, *, cache: Any = True) -> ReadLines:
    """A :data:`ReadLines` over an OCR engine of :mod:`structaware_readers.ocr` (its default engine when ``None``): the
    engine's lines (bbox in 0..1 of the image) in the image's pixels.
    """

    def read(image: Any) -> list[TextLine]:
        from structaware_readers.ocr import default_engine

        h, w = image.shape[:2]
        lines = _cached_read(engine or default_engine(), image, cache)
        return [
            TextLine(
                line.text, (line.bbox[0] * w, line.bbox[1] * h, line.bbox[2] * w, line.bbox[3] * h), line.confidence
            )
            for line in lines
        ]

    return read


def _cached_read(engine: Any, image: Any, cache: Any) -> list[Any]:
    """``engine.read(image)``, through the OCR cache unless ``cache`` is ``False`` (see :func:`engine_lines`)."""
    if cache is False:
        return list(engine.read(image))
    import hashlib

    from structaware_readers.ocr.cache import OcrCache

    store = OcrCache() if cache is True else cache
    digest = hashlib.sha256(f"{image.shape}|{image.dtype}|".encode() + image.tobytes()).hexdigest()
    key = f"{getattr(engine, 'name', type(engine).__name__)} {getattr(engine, 'version', '')} {getattr(engine, 'min_confidence', '')} r{getattr(engine, 'revision', 0)}"
    lines = store.load_image(digest, key)
    if lines is None:
        lines = list(engine.read(image))
        try:
            store.store_image(digest, key, lines)
        except OSError:  # a read-only cache: read again next time
            pass
    return lines


def algorithm_images(doc: ParsedDocument) -> list[tuple[Block, str]]:
    """(figure block, title) of every unread figure whose title names an algorithm."""
    titles = figure_titles(doc.blocks)
    out = []
    for b in doc.blocks:
        if b.kind is not BlockKind.FIGURE or b.caption.strip() or b.text.strip() or b.bbox is None:
            continue
        box = b.bbox
        if (box[2] - box[0]) * (box[3] - box[1]) < MIN_IMAGE_AREA:
            continue
        title = titles.get(b.block_id, "")
        if title and is_algorithm_title(title):
            out.append((b, title))
    return out


def pdfium_module() -> Any:
    try:
        import pypdfium2 as pdfium
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError("pypdfium2", "pdf", "rendering an algorithm image from its PDF") from exc
    return pdfium


#: Margin (fraction of the page) added around a figure's region: parsers' boxes are often tight
#: enough to cut the outline of a box at the chart's edge.
PAD = 0.01


def padded(bbox: BBox) -> BBox:
    """``bbox`` grown by :data:`PAD` on every side, within the page."""
    return (max(0.0, bbox[0] - PAD), max(0.0, bbox[1] - PAD), min(1.0, bbox[2] + PAD), min(1.0, bbox[3] + PAD))


def render_region(page: Any, bbox: BBox, dpi: int = DPI) -> Any:
    """The region ``bbox`` (0..1 of the page, origin top-left) of a pypdfium2 page as an RGB array."""
    import numpy as np

    img = page.render(scale=dpi / 72).to_numpy()
    h, w = img.shape[:2]
    x0, y0, x1, y1 = int(bbox[0] * w), int(bbox[1] * h), int(bbox[2] * w) + 1, int(bbox[3] * h) + 1
    return np.ascontiguousarray(img[y0:y1, x0:x1, :3][:, :, ::-1])  # BGRx -> RGB


def node_places(flow: ImageFlow, region: BBox, page_size: tuple[float, float], dpi: int) -> list[BBox]:
    """The page box of each of ``flow.boxes`` (in order) read from ``region`` of a page of
    ``page_size`` PDF points rendered at ``dpi`` (:func:`render_region`: the region's pixels start
    at ``int(region[0] * page width in pixels)``)."""
    return [_page_box(box.bbox, region, page_size, dpi) for box in flow.boxes]


def arrow_places(
    flow: ImageFlow, region: BBox, page_size: tuple[float, float], dpi: int
) -> dict[tuple[int, int], BBox]:
    """The page box of each edge's connector (``flow.arrows``, by ``(source, target)`` box index), as
    :func:`node_places`."""
    return {pair: _page_box(box, region, page_size, dpi) for pair, box in flow.arrows.items()}


def _page_box(box: tuple[int, int, int, int], region: BBox, page_size: tuple[float, float], dpi: int) -> BBox:
    """``(x, y, width, height)`` pixels of ``region`` rendered at ``dpi`` -> 0..1 of the page."""
    width, height = page_size[0] * dpi / 72, page_size[1] * dpi / 72
    left, top = int(region[0] * width), int(region[1] * height)
    x, y, w, h = box
    return (
        round(max(0.0, (left + x) / width), 4),
        round(max(0.0, (top + y) / height), 4),
        round(min(1.0, (left + x + w) / width), 4),
        round(min(1.0, (top + y + h) / height), 4),
    )


def text_layer_lines(page: Any, region: BBox, figure: BBox) -> list[TextLine]:
    """The text runs of the page's text layer whose middle lies inside the ``figure`` (the parser's
    region, not the padded one: the caption or a note just outside is no text of the chart), in the
    pixels of ``region`` rendered at :data:`DPI` (:func:`render_region`). Positions go through
    PDFium's page-to-device transform, which knows the page's ``/Rotate`` and the origin of its boxes."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    device = 100_000  # 1e-5 of the page
    width, height = page.get_size()
    full_w, full_h = width * DPI / 72, height * DPI / 72
    left, top = int(region[0] * full_w), int(region[1] * full_h)
    x, y = ctypes.c_int(), ctypes.c_int()

    def fraction(px: float, py: float) -> tuple[float, float]:
        pdfium_c.FPDF_PageToDevice(page, 0, 0, device, device, 0, px, py, ctypes.byref(x), ctypes.byref(y))
        return x.value / device, y.value / device

    textpage = page.get_textpage()
    try:
        lines = []
        for i in range(textpage.count_rects()):
            x0, y0, x1, y1 = textpage.get_rect(i)  # PDF points, origin bottom-left
            (ax, ay), (bx, by) = fraction(x0, y1), fraction(x1, y0)
            fx0, fy0, fx1, fy1 = min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)
            cx, cy = (fx0 + fx1) / 2, (fy0 + fy1) / 2
            if not (figure[0] <= cx <= figure[2] and figure[1] <= cy <= figure[3]):
                continue
            text = " ".join(textpage.get_text_bounded(x0, y0, x1, y1).split())
            if text:
                box = (fx0 * full_w - left, fy0 * full_h - top, fx1 * full_w - left, fy1 * full_h - top)
                lines.append(TextLine(text, box))
        return lines
    finally:
        textpage.close()


def read_algorithm_images(
    doc: ParsedDocument, pdf: str | Path | bytes, *, read_lines: ReadLines | None = None
) -> ParsedDocument:
    """Read the document's unread algorithm images (module docstring); ``doc`` itself when there is none or none gives
    anything. Raises ``MissingExtraError``.
    """
    targets = algorithm_images(doc)
    if not targets:
        return doc
    pdfium = pdfium_module()
    source = pdf if isinstance(pdf, bytes) else str(pdf)
    document = pdfium.PdfDocument(source)
    changed: dict[str, Block] = {}
    warnings = list(doc.warnings)
    try:
        for block, title in targets:
            page = document[block.page - 1]
            region = padded(block.bbox)
            try:
                size = page.get_size()
                if render_scale(*size, DPI / 72) < DPI / 72:  # an absurd page box: not drawn at DPI
                    warnings.append(
                        f"page {block.page}: the page is too large to render the algorithm image {title!r}; left unread"
                    )
                    continue
                lines = text_layer_lines(page, region, block.bbox)
                image = None
                if sum(len(line.text) for line in lines) < MIN_LAYER_CHARS:
                    image = render_region(page, region)
                    lines = read_lines(image) if read_lines is not None else []
                if not lines:
                    continue
                flow = read_flowchart_image(image if image is not None else render_region(page, region), lines, dpi=DPI)
            finally:
                page.close()
            box_text = "\n".join(b.text for b in flow.boxes if b.text) or "\n".join(line.text for line in lines)
            if flow.edges:
                chart = flow.to_flowchart(title)
                places = node_places(flow, region, size, DPI)
                chart.node_bboxes = {flow.node_id(i): place for i, place in enumerate(places)}
                arrows = arrow_places(flow, region, size, DPI)
                for edge, (s, t, _) in zip(chart.edges, flow.edges):
                    edge.arrow_bbox = arrows.get((s, t))
                changed[block.block_id] = block.model_copy(
                    update={
                        "kind": BlockKind.FLOWCHART,
                        "caption": title,
                        "text": box_text,
                        "flowchart": chart,
                        "mermaid": to_mermaid(chart),
                    }
                )
            else:
                changed[block.block_id] = block.model_copy(update={"caption": title, "text": box_text})
                warnings.append(
                    f"p.{block.page}: the algorithm image '{title}' ({block.block_id}): {len(flow.boxes)} boxes read but"
                    " no arrows between them; its text is a figure unit, not flow paths"
                )
    finally:
        document.close()
    if not changed:
        return doc
    blocks = [changed.get(b.block_id, b) for b in doc.blocks]
    return doc.model_copy(update={"blocks": blocks, "warnings": warnings})
