"""Table-row outlines of a long notes cell merged over the rows of a page, on one table drawn here (reportlab,
Helvetica) in two readings:

* as a parser's grid without row boxes (rows placed by stage 8): the notes run on well below the last row's short
  cells (more lines than stage 8 reaches by placing a shared line next to a row's lines, pass after pass). The
  notes are outlined down to the table's foot; the rows keep their own lines.
* as a text-layer grid whose rows are boxed from rule to rule, the second row ruled taller than its lines and its
  remedy wrapping onto a second line, ``tetracycline)``, a word the notes say as well. The row's box, holding notes
  lines more than a line below its own, is cut to its own lines
  (:mod:`structaware_readers.table_recovery.merged_cells`), and keeps that line: it lies outside the notes' outline.

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
#: The word the second row's wrapped line prints: of its own (``fernleaf)``), or one the notes say too.
OWN_WORD, SHARED_WORD = "fernleaf)", "tetracycline)"


def notes(shared: bool = False) -> list[str]:
    """The notes, one printed line each, merged over every row: many more lines than the rows beside them print;
    ``shared``: one of them says the second row's wrapped word."""
    return [
        "Offer rest and plenty of fluids first.",
        "Review after two weeks if no better,",
        "sooner if the fever climbs at night.",
        "Avoid tetracycline in young children." if shared else "Avoid strong syrups in young children.",
        *(f"Step {n}: note the sputum colour at visit {n}." for n in range(1, 17)),
        "Give written advice on warning signs",
        "and when to come back to the clinic.",
    ]


def remedies(shared: bool = False) -> list[list[str]]:
    """The rows' own lines: ailment (first row only), remedy lines."""
    second = SHARED_WORD if shared else OWN_WORD
    return [["Marsh cough", "Wintergreen syrup"], ["Oxbane (if unable to take", second], ["Pellroot tablets"]]


NOTES, REMEDIES = notes(), remedies()
SHARED_NOTES, SHARED_REMEDIES = notes(shared=True), remedies(shared=True)
COURSES = ["9 days", "6 days", "4 days"]
AILMENT = "Marsh cough"


def _draw(path: Path, shared: bool = False, gap: float = 0.0) -> tuple[list[float], float]:
    """The table (``shared``: :func:`notes`, :func:`remedies`); ``gap``: blank points below the second row's lines
    (a taller ruled row). Returns each row's top and the table's bottom, in points from the page top."""
    lines, rows = notes(shared), remedies(shared)
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
    for r, remedy in enumerate(rows):
        tops.append(top)
        for k, line in enumerate(remedy[1:] if r == 0 else remedy):
            text(XS[2], top + k * LEAD, line)
        text(XS[3], top, COURSES[r])
        top += len(remedy[1:] if r == 0 else remedy) * LEAD + 2 * PAD + (gap if r == 1 else 0.0)
    text(XS[0], tops[0], AILMENT)
    for k, line in enumerate(lines):
        text(XS[1], tops[0] + k * LEAD, line)
    bottom = max(top, tops[0] + len(lines) * LEAD + 2 * PAD)
    for y in [head, tops[0], bottom]:
        c.line(XS[0], H - y, XS[-1], H - y)
    for y in tops[1:]:
        c.line(XS[2], H - y, XS[-1], H - y)
    for x in XS:
        c.line(x, H - head, x, H - bottom)
    c.save()
    return tops, bottom


def _units(pdf: Path, bottom: float, shared: bool = False, tops: list[float] | None = None) -> list[Unit]:
    """Row units of the table read as a parser's grid, or (``tops`` given) as a text-layer grid whose rows are
    boxed from rule to rule (the last row down to the table's bottom)."""
    said, rows = " ".join(notes(shared)), remedies(shared)
    body = [
        [AILMENT, said, rows[0][1], COURSES[0]],
        [AILMENT, said, " ".join(rows[1]), COURSES[1]],
        [AILMENT, said, rows[2][0], COURSES[2]],
    ]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, grid_source="parser_html")
    if tops is not None:
        edges = [*tops, bottom]
        boxes = [(XS[0] / W, edges[r] / H, XS[-1] / W, edges[r + 1] / H) for r in range(len(body))]
        grid = grid.model_copy(
            update={"grid_source": "pdf_text_layer", "body_row_bboxes": boxes, "body_row_pages": [1] * len(body)}
        )
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
    said = unit_outlines(_said_once(units), (W, H))
    for ch in char_boxes(pdf, NOTES):
        assert holds(said, ch), (ch, said)


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


@pytest.fixture(scope="module")
def ruled(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    pdf = tmp_path_factory.mktemp("rows") / "notes_ruled.pdf"
    tops, bottom = _draw(pdf, shared=True, gap=2 * LEAD)
    return pdf, tops, _units(pdf, bottom, shared=True, tops=tops)


def test_a_wrapped_line_saying_a_word_of_the_notes_stays_the_rows(ruled) -> None:
    """The second row's ruled box, reaching over notes lines below its own, is cut to its own lines, and keeps its
    wrapped line (``tetracycline)``: the notes say the word, but it is printed outside their outline)."""
    pdf, _, units = ruled
    row = next(u for u in units if u.table is not None and u.table.cells[2] == " ".join(SHARED_REMEDIES[1]))
    own = unit_outlines(row, (W, H))
    for ch in char_boxes(pdf, [*SHARED_REMEDIES[1], COURSES[1]]):
        assert holds(own, ch), (row.text, ch, own)


def test_the_cut_still_leaves_out_the_blank_below_the_rows_lines(ruled) -> None:
    """The trap: the cut row's outlines end within a line of its last own line (not at its ruled bottom), and the
    notes' outline still holds every notes line, the one saying the row's word too."""
    pdf, tops, units = ruled
    row = next(u for u in units if u.table is not None and u.table.cells[2] == " ".join(SHARED_REMEDIES[1]))
    own = unit_outlines(row, (W, H))
    last = max(ch[3] for ch in char_boxes(pdf, [SHARED_REMEDIES[1][1]]))
    assert max(o[3] for o in own) < min(last + LEAD, tops[2] - LEAD), own
    said = unit_outlines(_said_once(units), (W, H))
    for ch in char_boxes(pdf, SHARED_NOTES):
        assert holds(said, ch), (ch, said)
