"""Table-row outlines on ruled form-like tables, built here (reportlab, Helvetica).

Layouts form cards and drug tables print; the first two read with ``grid_from_region`` (pdfplumber's ruled
cells), the others given as a grid with its rows' boxes; all boxed by stage 8 (``add_row_boxes``) and built into
row units:

* **Two lines per entry, a box spanning both, filled in on the second** (a visit's build and pulse on two
  lines, its test box once, its one-letter mark printed on the lower line): the lower line is a row of its own
  whose cells start in two columns only; its outline must hold the mark printed beside them (the trap: the row's
  box was only its own cells' columns, and a one-letter cell is too short to be outlined as a merged cell).
* **A note cell spanning two columns and three rows**, printed once beside the rows (a legend's panel): the grid
  repeats it in both columns, and each row it spans must be outlined with it (the trap: its text, found in the
  other column too, counted as another cell's, so no line was the note's and no row got its box).
* **A topic printed sideways in two lines** over its rows, the second line's word also a row's own word: both
  lines lie in each row's outlines (the trap: only the first line was taken as the cell's).
* **A row ruled over the row below** (a length cell spanning two drugs) whose box is cut to its own line, though
  the line ``OR`` below it is also a word of the note merged over all rows (the trap: that line kept the box whole).

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")
pytest.importorskip("pdfplumber")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region

W, H = 612.0, 792.0
LEAD, SIZE = 16.0, 9.0

# Visits: two lines each, the visit's name and test mark in boxes spanning both lines.
VX = [72.0, 162.0, 242.0, 322.0, 402.0]
VHEAD = ["Visit", "Weight", "Pressure", "Test"]
VISITS = [
    ("First visit", ["tall frame", "pale skin"], ["slim build", "calm pulse"], "Y"),
    ("Second visit", ["short frame", "warm skin"], ["broad build", "quick pulse"], "N"),
    ("Third visit", ["small frame", "dry skin"], ["lean build", "weak pulse"], "Z"),
]
VTOP = 100.0

# A legend: a code and its meaning per row, a note spanning the two right columns and the three rows.
LX = [72.0, 142.0, 302.0, 392.0, 482.0]
LHEAD = ["Code", "Meaning", "Remarks", "Source"]
CODES = [("Q1", "Quiet cough"), ("Q2", "Loud wheeze"), ("Q3", "Short breath")]
NOTE = ["Record the worst", "sign seen since", "the last visit"]
LTOP = 400.0


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def put(x: float, top: float, text: str) -> None:  # ``top``: the line band's top, from the page's top
        c.drawString(x + 4, H - (top + 0.7 * LEAD), text)

    def hline(x0: float, x1: float, top: float) -> None:
        c.line(x0, H - top, x1, H - top)

    def vline(x: float, top: float, bottom: float) -> None:
        c.line(x, H - top, x, H - bottom)

    # visits: header line, then two lines per visit
    bottom = VTOP + LEAD + 2 * LEAD * len(VISITS)
    hline(VX[0], VX[-1], VTOP)
    for k, head in enumerate(VHEAD):
        put(VX[k], VTOP, head)
    for x in VX:
        vline(x, VTOP, bottom)
    for v, (name, upper, lower, mark) in enumerate(VISITS):
        top = VTOP + LEAD + 2 * LEAD * v
        hline(VX[0], VX[-1], top)
        hline(VX[1], VX[3], top + LEAD)  # the weight and pressure boxes are split in two lines
        put(VX[0], top, name)
        put(VX[1], top, upper[0])
        put(VX[2], top, upper[1])
        put(VX[1], top + LEAD, lower[0])
        put(VX[2], top + LEAD, lower[1])
        put(VX[3], top + LEAD, mark)  # the test box spans both lines; its mark is on the lower one
    hline(VX[0], VX[-1], bottom)

    # legend: header line, three code rows, the note spanning the two right columns and the three rows
    bottom = LTOP + LEAD * (1 + len(CODES))
    hline(LX[0], LX[-1], LTOP)
    put(LX[0], LTOP, LHEAD[0])
    put(LX[1], LTOP, LHEAD[1])
    put(LX[2], LTOP, LHEAD[2])
    put(LX[3], LTOP, LHEAD[3])
    for x in LX:
        vline(x, LTOP, bottom if x != LX[3] else LTOP + LEAD)  # the note spans the two right columns
    for r, (code, meaning) in enumerate(CODES):
        top = LTOP + LEAD * (1 + r)
        hline(LX[0], LX[-1] if r == 0 else LX[2], top)
        put(LX[0], top, code)
        put(LX[1], top, meaning)
        put(LX[2], top, NOTE[r])  # the note's lines, one per row's height, in one cell
    hline(LX[0], LX[-1], bottom)
    c.save()


@pytest.fixture(scope="module")
def pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("forms") / "form_tables.pdf"
    _make_pdf(path)
    return path


def _units(pdf: Path, region: tuple[float, float, float, float]) -> list[Unit]:
    """The row units of the table in ``region`` (0..1 of the page), its grid rebuilt from the text layer."""
    import pdfplumber

    with pdfplumber.open(str(pdf)) as plumber:
        grid = grid_from_region(plumber.pages[0], region, page_number=1)
    assert isinstance(grid, TableGrid)
    return row_units(pdf, grid, region, "forms")


def _region(xs: list[float], top: float, rows: int) -> tuple[float, float, float, float]:
    return ((xs[0] - 4) / W, (top - 4) / H, (xs[-1] + 4) / W, (top + LEAD * rows + 4) / H)


def test_the_second_line_of_an_entry_is_outlined_with_the_box_spanning_both_lines(pdf) -> None:
    """Each visit's lower line is a row: its outline holds its index, its pressure and the test mark printed
    beside them in the box spanning both lines; the upper line's row holds its own; neither holds the
    other visits' lines."""
    units = _units(pdf, _region(VX, VTOP, 1 + 2 * len(VISITS)))
    lines = [[*upper] for _, upper, _, _ in VISITS], [[*lower, mark] for _, _, lower, mark in VISITS]
    assert len(units) == 2 * len(VISITS), [u.text for u in units]
    for v in range(len(VISITS)):
        for k, own in enumerate((lines[0][v], lines[1][v])):
            unit = units[2 * v + k]
            assert all(cell in unit.text for cell in own), unit.text
            outlines = unit_outlines(unit, (W, H))
            for ch in char_boxes(pdf, own, printed_once=True):
                assert holds(outlines, ch), (unit.text, ch, outlines)
            others = [cell for w in range(len(VISITS)) if w != v for half in (0, 1) for cell in lines[half][w]]
            assert not any(over(outlines, ch) for ch in char_boxes(pdf, others, printed_once=True)), unit.text


