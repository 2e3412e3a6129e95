"""Equal cells one under the other that the page prints in each row, outlined as each row's own, on a table built here.

A watering table (reportlab, Helvetica) prints the same two-line note in the last three rows (``Ask the
head gardener`` / ``before each visit``), one copy beside each row's name, and a remark once, across the
last two rows. The grid says the note in each of those rows, so it was read as one merged cell printed once; the
last row's box, cut to its own cells' lines below the remark's, lost the first line of its copy. Each row must
outline its own copy (every character within :data:`pdf_chars.TOL` points of PDFium's positions) and no other
row's cells; the trap: the remark, printed once, is still outlined with both rows it spans.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

import pypdfium2 as pdfium

from pdf_chars import Box, char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 14.0, 9.0, 110.0
XS = [60.0, 150.0, 250.0, 360.0]
HEADER = ["Plant", "Water", "Note", "Remark"]
NOTE = ["Ask the head gardener", "before each visit"]
REMARK = ["Less in the cold", "months, more once", "the buds open, and", "none in a wet", "week at all"]
#: Printed rows: plant, water (one line each, beside the middle of the row), note lines, remark lines.
PRINTED = [
    ("Alder", "Two cans", ["Keep damp"], ["Shade"]),
    ("Birch", "One can", NOTE, ["Sun"]),
    ("Cedar", "Three cans", NOTE, REMARK),
    ("Dogwood", "Half a can", NOTE, REMARK),
]


def _make_pdf(path: Path) -> float:
    """The table drawn on page 1: each row two lines high, its plant and water between them, the note from its
    top; the remark once, from the top of the third row down into the fourth. Returns the bottom of
    the last row (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    top = TOP + 2 * LEAD
    for k, (plant, water, note, remark) in enumerate(PRINTED):
        put(XS[0], top + LEAD / 2, plant)
        put(XS[1], top + LEAD / 2, water)
        for j, line in enumerate(note):
            put(XS[2], top + j * LEAD, line)
        if k < 2:
            put(XS[3], top + LEAD / 2, remark[0])
        elif k == 2:
            for j, line in enumerate(remark):
                put(XS[3], top + j * LEAD, line)
        top += 2.5 * LEAD
    c.save()
    return top


def _units(pdf: Path, bottom: float) -> list:
    rows = [[plant, water, " ".join(note), " ".join(remark)] for plant, water, note, remark in PRINTED]
    grid = TableGrid(header_rows=[HEADER], body_rows=rows, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.9, (bottom + LEAD) / H)
    return row_units(pdf, grid, region, "repeated")


def _copies(pdf: Path) -> list[list[Box]]:
    """The character boxes of each printed copy of the note, top to bottom."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        text = doc[0].get_textpage().get_text_range()
    finally:
        doc.close()
    assert text.count(NOTE[0]) == 3
    boxes = char_boxes(pdf, NOTE)  # the first copy; the others by their row's offset
    return [[(b[0], b[1] + k * 2.5 * LEAD, b[2], b[3] + k * 2.5 * LEAD) for b in boxes] for k in range(3)]


def test_equal_cells_printed_in_each_row_are_outlined_with_their_own_row(tmp_path) -> None:
    pdf = tmp_path / "repeated.pdf"
    units = _units(pdf, _make_pdf(pdf))
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2, 3]
    copies = _copies(pdf)
    own = [char_boxes(pdf, [plant, water]) for plant, water, _, _ in PRINTED]
    remark = char_boxes(pdf, REMARK, printed_once=True)
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        mine = own[r] + (copies[r - 1] if r else []) + (remark if r >= 2 else [])
        for box in mine:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(own):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, PRINTED[k][:2])
        for k, boxes in enumerate(copies):
            assert k == r - 1 or not any(over(outlines, box) for box in boxes), (unit.text, k)
