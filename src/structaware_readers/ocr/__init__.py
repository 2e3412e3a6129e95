"""OCR for pages without a usable text layer (extra ``structaware[ocr]``).

* :mod:`.engine`: the engine interface (:class:`OcrEngine`: an RGB page image in, :class:`OcrLine`
  text lines out, each with a bbox in 0..1 of the image, origin top-left, and a confidence) and the
  default engine (:class:`RapidOcrEngine`, weights inside its PyPI wheel, loaded lazily);
* :mod:`.pages`: which pages of a PDF need OCR (no text layer and images on the page, or a garbled
  text layer: :mod:`.text_layer`) and rendering them (pypdfium2).
* :mod:`.read_pages`: OCR of chosen pages with their horizontal rules, cached per page (:mod:`.cache`);
* :mod:`.layout`: one page's lines -> typed blocks in reading order (furniture, tables as grids,
  headings, paragraphs);
* :mod:`.route`: :func:`~.route.read_pdf`, each page of a PDF by the route that can read it (what
  :func:`structaware_readers.load.loader.load_document` uses for PDFs).

Importing this package imports no OCR library; a missing one raises
:class:`~structaware_readers.errors.MissingExtraError` naming ``structaware[ocr]`` when first used.
"""

from structaware_readers.ocr.engine import (
    LOW_CONFIDENCE,
    MIN_CONFIDENCE,
    OcrEngine,
    OcrLine,
    OcrUnavailableError,
    RapidOcrEngine,
    default_engine,
)
from structaware_readers.ocr.pages import OCR_DPI, PageScan, pages_needing_ocr, render_page, scan_pages

__all__ = [
    "LOW_CONFIDENCE",
    "MIN_CONFIDENCE",
    "OCR_DPI",
    "OcrEngine",
    "OcrLine",
    "OcrUnavailableError",
    "PageScan",
    "RapidOcrEngine",
    "default_engine",
    "pages_needing_ocr",
    "render_page",
    "scan_pages",
]
