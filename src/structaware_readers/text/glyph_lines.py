"""Line breaks PDFium writes between glyphs that stand side by side on one line.

PDFium reads a text object of one glyph in the direction it takes the page's lines to run, and takes them to run
top to bottom when the page's text fills more of its height than of its width: a long table of narrow columns far
apart. A PDF that draws each glyph as a text object of its own then gets a line break after every glyph of such a
page: ``3`` / ``,`` / ``3`` / ``3`` / ``5`` for the printed ``3,335``, ``2`` / ``9.6`` for ``29.6``.
:func:`joined_lines` writes the page's text with each line break PDFium generated between two glyphs on one
baseline, the second right of the first, dropped where the second starts where the first one's advance ends (within
:data:`MAX_GAP` of the glyphs' height: no room for a space) and written as a space where it starts farther right (the
next cell of a table row). A page where no break falls inside a run of glyphs is left as PDFium reads it: there a
break between two runs on one baseline (two cells of a table row) is its reading, not this fault. Boxes and origins
in PDF points.
"""

from __future__ import annotations

from typing import Any

#: A glyph starting at most this share of the glyphs' height (about one em) after the previous glyph's advance ends
#: continues its run (a space is about a quarter of an em); one starting before it ends overlaps it.
MAX_GAP = 0.1
#: Two glyphs whose origins lie at most this share of the glyphs' height apart in height share a baseline.
SAME_BASELINE = 0.1


def joined_lines(textpage: Any, text: str) -> str:
    """``text``, a ``pypdfium2.PdfTextPage``'s text as its ``get_text_range`` gives it, with the line breaks
    between glyphs on one line dropped or written as a space (module docstring); ``text`` itself when no break
    falls inside a run of glyphs, or when it does not match the page's characters one to one."""
    import pypdfium2.raw as pdfium_c

    count = textpage.count_chars()
    if "\r\n" not in text or len(text) != count:
        return text
    out: dict[int, str] = {}  # index of a break's ``\r`` -> what it is written as
    start = text.find("\r\n")
    while start != -1:
        before, after = start - 1, start + 2
        if (
            before >= 0
            and after < count
            and not text[before].isspace()
            and not text[after].isspace()
            and pdfium_c.FPDFText_IsGenerated(textpage.raw, start) == 1
        ):
            gap = _gap(_glyph(textpage, before), _glyph(textpage, after))
            if gap is not None:
                out[start] = "" if gap <= MAX_GAP else " "
        start = text.find("\r\n", start + 2)
    if "" not in out.values():
        return text  # PDFium broke no run of glyphs: its line breaks are its reading of the page, kept
    parts, last = [], 0
    for at in sorted(out):
        parts += [text[last:at], out[at]]
        last = at + 2
    parts.append(text[last:])
    return "".join(parts)


Glyph = tuple[float, float, float, float, float]  # origin x, origin y, advance end x, bottom, top (loose box)


def _glyph(textpage: Any, index: int) -> Glyph:
    """Character ``index``'s origin and loose box (its advance: left at the origin, right where the next glyph
    would start without room between them)."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    x, y = ctypes.c_double(), ctypes.c_double()
    pdfium_c.FPDFText_GetCharOrigin(textpage.raw, index, x, y)
    rect = pdfium_c.FS_RECTF()
    pdfium_c.FPDFText_GetLooseCharBox(textpage.raw, index, rect)
    return x.value, y.value, max(rect.left, rect.right), min(rect.bottom, rect.top), max(rect.bottom, rect.top)


def _gap(first: Glyph, second: Glyph) -> float | None:
    """Room between the advance of glyph ``first`` and the origin of ``second``, in shares of their height;
    ``None`` when ``second`` does not follow ``first`` on its line (another baseline, or not to its right)."""
    height = max(first[4] - first[3], second[4] - second[3])
    if height <= 0 or abs(second[1] - first[1]) > SAME_BASELINE * height or second[0] <= first[0]:
        return None
    return (second[0] - first[2]) / height


__all__ = ["MAX_GAP", "SAME_BASELINE", "joined_lines"]
