"""A PDF's text layer as PDFium reads it: text runs with their boxes, page by page, read once. Boxes are 0..1 of the
displayed page, origin top-left. A page printed twice over is read once: the runs leave out the glyphs of its
second copy (:func:`~structaware_readers.text.ghost_copy.ghost_glyphs`).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_readers.models import BBox
from structaware_readers.text.ghost_copy import pdfium_ghosts, pdfium_glyphs

__all__ = ["PdfiumText", "TextRun", "runs_in"]

_DEVICE = 100_000  # device size of PDFium's page-to-device transform: 1e-5 of the page


@dataclass
class TextRun:
    """One run of text on one line: its text and its box (0..1 of the displayed page, top-left origin)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float


def runs_in(runs: list[TextRun], region: BBox) -> list[TextRun]:
    """The runs whose centre lies in ``region`` (0..1 of the page, top-left origin)."""
    out = []
    for run in runs:
        cx, cy = (run.x0 + run.x1) / 2, (run.y0 + run.y1) / 2
        if region[0] <= cx <= region[2] and region[1] <= cy <= region[3]:
            out.append(run)
    return out


class PdfiumText:
    """A PDF opened with PDFium, its pages' text runs read on first use and kept (a context manager). Raises
    ``InputNotFoundError``, ``MalformedInputError``.
    """

    def __init__(self, pdf: str | Path | bytes) -> None:
        import pypdfium2

        label = f"<{len(pdf)} bytes of PDF>" if isinstance(pdf, bytes) else str(pdf)
        if not isinstance(pdf, bytes) and not Path(pdf).is_file():
            raise InputNotFoundError("the PDF does not exist", path=label, field="pdf")
        try:
            self._doc = pypdfium2.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
        except pypdfium2.PdfiumError as exc:
            raise MalformedInputError(f"not a PDF PDFium can open: {exc}", path=label, field="pdf") from None
        self._runs: dict[int, list[TextRun]] = {}
        self._texts: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._doc)

    def __enter__(self) -> PdfiumText:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the document (the runs read stay usable)."""
        self._doc.close()

    def runs(self, page_number: int) -> list[TextRun]:
        """The text runs of 1-based ``page_number``, in PDFium's order (read once, then kept)."""
        if page_number not in self._runs:
            self._runs[page_number] = _page_runs(self._doc, page_number)
        return self._runs[page_number]

    def text(self, page_number: int) -> str:
        """The text of 1-based ``page_number`` as the text restore reads it (NFKC, line by line; read once)."""
        if page_number not in self._texts:
            from structaware_readers.text.glyph_marks import page_text

            textpage = self._doc[page_number - 1].get_textpage()
            try:
                self._texts[page_number] = page_text(textpage)[0]
            finally:
                textpage.close()
        return self._texts[page_number]


def _page_runs(pdf_doc: Any, page_number: int) -> list[TextRun]:
    import pypdfium2.raw as pdfium_c

    page = pdf_doc[page_number - 1]
    try:
        textpage = page.get_textpage()
        runs: list[TextRun] = []
        x, y = ctypes.c_int(), ctypes.c_int()

        def device(px: float, py: float) -> tuple[float, float]:
            pdfium_c.FPDF_PageToDevice(page, 0, 0, _DEVICE, _DEVICE, 0, px, py, ctypes.byref(x), ctypes.byref(y))
            return x.value / _DEVICE, y.value / _DEVICE

        ghost = pdfium_ghosts(textpage)
        glyphs = pdfium_glyphs(textpage) if ghost else []  # read again: only a page printed twice over
        for start, count in _kept_spans(ghost, textpage.count_chars()):
            for k in range(textpage.count_rects(start, count)):
                left, bottom, right, top = textpage.get_rect(k)
                if ghost:  # the rect's own glyphs: the second copy's, printed across it, are left out
                    text = "".join(
                        glyphs[i][0]
                        for i in range(start, start + count)
                        if glyphs[i][0] not in "\r\n"
                        and left <= glyphs[i][1] <= right
                        and bottom <= glyphs[i][2] <= top
                    )
                else:
                    text = textpage.get_text_bounded(left, bottom, right, top)
                if not text.strip():
                    continue
                (ax, ay), (bx, by) = device(left, top), device(right, bottom)
                runs.append(TextRun(text, min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)))
        textpage.close()
    finally:
        page.close()
    return runs


def _kept_spans(ghost: set[int], total: int) -> list[tuple[int, int]]:
    """``(start, count)`` of each stretch of a page's ``total`` characters to read: the whole page, or on a page
    printed twice over the stretches between the glyphs of its second copy (``ghost``)."""
    if not ghost:
        return [(0, -1)]
    spans, start = [], 0
    for k in sorted(ghost):
        if k > start:
            spans.append((start, k - start))
        start = k + 1
    if start < total:
        spans.append((start, total - start))
    return spans
