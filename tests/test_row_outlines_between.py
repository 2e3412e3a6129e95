"""Table-row outlines of a row none of whose lines is its own alone, placed between the rows around it.

A borderless table built here (reportlab, Helvetica), read as the parser's grid without boxes (stage 8 places the
rows). A notes cell merged over every row is printed once down the whole table, so the rows found by their own
lines reach along its lines towards each other. The second row's lines are each said by another row too (``Main
choice:``, the dose and the length by the fourth row, ``willow bark`` by the third); printed between the first and third
rows, they are the second row's, and its outline stops short of its neighbours' lines (the trap: the notes'
lines beside it are every row's). A length merged over the last two rows, printed once between their lines, is
said by both: both outlines hold it.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
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
LEAD, SIZE, TOP = 14.0, 10.0, 100.0
XS = [72.0, 200.0, 330.0, 500.0]
HEADER = ["Medicine", "Dose", "Notes", "Length"]
#: Each row's printed lines per column, one list of lines per cell; the length is drawn apart (``LENGTH``).
ROWS = [
    [["ginger syrup"], ["5 ml nightly"]],
    [["Main choice:", "willow bark"], ["10 ml twice daily"]],
    [["willow bark drops"], ["3 drops hourly"]],
    [["Main choice: peppermint"], ["10 ml twice daily for 5 days"]],
    [["camomile infusion"], ["one cup at night"]],
]
#: The notes cell's printed lines, from the first row's top down.
NOTES = [
    "Take with food where possible",
    "and avoid on an empty stomach;",
    "stop at once if a rash appears",
    "and ask for advice before any",
    "long journey or heavy work in",
    "hot weather. Keep out of reach",
    "of small children and pets, in",
    "a cool dry place away from sun.",
]
#: The length merged over the fourth and fifth rows; the other rows' lengths.
LENGTH, LENGTHS = "7 nights", ["2 weeks", "5 days", "3 weeks"]


def _tops() -> list[float]:
    """Each row's top (points from the page top): a row takes as many lines as its longest cell, and a gap."""
    tops = [TOP + LEAD]
    for row in ROWS[:-1]:
        tops.append(tops[-1] + LEAD * (max(len(c) for c in row) + 0.6))
    return tops


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    for x, head in zip(XS, HEADER):
        text(x, TOP, head)
    tops = _tops()
    for top, row in zip(tops, ROWS):
        for x, cell in zip(XS, row):
            for k, line in enumerate(cell):
                text(x, top + k * LEAD, line)
    for k, line in enumerate(NOTES):
        text(XS[2], tops[0] + k * LEAD, line)
    for top, length in zip(tops, LENGTHS):
        text(XS[3], top, length)
    text(XS[3], (tops[3] + tops[4]) / 2, LENGTH)  # once, on the border of the last two rows
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, TableGrid, list]:
    pdf = tmp_path_factory.mktemp("rows") / "between.pdf"
    _make_pdf(pdf)
    lengths = [*LENGTHS, LENGTH, LENGTH]
    notes = " ".join(NOTES)
    body = [[" ".join(cell) for cell in row] + [notes, length] for row, length in zip(ROWS, lengths)]
    grid = TableGrid(header_rows=[HEADER], body_rows=body)
    bottom = max(_tops()[-1], _tops()[0] + len(NOTES) * LEAD) + 2 * LEAD
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 580.0 / W, bottom / H)
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(doc_id="betw0001", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    boxed = add_row_boxes(doc, pdf)
    rows = [u for u in build_units(boxed) if u.unit_type is UnitType.TABLE_ROW and "Dose:" in u.text]
    units = sorted(rows, key=lambda u: u.table.row_index)  # the notes cell, said once, is a unit of its own
    return pdf, boxed.blocks[0].table, units


def test_a_row_of_shared_lines_is_outlined_between_its_neighbours(table) -> None:
    pdf, grid, units = table
    assert len(units) == len(ROWS)
    assert grid.body_row_bboxes[1] is not None
    outlines = unit_outlines(units[1], (W, H))
    for ch in char_boxes(pdf, ["Main choice:", "willow bark", "10 ml twice daily"]):
        assert holds(outlines, ch)
    for ch in char_boxes(pdf, ["ginger syrup", "5 ml nightly", "willow bark drops", "3 drops hourly"]):
        assert not over(outlines, ch)


def test_a_merged_length_between_two_rows_is_outlined_with_both(table) -> None:
    pdf, _, units = table
    merged = char_boxes(pdf, [LENGTH], printed_once=True)
    for r in (3, 4):
        assert all(holds(unit_outlines(units[r], (W, H)), ch) for ch in merged)


#: A numbered table whose second to fourth rows say the same but for their numbers (too short to place a row):
#: the second row's dose is said again only by the last row, below the rows that place it.
SAME = [
    ["1", "ginger syrup", "5 ml nightly"],
    ["2", "Main choice: willow bark", "10 ml twice daily, or more"],
    ["3", "Main choice: willow bark", "10 ml twice daily"],
    ["4", "Main choice: willow bark", "10 ml twice daily"],
    ["5", "camomile infusion", "one cup at night"],
    ["6", "sage tea", "10 ml twice daily, or more"],
]
SAME_X = [72.0, 110.0, 330.0]
#: Rows close together: a row's runs reach the next row's line when no row holds it alone.
SAME_PITCH = 1.2 * LEAD


@pytest.fixture(scope="module")
def numbered(tmp_path_factory) -> TableGrid:
    from reportlab.pdfgen import canvas

    pdf = tmp_path_factory.mktemp("rows") / "numbered.pdf"
    c = canvas.Canvas(str(pdf), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    pitch = SAME_PITCH
    for r, row in enumerate([["No", "Medicine", "Dose"], *SAME]):
        for x, cell in zip(SAME_X, row):
            c.drawString(x, H - (TOP + r * pitch + 0.75 * LEAD), cell)
    c.save()
    grid = TableGrid(header_rows=[["No", "Medicine", "Dose"]], body_rows=[list(r) for r in SAME])
    region = (SAME_X[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + (len(SAME) + 1) * pitch) / H)
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(doc_id="betw0002", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    return add_row_boxes(doc, pdf).blocks[0].table


def test_rows_between_found_rows_are_not_placed_by_a_guess(numbered) -> None:
    """Four rows lie between the first and the fifth: the second row's dose is the only one of their runs with one
    holder among them, but the second row is not placed by it, and the rows below it, found by their lines, keep
    their own lines (the trap: the second row, placed first, would draw their lines towards it)."""
    boxes = numbered.body_row_bboxes
    assert all(b is not None for b in boxes)
    pitch = SAME_PITCH
    middles = [(TOP + (r + 1) * pitch + 0.45 * LEAD) / H for r in range(len(SAME))]
    for r, box in enumerate(boxes):
        assert [k for k, m in enumerate(middles) if box[1] <= m <= box[3]] == [r]
