"""Glyphs written in a test as pdfplumber hands them over (``page.chars``): one upright glyph per character."""

from __future__ import annotations


def glyphs(text: str, x: float, top: float, size: float, advance: float = 5.0, spaces: bool = False) -> list[dict]:
    """The glyphs of ``text`` set from ``x`` (PDF points, origin top-left), each ``advance`` wide, tops at
    ``top``, ``size`` high; a space advances ``x`` and is a glyph of its own only with ``spaces``."""
    out = []
    for ch in text:
        if ch != " " or spaces:
            out.append(
                {
                    "text": ch,
                    "x0": x,
                    "x1": x + advance,
                    "top": top,
                    "bottom": top + size,
                    "doctop": top,
                    "size": size,
                    "upright": True,
                    "matrix": (1, 0, 0, 1, x, 0),
                }
            )
        x += advance
    return out
