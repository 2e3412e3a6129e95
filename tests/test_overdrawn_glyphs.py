"""A glyph drawn over the figures of its line after them is read where the page's text puts it.

Generated input: ``tests/fixtures/pdf/overdrawn_sign_table.pdf`` (``make_overdrawn_sign_table.py``,
made-up figures): a row whose second column's ``$`` is drawn after the first figure and a space, placed
on that figure's last digits. Read by left edge the sign splits the figure (``4,27$1``); the page's text
prints ``4,271 $``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")

from structaware_readers.table_recovery.overdrawn_glyphs import redrawn_in_order
from structaware_readers.table_recovery.reading_direction import reading_words

PDF = Path(__file__).parent / "fixtures" / "pdf" / "overdrawn_sign_table.pdf"


def _chars() -> list[dict]:
    with pdfplumber.open(PDF) as pdf:
        return list(pdf.pages[0].chars)


def test_a_sign_drawn_over_a_figure_after_it_is_read_after_it():
    words = [w["text"] for w in reading_words(_chars())]
    assert "4,271" in words and not any("$" in w and any(c.isdigit() for c in w) for w in words)
    assert words.count("$") == 2


def _glyph(text: str, x0: float, x1: float) -> dict:
    return {"text": text, "x0": x0, "x1": x1, "top": 100.0, "bottom": 107.0, "upright": True, "size": 7.0}


def test_an_accent_drawn_right_after_its_letter_and_a_bold_copy_stay():
    accent = [_glyph("a", 10, 14), _glyph("e", 14, 18), _glyph("\u00b4", 14.5, 17.5), _glyph("t", 18, 20)]
    assert redrawn_in_order(accent) is accent
    bold = [_glyph("4", 10, 14), _glyph("2", 14, 18), _glyph(" ", 18, 20), _glyph("4", 10.3, 14.3), _glyph("5", 30, 34)]
    assert redrawn_in_order(bold) is bold


def test_only_a_glyph_drawn_after_both_neighbours_moves():
    drawn = [
        _glyph("7", 10, 14),
        _glyph("9", 14, 18),
        _glyph(" ", 18, 20),
        _glyph("$", 12.5, 16.5),
        _glyph("5", 30, 34),
    ]
    out = redrawn_in_order(drawn)
    assert (out[3]["x0"], out[3]["x1"]) == (20, 24) and out[:3] == drawn[:3]
    # drawn between the two figures it lies on: as the page draws it
    between = [drawn[0], drawn[3], drawn[1], drawn[2], drawn[4]]
    assert redrawn_in_order(between) is between
