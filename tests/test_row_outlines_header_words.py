"""The first row's outline and a column header cell printed on several lines whose words the row also says.

A borderless table built here (reportlab, Helvetica): the header cell ``Kidney`` / ``Clearance`` / ``Effects`` is
printed on three lines; the first row's comment, under the header, ends ``watch the kidney`` / ``clearance effects``.
The header's lines are no row's: the first row's outline must hold its own lines (each character within
:data:`pdf_chars.TOL` points of PDFium's positions) and none of the header's. The trap: the row's own last line,
``clearance effects``, also a piece of the header cell, stays in its outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 13.0, 10.0, 120.0
#: Left edge of each column (points).
XS = [72.0, 200.0, 320.0]
HEADER_LINES = [["", "Kidney", ""], ["Drug", "Clearance", "Comments"], ["", "Effects", ""]]
ROWS = [
    ["Lorvatin", "+", ["Often well tolerated;", "watch the kidney", "clearance effects"]],
    ["Belcarin", "++", ["Rarely causes a rash;", "take it with food", "at the same hour"]],
]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    for k, line in enumerate(HEADER_LINES):
        for x, cell in zip(XS, line):
            if cell:
                text(x, TOP + k * LEAD, cell)
    for r, (drug, mark, comment) in enumerate(ROWS):
        top = TOP + 3.5 * LEAD + 3.5 * LEAD * r
        for k, line in enumerate(comment):
            text(XS[2], top + k * LEAD, line)
        text(XS[0], top + LEAD, drug)
        text(XS[1], top + LEAD, mark)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("hdrwords") / "header_words_table.pdf"
    _make_pdf(pdf)
    header = [["Drug", "Kidney Clearance Effects", "Comments"]]
    body = [[drug, mark, " ".join(comment)] for drug, mark, comment in ROWS]
    grid = TableGrid(header_rows=header, body_rows=body, body_row_pages=[1] * len(body))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + 10.5 * LEAD) / H + 0.005)
    return pdf, row_units(pdf, grid, region, "hdrwords")


def test_the_first_row_outline_leaves_out_the_header_lines(table) -> None:
    """Each row's outline holds its own lines, the trap's ``clearance effects`` included, and no line of the
    column header or of the other row."""
    pdf, units = table
    assert [u.table.cells[0] for u in units] == [row[0] for row in ROWS]  # type: ignore[union-attr]
    header = [cell for line in HEADER_LINES for cell in line if cell]
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines, unit.text
        drug, _, comment = ROWS[r]
        for ch in char_boxes(pdf, [drug, *comment], printed_once=True):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        theirs = [ROWS[1 - r][0], *ROWS[1 - r][2]]
        for ch in char_boxes(pdf, [*header, *theirs]):
            assert not over(outlines, ch), (unit.text, ch)
