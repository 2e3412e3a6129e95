"""A table grid keeps the words and figures the page prints whole.

Generated input: ``tests/fixtures/pdf/cut_columns_table.pdf`` (``make_cut_columns_table.py``, made-up
figures): a borderless table whose date line a parser's region may cut to a sliver (and whose right column
its right edge may cross), a margin figure
with a space glyph drawn over its first figure, and the same table again for a parser grid that cuts
its header words at column boundaries and glues two rows' figures into one cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.reading_direction import printed_chars
from structaware_readers.table_recovery.stage6_markup_check import cuts_printed
from structaware_readers.tables import grid_to_text, parse_html_table

PDF = Path(__file__).parent / "fixtures" / "pdf" / "cut_columns_table.pdf"
W, H = 612, 792
#: the table's region from the left rule to the bottom rule; its top is set per test (points)
LEFT, RIGHT, BOTTOM = 55, 335, 192
#: the bottom of the date line (``March 31, 2031``), in points from the page top
DATE_BOTTOM = 151.45


def _grid(top: float) -> TableGrid:
    with pdfplumber.open(PDF) as pdf:
        grid = grid_from_region(pdf.pages[0], (LEFT / W, top / H, RIGHT / W, BOTTOM / H), page_number=1)
    assert grid is not None
    return grid


def test_a_region_cutting_a_line_reads_its_words_whole():
    # the region's top (padded by 2 points) leaves a 1-point sliver of the date line: read whole, on its own line
    cut = _grid(DATE_BOTTOM + 1.0)
    assert cut.header_rows == [["", "March 31, 2031", "March 31, 2030"]]
    assert cut.body_rows[0] == ["Seed sales", "4,215", "3,980"]
    # the trap: a region holding the whole header reads the same
    whole = _grid(137.0)
    assert whole.header_rows == [["", "Quarter ended", "Quarter ended"], ["", "March 31, 2031", "March 31, 2030"]]
    assert whole.body_rows == cut.body_rows


def test_a_region_edge_cutting_a_figure_reads_it_whole():
    """A region whose right edge (padded by 2 points) crosses the first glyph of the right column's
    figures reads each figure whole (``3,980``, never ``3``); a word past a space stays out (``%``),
    and a region ending between the columns reads none of the right one."""
    with pdfplumber.open(PDF) as pdf:
        cut = grid_from_region(pdf.pages[0], (LEFT / W, 137.0 / H, 314 / W, BOTTOM / H), page_number=1)
        between = grid_from_region(pdf.pages[0], (LEFT / W, 137.0 / H, 262 / W, BOTTOM / H), page_number=1)
    assert cut is not None and between is not None
    assert cut.header_rows == [["", "Quarter ended", "Quarter ended"], ["", "March 31, 2031", "March 31, 2030"]]
    assert cut.body_rows[0] == ["Seed sales", "4,215", "3,980"]
    assert cut.body_rows[2] == ["Margin on seed sales", "31.4 %", "29.7"]
    assert cut.body_rows[3] == ["Net earnings", "1,208", "1,116"]
    assert between.body_rows[0] == ["Seed sales", "4,215"]


def test_a_space_drawn_over_a_figure_cuts_nothing():
    rows = _grid(137.0).body_rows
    assert rows[2] == ["Margin on seed sales", "31.4 %", "29.7 %"]  # the second figure has no such space
    assert rows[3] == ["Net earnings", "1,208", "1,116"]


def _char(text: str, x0: float, x1: float, top: float = 10.0) -> dict:
    return {"text": text, "x0": x0, "x1": x1, "top": top, "bottom": top + 7, "upright": True}


def test_printed_chars_drops_only_blanks_on_printed_glyphs():
    # chars in the order the page draws them: the first blank is drawn last, over the '3'
    chars = [_char("3", 0, 4), _char("1", 4, 8), _char(" ", 0, 2), _char(" ", 8, 10), _char("%", 10, 16)]
    assert [c["text"] for c in printed_chars(chars)] == ["3", "1", " ", "%"]  # the blank between stays
    # a blank drawn between two glyphs stays, though it lies on the second: the page prints '(0.16) %'
    drawn_between = [_char(")", 0, 3), _char(" ", 3, 5), _char("%", 3, 10)]
    assert printed_chars(drawn_between) == drawn_between
    # a glyph kerned into the space before it (the space starts before the glyph) keeps the space
    kerned = [_char("d", 0, 4), _char(" ", 4, 6), _char("T", 4.8, 9)]
    assert printed_chars(kerned) == kerned
    # a blank on a glyph of another line (no vertical overlap) stays
    other_line = [_char("3", 0, 4), _char(" ", 0, 2, top=30.0)]
    assert printed_chars(other_line) == other_line


#: what a parser's table recognition gives for page 2: its header is printed as it is (the header check
#: passes it), but two rows' figures are glued in one cell (``4,215612``) and a label is cut at a
#: column boundary (``Net earn`` | ``ings``)
CUT_HTML = (
    "<table><tr><td></td><td>Quarter ended March 31, 2031</td><td>Quarter ended March 31, 2030</td></tr>"
    "<tr><td>Seed sales Orchard rentals</td><td>4,215612</td><td>3,980587</td></tr>"
    "<tr><td>Margin on seed sales</td><td>31.4 %</td><td>29.7 %</td></tr>"
    "<tr><td>Net earn</td><td>ings 1,208</td><td>1,116</td></tr></table>"
)
WHOLE_HTML = (
    "<table><tr><td></td><td>Quarter ended March 31, 2031</td><td>Quarter ended March 31, 2030</td></tr>"
    "<tr><td>Seed sales</td><td>4,215</td><td>3,980</td></tr>"
    "<tr><td>Orchard rentals</td><td>612</td><td>587</td></tr>"
    "<tr><td>Margin on seed sales</td><td>31.4 %</td><td>29.7 %</td></tr>"
    "<tr><td>Net earnings</td><td>1,208</td><td>1,116</td></tr></table>"
)


def _doc(html: str) -> ParsedDocument:
    grid = parse_html_table(html)
    block = Block(
        block_id="p2-e1",
        kind=BlockKind.TABLE,
        page=2,
        table=grid,
        text=grid_to_text(grid),
        bbox=(LEFT / W, 137 / H, RIGHT / W, BOTTOM / H),
    )
    heading = Block(
        block_id="p2-e0",
        kind=BlockKind.PARAGRAPH,
        page=2,
        text="Results of the cooperative by quarter: seed sales, orchard rentals, margin, net earnings.",
        bbox=(0.09, 0.12, 0.5, 0.15),
    )
    return ParsedDocument(
        doc_id="2" * 16,
        name="cut_columns",
        source=str(PDF),
        parser="mineru",
        input_format="test",
        page_count=2,
        blocks=[heading, block],
    )


def _table(doc: ParsedDocument) -> TableGrid:
    return next(b.table for b in doc.blocks if b.kind is BlockKind.TABLE)


def test_a_parser_grid_that_cuts_printed_words_is_read_again():
    out = _table(recover_table_grids(_doc(CUT_HTML), PDF))
    assert out.grid_source == "pdf_text_layer"
    assert ["Seed sales", "4,215", "3,980"] in out.body_rows
    assert ["Orchard rentals", "612", "587"] in out.body_rows
    assert ["Net earnings", "1,208", "1,116"] in out.body_rows


def test_a_parser_grid_of_printed_words_stays():
    out = _table(recover_table_grids(_doc(WHOLE_HTML), PDF))
    assert out.grid_source == "parser_html"
    assert out.body_rows[0] == ["Seed sales", "4,215", "3,980"]


def test_cuts_printed_reads_pieces_of_printed_words_and_glued_figures():
    words = {"quarter", "ended", "march", "seed", "sales"}
    figures = {"31", "2031", "4,215", "612"}
    grid = lambda cell: TableGrid(header_rows=[["", cell]], body_rows=[["Seed sales", "4,215"]])
    assert cuts_printed(grid("Quar"), words, figures)  # a piece of 'quarter'
    assert cuts_printed(grid("4,215612"), words, figures)  # two printed figures glued
    # traps: printed words and figures, and a word or figure the region does not print at all
    assert not cuts_printed(grid("Quarter ended March 31, 2031"), words, figures)
    assert not cuts_printed(grid("Harvest"), words, figures)
    assert not cuts_printed(grid("9,999"), words, figures)
