"""A line printed over a ruled table's last row and running on past its right border (a footnote across the
page) is no row of the table: its cells would cut a word at the border (``2031`` read ``203``).

Generated input (reportlab, made-up text and figures): a ruled table of three columns and a last row of one
merged cell, whose footnote line runs on past the table's right rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from structaware_readers.table_recovery.pdf_text_layer import grid_from_region

W, H = 612, 792
LEFT, RIGHT, TOP = 50.0, 250.0, 100.0
COLUMNS = (LEFT, 150.0, 200.0, RIGHT)
ROW = 20.0
ROWS = [("Item", "2031", "2030"), ("Seeds", "4,215", "3,980"), ("Tools", "1,208", "1,116")]
LEAD = "(1) Although the plan ended in the year "
NOTE = LEAD + "2031, costs go on past that date and after."


def _pdf(path: Path, *, note: bool) -> Path:
    c = canvas.Canvas(str(path), pagesize=(W, H))
    c.setFont("Helvetica", 9)
    n = len(ROWS) + 1
    for k in range(n + 1):  # horizontal rules
        y = H - (TOP + k * ROW)
        c.line(LEFT, y, RIGHT, y)
    for x in COLUMNS:  # vertical rules: the inner ones stop above the last row (one merged cell)
        bottom = TOP + (n if x in (LEFT, RIGHT) else n - 1) * ROW
        c.line(x, H - TOP, x, H - bottom)
    for r, row in enumerate(ROWS):
        for x, text in zip(COLUMNS, row):
            c.drawString(x + 3, H - (TOP + r * ROW + 14), text)
    if note:
        # the year starts 6 points left of the right rule: the rule falls inside it
        start = RIGHT - 6 - stringWidth(LEAD, "Helvetica", 9)
        c.drawString(start, H - (TOP + len(ROWS) * ROW + 14), NOTE)
    c.save()
    return path


def _grid(path: Path):
    with pdfplumber.open(path) as pdf:
        region = (LEFT / W, TOP / H, RIGHT / W, (TOP + (len(ROWS) + 1) * ROW) / H)
        return grid_from_region(pdf.pages[0], region, page_number=1)


def test_a_line_running_out_of_a_ruled_table_is_no_row(tmp_path):
    grid = _grid(_pdf(tmp_path / "note.pdf", note=True))
    assert grid is not None
    cells = [c for row in [*grid.header_rows, *grid.body_rows] for c in row]
    assert not any("Although" in c for c in cells)
    assert ["Seeds", "4,215", "3,980"] in grid.body_rows and ["Tools", "1,208", "1,116"] in grid.body_rows


def test_rows_inside_the_borders_are_kept(tmp_path):
    # the trap: without the footnote the same table reads every row
    grid = _grid(_pdf(tmp_path / "plain.pdf", note=False))
    assert grid is not None
    assert grid.body_rows[-2:] == [["Seeds", "4,215", "3,980"], ["Tools", "1,208", "1,116"]]
