"""Table-row outlines on a form printed as two halves with their own line pitch, read by the parser as one grid.

A patient card prints the member's details on the left, spaced wide, and the clinical overview on the right, spaced
close; the parser's grid zips the halves, so a row pairs a left cell with a right cell printed lines above or below
it, and each cell spanning two rows is said in both; a label printed between the halves is read into the left cell,
which is then printed in two places. One row holds only such shared cells: no run is its alone, and
row by row it gets no box (the trap: it was outlined as the whole table, and its neighbour's outline missed the
right cell it shares). Each row must be outlined where each of its cells is printed, and nowhere near another
row's cells. Drawn here (reportlab, Helvetica); positions are read from PDFium's characters (``pdf_chars``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 792.0, 612.0
SIZE = 9.0
LEFT_X, RIGHT_X = 60.0, 330.0
# (top of the line from the page top, text): the left half every 24 points, the right every 14
LEFT = [(100.0, "Member name"), (124.0, "Home address"), (136.0, "Town:"), (160.0, "Phone number")]
LABEL = (128.0, "Lifestyle")  # the right half's label, printed between the halves; the parser puts it in the left cell
RIGHT = [
    (100.0, "Lung sounds clear"),
    (114.0, "Wheeze heard"),
    (114.0, "Date:"),
    (128.0, "Habits: never drinks or drinks daily"),
    (142.0, "former drinker with stop date: ____"),
    (156.0, "Triggers: pollen or cold air"),
]
HABITS = "Habits: never drinks or drinks daily former drinker with stop date: ____"
ROWS = [
    ["Member name", "Lung sounds clear"],
    ["Home address Town: Lifestyle", "Wheeze heard Date:"],
    ["Home address Town: Lifestyle", HABITS],  # both cells are its neighbours' too
    ["Phone number", HABITS],
    ["Phone number", "Triggers: pollen or cold air"],
]
LINES = {  # each row's printed lines
    0: ["Member name", "Lung sounds clear"],
    1: ["Home address", "Town:", "Lifestyle", "Wheeze heard", "Date:"],
    2: ["Home address", "Town:", "Lifestyle", "Habits: never drinks or drinks daily", "former drinker with stop"],
    3: ["Phone number", "Habits: never drinks or drinks daily", "former drinker with stop"],
    4: ["Phone number", "Triggers: pollen or cold air"],
}


def _card_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for x, lines in ((LEFT_X, LEFT), (RIGHT_X, RIGHT)):
        for top, text in lines:
            c.drawString(x + (150 if text == "Date:" else 0), H - top - SIZE, text)
    c.drawString(250.0, H - LABEL[0] - SIZE, LABEL[1])
    c.save()


def test_a_row_of_shared_cells_is_outlined_where_each_cell_is_printed(tmp_path) -> None:
    """Every row's outlines hold each character of its own lines and lie over no line that only other rows say;
    the row whose cells are all shared gets boxes of its own, none the whole table."""
    pdf = tmp_path / "card.pdf"
    _card_pdf(pdf)
    grid = TableGrid(header_rows=[], body_rows=ROWS, grid_source="parser_html")
    region = ((LEFT_X - 10) / W, 90 / H, (RIGHT_X + 300) / W, 175 / H)
    units = row_units(pdf, grid, region, "card")
    assert [u.table.row_index for u in units if u.table] == list(range(len(ROWS)))
    whole = tuple(v * s for v, s in zip(region, (W, H, W, H)))
    printed = [text for _, text in LEFT + RIGHT + [LABEL]]
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines and whole not in outlines, (r, outlines)
        for ch in char_boxes(pdf, LINES[r], printed_once=True):
            assert holds(outlines, ch), (r, ch, outlines)
        foreign = [text for text in printed if not any(text in line or line in text for line in LINES[r])]
        for text in foreign:
            assert not any(over(outlines, ch) for ch in char_boxes(pdf, [text], printed_once=True)), (r, text)
