"""Table-row outlines of a row's wrapped line that says a word of a merged cell beside it.

A table drawn here (reportlab, Helvetica), read as a text-layer grid whose rows are boxed from rule to rule: a column
of notes merged over the three rows; the second row, ruled taller than its lines, has a remedy that wraps onto a
second line, ``tetracycline)``, a word the notes say as well. The row's box, holding notes lines more than a line
below its own, is cut to its own lines (:mod:`structaware_readers.table_recovery.merged_cells`), and keeps that line:
it lies outside the notes' outline.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, row_units, unit_outlines
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
    "Avoid tetracycline in young children.",
    *(f"Step {n}: note the sputum colour at visit {n}." for n in range(1, 17)),
    "Give written advice on warning signs",
    "and when to come back to the clinic.",
]
#: The rows' own lines: ailment (first row only), remedy lines, course.
REMEDIES = [["Marsh cough", "Wintergreen syrup"], ["Oxbane (if unable to take", "tetracycline)"], ["Pellroot tablets"]]
COURSES = ["9 days", "6 days", "4 days"]
AILMENT = "Marsh cough"


def _draw(path: Path, gap: float = 0.0) -> tuple[list[float], float]:
    """The table; ``gap``: blank points below the second row's lines (a taller ruled row). Returns each row's top
    and the table's bottom, in points from the page top."""
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
        top += len(remedy[1:] if r == 0 else remedy) * LEAD + 2 * PAD + (gap if r == 1 else 0.0)
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


def _units(pdf: Path, tops: list[float], bottom: float, ruled: bool = False) -> list[Unit]:
    """Row units of the table read as a parser's grid, or (``ruled``) as a text-layer grid whose rows are boxed
    from rule to rule (the last row down to the table's bottom)."""
    notes = " ".join(NOTES)
    body = [
        [AILMENT, notes, REMEDIES[0][1], COURSES[0]],
        [AILMENT, notes, " ".join(REMEDIES[1]), COURSES[1]],
        [AILMENT, notes, REMEDIES[2][0], COURSES[2]],
    ]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, grid_source="parser_html")
    if ruled:
        edges = [*tops, bottom]
        boxes = [(XS[0] / W, edges[r] / H, XS[-1] / W, edges[r + 1] / H) for r in range(len(body))]
        grid = grid.model_copy(
            update={"grid_source": "pdf_text_layer", "body_row_bboxes": boxes, "body_row_pages": [1] * len(body)}
        )
    region = (XS[0] / W - 0.005, 95.0 / H, XS[-1] / W + 0.005, (bottom + 2) / H)
    return row_units(pdf, grid, region, "foot")


def _said_once(units: list[Unit]) -> Unit:
    return next(u for u in units if u.table is not None and any(c.startswith("Offer rest") for c in u.table.cells))


@pytest.fixture(scope="module")
def ruled(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    pdf = tmp_path_factory.mktemp("rows") / "notes_ruled.pdf"
    tops, bottom = _draw(pdf, gap=2 * LEAD)
    return pdf, tops, _units(pdf, tops, bottom, ruled=True)


def test_a_wrapped_line_saying_a_word_of_the_notes_stays_the_rows(ruled) -> None:
    """The second row's ruled box, reaching over notes lines below its own, is cut to its own lines, and keeps its
    wrapped line (``tetracycline)``: the notes say the word, but it is printed outside their outline)."""
    pdf, _, units = ruled
    row = next(u for u in units if u.table is not None and u.table.cells[2] == " ".join(REMEDIES[1]))
    own = unit_outlines(row, (W, H))
    for ch in char_boxes(pdf, [*REMEDIES[1], COURSES[1]]):
        assert holds(own, ch), (row.text, ch, own)


def test_the_cut_still_leaves_out_the_blank_below_the_rows_lines(ruled) -> None:
    """The trap: the cut row's outlines end within a line of its last own line (not at its ruled bottom), and the
    notes' outline still holds every notes line, the one saying the row's word too."""
    pdf, tops, units = ruled
    row = next(u for u in units if u.table is not None and u.table.cells[2] == " ".join(REMEDIES[1]))
    own = unit_outlines(row, (W, H))
    last = max(ch[3] for ch in char_boxes(pdf, [REMEDIES[1][1]]))
    assert max(o[3] for o in own) < min(last + LEAD, tops[2] - LEAD), own
    notes = unit_outlines(_said_once(units), (W, H))
    for ch in char_boxes(pdf, NOTES):
        assert holds(notes, ch), (ch, notes)
