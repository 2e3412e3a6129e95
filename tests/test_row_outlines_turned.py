"""Rows outlined as columns when the parser's grid is the printed table turned a quarter, on a table built here.

A search-strategy table (reportlab, Helvetica) prints a set number, a concept and a search string on each row.
The parser's grid has it turned: one grid row per printed column, its cells in reverse order, the column's
header last. Each grid row's unit must outline its printed column (every character within
:data:`pdf_chars.TOL` points of PDFium's positions) and hold no character of another column (the trap: each
row's box spanned the table's width, over every column; the set numbers, words of one character, got none).
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
XS = [60.0, 110.0, 250.0]
HEADER = ["Set", "Concept", "Strategy"]
#: Printed rows: set number, concept lines, strategy lines.
PRINTED = [
    ("#1", ["Population: older", "adults"], ["elderly OR aged OR senior OR", "retired OR pensioner"]),
    ("#2", ["Walking plans"], ["walk OR stroll OR hike OR", "pedometer OR steps OR trail", "OR rambling"]),
    ("#3", ["Combine sets"], ["1 AND 2"]),
]
#: The parser's grid: one row per printed column, bottom to top, the header last.
TURNED = [
    [*(p[0] for p in reversed(PRINTED)), HEADER[0]],
    [*(" ".join(p[1]) for p in reversed(PRINTED)), HEADER[1]],
    [*(" ".join(p[2]) for p in reversed(PRINTED)), HEADER[2]],
]


def _make_pdf(path: Path) -> float:
    """The table drawn on page 1; returns the bottom of its last line (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    top = TOP + 1.5 * LEAD
    for number, concept, strategy in PRINTED:
        put(XS[0], top, number)
        for k, line in enumerate(concept):
            put(XS[1], top + k * LEAD, line)
        for k, line in enumerate(strategy):
            put(XS[2], top + k * LEAD, line)
        top += (max(len(concept), len(strategy)) + 0.5) * LEAD
    c.save()
    return top


def _units(pdf: Path, bottom: float) -> tuple[list, tuple[float, float, float, float]]:
    grid = TableGrid(body_rows=TURNED, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.8, (bottom + LEAD) / H)
    units = row_units(pdf, grid, region, "turned")
    return units, region


def test_rows_of_a_turned_grid_are_outlined_as_the_printed_columns(tmp_path) -> None:
    pdf = tmp_path / "turned.pdf"
    bottom = _make_pdf(pdf)
    units, region = _units(pdf, bottom)
    columns = [
        [p[0] for p in PRINTED] + [HEADER[0]],
        [line for p in PRINTED for line in p[1]] + [HEADER[1]],
        [line for p in PRINTED for line in p[2]] + [HEADER[2]],
    ]
    check_own_columns(pdf, units, columns, region, (W, H))
