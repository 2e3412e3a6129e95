"""A merged cell whose word the cells beside it say too, outlined with each row it covers, on a table built here.

A table of categories (reportlab, Helvetica) prints a status once in the first column, beside the three rows it
covers (``Checked``), and the definitions of two of those rows say the word too (``... was checked again``).
The merged cell's lines were looked for among the lines holding its words and no other cell's of its rows, and
there were none, so no row got its box. Every row the status covers must outline it (every character within
:data:`pdf_chars.TOL` points of PDFium's positions), its own cells too, and no other row's cells.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 12.0, 9.0, 110.0
XS = [60.0, 150.0, 250.0]
HEADER = ["Status", "Category", "Definition"]
#: Printed rows: status (printed once per group, beside its middle row), category, definition lines.
PRINTED = [
    ("Checked", "Fresh", ["A new entry written after a look at the data"]),
    ("Checked", "Kept", ["An entry of the last edition that was checked", "again and kept as it stood"]),
    ("Checked", "Reworded", ["An older entry of ours that was checked", "and reworded for the new one"]),
    ("Not looked at", "Dropped", ["An entry taken out without a look"]),
]


def _make_pdf(path: Path) -> float:
    """The table drawn on page 1, each status once beside the middle of its rows; returns the bottom of the
    last line (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    top = TOP + 1.5 * LEAD
    tops = []
    for _, category, definition in PRINTED:
        tops.append(top)
        put(XS[1], top, category)
        for k, line in enumerate(definition):
            put(XS[2], top + k * LEAD, line)
        top += (len(definition) + 0.5) * LEAD
    put(XS[0], tops[1] + LEAD / 2, PRINTED[1][0])  # centred beside the middle row, between its two lines
    put(XS[0], tops[3], PRINTED[3][0])
    c.save()
    return top


def _units(pdf: Path, bottom: float) -> list:
    rows = [[status, category, " ".join(definition)] for status, category, definition in PRINTED]
    grid = TableGrid(header_rows=[HEADER], body_rows=rows, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.9, (bottom + LEAD) / H)
    return row_units(pdf, grid, region, "recurring")


def test_a_merged_cell_whose_word_other_cells_say_is_outlined_with_each_row(tmp_path) -> None:
    pdf = tmp_path / "recurring.pdf"
    units = _units(pdf, _make_pdf(pdf))
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2, 3]
    own = [char_boxes(pdf, [category, *definition]) for _, category, definition in PRINTED]
    status = char_boxes(pdf, [PRINTED[0][0]], printed_once=True)
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        for box in own[r] + (status if r < 3 else []):
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(own):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, PRINTED[k])
