"""Rows beside a key question printed sideways, each outlined on its own lines, on a table built here.

A search-strategy table (reportlab, Helvetica) prints a key question on its side down the first column, beside
the four rows it covers; the parser's grid repeats the question in each row. The third row (``#3 | Combine |
#1 AND #2``) holds no word of its own: its concept and string are words of the row below. Every row's unit must
outline its set number, concept and string, and the question (every character within :data:`pdf_chars.TOL`
points of PDFium's positions), and no other row's (the trap: the question's run, as tall as the four rows,
joined their lines into one, so the third row was not found and pointed at the whole table).
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
XS = [60.0, 90.0, 150.0, 280.0]
HEADER = ["Question", "Set", "Concept", "Strategy"]
QUESTION = "KQ 1 - Walking plans"
#: Printed rows: set number, concept lines, strategy lines.
PRINTED = [
    ("#1", ["Population (older", "adults)"], ["elderly:ti OR aged:ti OR senior:ti", "OR retired:ti"]),
    ("#2", ["Walking"], ["walk:ti OR stroll:ti OR hike:ti", "OR pedometer:ti"]),
    ("#3", ["Combine"], ["#1 AND #2"]),
    ("#4", ["Combine sets"], ["(#1 AND #2) OR #5"]),
]


def _make_pdf(path: Path) -> float:
    """The table drawn on page 1, the question turned a quarter beside the rows; returns the bottom of the
    last line (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    first = top = TOP + 1.5 * LEAD
    for number, concept, strategy in PRINTED:
        put(XS[1], top, number)
        for k, line in enumerate(concept):
            put(XS[2], top + k * LEAD, line)
        for k, line in enumerate(strategy):
            put(XS[3], top + k * LEAD, line)
        top += (max(len(concept), len(strategy)) + 0.5) * LEAD
    c.saveState()  # the question reads bottom to top, centred down the rows
    width = c.stringWidth(QUESTION, "Helvetica", SIZE)
    c.translate(XS[0] + SIZE, H - (first + top - LEAD) / 2 - width / 2)
    c.rotate(90)
    c.drawString(0, 0, QUESTION)
    c.restoreState()
    c.save()
    return top


def _units(pdf: Path, bottom: float) -> tuple[list, tuple[float, float, float, float]]:
    rows = [[QUESTION, p[0], " ".join(p[1]), " ".join(p[2])] for p in PRINTED]
    grid = TableGrid(header_rows=[HEADER], body_rows=rows, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.9, (bottom + LEAD) / H)
    units = row_units(pdf, grid, region, "sideways")
    return units, region


def test_rows_beside_a_question_printed_sideways_are_outlined_on_their_own_lines(tmp_path) -> None:
    pdf = tmp_path / "sideways.pdf"
    bottom = _make_pdf(pdf)
    units, region = _units(pdf, bottom)
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2, 3]
    lines = [[number, *concept, *strategy] for number, concept, strategy in PRINTED]
    chars = [char_boxes(pdf, row) for row in lines]
    question = char_boxes(pdf, [QUESTION], printed_once=True)
    whole = tuple(v * s for v, s in zip(region, (W, H, W, H)))
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        assert outlines and all(o != whole for o in outlines), (unit.text, outlines)
        for box in chars[r] + question:  # the question, printed once, is outlined with each row it covers
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(chars):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, lines[k])
