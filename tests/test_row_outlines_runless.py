"""Outlines of a row every word of which other rows say too, on a page built here.

A borderless list of team members by site (reportlab, Helvetica), one member a line, a wider space between sites.
A site with two members is printed once beside them, a line of its name on each member's line. One member works at
two sites and is listed under both: the second listing's row (``Harbour Road Annex`` | ``Mira Quell, RN``) has no
word of its own, the site said by the row above, the member by the first row. The site's second line lies nearer
the row above than the row below (the space between sites), so it went with the row above, whose box then reached
over the second listing's line, and that row got no box. Its outline must hold its member's line (each character within :data:`pdf_chars.TOL` points of
PDFium's positions) and no other row's member. The trap: the first listing of the same member stays the first
row's, and the row below keeps its own line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, GAP, SIZE, TOP = 13.0, 9.0, 9.0, 120.0
#: Left edge of each column (points).
XS = [80.0, 300.0]
HEADER = ["Site", "Member"]
TWICE = "Mira Quell, RN"
ANNEX = ("Harbour Road", "Annex")
ROWS = [
    ["Northgate Practice", TWICE],
    ["Eastfield Surgery", "Tobin Varga, MD"],
    [" ".join(ANNEX), "Lorna Pike, PhD"],
    [" ".join(ANNEX), TWICE],
    ["Westmoor Laboratory", "Oskar Dunne, BSc"],
]


def _tops() -> list[float]:
    """The top of each row's line (points from the page top): a line's pitch apart, and :data:`GAP` more between
    sites; the last one is the table's bottom."""
    tops = [TOP + LEAD]
    for r in range(1, len(ROWS) + 1):
        tops.append(tops[-1] + LEAD + (GAP if r == len(ROWS) or ROWS[r][0] != ROWS[r - 1][0] else 0.0))
    return tops


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    text(XS[0], TOP, HEADER[0])
    text(XS[1], TOP, HEADER[1])
    tops = _tops()
    for r, (site, member) in enumerate(ROWS):
        text(XS[1], tops[r], member)
        if r == 2:  # the annex, printed once beside its two members
            text(XS[0], tops[r], ANNEX[0])
            text(XS[0], tops[r + 1], ANNEX[1])
        elif r != 3:
            text(XS[0], tops[r], site)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("runless") / "members_table.pdf"
    _make_pdf(pdf)
    grid = TableGrid(header_rows=[HEADER], body_rows=ROWS, body_row_pages=[1] * len(ROWS))
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, _tops()[-1] / H + 0.005)
    return pdf, row_units(pdf, grid, region, "members")


def _member(pdf: Path, r: int) -> list[tuple[float, float, float, float]]:
    """The characters of row ``r``'s member, on the row's line (the member listed twice: the listing there)."""
    top, bottom = _tops()[r : r + 2]
    return [b for b in _every(pdf, ROWS[r][1]) if top <= (b[1] + b[3]) / 2 <= bottom]


def _every(pdf: Path, line: str) -> list[tuple[float, float, float, float]]:
    """The characters of every occurrence of ``line`` on page 1, in points from the top-left corner."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        textpage = doc[0].get_textpage()
        out = []
        searcher = textpage.search(line, match_case=True, match_whole_word=False)
        while (found := searcher.get_next()) is not None:
            for i in range(found[0], found[0] + found[1]):
                if textpage.get_text_range(i, 1).strip():
                    left, bottom, right, top = textpage.get_charbox(i)
                    out.append((left, H - top, right, H - bottom))
        return out
    finally:
        doc.close()


def test_a_row_of_words_other_rows_say_is_outlined_on_its_member_line(table) -> None:
    """The second listing's outline holds its member's line and the other rows' members are outside it."""
    pdf, units = table
    assert [u.table.cells[1] for u in units] == [row[1] for row in ROWS]  # type: ignore[union-attr]
    outlines = unit_outlines(units[3], (W, H))
    assert outlines, units[3].text
    mine = _member(pdf, 3)
    assert mine
    for ch in mine:
        assert holds(outlines, ch), (units[3].text, ch, outlines)
    for other in (0, 1, 2, 4):
        for ch in _member(pdf, other):
            assert not over(outlines, ch), (units[3].text, ROWS[other][1])


def test_the_first_listing_and_the_row_below_keep_their_lines(table) -> None:
    """The first row holds the member's first listing and not the second; the rows around the second listing
    hold their own members and not its."""
    pdf, units = table
    for r in (0, 2, 4):
        outlines = unit_outlines(units[r], (W, H))
        for ch in _member(pdf, r) + char_boxes(pdf, [ROWS[r][0].split()[0]]):
            assert holds(outlines, ch), (units[r].text, ch, outlines)
        for ch in _member(pdf, 3):
            assert not over(outlines, ch), (units[r].text, ch, outlines)
