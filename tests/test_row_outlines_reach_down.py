"""Table-row outlines where a row's ruled box reaches down over the rows a merged cell spans with it.

Ruled tables built here (reportlab, Helvetica), each a text-layer grid: the first row a merged cell covers is
boxed over its ruled cells, so its box reaches down to the merged cell's bottom, over the rows below it. Rows
placed by stage 8.

* a length merged over three rows, printed once on the middle row's line, its figure and its word drawn apart
  so that PDFium reads two runs (``5`` | ``days*``); a dose of the middle row says ``days`` too;
* a length merged over the last two rows, printed once on the last row's line: both rows' boxes hold it;
* a dash for a length, one spanning the first three rows: too short to be found as a merged cell; the same with
  the first row read twice, its copy boxed on a sliver inside its box.

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
LEAD, PAD, SIZE = 14.0, 5.0, 10.0
XS = [72.0, 192.0, 402.0, 480.0]
HEADER = ["Medicine", "Dose", "Length"]
#: Drug and dose of each row; the first three share the length, printed once on the second row's line.
ROWS = [
    ["Amoxicillin", "500 mg three times a day"],
    ["Clarithromycin", "250 mg twice, for 3 days"],
    ["Erythromycin", "250 to 500 mg four times"],
    ["Doxycycline", "100 mg once a day"],
]
LENGTH, LAST_LENGTH = ("5", "days*"), "7 days"
#: The lengths of the second table: the last one merged over the last two rows.
LENGTHS = ["10 days", "3 days", "14 days", "14 days"]


def _table(path: Path, last_two: bool = False, dashes: bool = False) -> list[float]:
    """The table (``last_two``: the second one, ``dashes``: the third); returns the rows' tops (header first) and
    the table's bottom, in points from the page top."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    tops = [110.0]
    for _ in range(len(ROWS) + 1):
        tops.append(tops[-1] + LEAD + 2 * PAD)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 4, H - (top + PAD + 0.75 * LEAD), line)

    for col, head in enumerate(HEADER):
        text(XS[col], tops[0], head)
    for r, row in enumerate(ROWS):
        for col, cell in enumerate(row):
            text(XS[col], tops[r + 1], cell)
    figure, word = LENGTH
    if dashes:
        text(XS[2], tops[2], "-")
        text(XS[2], tops[4], "-")
    elif last_two:
        for r in (0, 1, 3):
            text(XS[2], tops[r + 1], LENGTHS[r])
    else:
        text(XS[2], tops[2], figure)  # two drawings: two runs in the text layer
        text(XS[2] + stringWidth(figure + " ", "Helvetica", SIZE), tops[2], word)
        text(XS[2], tops[4], LAST_LENGTH)
    for r, top in enumerate(tops):
        inner = r == 4 if last_two else r in (2, 3)  # no rule crosses the merged length cell
        c.line(XS[0], H - top, XS[2] if inner else XS[-1], H - top)
    for x in XS:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def _units(
    pdf: Path, tops: list[float], body: list[list[str]], spans: list[tuple[int, int]], extra: dict | None = None
) -> list[Unit]:
    """Row units of ``body`` as a text-layer grid whose rows are ruled from line ``a`` to line ``b`` of ``tops``
    (``spans``), with ``extra`` boxes inserted at their row indices (rows the ruling split)."""
    boxes: list = [(XS[0] / W, tops[a] / H, XS[-1] / W, tops[b] / H) for a, b in spans]
    for i, box in sorted((extra or {}).items()):
        boxes.insert(i, box)
    grid = TableGrid(
        header_rows=[HEADER],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    region = (XS[0] / W - 0.005, tops[0] / H - 0.005, XS[-1] / W + 0.005, tops[-1] / H + 0.005)
    return row_units(pdf, grid, region, "runs")


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The table as rebuilt from the text layer: the first row's box reaches down to the length cell's bottom."""
    pdf = tmp_path_factory.mktemp("rows") / "split_length.pdf"
    tops = _table(pdf)
    length = " ".join(LENGTH)
    body = [[*row, length] for row in ROWS[:3]] + [[*ROWS[3], LAST_LENGTH]]
    spans = [(1, 4), (2, 3), (3, 4), (4, 5)]  # the first row's ruled cells reach the length cell's bottom
    return pdf, tops, _units(pdf, tops, body, spans)


@pytest.fixture(scope="module")
def last_two(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The second table as rebuilt from the text layer: the third row's box reaches down to the table's bottom."""
    pdf = tmp_path_factory.mktemp("rows") / "last_two.pdf"
    tops = _table(pdf, last_two=True)
    body = [[*row, length] for row, length in zip(ROWS, LENGTHS)]
    spans = [(1, 2), (2, 3), (3, 5), (4, 5)]
    return pdf, tops, _units(pdf, tops, body, spans)


def test_a_length_read_as_two_runs_cuts_the_first_row_to_its_own_line(table) -> None:
    """The first row's outlines hold its drug, its dose and the length (the merged cell's outline), and none of
    the two rows below it, over which its ruled box reached. The trap: the other rows keep their own boxes, the
    middle one holding the length printed on its line."""
    pdf, tops, units = table
    assert len(units) == len(ROWS)
    first = unit_outlines(units[0], (W, H))
    for ch in char_boxes(pdf, [*ROWS[0], " ".join(LENGTH)]):
        assert holds(first, ch), (units[0].text, ch, first)
    for ch in char_boxes(pdf, [*ROWS[1], *ROWS[2]]):
        assert not over(first, ch), (units[0].text, ch, first)
    for r in (1, 2, 3):
        own = unit_outlines(units[r], (W, H))
        assert own[0][1] == pytest.approx(tops[r + 1], abs=0.5) and own[0][3] == pytest.approx(tops[r + 2], abs=0.5)
        for ch in char_boxes(pdf, ROWS[r]):
            assert holds(own, ch), (units[r].text, ch, own)
    for ch in char_boxes(pdf, [" ".join(LENGTH)]):
        assert holds(unit_outlines(units[1], (W, H)), ch)


def test_a_merged_cell_both_boxes_hold_is_cut_from_the_stretched_one(last_two) -> None:
    """The third row's box reaches over the fourth's, so both hold the length printed once on the fourth row's
    line: the cell is not printed in every row. The third row's outlines hold its drug, its dose and the length,
    and none of the fourth row's own words. The trap: the fourth row and the rows above keep their own boxes."""
    pdf, tops, units = last_two
    assert len(units) == len(ROWS)
    third = unit_outlines(units[2], (W, H))
    for ch in char_boxes(pdf, [*ROWS[2], LENGTHS[2]]):
        assert holds(third, ch), (units[2].text, ch, third)
    for ch in char_boxes(pdf, ROWS[3]):
        assert not over(third, ch), (units[2].text, ch, third)
    for r in (0, 1, 3):
        own = unit_outlines(units[r], (W, H))
        assert own[0][1] == pytest.approx(tops[r + 1], abs=0.5) and own[0][3] == pytest.approx(tops[r + 2], abs=0.5)
        for ch in char_boxes(pdf, [*ROWS[r], LENGTHS[r]]):
            assert holds(own, ch), (units[r].text, ch, own)


@pytest.fixture(scope="module")
def dashes(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The table with a dash for each length, one dash cell spanning the first three rows: no merged cell long
    enough to find by its words, the first row's ruled box reaching down to the dash cell's bottom."""
    pdf = tmp_path_factory.mktemp("rows") / "dashes.pdf"
    tops = _table(pdf, dashes=True)
    body = [[*row, "-"] for row in ROWS]
    spans = [(1, 4), (2, 3), (3, 4), (4, 5)]
    return pdf, tops, _units(pdf, tops, body, spans)


def test_a_ruled_box_over_the_rows_below_is_cut_where_they_start(dashes) -> None:
    """The first row's box, reaching over the next two rows' boxes, is cut at the top of the second row: its
    outline holds its drug and dose and none of the two rows' words. The trap: the other rows keep their boxes."""
    pdf, tops, units = dashes
    assert len(units) == len(ROWS)
    first = unit_outlines(units[0], (W, H))
    assert first[0][1] == pytest.approx(tops[1], abs=0.5) and first[0][3] == pytest.approx(tops[2], abs=0.5)
    for ch in char_boxes(pdf, ROWS[0]):
        assert holds(first, ch), (units[0].text, ch, first)
    for ch in char_boxes(pdf, [*ROWS[1], *ROWS[2]]):
        assert not over(first, ch), (units[0].text, ch, first)
    for r in (1, 2, 3):
        own = unit_outlines(units[r], (W, H))
        assert own[0][1] == pytest.approx(tops[r + 1], abs=0.5) and own[0][3] == pytest.approx(tops[r + 2], abs=0.5)


def test_a_row_the_ruling_split_in_two_is_not_where_the_cut_falls(tmp_path) -> None:
    """The first row read twice (a cell of another column ruled in two beside it: the second copy boxed on a sliver
    inside the first row's box), its box reaching over the next two rows: it is cut at the second drug's top, not
    at the copy's, which would leave out most of its line. The trap: the rows below keep their own boxes."""
    pdf = tmp_path / "split_row.pdf"
    tops = _table(pdf, dashes=True)
    body = [[*ROWS[0], "-"]] + [[*row, "-"] for row in ROWS]
    sliver = (XS[2] / W, (tops[1] + 4) / H, XS[3] / W, (tops[1] + 8) / H)
    spans = [(1, 4), (2, 3), (3, 4), (4, 5)]
    units = _units(pdf, tops, body, spans, extra={1: sliver})  # the copy's box, after the first row's
    first = unit_outlines(next(u for u in units if u.table.cells[0] == ROWS[0][0]), (W, H))  # type: ignore[union-attr]
    assert first[0][1] == pytest.approx(tops[1], abs=0.5) and first[0][3] == pytest.approx(tops[2], abs=0.5)
    for ch in char_boxes(pdf, ROWS[0]):
        assert holds(first, ch), (ch, first)
    for r in (1, 2, 3):
        own = unit_outlines(next(u for u in units if u.table.cells[0] == ROWS[r][0]), (W, H))  # type: ignore[union-attr]
        assert own[0][1] == pytest.approx(tops[r + 1], abs=0.5) and own[0][3] == pytest.approx(tops[r + 2], abs=0.5)
