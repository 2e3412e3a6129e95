"""Table-row outlines against positions read from the page's text layer, on a ruled table built here.

The table (reportlab, Helvetica, cells centred vertically as a word processor prints them): a
recommendation cell wrapping over two or three lines beside one-line cells, a drug-class cell merged
over two rows and printed once across both, a row of one line under them. Its grid is the parser's
(a merged cell repeated in the rows it covers, one box for the table); rows are placed by stage 8.
Each row's unit bboxes must hold every character of its cells (the merged one included, in both
rows it covers) within :data:`pdf_chars.TOL` points, and no line of the rows above and below (the trap).
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

#: How far (PDF points) a character may lie outside its row's outline.
W, H = 612.0, 792.0
LEAD, PAD, SIZE = 14.0, 5.0, 10.0
WIDTHS = [120.0, 240.0, 100.0]
HEADER = ["Drug class", "Practical notes", "Usual dose"]
#: Each row: the lines of each cell; ``None`` where the cell above is merged over this row.
ROWS = [
    [
        ["ACE inhibitors"],
        ["Start low in adults with diabetes and", "raise the dose when the kidney", "function allows it."],
        ["10 to 40 mg daily"],
    ],
    [
        ["Thiazide-type", "diuretics"],
        ["Chlorthalidone lasts longer than", "hydrochlorothiazide."],
        ["12.5 to 25 mg daily"],
    ],
    [None, ["Check sodium and potassium within", "four weeks of starting."], ["No dose change"]],
    [["Beta blockers"], ["Kept for a second condition such as", "angina or heart failure."], ["25 to 100 mg daily"]],
    [["Calcium channel blockers"], ["Ankle swelling is the usual side effect."], ["2.5 to 10 mg daily"]],
]


def _make_pdf(path: Path) -> list[float]:
    """Write the table's page; return the tops of its rows, header first, and its bottom (points from
    the page top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica-Bold", 12)
    c.drawString(72, H - 90, "Table 3. Drug classes used in the first step")
    c.setFont("Helvetica", SIZE)
    xs = [72.0]
    for w in WIDTHS:
        xs.append(xs[-1] + w)
    heights = [LEAD + 2 * PAD] + [max(len(x) for x in row if x is not None) * LEAD + 2 * PAD for row in ROWS]
    tops = [110.0]
    for h in heights:
        tops.append(tops[-1] + h)

    def lines_at(x: float, top: float, height: float, lines: list[str]) -> None:
        first = top + (height - len(lines) * LEAD) / 2
        for k, line in enumerate(lines):
            c.drawString(x + 4, H - (first + k * LEAD + 0.75 * LEAD), line)

    for col, text in enumerate(HEADER):
        lines_at(xs[col], tops[0], heights[0], [text])
    c.setLineWidth(0.5)
    for r, row in enumerate(ROWS):
        for col, cell in enumerate(row):
            if cell is None:
                continue
            spans = 2 if r + 1 < len(ROWS) and ROWS[r + 1][col] is None else 1
            lines_at(xs[col], tops[r + 1], tops[r + 1 + spans] - tops[r + 1], cell)
        left = xs[1] if r + 1 < len(ROWS) and ROWS[r + 1][0] is None else xs[0]
        c.line(left, H - tops[r + 2], xs[-1], H - tops[r + 2])
    c.line(xs[0], H - tops[0], xs[-1], H - tops[0])
    c.line(xs[0], H - tops[1], xs[-1], H - tops[1])
    for x in xs:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


def _cells(r: int) -> list[list[str]]:
    """The lines of each cell of row ``r``, a merged cell's taken from the row above."""
    return [cell if cell is not None else ROWS[r - 1][c] for c, cell in enumerate(ROWS[r])]


