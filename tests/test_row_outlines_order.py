"""Rows outlined in page order when one row's word is also printed far from it, on a table built here.

A search-strategy table (reportlab, Helvetica): each key question, long, is printed once at the top of its
rows and repeated in each of them by the parser's grid, beside a set number, a concept and a search string
of each row's own. The last column's header is printed on two lines, ``Search`` over ``notes``, and the last
row's string says ``notes``: a run of that row's own words printed above every row. Each row's unit must
outline its concept and string (every character within :data:`pdf_chars.TOL` points of PDFium's positions) and hold
no character of another row's concept or string (the trap: the last row's box reached up to the header,
over all the rows above it).
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

#: How far (PDF points) a character may lie outside an outline.
W, H = 612.0, 792.0
LEAD, SIZE, TOP = 22.0, 9.0, 110.0
XS = [60.0, 250.0, 290.0, 400.0]
HEADER = ["Key question", "Set", "Concept", "Search notes"]
QUESTIONS = [
    ["KQ 1 (does a walking plan lower", "the blood pressure of older adults)"],
    ["KQ 2 (do reminder letters raise", "attendance at yearly eye checks)"],
]
OWN = [
    ("Population words", "elderly OR aged OR senior"),
    ("Walking words", "walk OR stroll OR hike"),
    ("Pressure words", "hypertension OR systolic"),
    ("Letter words", "reminder OR postcard OR mail"),
    ("Visit words", "attendance OR uptake OR visit"),
    ("Limits", "English only; see notes"),
]
ROWS = [[" ".join(QUESTIONS[r // 3]), f"#{r % 3 + 1}", *OWN[r]] for r in range(len(OWN))]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS[:3], HEADER[:3]):
        put(x, TOP, text)
    put(XS[3], TOP - 0.5 * LEAD, "Search")  # the header on two lines: ``notes`` is a row's word too
    put(XS[3], TOP, "notes")
    for r, row in enumerate(ROWS):
        top = TOP + (r + 1) * LEAD
        if r % 3 == 0:  # the question printed once, on its first rows' lines
            for k, part in enumerate(QUESTIONS[r // 3]):
                put(XS[0], top + k * 0.5 * LEAD, part)
        for x, text in zip(XS[1:], row[1:]):
            put(x, top, text)
    c.save()


def test_a_rows_word_printed_above_the_table_does_not_stretch_its_box(tmp_path) -> None:
    pdf = tmp_path / "search_strategy.pdf"
    _make_pdf(pdf)
    grid = TableGrid(header_rows=[HEADER], body_rows=ROWS, grid_source="parser_html")
    region = (XS[0] / W - 0.01, (TOP - LEAD) / H, 0.9, (TOP + (len(ROWS) + 1.5) * LEAD) / H)
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(
        doc_id="order001", source=str(pdf), name="order", parser="mineru", page_count=1, blocks=[block]
    )
    units = [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]
    by_row = {u.table.row_index: u for u in units if u.table is not None and u.table.cells[-1] in {o[1] for o in OWN}}
    assert sorted(by_row) == list(range(len(ROWS)))
    own = [char_boxes(pdf, list(pair), printed_once=True) for pair in OWN]
    whole = tuple(v * s for v, s in zip(region, (W, H, W, H)))
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        assert outlines and all(o != whole for o in outlines)
        for box in own[r]:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(own):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, OWN[k])
