"""Outlines of rows whose wrapped cells begin with the same line, on a page built here.

A borderless dosing table (reportlab, Helvetica): each drug's dosing cell wraps over three lines, the first two
the same for the first two drugs (``Take one tablet by mouth`` / ``twice a day``), the last its own; the drug's
other cells sit on the middle line. The second drug's first dosing line lies as near to the first drug's last line
as to its own middle line, so only the cell it begins places it: its row's outline must hold it, with every other
line of the row (each character within :data:`pdf_chars.TOL` points of PDFium's positions), and the first drug's
outline none of it. The trap: the first drug's own first line, which the same words say, stays with the first drug.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 12.0, 10.0, 120.0
#: Left edge of each column (points).
XS = [72.0, 200.0, 280.0, 480.0]
HEADER = ["Product", "Strength", "Dosing", "Doses per pack"]
FIRST, SECOND = "Take one tablet by mouth", "twice a day"
ROWS = [
    ["Lorvatin tablets", "10 mg", [FIRST, SECOND, "(Max: 40 mg/day)"], "30"],
    ["Belcarin tablets", "20 mg", [FIRST, SECOND, "(Max: 80 mg/day)"], "60"],
    ["Tamsolide capsule", "5 mg", ["One capsule at night", "with water", "(Max: 3 capsules)"], "90"],
]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    for x, head in zip(XS, HEADER):
        text(x, TOP, head)
    for r, (product, strength, dosing, doses) in enumerate(ROWS):
        top = TOP + 1.5 * LEAD + 3 * LEAD * r
        for k, line in enumerate(dosing):
            text(XS[2], top + k * LEAD, line)
        for x, cell in ((XS[0], product), (XS[1], strength), (XS[3], doses)):
            text(x, top + LEAD, cell)  # on the dosing cell's middle line
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("chains") / "dosing_table.pdf"
    _make_pdf(pdf)
    body = [[product, strength, " ".join(dosing), doses] for product, strength, dosing, doses in ROWS]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, body_row_pages=[1] * len(body))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + 1.5 * LEAD + 9 * LEAD) / H + 0.005)
    return pdf, row_units(pdf, grid, region, "dosing")


def _line_boxes(pdf: Path, r: int, k: int) -> list[tuple[float, float, float, float]]:
    """The characters of dosing line ``k`` of row ``r`` (the first two rows print their first two lines alike:
    found after the row's last line printed above them)."""
    boxes = char_boxes(pdf, [ROWS[r][2][k]])
    if r == 1 and k < 2:  # the second occurrence: the first row's is above it
        first = boxes
        boxes = [b for b in _all(pdf, ROWS[r][2][k]) if b[1] > first[0][3]]
    return boxes


def _all(pdf: Path, line: str) -> list[tuple[float, float, float, float]]:
    """The characters of every occurrence of ``line`` on page 1."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[0].get_textpage()
        searcher = textpage.search(line, match_case=True, match_whole_word=False)
        out = []
        while (found := searcher.get_next()) is not None:
            start, count = found
            for i in range(start, start + count):
                if textpage.get_text_range(i, 1).strip():
                    left, bottom, right, top = textpage.get_charbox(i)
                    out.append((left, H - top, right, H - bottom))
        return out
    finally:
        doc.close()


def test_a_row_holds_the_first_line_of_its_wrapped_cell(table) -> None:
    """Each row's outline holds its cells and all three of its dosing lines, and no other row's."""
    pdf, units = table
    assert [u.table.cells[0] for u in units] == [row[0] for row in ROWS]  # type: ignore[union-attr]
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines, unit.text
        product, strength, dosing, _ = ROWS[r]
        mine = char_boxes(pdf, [product, strength, dosing[2]], printed_once=True)
        mine += [b for k in range(3) for b in _line_boxes(pdf, r, k)]
        for ch in mine:
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for other in (o for o in range(len(ROWS)) if o != r):
            theirs = char_boxes(pdf, [ROWS[other][0], ROWS[other][2][2]], printed_once=True)
            theirs += [b for k in range(3) for b in _line_boxes(pdf, other, k)]
            for ch in theirs:
                assert not over(outlines, ch), (unit.text, ch)
