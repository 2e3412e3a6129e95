"""Table-row outlines where the parser read a merged cell's last two lines as one, their glyphs merged.

A ruled table built here (reportlab, Helvetica): a ward's cell merged over three body rows prints four
lines, the last two (``Checked on:`` over ``May 2021``) read by the parser as one line, their glyphs
sorted left to right (the grid's cell holds them interleaved, as a parser merging lines writes them).
The text restore writes such a cell as the page prints it only after stage 8; the row boxes must hold
the cell's printed lines all the same. Rows placed by stage 8 (``add_row_boxes``); positions from PDFium's
characters. The trap: a second ward's merged cell, read right, and the row under both keep their
outlines, and the units keep the parser's text (boxes only change).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
LEAD, PAD, SIZE = 14.0, 4.0, 10.0
X0, X1, X2, X3 = 72.0, 200.0, 330.0, 540.0

FIRST = ["Leg ulcer", "Community team", "Checked on:", "May 2021"]
SECOND = ["Burns unit", "Hospital team", "Checked on:", "June 2020"]
ROWS = [
    ["Dressing change", "every 3 days"],
    ["Compression", "when healed"],
    ["Skin care", "daily"],
    ["Cooling", "first hour"],
    ["Fluids", "by weight"],
    ["Pain relief", "as needed"],
]
LAST = ["Discharge", "Home visit", "within a week"]


def _merged(a: str, b: str) -> str:
    """Two lines printed from the same left edge read as one: their glyphs sorted by their left edges."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    glyphs = []
    for k, line in enumerate((a, b)):
        glyphs += [(stringWidth(line[:i], "Helvetica", SIZE), k, ch) for i, ch in enumerate(line)]
    return "".join(ch for _, _, ch in sorted(glyphs))


def _pdf(path: Path) -> list[float]:
    """The table; returns the rows' tops (first body row first) and the table's bottom, in points."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    row_h = LEAD + 2 * PAD
    tops = [110.0 + k * row_h for k in range(len(ROWS) + 2)]
    for k, ward in enumerate((FIRST, SECOND)):
        for j, line in enumerate(ward):
            c.drawString(X0 + 4, H - (tops[3 * k] + PAD + j * LEAD + 0.75 * LEAD), line)
    for r, row in enumerate([*ROWS, LAST[1:]]):
        for x, cell in zip((X1, X2), row):
            c.drawString(x + 4, H - (tops[r] + PAD + 0.75 * LEAD), cell)
    c.drawString(X0 + 4, H - (tops[-2] + PAD + 0.75 * LEAD), LAST[0])
    for r, top in enumerate(tops):
        c.line(X0 if r % 3 == 0 or r >= 6 else X1, H - top, X3, H - top)
    for x in (X0, X1, X2, X3):
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def _cell(ward: list[str], shuffled: bool) -> str:
    tail = _merged(ward[2], ward[3]) if shuffled else f"{ward[2]} {ward[3]}"
    return f"{ward[0]} {ward[1]} {tail}"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    pdf = tmp_path_factory.mktemp("rows") / "shuffled_cell.pdf"
    tops = _pdf(pdf)
    first, second = _cell(FIRST, True), _cell(SECOND, False)
    body = [[first, *ROWS[r]] for r in range(3)] + [[second, *ROWS[r]] for r in range(3, 6)] + [LAST]
    grid = TableGrid(header_rows=[["Ward", "Task", "When"]], body_rows=body)
    region = (X0 / W - 0.005, tops[0] / H - 0.005, X3 / W + 0.005, tops[-1] / H + 0.005)
    return pdf, body, row_units(pdf, grid, region, "shuffled")


def test_rows_under_a_cell_read_with_merged_glyphs_hold_its_printed_lines(table) -> None:
    """Each row the first ward's cell covers holds all four of its printed lines, though the grid's
    cell reads the last two merged; no other ward's line lies inside."""
    pdf, body, units = table
    assert "Checked on:" not in body[0][0] and "Checked" not in body[0][0]
    for unit in units[:3]:
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, FIRST):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for ch in char_boxes(pdf, SECOND[:2] + SECOND[3:]):
            assert not over(outlines, ch), (unit.text, ch, outlines)


def test_cells_read_right_and_unit_text_are_kept(table) -> None:
    """The trap: the second ward's rows hold its lines and none of the first's, the row under both
    its own line; every unit keeps the parser's cells."""
    pdf, body, units = table
    assert [u.table.cells for u in units] == body  # type: ignore[union-attr]
    for unit in units[3:6]:
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, SECOND[:2] + ["June 2020"]):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for ch in char_boxes(pdf, FIRST[:2] + ["May 2021"]):
            assert not over(outlines, ch), (unit.text, ch, outlines)
    last = unit_outlines(units[-1], (W, H))
    for ch in char_boxes(pdf, LAST):
        assert holds(last, ch), (units[-1].text, ch, last)
