"""Which pages of a PDF need OCR, and those pages as images (pypdfium2).

A page needs OCR when its text layer is (almost) empty while images cover it (a scan) or when the
text layer is garbled (:mod:`structaware_readers.ocr.text_layer`). A page with no object at all is
blank: it gives no blocks. :func:`render_page` draws a page at ``dpi`` (:data:`OCR_DPI`) as RGB,
lower when it would exceed :data:`~structaware_readers.common.limits.MAX_RENDER_PIXELS`; the image
maps 1:1 onto the page, so OCR boxes (0..1, origin top-left) are page boxes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.common.limits import render_scale
from structaware_readers.errors import MalformedInputError, MissingExtraError
from structaware_readers.ocr.text_layer import TextLayerQuality, page_quality

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

#: A page with fewer characters than this in its text layer (PDFium's count, spaces included) has no usable text layer.
MIN_TEXT_CHARS = 16
#: ... when images cover at least this share of its area (else it is taken as blank).
MIN_IMAGE_COVER = 0.25
#: Resolution pages are rendered at for OCR (dots per inch). 200 dpi puts 9 pt body text at ~25 px.
OCR_DPI = 200


@dataclass(frozen=True)
class PageScan:
    """What one page holds, as seen before any parsing."""

    page: int
    text_chars: int
    image_cover: float | None
    size: tuple[float, float]
    quality: TextLayerQuality | None = None
    objects: int | None = None

    @property
    def blank(self) -> bool:
        """Nothing on the page: no text layer and no page object (nothing for any route to read)."""
        return self.text_chars < MIN_TEXT_CHARS and self.objects == 0

    @property
    def scanned(self) -> bool:
        """No usable text layer, and images on it: a scanned page."""
        return self.text_chars < MIN_TEXT_CHARS and (self.image_cover or 0.0) >= MIN_IMAGE_COVER

    @property
    def garbled(self) -> bool:
        """A text layer whose characters are mostly unreadable (:attr:`TextLayerQuality.garbled`)."""
        return self.quality is not None and self.quality.garbled

    @property
    def needs_ocr(self) -> bool:
        """A scanned page or a garbled text layer: only OCR reads what the page prints."""
        return self.scanned or self.garbled

    @property
    def reason(self) -> str:
        """Why the page needs OCR, for messages (``""`` when it does not)."""
        if self.garbled:
            return "its text layer is unreadable (fonts without a Unicode map or mojibake)"
        return "no text layer" if self.text_chars < MIN_TEXT_CHARS and not self.blank else ""


def _pdfium() -> Any:
    try:
        import pypdfium2
    except ImportError as exc:
        raise MissingExtraError("pypdfium2", "ocr", "Reading pages without a text layer (OCR)") from exc
    return pypdfium2


def open_pdf(pdf: str | Path | bytes) -> Any:
    """A ``pypdfium2.PdfDocument`` of a path or of the PDF's bytes. Raises ``MissingExtraError``,
    ``MalformedInputError``.
    """
    pdfium = _pdfium()
    try:
        return pdfium.PdfDocument(pdf)
    except pdfium.PdfiumError as exc:
        label = "<bytes>" if isinstance(pdf, bytes) else str(pdf)
        raise MalformedInputError(f"PDFium cannot open this PDF: {exc}", path=label, field="pdf") from exc


def scan_pages(pdf: str | Path | bytes | Any) -> list[PageScan]:
    """One :class:`PageScan` per page, in page order (cheap: no rendering)."""
    doc = pdf if hasattr(pdf, "get_page") else open_pdf(pdf)
    try:
        return _scan(doc)
    finally:
        if doc is not pdf:  # opened here: closed here, not left to the garbage collector or the exit
            doc.close()


def _scan(doc: Any) -> list[PageScan]:
    import pypdfium2.raw as pdfium_c

    out: list[PageScan] = []
    for i in range(len(doc)):
        page = doc[i]
        try:
            width, height = page.get_size()
            textpage = page.get_textpage()
            quality: TextLayerQuality | None = None
            try:
                chars = textpage.count_chars()
                if chars >= MIN_TEXT_CHARS:  # the text and a sample of map-error flags (cheap beside parsing)
                    quality = page_quality(textpage, chars)
            finally:
                textpage.close()
            cover: float | None = None
            objects: int | None = None
            if chars < MIN_TEXT_CHARS:  # objects are looked at only where text is missing (the hot path skips them)
                covered, objects = 0.0, 0
                for obj in page.get_objects(max_depth=3):
                    objects += 1
                    if obj.type != pdfium_c.FPDF_PAGEOBJ_IMAGE:
                        continue
                    x0, y0, x1, y1 = obj.get_bounds()
                    covered += max(0.0, min(x1, width) - max(x0, 0.0)) * max(0.0, min(y1, height) - max(y0, 0.0))
                cover = min(1.0, covered / max(width * height, 1e-6))
            out.append(PageScan(i + 1, chars, cover, (float(width), float(height)), quality, objects))
        finally:
            page.close()
    return out


def pages_needing_ocr(pdf: str | Path | bytes | Any) -> list[int]:
    """1-based numbers of the pages without a usable text layer, scanned or garbled (module docstring)."""
    return [s.page for s in scan_pages(pdf) if s.needs_ocr]


def render_page(pdf: str | Path | bytes | Any, page: int, *, dpi: int = OCR_DPI) -> Image.Image:
    """Page ``page`` (1-based) as an RGB ``PIL.Image`` at ``dpi`` (less for a page whose image would exceed
    :data:`~structaware_readers.common.limits.MAX_RENDER_PIXELS`), annotations and forms drawn. Raises
    ``IndexError``.
    """
    doc = pdf if hasattr(pdf, "get_page") else open_pdf(pdf)
    try:
        if not 1 <= page <= len(doc):
            raise IndexError(f"page {page} is outside 1..{len(doc)}")
        p = doc[page - 1]
        try:
            bitmap = p.render(scale=render_scale(*p.get_size(), dpi / 72.0), may_draw_forms=True)
            return bitmap.to_pil().convert("RGB")
        finally:
            p.close()
    finally:
        if doc is not pdf:
            doc.close()


__all__ = [
    "MIN_IMAGE_COVER",
    "MIN_TEXT_CHARS",
    "OCR_DPI",
    "PageScan",
    "open_pdf",
    "pages_needing_ocr",
    "render_page",
    "scan_pages",
]
