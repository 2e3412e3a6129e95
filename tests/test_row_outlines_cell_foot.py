"""Table-row outlines of a long merged cell beside the last rows of a page.

A table drawn here (reportlab, Helvetica), read as a parser's grid without row boxes (rows placed by stage 8): a
column of notes, merged over the three rows of the page, runs on well below the last row's short cells (more lines
than stage 8 reaches by placing a shared line next to a row's lines, pass after pass). The notes are outlined down
to the table's foot; the rows keep their own lines.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, PAD, SIZE = 11.0, 4.0, 9.0
XS = [60.0, 150.0, 330.0, 470.0, 552.0]
HEADER = ["Ailment", "Advice", "Remedy", "Course"]
#: The notes, one printed line each, merged over every row: many more lines than the rows beside them print.
NOTES = [
    "Offer rest and plenty of fluids first.",
    "Review after two weeks if no better,",
    "sooner if the fever climbs at night.",
    "Avoid strong syrups in young children.",
    *(f"Step {n}: note the sputum colour at visit {n}." for n in range(1, 17)),
    "Give written advice on warning signs",
    "and when to come back to the clinic.",
]
#: The rows' own lines: ailment (first row only), remedy lines, course.
REMEDIES = [["Marsh cough", "Wintergreen syrup"], ["Oxbane (if unable to take", "fernleaf)"], ["Pellroot tablets"]]
COURSES = ["9 days", "6 days", "4 days"]
AILMENT = "Marsh cough"


def _draw(path: Path) -> tuple[list[float], float]:
    """The table; returns each row's top and the table's bottom, in points from the page top."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 3, H - (top + PAD + 0.75 * LEAD), line)

    head = 100.0
    for col, name in enumerate(HEADER):
        text(XS[col], head, name)
    tops, top = [], head + LEAD + 2 * PAD
    for r, remedy in enumerate(REMEDIES):
        tops.append(top)
        for k, line in enumerate(remedy[1:] if r == 0 else remedy):
            text(XS[2], top + k * LEAD, line)
        text(XS[3], top, COURSES[r])
        top += len(remedy[1:] if r == 0 else remedy) * LEAD + 2 * PAD
    text(XS[0], tops[0], AILMENT)
    for k, line in enumerate(NOTES):
        text(XS[1], tops[0] + k * LEAD, line)
    bottom = max(top, tops[0] + len(NOTES) * LEAD + 2 * PAD)
    for y in [head, tops[0], bottom]:
        c.line(XS[0], H - y, XS[-1], H - y)
    for y in tops[1:]:
        c.line(XS[2], H - y, XS[-1], H - y)
    for x in XS:
        c.line(x, H - head, x, H - bottom)
    c.save()
    return tops, bottom


def _units(pdf: Path, bottom: float) -> list[Unit]:
    """Row units of the table read as a parser's grid."""
    notes = " ".join(NOTES)
    body = [
        [AILMENT, notes, REMEDIES[0][1], COURSES[0]],
        [AILMENT, notes, " ".join(REMEDIES[1]), COURSES[1]],
        [AILMENT, notes, REMEDIES[2][0], COURSES[2]],
    ]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, grid_source="parser_html")
    region = (XS[0] / W - 0.005, 95.0 / H, XS[-1] / W + 0.005, (bottom + 2) / H)
    return row_units(pdf, grid, region, "foot")


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    pdf = tmp_path_factory.mktemp("rows") / "notes_foot.pdf"
    tops, bottom = _draw(pdf)
    return pdf, tops, _units(pdf, bottom)


def _said_once(units: list[Unit]) -> Unit:
    return next(u for u in units if u.table is not None and any(c.startswith("Offer rest") for c in u.table.cells))


def test_notes_running_below_the_last_row_are_outlined_to_their_end(table) -> None:
    """The notes, said once, are outlined down to their last line, below every row's own lines."""
    pdf, _, units = table
    notes = unit_outlines(_said_once(units), (W, H))
    for ch in char_boxes(pdf, NOTES):
        assert holds(notes, ch), (ch, notes)


def _rows(units: list[Unit]) -> list[Unit]:
    rows = [u for u in units if u.table is not None and u.table.cells[2]]
    assert [u.table.cells[2] for u in rows] == [REMEDIES[0][1], " ".join(REMEDIES[1]), REMEDIES[2][0]]  # type: ignore[union-attr]
    return rows


def test_rows_hold_their_own_lines(table) -> None:
    """Each row's outlines hold its remedy, every line of it, and its course."""
    pdf, _, units = table
    for r, u in enumerate(_rows(units)):
        own = unit_outlines(u, (W, H))
        for ch in char_boxes(pdf, [*REMEDIES[r][1 if r == 0 else 0 :], COURSES[r]]):
            assert holds(own, ch), (u.text, ch, own)


def test_the_last_row_is_not_stretched_to_the_foot(table) -> None:
    """The trap: no row's own outlines reach over another row's lines, and the last row's do not reach down to
    the table's foot (the notes' lines below it stay the notes')."""
    pdf, _, units = table
    rows = _rows(units)
    for r, u in enumerate(rows):
        own = unit_outlines(u, (W, H))
        for q in range(len(rows)):
            if q != r:
                for ch in char_boxes(pdf, [REMEDIES[q][-1], COURSES[q]]):
                    assert not over(own, ch), (u.text, ch, own)
    last = unit_outlines(rows[-1], (W, H))
    for ch in char_boxes(pdf, NOTES[-2:]):
        assert not over(last, ch), (rows[-1].text, ch, last)
    assert max(o[3] for o in last) < max(ch[3] for ch in char_boxes(pdf, [REMEDIES[2][0]])) + LEAD, last
