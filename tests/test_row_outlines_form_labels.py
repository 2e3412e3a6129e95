"""Outlines of a form's labels printed once beside the rows they cover, on pages built here (reportlab, Helvetica).

Two cases of a patient-style form:

* A group label printed sideways on two turned lines, a word at a time, beside three rows, the parser's grid
  repeating it in each row. The label's second line holds only words another row's cell says too, so it is no sure
  line of the label; it stands beside the first turned line, less than a line's thickness away (its middle more
  than a thickness from it), and must be outlined with each row all the same. The trap: the row whose own line
  says those words too (``Watering plan review``) keeps its line out of the other rows' outlines.
* A label printed once in the first column on two lines beside a ruled header row and the first body row (a
  header cell spanning the first body row too); the ruled grid boxes the first body row from its second column.
  The first body row's unit must outline the label's lines. The trap: a second form whose first body row prints
  the header's label again on its own line keeps its box: no outline reaches up to the header's line.

Each character is checked within :data:`pdf_chars.TOL` points of PDFium's positions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid

W, H = 612.0, 792.0
SIZE = 9.0

#: The sideways form: the label's two turned lines, then each row's task and tick.
GROUP = ["Yard tasks and chores,", "watering plan"]
TASKS = ["Prune the hedges", "Watering plan review", "Rake fallen leaves"]
TOP, ROW, TURNED_LEAD = 120.0, 30.0, 13.0
LABEL_X, TASK_X, TICK_X = 60.0, 84.0, 300.0


def _sideways_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.drawString(TASK_X, H - TOP - SIZE, "Task")
    c.drawString(TICK_X, H - TOP - SIZE, "Done")
    for r, task in enumerate(TASKS):
        top = TOP + (r + 1) * ROW
        c.drawString(TASK_X, H - top - SIZE, task)
        c.drawString(TICK_X, H - top - SIZE, "Y N")
    middle = TOP + ROW + 1.5 * ROW
    space = c.stringWidth(" ", "Helvetica", SIZE)
    for k, line in enumerate(GROUP):  # read bottom to top, the second line right of the first, a word at a time
        width = c.stringWidth(line, "Helvetica", SIZE)
        along = 0.0
        for word in line.split():
            c.saveState()
            c.translate(LABEL_X + k * TURNED_LEAD, H - middle - width / 2 + along)
            c.rotate(90)
            c.drawString(0, 0, word)
            c.restoreState()
            along += c.stringWidth(word, "Helvetica", SIZE) + space
    c.save()


def test_a_label_printed_sideways_on_two_lines_is_outlined_with_every_row_it_covers(tmp_path) -> None:
    pdf = tmp_path / "sideways_label.pdf"
    _sideways_pdf(pdf)
    label = " ".join(GROUP)
    rows = [[label, task, "Y N"] for task in TASKS]
    grid = TableGrid(header_rows=[["", "Task", "Done"]], body_rows=rows, grid_source="parser_html")
    region = ((LABEL_X - 12) / W, (TOP - 4) / H, 0.7, (TOP + 4 * ROW + 10) / H)
    units = row_units(pdf, grid, region, "sideways_label")
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2]
    own = [char_boxes(pdf, [task]) for task in TASKS]
    turned = char_boxes(pdf, GROUP, printed_once=True)
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        for box in own[r] + turned:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(own):  # the trap: no other row's task, ``Watering`` beside the label included
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, TASKS[k])


#: The ruled form: header row and first body row (points from the top), the label's lines, the columns.
HEAD_TOP, FIRST_TOP, NEXT_TOP, END = 200.0, 224.0, 248.0, 272.0
LABEL = ["Next of", "kin"]
FIELD_X, NOTE_X, RIGHT = 130.0, 220.0, 400.0
LEFT = 60.0


def _ruled_pdf(path: Path, label_in_row: bool) -> None:
    """The form; ``label_in_row``: the first body row prints the label again on its own line (the trap)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for y in (HEAD_TOP, NEXT_TOP, END):
        c.line(LEFT, H - y, RIGHT, H - y)
    c.line(FIELD_X - 4, H - FIRST_TOP, RIGHT, H - FIRST_TOP)
    if label_in_row:
        c.line(LEFT, H - FIRST_TOP, FIELD_X - 4, H - FIRST_TOP)
        put(LEFT + 3, HEAD_TOP + 7, LABEL[0])
        put(LEFT + 3, FIRST_TOP + 7, LABEL[0])
    else:
        put(LEFT + 3, HEAD_TOP + 7, LABEL[0])  # two lines down the label's cell, over the header's border
        put(LEFT + 3, HEAD_TOP + 21, LABEL[1])
    put(FIELD_X, HEAD_TOP + 7, "Full name")
    put(FIELD_X, FIRST_TOP + 7, "Mobile")
    put(LEFT + 3, NEXT_TOP + 7, "Allergies")
    put(FIELD_X, NEXT_TOP + 7, "Listed")
    put(NOTE_X, NEXT_TOP + 7, "Pollen dust")
    c.save()


def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    """A box in points from the top-left corner as 0..1 of the page."""
    return (x0 / W, y0 / H, x1 / W, y1 / H)


def _ruled_units(pdf: Path, label: str, first_left: float) -> list:
    """The form's row units, its first body row ruled from ``first_left`` (points)."""
    grid = TableGrid(
        header_rows=[[label, "Full name", ""]],
        body_rows=[[label, "Mobile", ""], ["Allergies", "Listed", "Pollen dust"]],
        grid_source="pdf_text_layer",
        header_row_bboxes=[box(LEFT, HEAD_TOP, RIGHT, FIRST_TOP)],
        body_row_bboxes=[box(first_left, FIRST_TOP, RIGHT, NEXT_TOP), box(LEFT, NEXT_TOP, RIGHT, END)],
        body_row_pages=[1, 1],
    )
    return row_units(pdf, grid, box(LEFT, HEAD_TOP, RIGHT, END), "ruled_label")


def test_a_label_spanning_the_header_and_the_first_row_is_outlined_with_that_row(tmp_path) -> None:
    pdf = tmp_path / "ruled_label.pdf"
    _ruled_pdf(pdf, label_in_row=False)
    units = _ruled_units(pdf, " ".join(LABEL), FIELD_X - 4)
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    first = unit_outlines(by_row[0], (W, H))
    for box in char_boxes(pdf, ["Mobile", *LABEL]):
        assert holds(first, box), (by_row[0].text, box, first)
    for box in char_boxes(pdf, ["Allergies", "Pollen dust", "Full name"]):
        assert not over(first, box), (by_row[0].text, box, first)


def test_a_first_row_printing_the_header_label_again_keeps_its_own_box(tmp_path) -> None:
    pdf = tmp_path / "ruled_label_again.pdf"
    _ruled_pdf(pdf, label_in_row=True)
    units = _ruled_units(pdf, LABEL[0], LEFT)
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    first = unit_outlines(by_row[0], (W, H))
    for box in char_boxes(pdf, ["Mobile"]):
        assert holds(first, box), (by_row[0].text, box, first)
    for box in char_boxes(pdf, ["Full name", "Allergies", LABEL[0]]):  # the header's line and the next row's stay out
        assert not over(first, box), (by_row[0].text, box, first)
