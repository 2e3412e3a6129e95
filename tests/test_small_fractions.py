"""A fraction set in small figures (raised numerator, slash, small or lowered denominator) after a whole
number reads as the page prints it, ``1 2/3``, never as a superscript (``1^2/3``, one squared over three)
nor glued to the number (``2.331/3``).

Glyphs are written here as pdfplumber gives them (``top`` / ``bottom`` from the page top, in points).
"""

from __future__ import annotations

import pytest

from synthetic_glyphs import glyphs

pytest.importorskip("pdfplumber")

from structaware_readers.table_recovery.reading_direction import cell_lines, reading_text


def test_a_stacked_fraction_after_a_whole_number_reads_as_printed():
    """Raised numerator, a full-size slash, a lowered denominator: ``1 2/3¢``."""
    chars = glyphs("Par value 1", 100, 400, 10)
    x = chars[-1]["x1"]
    chars += glyphs("2", x + 0.5, 398, 6, advance=3)  # raised and small
    chars += glyphs("/", x + 3.5, 400, 10, advance=3)
    chars += glyphs("3", x + 6.5, 405, 6, advance=3)  # lowered and small
    chars += glyphs("¢ each", x + 9.5, 400, 10)
    assert reading_text(chars) == "Par value 1 2/3¢ each"
    assert [t for _, t in cell_lines(chars)] == ["Par value 1 2/3¢ each"]


def test_a_raised_fraction_after_a_decimal_reads_as_printed():
    """Numerator, slash and denominator all raised and small: ``$2.33 1/3``."""
    chars = glyphs("at $2.33", 100, 400, 10)
    chars += glyphs("1/3", chars[-1]["x1"] + 0.5, 398, 6, advance=3)
    chars += glyphs("a share", chars[-1]["x1"] + 2.5 + 5, 400, 10)
    assert reading_text(chars) == "at $2.33 1/3 a share"


def test_superscripts_that_are_no_fraction_keep_their_caret():
    """Traps: a power before a full-size slash (``10^9/L``), a mark after a word (``m^2``), a raised
    figure, a slash and a full-size figure (``Note^1/2 of``: a mark, then a printed ``/2``)."""
    chars = glyphs("10", 100, 400, 10) + glyphs("9", 110.5, 398, 6, advance=3)
    chars += glyphs("/L", 114, 400, 10)
    assert reading_text(chars) == "10^9/L"
    chars = glyphs("150 m", 100, 400, 10) + glyphs("2", 125.5, 398, 6, advance=3)
    assert reading_text(chars) == "150 m^2"
    chars = glyphs("Note", 100, 400, 10) + glyphs("1", 120.5, 398, 6, advance=3)
    chars += glyphs("/2 of", 124, 400, 10)
    assert reading_text(chars) == "Note^1/2 of"


def _fraction_page(path):
    """A page whose sentence prints ``$4.33`` and then a small raised ``1/3``, drawn last, as a text
    object of its own (PDFium reads it apart from its line), and a full-size ``7/8`` after ``12``."""
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 10)
    head = "Each share has a par value of $4.33"
    c.drawString(72, 700, head)
    x = 72 + c.stringWidth(head, "Helvetica", 10)
    c.drawString(x + 8, 700, "per share. The dial turned 12 7/8 times.")
    c.drawString(72, 680, "Rates were set on 12/31 of each year.")
    c.setFont("Helvetica", 6)
    c.drawString(x + 0.5, 703, "1/3")
    c.showPage()
    c.save()
    return path


def test_a_small_fraction_the_parser_glued_to_its_number_is_set_apart(tmp_path):
    from structaware_readers.text.layer import PdfTextLayer
    from structaware_readers.text.restore import restore_text

    page = PdfTextLayer(_fraction_page(tmp_path / "fraction.pdf")).page(1)
    assert page is not None
    assert restore_text("has a par value of $4.331/3 per share.", page) == "has a par value of $4.33 1/3 per share."
    assert restore_text("a par value of 4.331/3 per share", page) == "a par value of 4.33 1/3 per share"
    # traps: a full-size fraction is not set small after that number; runs the page prints stay
    assert restore_text("a par value of $4.337/8 per share", page) == "a par value of $4.337/8 per share"
    assert restore_text("set on 12/31 of each year", page) == "set on 12/31 of each year"
