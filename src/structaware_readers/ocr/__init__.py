"""OCR for pages without a usable text layer (extra ``structaware[ocr]``).

* :mod:`.engine`: the engine interface (:class:`OcrEngine`: an RGB page image in, :class:`OcrLine`
  text lines out, each with a bbox in 0..1 of the image, origin top-left, and a confidence) and the
  default engine (:class:`RapidOcrEngine`, weights inside its PyPI wheel, loaded lazily);
* :mod:`.pages`: which pages of a PDF need OCR (no text layer, images on the page) and rendering
  them (pypdfium2).

Importing this package imports no OCR library; a missing one raises
:class:`~structaware_readers.errors.MissingExtraError` naming ``structaware[ocr]`` when first used.
"""

from .engine import LOW_CONFIDENCE, MIN_CONFIDENCE, OcrEngine, OcrLine, OcrUnavailableError, RapidOcrEngine, default_engine
from .pages import OCR_DPI, PageScan, pages_needing_ocr, render_page, scan_pages

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
