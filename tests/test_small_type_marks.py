"""Words a text layer prints apart that a reader glued: small type, and raised marks drawn last.

Generated input: ``tests/fixtures/pdf/small_type_marks.pdf`` (``make_small_type_marks.py``, made-up
names and figures). Page 1: a table set in 3-point type whose neighbouring columns' header words stand
0.8 em apart without a space character (a fixed 3-point word tolerance reads ``DepositsAmountsBalance``),
a 10-point line of words set 0.26 em apart, and a heading tracked 0.15 em (one word). Page 2: product
names with a smaller raised ``TM`` / ``SM`` drawn after the rest of the page (PDFium prints the marks at
its end), and the same letters full size on the baseline after another word (no mark). Text-only
checks: a compound a table cell wraps beside another cell (``Blended-`` / ``yield``), and a figure whose
``%`` small type sets apart still ending its cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")

from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.reading_direction import reading_words
from structaware_readers.text.layer import PdfTextLayer
from structaware_readers.text.restore import restore_text

PDF = Path(__file__).parent / "fixtures" / "pdf" / "small_type_marks.pdf"
W, H = 612, 792


@pytest.fixture(scope="module")
def first_page():
    with pdfplumber.open(PDF) as pdf:
        yield pdf.pages[0]


def test_small_type_header_words_stay_apart(first_page):
    grid = grid_from_region(first_page, (55 / W, 95 / H, 150 / W, 118 / H), page_number=1)
    assert grid is not None
    assert grid.header_rows == [["", "Gross", "Offset", "Net"], ["In thousands", "Deposits", "Amounts", "Balance"]]
    assert grid.body_rows[1] == ["Orchard accounts", "12.0", "(0.4)", "11.6"]


def test_word_gap_in_ems_at_body_size_and_tracking_kept(first_page):
    words = [w["text"] for w in reading_words(first_page.chars)]
    assert words[-7:] == ["RESULTS", "Quarterly", "totals", "include", "the", "orchard", "accounts."]


def test_raised_letter_mark_glued_to_its_word_is_written_with_a_caret():
    page = PdfTextLayer(PDF).page(2)
    text = "Sales rose with demand for LanternTM oil and for the HarborSM repair service. KestrelTM tape sold less."
    assert restore_text(text, page) == (
        "Sales rose with demand for Lantern^TM oil and for the Harbor^SM repair service. KestrelTM tape sold less."
    )


def test_a_compound_a_cell_wraps_gets_its_hyphen_back():
    """A header cell printed ``Blended-`` / ``yield`` beside another cell: the text layer reads the line
    ``Blended- Total`` and ``yield`` on the next; a parser that joins the cell's lines glues the compound."""
    from structaware_readers.text.layer import page_words

    text = "Rate Blended- Total\nheld yield securities\nshort- and long-term notes"
    page = page_words(text, set(), set())
    assert restore_text("Blendedyield rate", page) == "Blended-yield rate"
    assert restore_text("Totalyield", page) == "Totalyield"  # no hyphen printed after ``Total``
    assert restore_text("shortand", page) == "shortand"  # a suspended hyphen joins no compound


def test_a_figure_and_its_sign_set_apart_end_a_cell():
    """In small type a reader sets ``%`` apart from its figure (``12.5 %``): the figure still ends the cell,
    so a ``$`` after it starts the next one, and a row reading as one cell is still seen as one."""
    from structaware_readers.table_recovery.grid_rules import starts_new_cell
    from structaware_readers.table_recovery.pdf_text_layer import _rows_in_one_cell

    assert starts_new_cell("12.5 %", "$")
    assert starts_new_cell("12.5%", "$")
    assert not starts_new_cell("Growth in %", "$")
    assert _rows_in_one_cell([["Orchard leases settled 4.4 % 3.9 %", ""], ["Total 5.5 % 3.9 %", ""]])


def test_a_label_printed_over_each_of_two_columns_is_read_once_per_column():
    """Two column headers set so close that they read as one phrase (``Inland Region Inland Region`` over
    ``Retail`` and ``Wholesale``) give each column one; a header spanning two columns stays whole."""
    from structaware_readers.table_recovery.grid_rules import Line, Phrase, build_grid

    def line(top: float, *cells: tuple[str, float, float]) -> Line:
        return Line(top, top + 5, [Phrase(t, x0, x1, top, top + 5) for t, x0, x1 in cells])

    lines = [
        line(0, ("Inland Region Inland Region", 60, 130), ("Total Sales", 140, 200)),
        line(
            6, ("Percent", 0, 30), ("Retail", 62, 88), ("Wholesale", 100, 128), ("Home", 142, 160), ("Abroad", 175, 200)
        ),
        line(12, ("Orchards", 0, 30), ("20 %", 70, 80), ("8 %", 110, 120), ("12 %", 145, 155), ("4 %", 180, 190)),
        line(18, ("Nurseries", 0, 30), ("11 %", 70, 80), ("3 %", 110, 120), ("6 %", 145, 155), ("2 %", 180, 190)),
    ]
    header, body, _, _ = build_grid(lines)
    assert header[0] == ["", "Inland Region", "Inland Region", "Total Sales", "Total Sales"]
    assert body[0] == ["Orchards", "20 %", "8 %", "12 %", "4 %"]
