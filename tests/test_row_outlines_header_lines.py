"""Outlines of the rows of a table whose column header names one of its rows, on a page built here.

A borderless table of drugs (reportlab, Helvetica) whose second column's header is printed on two lines, the second
naming a drug and its dose (``Amount matching`` / ``Veltrane 5 mg``): the drug's own row, the third, says those
words too, and the header's line (three words, longer than the pieces of a header cell left out before) was that
row's only run above its line. Its box reached from the header down over the rows between. The row's outline must
hold its own line (each character within :data:`pdf_chars.TOL` points of PDFium's positions) and no character of
the header or the rows above it. The trap: the row's own line, which says the header's words, stays in its outline,
and the rows above keep theirs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 14.0, 9.0, 120.0
#: Left edge of each column (points).
XS = [80.0, 200.0, 360.0]
#: The header's two lines, column by column.
HEADER_LINES = [["Drug", "Amount matching", "Peak"], ["", "Veltrane 5 mg", "(hours)"]]
HEADER = ["Drug", "Amount matching Veltrane 5 mg", "Peak (hours)"]
ROWS = [
    ["Aldrex", "2 mg", "1 - 2"],
    ["Borvine", "10 mg", "3"],
    ["Veltrane", "5 mg", "2 - 4"],
    ["Zentol", "20 mg", "6"],
]


def _top(k: int) -> float:
    """The top of line ``k`` (the header's two lines first, then a line a row), points from the page top."""
    return TOP + k * LEAD


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for k, line in enumerate(HEADER_LINES + ROWS):
        for x, cell in zip(XS, line):
            if cell:
                c.drawString(x, H - (_top(k) + 0.75 * LEAD), cell)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("header_lines") / "drug_table.pdf"
    _make_pdf(pdf)
    grid = TableGrid(header_rows=[HEADER], body_rows=ROWS, body_row_pages=[1] * len(ROWS))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, _top(len(ROWS) + 2) / H + 0.005)
    return pdf, row_units(pdf, grid, region, "drugs")


def _line(pdf: Path, k: int) -> list[tuple[float, float, float, float]]:
    """The characters of line ``k`` (see :func:`_top`), in points from the page's top-left corner."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[0].get_textpage()
        out = []
        for i in range(textpage.count_chars()):
            if textpage.get_text_range(i, 1).strip():
                left, low, right, high = textpage.get_charbox(i)
                box = (left, H - high, right, H - low)
                if _top(k) <= (box[1] + box[3]) / 2 <= _top(k + 1):
                    out.append(box)
        return out
    finally:
        doc.close()


def test_a_header_line_a_row_says_stays_out_of_its_outline(table) -> None:
    """The third row's outline holds its line and no character of the header's lines or the rows above."""
    pdf, units = table
    outlines = unit_outlines(units[2], (W, H))
    for ch in _line(pdf, 4):
        assert holds(outlines, ch), (units[2].text, ch, outlines)
    for k in (0, 1, 2, 3):
        for ch in _line(pdf, k):
            assert not over(outlines, ch), (units[2].text, k, ch, outlines)


def test_the_rows_above_keep_their_lines(table) -> None:
    """The first two rows' outlines hold their own lines."""
    pdf, units = table
    assert len(units) == len(ROWS)
    for r in (0, 1):
        outlines = unit_outlines(units[r], (W, H))
        for ch in _line(pdf, r + 2):
            assert holds(outlines, ch), (units[r].text, ch, outlines)
