"""A period header printed across two columns, cut by the parser's column borders, reads as the page prints it.

Generated input (reportlab, written here; made-up names and figures): a borderless table whose period headers
(``Quarter ended March`` over ``31,``, wrapped in their span) are centred over two year columns each. A parser
grid that cut each header at the border between its two columns and dealt its letters and figures out unevenly
(``Quarter ende3`` | ``d March1,``) gets the printed header back in both cells; a grid whose cells hold printed
words (``2031`` | ``2030``) keeps them. A markup row that glues the header's lines and the first rows below them,
read column by column, is found in a grid rebuilt from the text layer (:func:`keeps_rows`), and a figure glued
after its printed comma (``31,2031``) reads as the two printed figures, a thousands group (``1,208``) never.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
canvas = pytest.importorskip("reportlab.pdfgen.canvas")

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.row_accounting import glued_figures, keeps_rows
from structaware_readers.tables import grid_to_text, parse_html_table

W, H = 612, 792
FONT, SIZE = "Helvetica", 8
#: the centres of the two header spans and the right edges of the four figure columns (points)
SPANS = [(230, "Quarter ended March", "31,"), (370, "Year ended March", "31,")]
RIGHT = [215, 275, 355, 415]
ROWS = [("Net sales", "1,208", "1,113", "4,870", "4,402"), ("Unit costs", "514", "498", "2,011", "1,964")]
#: the table's region (0..1 of the page, top-left)
BOX = (55 / W, 140 / H, 425 / W, 215 / H)

_BODY = "".join(f"<tr><td>{r[0]}</td>{''.join(f'<td>{v}</td>' for v in r[1:])}</tr>" for r in ROWS)
_YEARS = "<tr><td>(in units)</td><td>2031</td><td>2030</td><td>2031</td><td>2030</td></tr>"
#: the parser's header: each period cut at its column border, its ``3`` and ``1`` dealt to the wrong side; a
#: last row the page does not print keeps the text layer's grid from replacing the parser's (it would lose a row)
_EXTRA = "<tr><td>Returns</td><td>12</td><td>10</td><td>40</td><td>38</td></tr>"
CUT_HTML = (
    "<table><tr><td></td><td>Quarter ende3</td><td>d March1,</td><td>Year ended Ma3</td><td>rch1,</td></tr>"
    f"{_YEARS}{_BODY}{_EXTRA}</table>"
)
#: the same header with each period whole in a spanning cell
WHOLE_HTML = (
    '<table><tr><td></td><td colspan="2">Quarter ended March 31,</td><td colspan="2">Year ended March 31,</td></tr>'
    f"{_YEARS}{_BODY}{_EXTRA}</table>"
)


def _pdf(path: Path) -> Path:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont(FONT, SIZE)
    for centre, first, second in SPANS:
        c.drawCentredString(centre, H - 150, first)
        c.drawCentredString(centre, H - 159, second)
    c.drawString(60, H - 170, "(in units)")
    for x1, year in zip(RIGHT, ["2031", "2030", "2031", "2030"]):
        c.drawString(x1 - stringWidth(year, FONT, SIZE), H - 170, year)
    for k, (label, *figures) in enumerate(ROWS):
        top = 184 + 12 * k
        c.drawString(60, H - top, label)
        for x1, value in zip(RIGHT, figures):
            c.drawString(x1 - stringWidth(value, FONT, SIZE), H - top, value)
    c.showPage()
    c.save()
    return path


def _table(html: str, pdf: Path) -> TableGrid:
    grid = parse_html_table(html)
    table = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, table=grid, text=grid_to_text(grid), bbox=BOX)
    doc = ParsedDocument(
        doc_id="7" * 16,
        name="cut_period_header",
        source=str(pdf),
        parser="mineru",
        input_format="test",
        page_count=1,
        blocks=[table],
    )
    return next(b.table for b in recover_table_grids(doc, pdf).blocks if b.kind is BlockKind.TABLE)


def test_a_period_header_cut_at_a_column_border_is_given_back_whole(tmp_path):
    out = _table(CUT_HTML, _pdf(tmp_path / "cut.pdf"))
    assert out.grid_source == "parser_html"
    quarter, year = "Quarter ended March 31,", "Year ended March 31,"
    assert out.header_rows[0] == ["", quarter, quarter, year, year]
    cells = [c for row in [*out.header_rows, *out.body_rows] for c in row]
    assert not any(c in cells for c in ("Quarter ende3", "d March1,", "Year ended Ma3", "rch1,"))
    assert out.body_rows == parse_html_table(CUT_HTML).body_rows  # no figure moved


def test_cells_the_page_prints_stay_as_they_are(tmp_path):
    pdf = _pdf(tmp_path / "whole.pdf")
    assert _table(WHOLE_HTML, pdf) == parse_html_table(WHOLE_HTML)


def _grid(header: list[list[str]], body: list[list[str]]) -> TableGrid:
    return TableGrid(header_rows=header, body_rows=body)


def test_a_row_gluing_the_header_lines_and_the_rows_below_is_found_in_the_rebuilt_grid():
    rebuilt = _grid(
        [["", "Quarter", "Year ended"], ["", "ended March 31,", "March 31,"], ["(in units)", "2031", "2031"]],
        [["Net sales", "1,208", "4,870"], ["Unit costs", "514", "2,011"], ["Returns", "12", "40"]],
    )
    glued = _grid(
        [],
        [
            [
                "(in units) Net sales Unit costs",
                "Quarter ended March 31, 20311,208514",
                "Year en Ma",
                "ded rch 31,20314,8702,011",
            ],
            ["Returns", "12", "", "40"],
        ],
    )
    assert keeps_rows(glued, rebuilt)
    # a word the rebuilt rows do not hold: not the same printed rows
    other = _grid([], [[glued.body_rows[0][0] + " Freight", *glued.body_rows[0][1:]], glued.body_rows[1]])
    assert not keeps_rows(other, rebuilt)


def test_a_figure_glued_after_its_printed_comma_reads_as_the_printed_figures():
    assert glued_figures("31,20314.55", {"31", "2031", "4.55"})
    assert not glued_figures("1,208", {"1", "208"})
