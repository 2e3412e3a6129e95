"""The outline of a row whose every word the rows below it say too, on a page built here.

A borderless list of sources (reportlab, Helvetica), one line per row: the first row's name, dates and site
(``Nordbank``, ``2010 to 2019``, ``Nordbank.org``) are all said by the second row too (the same dates, the same
site), so no run of the first line is that row's alone. Its dates lie near enough the second row's own line to be
taken for that row's; they are the first row's, which has no run yet. Each row's outline must hold its own line
(each character within :data:`pdf_chars.TOL` points of PDFium's positions) and no other row's. The trap: the second
row keeps its own dates and site, which the first row's words say too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 14.0, 9.0, 120.0
#: Left edge of each column (points).
XS = [80.0, 300.0, 460.0]
HEADER = ["Source", "Years", "Site"]
ROWS = [
    ["Nordbank", "2010 to 2019", "Nordbank.org"],
    ["Sudlist", "2010 to 2019", "Nordbank.org"],
    ["Westreg Unsorted Records", "2012 to 2019", "westreg.example.net"],
]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for r, row in enumerate([HEADER, *ROWS]):
        for x, cell in zip(XS, row):
            c.drawString(x, H - (TOP + r * LEAD + 0.75 * LEAD), cell)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("shared") / "sources_table.pdf"
    _make_pdf(pdf)
    grid = TableGrid(header_rows=[HEADER], body_rows=ROWS, body_row_pages=[1] * len(ROWS))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + 4 * LEAD) / H + 0.005)
    return pdf, row_units(pdf, grid, region, "sources")


def _line(pdf: Path, r: int) -> list[tuple[float, float, float, float]]:
    """The characters of row ``r``'s line (its cells, found among the characters printed on its line)."""
    top, bottom = TOP + (r + 1) * LEAD, TOP + (r + 2) * LEAD
    cells = [cell for cell in ROWS[r] if cell]
    return [b for b in _every(pdf, cells) if top <= (b[1] + b[3]) / 2 <= bottom]


def _every(pdf: Path, cells: list[str]) -> list[tuple[float, float, float, float]]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[0].get_textpage()
        out = []
        for cell in cells:
            searcher = textpage.search(cell, match_case=True, match_whole_word=False)
            while (found := searcher.get_next()) is not None:
                for i in range(found[0], found[0] + found[1]):
                    if textpage.get_text_range(i, 1).strip():
                        left, bottom, right, top = textpage.get_charbox(i)
                        out.append((left, H - top, right, H - bottom))
        return out
    finally:
        doc.close()


def test_a_row_of_words_other_rows_say_is_outlined_on_its_own_line(table) -> None:
    """Each row's outline holds its line and no character of the other rows' lines."""
    pdf, units = table
    assert [u.table.cells[0] for u in units] == [row[0] for row in ROWS]  # type: ignore[union-attr]
    assert len(char_boxes(pdf, [ROWS[2][0]], printed_once=True)) > 0
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines, unit.text
        mine = _line(pdf, r)
        assert mine
        for ch in mine:
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for other in (o for o in range(len(ROWS)) if o != r):
            for ch in _line(pdf, other):
                assert not over(outlines, ch), (unit.text, ch)
