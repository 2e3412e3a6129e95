"""A pdfplumber page cut to the part of it a viewer shows: its CropBox, turned as its ``/Rotate`` turns it.

Boxes in this package are 0..1 of the displayed page, origin top-left: the parser's regions (it renders the page
as PDFium does) and the row boxes handed on. A viewer shows a page's CropBox (clipped to its MediaBox), while
pdfplumber places glyphs on the whole MediaBox, and ``page.bbox`` is that MediaBox. Where the two differ (a
CropBox a few points inside the MediaBox, as printers' PDFs set it), every 0..1 box read against ``page.bbox``
lands that many points off the print and a little too wide. :func:`shown_page` gives the page cropped to its
displayed box, so ``page.bbox`` is the displayed page and ``page.chars`` the glyphs on it; a page whose CropBox is
its MediaBox comes back as it is. A page printed twice over comes back without the glyphs of its second copy
(:func:`~structaware_readers.text.ghost_copy.ghost_glyphs`), so each cell reads one copy. Positions stay
pdfplumber's (PDF points, origin top-left).
"""

from __future__ import annotations

from typing import Any

from structaware_readers.text.ghost_copy import ghost_glyphs

__all__ = ["displayed_box", "shown_page"]

#: Boxes closer than this (PDF points) on every side are one box.
SAME_BOX = 0.01


def shown_page(plumber: Any, page_number: int) -> Any:
    """Page ``page_number`` (1-based) of the pdfplumber PDF ``plumber`` as a viewer shows it (module docstring).
    Close it with ``page.root_page.close()``: pdfplumber keeps the objects on the uncut page."""
    page = plumber.pages[page_number - 1]
    box = displayed_box(page)
    if box is not None and any(abs(a - b) > SAME_BOX for a, b in zip(box, page.bbox)):
        page = page.crop(box, strict=False)
    return _one_copy(page)


def _one_copy(page: Any) -> Any:
    """``page`` without the glyphs of its second copy when it is printed twice over, else ``page`` itself."""
    chars = page.chars
    # a glyph's height in pdfplumber is its font size as printed (PDFium's size times the glyph's matrix)
    ghost = ghost_glyphs([(c["text"], (c["x0"] + c["x1"]) / 2, c["bottom"], c["bottom"] - c["top"]) for c in chars])
    if not ghost:
        return page
    dropped = {id(chars[k]) for k in ghost}
    return page.filter(lambda obj: id(obj) not in dropped)


def displayed_box(page: Any) -> tuple[float, float, float, float] | None:
    """The CropBox of a pdfplumber ``page`` clipped to its MediaBox, in pdfplumber's positions (points, origin
    top-left, turned as the page's ``/Rotate``); ``None`` when it is empty or unreadable."""
    obj = page.page_obj  # pdfminer's page: the boxes as the PDF writes them, and the turn it reads glyphs with
    try:
        matrix = _turn(tuple(float(v) for v in obj.mediabox), int(obj.rotate))
        crop = tuple(float(v) for v in obj.cropbox)
        left, top, right, bottom = (float(v) for v in page.mediabox)
    except (TypeError, ValueError, AttributeError):
        return None
    height = bottom - top
    points = [_apply(matrix, x, y) for x in (crop[0], crop[2]) for y in (crop[1], crop[3])]
    xs = [left + px for px, _ in points]  # pdfminer's positions moved as pdfplumber moves its glyphs
    tops = [top + height - py for _, py in points]
    box = (max(left, min(xs)), max(top, min(tops)), min(right, max(xs)), min(bottom, max(tops)))
    return box if box[2] > box[0] and box[3] > box[1] else None


def _turn(mediabox: tuple[float, ...], rotate: int) -> tuple[float, float, float, float, float, float]:
    """The matrix pdfminer reads a page's glyphs with, from its MediaBox and turn (PDF points, origin bottom-left)."""
    x0, y0, x1, y1 = mediabox
    if rotate == 90:
        return (0.0, -1.0, 1.0, 0.0, -y0, x1)
    if rotate == 180:
        return (-1.0, 0.0, 0.0, -1.0, x1, y1)
    if rotate == 270:
        return (0.0, 1.0, -1.0, 0.0, y1, -x0)
    return (1.0, 0.0, 0.0, 1.0, -x0, -y0)


def _apply(m: tuple[float, float, float, float, float, float], x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f
