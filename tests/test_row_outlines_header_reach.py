"""A column header reaching down beside the rows it heads, outlined with each of them, on a ruled table built here.

A form (reportlab, Helvetica) heads its first column with a label whose cell reaches down beside the three rows
below: the label is printed once, at the header's top. The text-layer grid says it in the header row and in each
body row (a cell spanning rows). Every body row's unit must outline its own words and the label (every character
within :data:`pdf_chars.TOL` points of PDFium's positions). The trap: the last two rows share an advice printed
once, on the second row's line, that the header's note under ``Advice`` says again; the header cell is not the
advice, so the note is no row's and the shared advice is outlined on the second row's line only.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 14.0, 9.0, 110.0
XS = [72.0, 180.0, 330.0, 520.0]
LABEL = "Clinic visit day"
NOTE = "Take with water"
HEADER = [LABEL, "Dose", f"Advice {NOTE}"]
ROWS = [["Morning dose", "Take with food"], ["Noon dose", NOTE], ["Evening dose", NOTE]]


def _make_pdf(path: Path) -> list[float]:
    """The table on page 1; returns the tops of the header, of each body row and the table's bottom (points from
    the page top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x + 4, H - top - SIZE - 3, text)

    tops = [TOP, TOP + 2.5 * LEAD]
    for _ in ROWS:
        tops.append(tops[-1] + 1.5 * LEAD)
    put(XS[0], tops[0], LABEL)  # printed once, at the top of its cell
    put(XS[1], tops[0], "Dose")
    put(XS[2], tops[0], "Advice")
    put(XS[2], tops[0] + LEAD, NOTE)  # the header's note
    for r, (dose, advice) in enumerate(ROWS):
        put(XS[1], tops[r + 1], dose)
        if r < 2:  # the last two rows' advice printed once, on the second row's line
            put(XS[2], tops[r + 1], advice)
    for k, top in enumerate(tops):
        c.line(XS[0] if k in (0, len(tops) - 1) else XS[1], H - top, XS[-1], H - top)
    for x in XS:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def test_a_column_header_reaching_down_is_outlined_with_each_row(tmp_path) -> None:
    pdf = tmp_path / "header_reach.pdf"
    tops = _make_pdf(pdf)
    boxes = [(XS[0] / W, tops[r + 1] / H, XS[-1] / W, tops[r + 2] / H) for r in range(len(ROWS))]
    grid = TableGrid(
        header_rows=[HEADER],
        body_rows=[[LABEL, *row] for row in ROWS],
        grid_source="pdf_text_layer",
        header_row_bboxes=[(XS[0] / W, tops[0] / H, XS[-1] / W, tops[1] / H)],
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(ROWS),
    )
    region = (XS[0] / W - 0.005, tops[0] / H - 0.005, XS[-1] / W + 0.005, tops[-1] / H + 0.005)
    units = row_units(pdf, grid, region, "reach")
    assert len(units) == len(ROWS)
    label = char_boxes(pdf, [LABEL], printed_once=True)
    note = char_boxes(pdf, [NOTE])  # the header's note, drawn first
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, [ROWS[r][0]]) + label:
            assert holds(outlines, ch), (unit.text, ch, outlines)
        assert not any(over(outlines, ch) for ch in note), (unit.text, outlines)