def test_a_note_spanning_columns_and_rows_is_outlined_with_every_row(pdf) -> None:
    """The note, repeated in both right columns of each code's row, lies in the outlines of all three rows;
    each row's own code and meaning too, and no other row's."""
    units = _units(pdf, _region(LX, LTOP, 1 + len(CODES)))
    assert len(units) == len(CODES), [u.text for u in units]
    note = char_boxes(pdf, NOTE, printed_once=True)
    for r, unit in enumerate(units):
        assert " ".join(NOTE) in unit.text, unit.text
        outlines = unit_outlines(unit, (W, H))
        for ch in note + char_boxes(pdf, list(CODES[r]), printed_once=True):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        others = [cell for k, row in enumerate(CODES) if k != r for cell in row]
        assert not any(over(outlines, ch) for ch in char_boxes(pdf, others, printed_once=True)), unit.text


# A care plan: a topic printed sideways in two lines, merged over its three rows, the second line's word also a
# word of one of the rows' own cells.
TOPIC = ["Advice on healthy", "living"]
ITEMS = ["Weight and diet", "Daily walking", "Living alone"]
PX = [72.0, 112.0, 302.0]
PTOP, PLEAD = 600.0, 30.0


def _plan_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    bottom = PTOP + PLEAD * len(ITEMS)
    for r, item in enumerate(ITEMS):
        c.drawString(PX[1] + 4, H - (PTOP + PLEAD * r + 0.6 * PLEAD), item)
        c.line(PX[1], H - (PTOP + PLEAD * r), PX[-1], H - (PTOP + PLEAD * r))
    for k, line in enumerate(TOPIC):  # sideways, read bottom to top; the second line right of the first
        c.saveState()
        c.translate(PX[0] + 16 + 12 * k, H - (PTOP + bottom) / 2)
        c.rotate(90)
        c.drawCentredString(0, -SIZE / 3, line)
        c.restoreState()
    c.line(PX[0], H - PTOP, PX[-1], H - PTOP)
    c.line(PX[0], H - bottom, PX[-1], H - bottom)
    for x in PX:
        c.line(x, H - PTOP, x, H - bottom)
    c.save()