def _units(pdf: Path, tops: list[float], source: str, boxes: list) -> list[Unit]:
    """The table's row units: its grid as the parser (or the text layer) gives it, rows placed by stage 8."""
    body = [[" ".join(lines) for lines in _cells(r)] for r in range(len(ROWS))]
    pages = [1] * len(body) if boxes else []  # a grid rebuilt from the text layer knows its rows' pages
    grid = TableGrid(
        header_rows=[HEADER], body_rows=body, grid_source=source, body_row_bboxes=boxes, body_row_pages=pages
    )
    region = (72 / W - 0.005, tops[0] / H - 0.005, (72 + sum(WIDTHS)) / W + 0.005, tops[-1] / H + 0.005)
    text = "\n".join(" | ".join(r) for r in [HEADER, *body])
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text=text, bbox=region, table=grid)
    doc = ParsedDocument(doc_id="rows0001", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    units = [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]
    assert len(units) == len(ROWS)
    return units


@pytest.fixture(scope="module")
def drawn(tmp_path_factory) -> tuple[Path, list[float]]:
    pdf = tmp_path_factory.mktemp("rows") / "wrapped_merged_table.pdf"
    return pdf, _make_pdf(pdf)


@pytest.fixture(scope="module")
def table_rows(drawn) -> tuple[Path, list[Unit]]:
    """Rows of the parser's markup, without boxes: stage 8 places them."""
    pdf, tops = drawn
    return pdf, _units(pdf, tops, "parser_html", [])


@pytest.fixture(scope="module")
def text_layer_rows(drawn) -> tuple[Path, list[Unit]]:
    """Rows of a grid rebuilt from the text layer, each boxed over its cells' ruled area, so the row
    printing the merged drug class has a box stretched over the row below it."""
    pdf, tops = drawn
    x0, x1 = 72 / W, (72 + sum(WIDTHS)) / W
    boxes = []
    for r in range(len(ROWS)):
        spans = 2 if r + 1 < len(ROWS) and ROWS[r + 1][0] is None else 1
        left = (72 + WIDTHS[0]) / W if ROWS[r][0] is None else x0
        boxes.append((left, tops[r + 1] / H, x1, tops[r + 1 + spans] / H))
    return pdf, _units(pdf, tops, "pdf_text_layer", boxes)


def _neighbours_lines(r: int) -> list[str]:
    """The lines of the rows above and below ``r``, the cells they share with it (merged) aside."""
    out = []
    for n in (r - 1, r + 1):
        if 0 <= n < len(ROWS):
            out += [line for c, cell in enumerate(_cells(n)) if cell != _cells(r)[c] for line in cell]
    return out


@pytest.mark.parametrize("rows", ["table_rows", "text_layer_rows"])
def test_every_row_is_outlined_whole_and_no_line_of_its_neighbours_is_inside(rows: str, request) -> None:
    """Every character of a row's cells lies in one of its outlines within TOL points: a cell wrapped
    over three lines beside one-line cells, the merged drug class in both rows it covers; the trap: no
    line of the rows above and below has its middle inside any of them (a text-layer row box stretched
    over the next row by the merged cell is cut to the row's own lines)."""
    pdf, units = request.getfixturevalue(rows)
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, [line for cell in _cells(r) for line in cell], printed_once=True):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for ch in char_boxes(pdf, _neighbours_lines(r), printed_once=True):
            assert not over(outlines, ch), (unit.text, ch)


def test_a_merged_cell_printed_once_gets_an_outline_of_its_own_in_both_rows(table_rows) -> None:
    """The drug class merged over rows 2 and 3, printed once across their border: each of the two rows
    has its own band (its notes and dose, not the other row's) and the merged cell's outline, the same
    in both, holding the class's two lines and no note or dose line of either row."""
    pdf, units = table_rows
    merged = char_boxes(pdf, ROWS[1][0], printed_once=True)
    cell_outlines = []
    for r in (1, 2):
        outlines = unit_outlines(units[r], (W, H))
        holding = [o for o in outlines if all(holds([o], ch) for ch in merged)]
        assert len(outlines) == 2 and len(holding) == 1, (units[r].text, outlines)
        cell_outlines.append(holding[0])
        others = char_boxes(
            pdf, [line for row in (1, 2) for cell in _cells(row)[1:] for line in cell], printed_once=True
        )
        for ch in others:
            assert not over(holding, ch), ch
    assert cell_outlines[0] == cell_outlines[1]


def test_a_merged_cells_outline_leaves_the_row_units_ids_and_texts_as_they_are(drawn) -> None:
    """Only the outlines change: the same units (ids, texts) as with the row boxes alone."""
    pdf, tops = drawn
    units = _units(pdf, tops, "parser_html", [])
    assert any(len(u.bboxes) == 2 for u in units)
    body = [[" ".join(lines) for lines in _cells(r)] for r in range(len(ROWS))]
    boxes = [u.bboxes[0] for u in units]
    grid = TableGrid(header_rows=[HEADER], body_rows=body, body_row_bboxes=boxes, body_row_pages=[1] * len(body))
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=(0.1, 0.1, 0.9, 0.5), table=grid)
    doc = ParsedDocument(doc_id="rows0001", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    alone = [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]
    assert [(u.unit_id, u.text) for u in alone] == [(u.unit_id, u.text) for u in units]
    assert all(len(u.bboxes) == 1 for u in alone)
