"""Row outlines of a borderless table whose columns are spaced a little differently, read from the text layer.

A table built here (reportlab, Helvetica) of three columns of list items: the second column's items stand a little
further apart than the first's, the third's further still, so each row's later cells are printed lower than its
first, more so row by row (never by half a line: each cell still reads as its row's). Each body row's box from the
text layer (:func:`~structaware_readers.table_recovery.pdf_text_layer.grid_from_region`) holds every character of
its cells (within :data:`pdf_chars.TOL` points of PDFium's positions), and none of the next row's (the trap).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 16.0, 10.0, 120.0
XS = [80.0, 250.0, 420.0]
#: How much further apart (points) each column's items stand than the first column's.
DRIFT = [0.0, 0.6, 1.1]
HEADER = ["Ask about", "Examine", "Write down"]
ROWS = [
    ["Recent journeys", "Skin colour", "Current weight"],
    ["Sleep and appetite", "Heart rhythm", "Usual tablets"],
    ["Thirst at night", "Breathing pace", "Earlier illness"],
    ["Aches in joints", "Eye movement", "Family history"],
]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for x, head in zip(XS, HEADER):
        c.drawString(x, H - (TOP + 0.75 * LEAD), head)
    for r, row in enumerate(ROWS, start=1):
        for x, drift, cell in zip(XS, DRIFT, row):
            c.drawString(x, H - (TOP + r * (LEAD + drift) + 0.75 * LEAD), cell)
    c.save()


@pytest.fixture(scope="module")
def grid(tmp_path_factory):
    import pdfplumber

    pdf = tmp_path_factory.mktemp("rows") / "drifting.pdf"
    _make_pdf(pdf)
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + (len(ROWS) + 2) * LEAD) / H)
    with pdfplumber.open(str(pdf)) as doc:
        got = grid_from_region(doc.pages[0], region, page_number=1, ruled=False)
    assert got is not None
    return pdf, got


def test_each_row_box_holds_its_lower_cells(grid) -> None:
    pdf, got = grid
    assert got.header_rows == [HEADER]
    assert got.body_rows == ROWS
    for row, box in zip(ROWS, got.body_row_bboxes):
        outline = [(box[0] * W, box[1] * H, box[2] * W, box[3] * H)]
        for ch in char_boxes(pdf, row):
            assert holds(outline, ch), (row, ch)


def test_no_row_box_reaches_the_next_row(grid) -> None:
    pdf, got = grid
    for r, box in enumerate(got.body_row_bboxes[:-1]):
        outline = [(box[0] * W, box[1] * H, box[2] * W, box[3] * H)]
        for ch in char_boxes(pdf, ROWS[r + 1]):
            assert not over(outline, ch), (r, ch)


#: A tight table: lines a little over a font size apart, the second column's cells printed lower by most of the gap.
TIGHT_LEAD, TIGHT_DROP = 11.5, 3.0


@pytest.fixture(scope="module")
def tight(tmp_path_factory):
    import pdfplumber
    from reportlab.pdfgen import canvas

    pdf = tmp_path_factory.mktemp("rows") / "tight.pdf"
    c = canvas.Canvas(str(pdf), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for r, row in enumerate([HEADER, *ROWS]):
        for k, (x, cell) in enumerate(zip(XS, row)):
            drop = TIGHT_DROP if k == 1 and r else 0.0
            c.drawString(x, H - (TOP + r * TIGHT_LEAD + drop + 0.75 * LEAD), cell)
    c.save()
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + (len(ROWS) + 2) * LEAD) / H)
    with pdfplumber.open(str(pdf)) as doc:
        got = grid_from_region(doc.pages[0], region, page_number=1, ruled=False)
    assert got is not None
    return got


def test_a_row_box_stops_at_the_next_line(tight) -> None:
    """The trap: a lower cell's box reaching into the next line does not stretch its row's box over that line."""
    assert tight.body_rows == ROWS
    boxes = tight.body_row_bboxes
    for upper, lower in zip(boxes, boxes[1:]):
        assert upper[3] <= lower[1] + 1e-9
