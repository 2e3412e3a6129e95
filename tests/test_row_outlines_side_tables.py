"""Table-row outlines of two ruled tables printed side by side, rebuilt from the text layer as one grid.

The page built here (reportlab, Helvetica) prints a narrow table at the left, ruled in short rows, beside a wide
one ruled in tall rows; the grid has the wide rows first, then the narrow ones, each boxed over its ruled cells:

* the second wide row leaves the narrow table's column empty, and the narrow row beside it is ruled over its
  whole height: the wide row's box, as wide as the grid, held the narrow row's words;
* a cell of the wide table spans that wide row and the two narrow rows (the grid repeats it in each), printed once
  on the wide row's line; the narrow rows' ruling starts inside the first wide row, so the cell was sought from
  there, and a short word of the first wide row's last line (``on``, which the cell's ``balloon`` and a narrow
  row's ``heron`` hold, read as a run of its own) was taken as the cell's: its box grew over that line.

A second page prints a tall row whose long note spans two of its columns and runs on down beside two short rows of
a narrow table ruled inside the tall row's lower left part; the grid repeats the note in both columns of the tall
row, in one column of the short rows. The tall row's box reached over the short rows: it was not cut where they
start, its copy of the note in the other column counted as words of its own lying below the cut; and its unit,
saying the note in that other column (the first copy said once, in a unit of its own), got no outline of the
note's lines below the cut.

Traps: the first wide row prints its own word in the narrow table's column, so it is not cut beside the narrow row
at its height; the cell's own second line is two runs (``on`` | ``glow``) whose words other cells say too, each
beside a word of the cell: it stays in the cell's box; the short rows under the tall one keep their own boxes, and
the unit saying the long note once is outlined by the note's lines. Positions are read from PDFium's characters; a
character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
SIZE = 10.0
#: Left edges of the narrow table's column and of the wide table's two columns, and the right edge.
XS = [72.0, 200.0, 330.0, 470.0]
HEADER = ["Key", "Notes", "Plan"]
#: The wide rows' tops and bottom, and the narrow rows' (points from the page top).
WIDE = [100.0, 160.0, 200.0]
NARROW = [(130.0, 160.0), (158.0, 200.0)]
FIRST = ["Amber fold", "Seven grey stones", "Open the cellar"]
FIRST_MORE = ["Mend the fence", ("--", "on", "hold list")]
SECOND_NOTE = "Quiet lantern glow"
CELL = ("Pale balloon drift", ("on", "glow"))
KEYS = ["Slow ironglow", "Brisk heron"]


def _draw(path: Path) -> None:
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 4, H - top - SIZE, line)

    def runs(x: float, top: float, parts: tuple[str, ...]) -> None:  # one drawing each: runs of their own
        for part in parts:
            text(x, top, part)
            x += stringWidth(part + " ", "Helvetica", SIZE)

    for col, cell in enumerate(FIRST):
        text(XS[col], WIDE[0] + 4, cell)
    text(XS[2], WIDE[0] + 18, FIRST_MORE[0])
    runs(XS[2], WIDE[0] + 36, FIRST_MORE[1])
    text(XS[1], WIDE[1] + 4, SECOND_NOTE)
    text(XS[2], WIDE[1] + 4, CELL[0])
    runs(XS[2], WIDE[1] + 18, CELL[1])
    text(XS[0], NARROW[0][0] + 12, KEYS[0])
    text(XS[0], NARROW[1][0] + 12, KEYS[1])
    for top in WIDE:
        c.line(XS[1], H - top, XS[-1], H - top)
    c.line(XS[0], H - WIDE[0], XS[1], H - WIDE[0])
    for top in (NARROW[0][0], NARROW[1][0], NARROW[1][1]):
        c.line(XS[0], H - top, XS[1], H - top)
    for x in XS:
        c.line(x, H - WIDE[0], x, H - WIDE[-1])
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    """The two tables as one text-layer grid: wide rows first, then the narrow ones, the cell spanning the second
    wide row and the narrow rows repeated in each."""
    pdf = tmp_path_factory.mktemp("rows") / "side_tables.pdf"
    _draw(pdf)
    more = " ".join([FIRST_MORE[0], " ".join(FIRST_MORE[1])])
    cell = " ".join([CELL[0], " ".join(CELL[1])])
    body = [
        [FIRST[0], FIRST[1], f"{FIRST[2]} {more}"],
        ["", SECOND_NOTE, cell],
        [KEYS[0], "", cell],
        [KEYS[1], "", cell],
    ]
    boxes: list = [(XS[0] / W, WIDE[r] / H, XS[-1] / W, WIDE[r + 1] / H) for r in range(2)]
    boxes += [(XS[0] / W, top / H, XS[1] / W, bottom / H) for top, bottom in NARROW]
    grid = TableGrid(
        header_rows=[HEADER],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    region = (XS[0] / W - 0.005, WIDE[0] / H - 0.005, XS[-1] / W + 0.005, WIDE[-1] / H + 0.005)
    return pdf, row_units(pdf, grid, region, "side")


def _unit(units: list[Unit], first: str, second: str) -> Unit:
    return next(u for u in units if u.table.cells[:2] == [first, second])  # type: ignore[union-attr]


def test_a_wide_row_is_cut_beside_the_narrow_row_at_its_height(table) -> None:
    """The second wide row's outlines hold its note and the cell, and none of the narrow row's key printed beside
    it. The trap: the first wide row, which prints its own key in the narrow column, keeps its whole box."""
    pdf, units = table
    second = unit_outlines(_unit(units, "", SECOND_NOTE), (W, H))
    for ch in char_boxes(pdf, [SECOND_NOTE, CELL[0], " ".join(CELL[1])]):
        assert holds(second, ch), (ch, second)
    for ch in char_boxes(pdf, [KEYS[1]]):
        assert not over(second, ch), (ch, second)
    first = unit_outlines(_unit(units, FIRST[0], FIRST[1]), (W, H))
    for ch in char_boxes(pdf, [*FIRST, FIRST_MORE[0], "hold list"]):
        assert holds(first, ch), (ch, first)


def test_a_short_word_of_another_line_is_not_the_merged_cell(table) -> None:
    """The narrow rows' outlines hold their key and the cell's two lines, and none of the first wide row's last
    line (``-- on hold list``) printed just above the cell. The trap: the cell's second line, two runs whose words
    other cells say too, is in the outlines."""
    pdf, units = table
    for key in KEYS:
        own = unit_outlines(_unit(units, key, ""), (W, H))
        for ch in char_boxes(pdf, [key, CELL[0], " ".join(CELL[1])]):
            assert holds(own, ch), (key, ch, own)
        for ch in char_boxes(pdf, ["hold list", FIRST_MORE[0]]):
            assert not over(own, ch), (key, ch, own)


#: A long note printed across two columns of a tall row and on down beside the narrow rows below it.
LONG = (
    "Walk the copper trail past the seven cedar posts, turn where the gravel meets the reed bank, count the "
    "willow stumps along the water, cross the plank bridge before the lantern hour, and wait by the grey stone "
    "until the heron calls twice over the marsh"
)
TALL = (100.0, 260.0)
LOW = [(200.0, 230.0), (230.0, 260.0)]
TALL_CELLS = ["Amber fold", "Open the cellar"]
LOW_KEYS = ["Slow ironglow", "Cellar gate"]


def _wrapped(width: float) -> list[str]:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    lines: list[str] = []
    for word in LONG.split():
        if lines and stringWidth(f"{lines[-1]} {word}", "Helvetica", SIZE) <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


@pytest.fixture(scope="module")
def spanning(tmp_path_factory) -> tuple[Path, list[str], list[Unit]]:
    """A tall row whose long note spans its second and third columns, and two short rows of a narrow table ruled
    inside its lower left part, the note printed on beside them. Rebuilt from the text layer, the tall row repeats
    the note in both columns, the short rows in the second only; each row boxed over its ruled cells."""
    from reportlab.pdfgen import canvas

    pdf = tmp_path_factory.mktemp("rows") / "spanning_note.pdf"
    xs = [72.0, 200.0, 265.0, 340.0, 470.0]
    lines = _wrapped(xs[3] - xs[1] - 8)
    c = canvas.Canvas(str(pdf), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    c.drawString(xs[0] + 4, H - TALL[0] - 4 - SIZE, TALL_CELLS[0])
    c.drawString(xs[3] + 4, H - TALL[0] - 4 - SIZE, TALL_CELLS[1])
    for k, line in enumerate(lines):
        c.drawString(xs[1] + 4, H - TALL[0] - 4 - 13 * k - SIZE, line)
    for key, (top, _) in zip(LOW_KEYS, LOW):  # one drawing a word: ``Cellar``, a word of the tall row, a run alone
        for k, word in enumerate(key.split()):
            c.drawString(xs[0] + 4 + 45 * k, H - top - 8 - SIZE, word)
    for top in (*TALL, *(t for t, _ in LOW)):
        c.line(xs[0], H - top, xs[1] if top in (LOW[0][0], LOW[1][0]) else xs[-1], H - top)
    for x in (xs[0], xs[1], xs[3], xs[4]):
        c.line(x, H - TALL[0], x, H - TALL[1])
    c.save()
    body = [[TALL_CELLS[0], LONG, LONG, TALL_CELLS[1]]] + [[key, LONG, "", ""] for key in LOW_KEYS]
    boxes: list = [(xs[0] / W, TALL[0] / H, xs[-1] / W, TALL[1] / H)]
    boxes += [(xs[0] / W, top / H, xs[1] / W, bottom / H) for top, bottom in LOW]
    grid = TableGrid(
        header_rows=[["Key", "Note", "", "Plan"]],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    region = (xs[0] / W - 0.005, TALL[0] / H - 0.005, xs[-1] / W + 0.005, TALL[1] / H + 0.005)
    return pdf, lines, row_units(pdf, grid, region, "spanning")


def test_a_tall_row_is_cut_above_the_rows_its_note_spans_down_to(spanning) -> None:
    """The tall row's outlines hold its own cells and every line of its note (the note's box, said in the third
    column of its unit), and none of the short rows' keys: its box is cut where they start, the note copied into
    two columns counted once. The trap: the short rows keep their own boxes, and the unit saying the note once
    is outlined by the note's lines."""
    pdf, lines, units = spanning
    tall = next(u for u in units if u.table.cells[3] == TALL_CELLS[1])  # type: ignore[union-attr]
    outlines = unit_outlines(tall, (W, H))
    for ch in char_boxes(pdf, [*TALL_CELLS, *lines]):
        assert holds(outlines, ch), (ch, outlines)
    for ch in char_boxes(pdf, LOW_KEYS):
        assert not over(outlines, ch), (ch, outlines)
    for key, (top, bottom) in zip(LOW_KEYS, LOW):
        own = unit_outlines(next(u for u in units if u.table.cells[0] == key), (W, H))  # type: ignore[union-attr]
        assert own[0][1] == pytest.approx(top, abs=0.5) and own[0][3] == pytest.approx(bottom, abs=0.5)
        for ch in char_boxes(pdf, [key]):
            assert holds(own, ch), (key, ch, own)
    note = unit_outlines(next(u for u in units if u.table.cells[1] == LONG), (W, H))  # type: ignore[union-attr]
    for ch in char_boxes(pdf, lines):
        assert holds(note, ch), (ch, note)


def test_a_row_that_is_one_spanning_cell_keeps_its_copies_as_its_own() -> None:
    """Trap for counting a spanning cell once: a units line copied into every column, over a part of the table whose
    first column says it again, has no other cell. Counted once it would have no words to be cut to, so its box
    would stay over the rows below; its copies stay its own words."""
    from structaware_readers.table_recovery.nested_rows import _own_words

    units = "(Grams per basket)"
    grid = TableGrid(
        header_rows=[["", "Spring", "Autumn"]],
        body_rows=[[units, units, units], ["Pears", "120", "140"], [units, "", ""]],
        grid_source="pdf_text_layer",
    )
    assert _own_words(grid, 0, [1, 2], str.split) == [*units.split()] * 2
    # the tall row of the drawing above: the note copied into two columns, said by a row below, is not its own
    body = [[TALL_CELLS[0], LONG, LONG, TALL_CELLS[1]], [LOW_KEYS[0], LONG, "", ""]]
    spanning = TableGrid(header_rows=[["Key", "Note", "", "Plan"]], body_rows=body, grid_source="pdf_text_layer")
    assert _own_words(spanning, 0, [1], str.split) == [*TALL_CELLS[0].split(), *TALL_CELLS[1].split()]
