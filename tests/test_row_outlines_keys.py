"""Rows placed by their lines when every word of theirs is some other row's too, on a table built here.

A category table: a review status merged over three rows and printed once, centred across them, beside
three categories and their definitions, the same three under each status. No run of text is one row's
alone, so stage 8 places the rows by their first lines in order; a row's first line holds its category,
not the merged status (printed on the middle row's line). Each row's unit must outline its category and
definition (every character within :data:`pdf_chars.TOL` points of PDFium's positions) and hold no line of another
row's category or definition (the trap: the status's line is the next row's).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
from structaware_readers.units import build_units

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 24.0, 10.0, 120.0
XS = [72.0, 200.0, 320.0]
HEADER = ["Review status", "Category", "Meaning"]
KINDS = [("Added", "A new statement"), ("Amended", "A statement reworded"), ("Kept", "A statement kept as it was")]
STATUS = ["Reviewed", "Not reviewed"]
ROWS = [[s, k, m] for s in STATUS for k, m in KINDS]


def _make_pdf(path: Path) -> list[list[tuple[float, float, float, float]]]:
    """The table; returns each row's printed category and meaning boxes (points, top-left origin)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, row: float, text: str) -> tuple[float, float, float, float]:
        base = TOP + row * LEAD + 0.75 * LEAD
        c.drawString(x, H - base, text)
        return (x, base - SIZE, x + c.stringWidth(text, "Helvetica", SIZE), base + 0.3 * SIZE)

    for x, text in zip(XS, HEADER):
        put(x, 0, text)
    own = []
    for r, (_status, kind, meaning) in enumerate(ROWS):
        own.append([put(XS[1], r + 1, kind), put(XS[2], r + 1, meaning)])
    for g, status in enumerate(STATUS):
        put(XS[0], 1 + 3 * g + 1, status)  # centred across its three rows: on the middle one's line
    c.save()
    return own


def test_rows_sharing_every_word_are_placed_by_their_own_first_lines(tmp_path) -> None:
    pdf = tmp_path / "status_table.pdf"
    own = _make_pdf(pdf)
    grid = TableGrid(header_rows=[HEADER], body_rows=ROWS, grid_source="parser_html")
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 0.9, (TOP + (len(ROWS) + 1) * LEAD) / H + 0.005)
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(doc_id="keys0001", source=str(pdf), name="keys", parser="mineru", page_count=1, blocks=[block])
    units = [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]
    assert len(units) == len(ROWS)
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines and all(o != tuple(v * s for v, s in zip(region, (W, H, W, H))) for o in outlines)
        for box in own[r]:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(own):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, ROWS[k])
