"""OCR for pages without a usable text layer (extra ``structaware[ocr]``).

Modules: :mod:`.engine` (:class:`OcrEngine`, the default :class:`RapidOcrEngine`), :mod:`.pages`
(which pages need OCR, rendering), :mod:`.text_layer` (garbled text layers), :mod:`.read_pages`
with :mod:`.cache` (OCR of chosen pages), :mod:`.layout` (lines -> blocks), :mod:`.quality`. The PDF
router that uses them is :mod:`structaware_readers.load.pdf_route`. Importing this package imports
no OCR library; a missing one raises :class:`~structaware_readers.errors.MissingExtraError` naming
``structaware[ocr]`` when first used.
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
