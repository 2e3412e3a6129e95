"""Rows of a turned grid outlined as the printed columns beside a sideways label that says a concept's words, on a
table built here.

A search-strategy table (reportlab, Helvetica) prints a question label sideways down its first column (two turned
lines, ``Walking plans`` / ``For older adults``), then a set number, a concept and a search string on each row.
The parser's grid has it turned: one grid row per printed column, the label a header row above them. The concepts
say the label's words too (``Intervention: walking plans for older adults``), so the label's turned lines were
found as the concept row's: its column reached over the label's and the set numbers', which got no box. Each grid row's unit must outline its printed column (every character within
:data:`pdf_chars.TOL` points of PDFium's positions) and hold no character of another column; the trap: the
label read as a grid row of its own (as the next page of such a table comes out) is outlined as its column.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import check_own_columns, row_units
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 12.0, 9.0, 110.0
XS = [60.0, 100.0, 140.0, 290.0]
HEADER = ["Set", "Concept", "Strategy"]
LABEL = ["Walking plans", "For older adults"]
#: Printed rows: set number, concept lines, strategy lines.
PRINTED = [
    ("#1", ["Population: older", "adults"], ["elderly OR aged OR senior OR", "retired OR pensioner"]),
    ("#2", ["Intervention: walking", "plans for older adults"], ["walk OR stroll OR hike OR", "pedometer OR steps"]),
    ("#3", ["Combine sets"], ["1 AND 2"]),
]
#: The parser's grid: one row per printed column, bottom to top, the header last; the label a header row above.
TURNED = [
    [*(p[0] for p in reversed(PRINTED)), HEADER[0]],
    [*(" ".join(p[1]) for p in reversed(PRINTED)), HEADER[1]],
    [*(" ".join(p[2]) for p in reversed(PRINTED)), HEADER[2]],
]


def _make_pdf(path: Path) -> float:
    """The table drawn on page 1, the label turned a quarter left beside the rows' middle; returns the bottom of
    its last line (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS[1:], HEADER):
        put(x, TOP, text)
    top = TOP + 1.5 * LEAD
    first = top
    for number, concept, strategy in PRINTED:
        put(XS[1], top, number)
        for k, line in enumerate(concept):
            put(XS[2], top + k * LEAD, line)
        for k, line in enumerate(strategy):
            put(XS[3], top + k * LEAD, line)
        top += (max(len(concept), len(strategy)) + 0.5) * LEAD
    for k, line in enumerate(LABEL):
        width = c.stringWidth(line, "Helvetica", SIZE)
        c.saveState()
        c.translate(XS[0] + SIZE + k * LEAD, H - (first + top) / 2 - width / 2)
        c.rotate(90)
        c.drawString(0, 0, line)
        c.restoreState()
    c.save()
    return top


def _units(pdf: Path, bottom: float, label_row: bool) -> tuple[list, tuple[float, float, float, float]]:
    """The units of the parser's grid: the label a header row above the turned rows, or (``label_row``) a row of
    its own before them, as the parser reads the label's column on the next page."""
    label = " ".join(LABEL)
    if label_row:
        grid = TableGrid(body_rows=[[label], *TURNED], grid_source="parser_html")
    else:
        grid = TableGrid(header_rows=[[label] * 4], body_rows=TURNED, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.8, (bottom + LEAD) / H)
    return row_units(pdf, grid, region, "labels"), region


@pytest.mark.parametrize("label_row", [False, True])
def test_rows_of_a_turned_grid_beside_a_sideways_label_are_outlined_as_their_columns(tmp_path, label_row) -> None:
    pdf = tmp_path / "labels.pdf"
    units, region = _units(pdf, _make_pdf(pdf), label_row)
    columns = [LABEL] if label_row else []
    columns += [
        [p[0] for p in PRINTED] + [HEADER[0]],
        [line for p in PRINTED for line in p[1]] + [HEADER[1]],
        [line for p in PRINTED for line in p[2]] + [HEADER[2]],
    ]
    check_own_columns(pdf, units, columns, region, (W, H))