def test_a_cell_printed_sideways_in_two_lines_is_outlined_whole_with_every_row(tmp_path) -> None:
    """The topic's two sideways lines lie in the outlines of each of its three rows, though its second line's
    word is also a row's own word (the trap: only the first line, whose words no other cell holds, was taken
    as the cell's column, and the second line, beside it, was left out)."""
    pdf = tmp_path / "care_plan.pdf"
    _plan_pdf(pdf)
    topic = " ".join(TOPIC)
    bands = [(PX[0] / W, (PTOP + PLEAD * r) / H, PX[-1] / W, (PTOP + PLEAD * (r + 1)) / H) for r in range(len(ITEMS))]
    grid = TableGrid(
        header_rows=[["Topic", "Item"]],
        body_rows=[[topic, item] for item in ITEMS],
        body_row_bboxes=bands,
        body_row_pages=[1] * len(ITEMS),
        grid_source="parser_html",
    )
    region = (bands[0][0] - 0.01, bands[0][1] - 0.01, bands[-1][2] + 0.01, bands[-1][3] + 0.01)
    units = row_units(pdf, grid, region, "plan")
    assert len(units) == len(ITEMS)
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, TOPIC + [ITEMS[r]], printed_once=True):
            assert holds(outlines, ch), (unit.text, ch, outlines)


# A drug table from the text layer: a note merged over all the rows, printed once in the left column; each
# length printed in a ruled cell spanning two drugs, equal lengths one under the other (one merged cell to the
# grid, printed twice), so the first drug of each cell has a box reaching over the second. The second drugs end
# with a line ``OR``, a word the note's words hold too.
DRUGS = [["Amoxil"], ["Clarimax", "OR"], ["Doxyline"], ["Penamox", "OR"]]
NOTES = ["Take with food", "or milk; stop", "if a rash shows"]
DX = [72.0, 232.0, 392.0, 472.0]
DTOP = 420.0


def _drug_pdf(path: Path) -> list[float]:
    """The drug table; returns the rows' tops and the table's bottom (points from the page top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    tops = [DTOP + 2 * LEAD * r for r in range(len(DRUGS) + 1)]

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x + 4, H - (top + 0.7 * LEAD), text)

    for k, line in enumerate(NOTES):
        put(DX[0], tops[0] + k * LEAD, line)
    for r, lines in enumerate(DRUGS):
        for k, line in enumerate(lines):
            put(DX[1], tops[r] + k * LEAD, line)
        c.line(DX[1], H - tops[r], DX[2] if r % 2 else DX[3], H - tops[r])
    for r in (0, 2):
        put(DX[2], tops[r + 1] + LEAD, "5")  # at the foot of its cell, on the second drug's line
        put(DX[2] + 12, tops[r + 1] + LEAD, "days")  # set apart: a run of its own
    c.line(DX[0], H - tops[0], DX[-1], H - tops[0])
    c.line(DX[0], H - tops[-1], DX[-1], H - tops[-1])
    for x in DX:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def test_a_row_stretched_over_the_row_below_is_cut_though_its_or_is_a_word_of_the_note(tmp_path) -> None:
    """The first drug of each length cell, its box ruled over the second drug, is cut to its own line: its
    outlines hold its drug, the note and its length, and no other drug (the trap: the ``OR`` line below, a word
    the note holds but printed outside the note's box, kept the box whole)."""
    pdf = tmp_path / "drugs.pdf"
    tops = _drug_pdf(pdf)
    body = [[" ".join(NOTES), " ".join(lines), "5 days"] for lines in DRUGS]
    x0, x1, mid = DX[1] / W, DX[-1] / W, DX[2] / W
    boxes = [
        (x0, tops[r] / H, x1, tops[r + 2] / H) if r % 2 == 0 else (x0, tops[r] / H, mid, tops[r + 1] / H)
        for r in range(len(DRUGS))
    ]
    grid = TableGrid(
        header_rows=[["Notes", "Medicine", "Length"]],
        body_rows=body,
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
        grid_source="pdf_text_layer",
    )
    region = (DX[0] / W - 0.01, tops[0] / H - 0.01, x1 + 0.01, tops[-1] / H + 0.01)
    units = row_units(pdf, grid, region, "drugs")
    assert len(units) == len(DRUGS)
    names = [char_boxes(pdf, [lines[0]], printed_once=True) for lines in DRUGS]
    for r in (0, 2):
        outlines = unit_outlines(units[r], (W, H))
        for ch in names[r] + char_boxes(pdf, NOTES, printed_once=True):
            assert holds(outlines, ch), (units[r].text, ch, outlines)
        for k, boxes_k in enumerate(names):
            assert k == r or not any(over(outlines, ch) for ch in boxes_k), (units[r].text, DRUGS[k])
