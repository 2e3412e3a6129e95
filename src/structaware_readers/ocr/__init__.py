"""OCR for pages without a usable text layer (extra ``structaware[ocr]``)."""

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
