"""Table-row outlines against the page's text layer where a merged cell makes a row look taller than it is.

Two ruled tables built here (reportlab, Helvetica), rows placed by stage 8 (``add_row_boxes``):

* a question cell merged over five rows and printed sideways across them (its middle on the third
  row's line), beside rows of one line
  each (the parser's markup repeats the question in each row): the sideways line is no single row's;
* a drug class and a long comment merged over three rows (a text-layer grid: each row boxed over its
  ruled cells, so the last of the three reaches down to the comment's end): the comment is said once,
  in a unit of its own, and the last row's outline holds its own lines, not the comment's below them.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
Each case has a trap: rows that were already right keep their outlines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
from structaware_readers.units import build_units

#: How far (PDF points) a character may lie outside an outline.
W, H = 612.0, 792.0
LEAD, PAD, SIZE = 14.0, 5.0, 10.0

QUESTION = "Q2 Home readings"
#: The fourth search prints a word of the third in another column (its line is placed by its own words).
SEARCHES = [
    ["#1", "Population", "adults with raised blood pressure"],
    ["#2", "Devices", "home cuff OR wrist monitor"],
    ["#3", "Combine", "#1 AND #2"],
    ["#4", "Trials", "Combine"],
    ["#5", "Limits", "English language only"],
]
AFTER = ["#6", "Apply limits", "See the notes under the table"]

CLASS = "Loop diuretics"
COMMENT = [
    "Watch for low potassium and low",
    "sodium in the first weeks; check",
    "kidney function before and after",
    "starting; lower the dose in older",
    "adults; avoid with lithium; take",
    "in the morning to spare the night",
    "from trips to the bathroom; ask",
    "about dizziness when standing up.",
]
DRUGS = [["Furosemide", "20 to 80 mg daily"], ["Bumetanide", "0.5 to 2 mg daily"], ["Torsemide", "5 to 20 mg daily"]]
LAST = ["Beta blockers", "Metoprolol", "25 to 100 mg daily", "Slow the heart rate."]


def _canvas(path: Path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    return c


def _text(c, x: float, top: float, line: str) -> None:
    """``line`` with its box's top ``top`` points below the page top."""
    c.drawString(x + 4, H - (top + 0.75 * LEAD), line)


_search_tops: list[float] = []


def _search_pdf(path: Path) -> list[float]:
    """The search table: the question printed sideways across its five rows. Returns the rows' tops
    (header first) and the table's bottom, in points from the page top."""
    c = _canvas(path)
    xs = [72.0, 132.0, 172.0, 272.0, 540.0]
    rows = [*SEARCHES, AFTER]
    tops = [110.0]
    for _ in range(len(rows) + 1):
        tops.append(tops[-1] + LEAD + 2 * PAD)
    for col, head in enumerate(["Question", "Set", "Concept", "Strategy"]):
        _text(c, xs[col], tops[0] + PAD, head)
    for r, row in enumerate(rows):
        for col, cell in enumerate(row):
            _text(c, xs[col + 1], tops[r + 1] + PAD, cell)
    middle = (tops[1] + tops[1 + len(SEARCHES)]) / 2  # the question, sideways, centred on its rows
    c.saveState()
    c.translate(xs[0] + 30, H - middle)
    c.rotate(90)
    c.drawCentredString(0, -SIZE / 3, QUESTION)
    c.restoreState()
    _text(c, xs[0], tops[-2] + PAD, "Question 3")
    for r in range(len(rows) + 2):
        left = xs[1] if 1 <= r < len(SEARCHES) else xs[0]
        c.line(left, H - tops[r], xs[-1], H - tops[r])
    for x in xs:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def _drug_pdf(path: Path) -> tuple[list[float], list[float]]:
    """The drug table: a class and a long comment merged over three rows, the comment longer than the
    three rows' own lines. Returns the column edges and the rows' tops (header first) and bottom."""
    c = _canvas(path)
    xs = [72.0, 172.0, 262.0, 362.0, 540.0]
    row_h = LEAD + 2 * PAD
    tops = [110.0, 110.0 + row_h]
    for _ in DRUGS[:-1]:
        tops.append(tops[-1] + row_h)
    tops.append(tops[1] + len(COMMENT) * LEAD + 2 * PAD)  # the last drug's ruled cell reaches the comment's end
    tops.append(tops[-1] + row_h)
    for col, head in enumerate(["Class", "Drug", "Usual dose", "Comments"]):
        _text(c, xs[col], tops[0] + PAD, head)
    _text(c, xs[0], (tops[1] + tops[4]) / 2 - LEAD / 2, CLASS)
    for r, (drug, dose) in enumerate(DRUGS):
        _text(c, xs[1], tops[r + 1] + PAD, drug)
        _text(c, xs[2], tops[r + 1] + PAD, dose)
    for k, line in enumerate(COMMENT):
        _text(c, xs[3], tops[1] + PAD + k * LEAD, line)
    for col, cell in enumerate(LAST):
        _text(c, xs[col], tops[4] + PAD, cell)
    for r, top in enumerate(tops):
        inner = 2 <= r <= 3
        c.line(xs[1] if inner else xs[0], H - top, xs[3] if inner else xs[-1], H - top)
    for x in xs:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return xs, tops


