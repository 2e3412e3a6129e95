"""A merged cell printed on the border of the rows it spans outlined with each of them, on a table built here.

A members table (reportlab, Helvetica): each organisation, a merged cell, is printed once, centred across
the rows of its members, each row its member's name; the parser gives every row a box, a band of the table
that ends half way between two names. An organisation of two (or four) members is printed on the border
of its middle rows, its line's middle on both their boxes' edges. Every row's unit must outline its
organisation's characters (within :data:`pdf_chars.TOL` points of PDFium's positions) and its own name,
and no other row's name (the trap: both rows counted as printing the line, and neither got its box).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
from structaware_readers.units import build_units

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 16.0, 9.0, 120.0
XS = [72.0, 300.0]
GROUPS = [
    ("Harbour Street Clinic", ["Ada Quill, RN", "Bram Osei, MD"]),
    ("Northfield Research Trust", ["Cleo Marsh, PhD", "Dov Lindqvist, MPH", "Esme Achterberg, BA"]),
    ("Kestrel Health Partners", ["Fin Rowe, PharmD", "Gus Tanaka, MSc", "Hana Petrov, DO", "Ivo Brandt, MS"]),
]
ROWS = [[org, name] for org, names in GROUPS for name in names]


def _row_top(r: int) -> float:
    """Top of row ``r``'s band (points from the page's top)."""
    return TOP + r * LEAD


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, middle: float, text: str) -> None:  # ``middle``: the line's middle, from the top
        c.drawString(x, H - middle - 0.35 * SIZE, text)

    c.drawString(XS[0], H - TOP + 6, "Organization")
    c.drawString(XS[1], H - TOP + 6, "Names")
    r = 0
    for org, names in GROUPS:
        put(XS[0], (_row_top(r) + _row_top(r + len(names))) / 2, org)  # centred across its rows
        for name in names:
            put(XS[1], _row_top(r) + LEAD / 2, name)
            r += 1
    c.save()


def test_a_merged_cell_on_the_border_of_two_rows_is_outlined_with_each(tmp_path) -> None:
    pdf = tmp_path / "members.pdf"
    _make_pdf(pdf)
    bands = [(XS[0] / W - 0.01, _row_top(r) / H, 0.8, _row_top(r + 1) / H) for r in range(len(ROWS))]
    grid = TableGrid(
        header_rows=[["Organization", "Names"]],
        body_rows=ROWS,
        body_row_bboxes=bands,
        body_row_pages=[1] * len(ROWS),
        grid_source="parser_html",
    )
    region = (bands[0][0], (TOP - LEAD) / H, 0.8, _row_top(len(ROWS)) / H)
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(
        doc_id="border001", source=str(pdf), name="border", parser="mineru", page_count=1, blocks=[block]
    )
    units = [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == list(range(len(ROWS)))
    names = [char_boxes(pdf, [row[1]], printed_once=True) for row in ROWS]
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        for box in char_boxes(pdf, [ROWS[r][0]], printed_once=True) + names[r]:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(names):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, ROWS[k][1])
