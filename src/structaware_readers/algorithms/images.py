"""Algorithm images a document leaves unread become flowchart blocks (or at least searchable text).

For each figure that holds no text, whose title names an algorithm (``Module A: ...``,
``Algorithm``, ``Flowchart``, ``流程图``: :func:`~structaware_readers.algorithms.unread.is_algorithm_title`)
and that no text description already covers, :func:`read_algorithm_images` renders the figure's
region from the PDF (pypdfium2, :data:`DPI`), takes its text lines from the PDF's text layer inside
the region when it has any (born-digital charts drawn as vectors: the text layer beats OCR), else
from the OCR engine given, and reads the chart
(:func:`~structaware_readers.algorithms.image_flow.read_flowchart_image`):

* edges found: the figure becomes a FLOWCHART block (``flowchart``, ``mermaid``, caption = the
  title), one ``flow_path`` unit per edge;
* boxes or text but no edge: the figure keeps the text (box texts in reading order) and gives a
  searchable ``figure`` unit, and the warnings say that its edges could not be read;
* nothing read: left alone (:mod:`.unread` names it).

Source: issue 22 item 2; VA/DoD algorithm pages (born-digital files with the algorithm as a raster
image); pypdfium2 rendering and text-page API.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from structaware_readers.algorithms.described import MIN_IMAGE_AREA, figure_titles
from structaware_readers.algorithms.image_flow import TextLine, read_flowchart_image
from structaware_readers.algorithms.unread import is_algorithm_title
from structaware_readers.errors import MissingExtraError
from structaware_readers.limits import render_scale
from structaware_readers.mermaid import to_mermaid
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

__all__ = ["DPI", "algorithm_images", "engine_lines", "padded", "read_algorithm_images", "render_region"]

#: Resolution the figure regions are rendered at (dots per inch).
DPI = 200
#: A text layer with fewer characters than this inside a figure is not its text (a stray page number).
_MIN_LAYER_CHARS = 12

#: Reads the text lines of an image (an RGB uint8 array): the OCR engine's job.
ReadLines = Callable[[Any], list[TextLine]]


def engine_lines(engine: Any = None, *, cache: Any = True) -> ReadLines:
    """A :data:`ReadLines` over an OCR engine of :mod:`structaware_readers.ocr` (its default engine
    when ``None``): the engine's lines (bbox in 0..1 of the image) in the image's pixels.

    An image is read once: its lines are kept in the OCR cache (``cache``: ``True`` the default
    :class:`~structaware_readers.ocr.cache.OcrCache`, an ``OcrCache``, or ``False``) under the sha256
    of its pixels and the engine's name and version (an algorithm image costs ~20 CPU seconds)."""

    def read(image: Any) -> list[TextLine]:
        from structaware_readers.ocr import default_engine

        h, w = image.shape[:2]
        lines = _cached_read(engine or default_engine(), image, cache)
        return [
            TextLine(line.text, (line.bbox[0] * w, line.bbox[1] * h, line.bbox[2] * w, line.bbox[3] * h), line.confidence)
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


def _pdfium() -> Any:
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


def _text_layer_lines(page: Any, region: BBox, figure: BBox) -> list[TextLine]:
    """The text runs of the page's text layer whose middle lies inside the ``figure`` (the parser's
    region, not the padded one: the caption or a note just outside is no text of the chart), in the
    pixels of ``region`` rendered at :data:`DPI`."""
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        lines = []
        scale = DPI / 72
        left, top = region[0] * width, region[1] * height
        for i in range(textpage.count_rects()):
            x0, y0, x1, y1 = textpage.get_rect(i)  # PDF points, origin bottom-left
            t0, t1 = height - y1, height - y0
            cx, cy = (x0 + x1) / 2 / width, (t0 + t1) / 2 / height
            if not (figure[0] <= cx <= figure[2] and figure[1] <= cy <= figure[3]):
                continue
            text = " ".join(textpage.get_text_bounded(x0, y0, x1, y1).split())
            if text:
                lines.append(TextLine(text, ((x0 - left) * scale, (t0 - top) * scale, (x1 - left) * scale, (t1 - top) * scale)))
        return lines
    finally:
        textpage.close()


def read_algorithm_images(
    doc: ParsedDocument, pdf: str | Path | bytes, *, read_lines: ReadLines | None = None
) -> ParsedDocument:
    """Read the document's unread algorithm images (module docstring); ``doc`` itself when there is
    none or none gives anything.

    Args:
        doc: a document whose blocks are in reading order, algorithm descriptions already attached.
        pdf: the PDF the document was parsed from (path or bytes).
        read_lines: OCR for images without a text layer (:func:`engine_lines` wraps an engine of
            :mod:`structaware_readers.ocr`); ``None`` reads the text layer only.

    Raises:
        MissingExtraError: pypdfium2 (extra ``pdf``) or OpenCV (extra ``ocr``) is not installed.
    """
    targets = algorithm_images(doc)
    if not targets:
        return doc
    pdfium = _pdfium()
    source = pdf if isinstance(pdf, bytes) else str(pdf)
    document = pdfium.PdfDocument(source)
    changed: dict[str, Block] = {}
    warnings = list(doc.warnings)
    try:
        for block, title in targets:
            page = document[block.page - 1]
            region = padded(block.bbox)
            try:
                if render_scale(*page.get_size(), DPI / 72) < DPI / 72:  # an absurd page box: not drawn at DPI
                    warnings.append(f"page {block.page}: the page is too large to render the algorithm image {title!r}; left unread")
                    continue
                lines = _text_layer_lines(page, region, block.bbox)
                image = None
                if sum(len(line.text) for line in lines) < _MIN_LAYER_CHARS:
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
                changed[block.block_id] = block.model_copy(
                    update={"kind": BlockKind.FLOWCHART, "caption": title, "text": box_text, "flowchart": chart, "mermaid": to_mermaid(chart)}
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
