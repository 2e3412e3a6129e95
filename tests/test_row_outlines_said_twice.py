"""Outlines of rows whose cells begin with the same words, on a page built here.

A borderless table of advice (reportlab, Helvetica), each advice cell wrapped over lines: the second advice begins
with the same two lines as the first (``For adults over sixty years`` / ``we advise a daily walk of``), only its
last line its own; the first advice's first line goes on with words of its own, drawn apart (a run of its own).
The second advice's first line lies nearer the first advice's last line than its own last line, so it went with the
first advice, whose box grew over it, and the second advice's box missed its first lines. Each advice says those
words once: the first advice, given its own copy, takes no other. Each row's outline must hold its lines (each
character within :data:`pdf_chars.TOL` points of PDFium's positions) and no line of the other rows. The trap: the
first advice keeps its own first lines, which say the same words.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, GAP, SIZE, TOP = 12.0, 4.0, 9.0, 120.0
#: Left edge of each column (points); the first line's own words of the first advice.
XS, OWN_X = [72.0, 110.0], 260.0
HEADER = ["No.", "Advice"]
SAME = ["For adults over sixty years", "we advise a daily walk of"]
#: Each row's number and lines (a line of several parts: parts drawn apart).
ROWS = [
    ("1.", [[SAME[0], "who walk little,"], [SAME[1]], ["thirty minutes."]]),
    ("2.", [[SAME[0]], [SAME[1]], ["ten minutes after each meal."]]),
    ("3.", [["Stretching before a walk is optional."]]),
]


def _tops() -> list[float]:
    """The top of each row's first line (points from the page top); the last one is the table's bottom."""
    tops = [TOP + LEAD + GAP]
    for _, lines in ROWS:
        tops.append(tops[-1] + len(lines) * LEAD + GAP)
    return tops


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    text(XS[0], TOP, HEADER[0])
    text(XS[1], TOP, HEADER[1])
    for (number, lines), top in zip(ROWS, _tops()):
        text(XS[0], top, number)
        for k, parts in enumerate(lines):
            for x, part in zip((XS[1], OWN_X), parts):
                text(x, top + k * LEAD, part)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("said") / "advice_table.pdf"
    _make_pdf(pdf)
    body = [[number, " ".join(part for parts in lines for part in parts)] for number, lines in ROWS]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, body_row_pages=[1] * len(body))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, _tops()[-1] / H + 0.005)
    return pdf, row_units(pdf, grid, region, "advice")


def _chars(pdf: Path, r: int) -> list[tuple[float, float, float, float]]:
    """The characters printed in row ``r``'s band (from its first line's top to the next row's), in points from
    the page's top-left corner."""
    import pypdfium2 as pdfium

    top, bottom = _tops()[r : r + 2]
    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[0].get_textpage()
        out = []
        for i in range(textpage.count_chars()):
            if not textpage.get_text_range(i, 1).strip():
                continue
            left, low, right, high = textpage.get_charbox(i)
            box = (left, H - high, right, H - low)
            if top <= (box[1] + box[3]) / 2 <= bottom:
                out.append(box)
        return out
    finally:
        doc.close()


def test_the_second_advice_is_outlined_with_its_first_lines(table) -> None:
    """The second advice's outline holds all its lines and no character of the first or third advice."""
    pdf, units = table
    outlines = unit_outlines(units[1], (W, H))
    for ch in _chars(pdf, 1):
        assert holds(outlines, ch), (units[1].text, ch, outlines)
    for r in (0, 2):
        for ch in _chars(pdf, r):
            assert not over(outlines, ch), (units[1].text, ch, outlines)


def test_the_first_advice_keeps_its_own_copy_of_the_words(table) -> None:
    """The first and third advice's outlines hold their own lines, and no character of the second advice."""
    pdf, units = table
    assert len(units) == len(ROWS)
    for r in (0, 2):
        outlines = unit_outlines(units[r], (W, H))
        for ch in _chars(pdf, r):
            assert holds(outlines, ch), (units[r].text, ch, outlines)
        for ch in _chars(pdf, 1):
            assert not over(outlines, ch), (units[r].text, ch, outlines)