def _doc(pdf: Path, grid: TableGrid, region: tuple[float, float, float, float]) -> list[Unit]:
    """The table's row units, rows placed by stage 8."""
    text = "\n".join(" | ".join(r) for r in [*grid.header_rows, *grid.body_rows])
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text=text, bbox=region, table=grid)
    doc = ParsedDocument(doc_id="rows0002", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    return [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]


def _region(xs: list[float], tops: list[float]) -> tuple[float, float, float, float]:
    return (xs[0] / W - 0.005, tops[0] / H - 0.005, xs[-1] / W + 0.005, tops[-1] / H + 0.005)


@pytest.fixture(scope="module")
def search(tmp_path_factory) -> tuple[Path, list[Unit]]:
    """The search table as the parser's markup gives it: the question repeated in each row it covers."""
    pdf = tmp_path_factory.mktemp("rows") / "sideways_question.pdf"
    tops = _search_pdf(pdf)
    _search_tops[:] = tops
    body = [[QUESTION, *row] for row in SEARCHES] + [["Question 3", *AFTER]]
    grid = TableGrid(header_rows=[["Question", "Set", "Concept", "Strategy"]], body_rows=body)
    return pdf, _doc(pdf, grid, _region([72.0, 540.0], tops))


@pytest.fixture(scope="module")
def drugs(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The drug table as rebuilt from the text layer: each row boxed over its ruled cells, the last
    merged row's box reaching down to the comment's end."""
    pdf = tmp_path_factory.mktemp("rows") / "long_comment.pdf"
    xs, tops = _drug_pdf(pdf)
    body = [[CLASS, drug, dose, " ".join(COMMENT)] for drug, dose in DRUGS] + [LAST]
    boxes = [(xs[0] / W, tops[r + 1] / H, xs[-1] / W, tops[r + 2] / H) for r in range(len(body))]
    grid = TableGrid(
        header_rows=[["Class", "Drug", "Usual dose", "Comments"]],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    return pdf, tops, _doc(pdf, grid, _region(xs, tops))


def _row(units: list[Unit], i: int, *, span: bool = False) -> Unit:
    """Row ``i``'s unit, or the unit saying its long comment once (``span``)."""
    got = [u for u in units if u.table.row_index == i and (u.table.cells[-1] == " ".join(COMMENT)) == span]  # type: ignore[union-attr]
    assert len(got) == 1, [u.text for u in units]
    return got[0]


def test_a_merged_cell_printed_sideways_widens_no_row(search) -> None:
    """Each search row's outlines hold its own line and the question printed sideways across the five
    rows (its merged cell's outline); no other row's line lies inside them (the middle row, whose line
    the question's middle is on, does not take the question's height, nor the next row's line of the
    same words). The trap: the row after the question, never covered by it, is outlined on its own line."""
    pdf, units = search
    rows = [*SEARCHES, AFTER]
    assert len(units) == len(rows)
    printed = [c for row in rows for c in row]
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        own = [c for c in rows[r] if printed.count(c) == 1]  # a text printed twice is searched for once
        for ch in char_boxes(pdf, own + ([QUESTION] if r < len(SEARCHES) else ["Question 3"])):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for other, cells in enumerate(rows):
            if other != r:
                for ch in char_boxes(pdf, [c for c in cells if printed.count(c) == 1]):
                    assert not over(outlines, ch), (unit.text, cells, outlines)
    last = unit_outlines(units[-1], (W, H))
    assert len(last) == 1 and last[0][1] == pytest.approx(_search_tops[-2], abs=1.0)


def test_a_row_boxed_down_to_a_long_merged_comment_is_cut_to_its_own_lines(drugs) -> None:
    """The last drug's box, ruled down to the comment's end, is cut to its own line: the comment is said
    once in a unit of its own, so none of its lines below the drug's lies inside the drug's outlines,
    while the drug, its dose and its class do. The comment's own unit holds all of it. The trap: the
    first two drugs, boxed on their own lines, and the row under the table keep their boxes."""
    pdf, tops, units = drugs
    last = _row(units, 2)
    outlines = unit_outlines(last, (W, H))
    for ch in char_boxes(pdf, [*DRUGS[2], CLASS]):
        assert holds(outlines, ch), (last.text, ch, outlines)
    below = [line for k, line in enumerate(COMMENT) if tops[1] + PAD + k * LEAD >= tops[3] + PAD + LEAD]
    assert below
    for ch in char_boxes(pdf, below):
        assert not over(outlines, ch), (last.text, ch, outlines)
    comment = _row(units, 0, span=True)
    for ch in char_boxes(pdf, COMMENT):
        assert holds(unit_outlines(comment, (W, H)), ch), (comment.text, ch)
    for i in (0, 1, 3):
        own = unit_outlines(_row(units, i), (W, H))[0]
        assert own[1] == pytest.approx(tops[i + 1], abs=0.5) and own[3] == pytest.approx(tops[i + 2], abs=0.5)
