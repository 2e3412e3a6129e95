"""Table-row outlines of rows read one printed line a row from a table whose cells are printed at staggered heights.

A table built here (reportlab, Helvetica): a product's name and its dosing sentence are printed a few points
higher than its form and count, centred in their cells. Read one printed line a row (as a text-layer rebuild
or a parser reads such a table), the name row holds the dosing line printed lower than its name, and the form
row is printed between them: each row's box, as wide as the table, holds the other's lines. Each row is cut to
the columns of its own lines (:mod:`structaware_readers.table_recovery.own_columns`). Rows placed by stage 8.

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
SIZE = 10.0
XS = [72.0, 200.0, 300.0, 450.0, 540.0]
HEADER = ["Product", "Form", "Dosing", "Count"]
#: Each body row as the parser reads it, with the top (points) of each of its cells' lines.
ROWS = [
    (["Calmora solution", "", "once daily", ""], [110.0, 0.0, 117.0, 0.0]),
    (["", "Nebulised", "", "30 doses"], [0.0, 120.0, 0.0, 120.0]),
    (["Quellon powder", "Inhaled", "two puffs", "60 doses"], [156.0] * 4),
]


def _draw(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    for col, head in enumerate(HEADER):
        c.drawString(XS[col] + 4, H - 92.0, head)
    for cells, tops in ROWS:
        for col, (cell, top) in enumerate(zip(cells, tops)):
            if cell:
                c.drawString(XS[col] + 4, H - (top + 0.8 * SIZE), cell)
    c.save()


def _box(tops: list[float]) -> tuple[float, float, float, float]:
    """The row's box as wide as the table, from its first line's top to its last line's bottom."""
    used = [t for t in tops if t]
    return (XS[0] / W, (min(used) - 2) / H, XS[-1] / W, (max(used) + SIZE + 2) / H)


@pytest.fixture(scope="module")
def units(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("rows") / "staggered.pdf"
    _draw(pdf)
    grid = TableGrid(
        header_rows=[HEADER],
        body_rows=[cells for cells, _ in ROWS],
        grid_source="pdf_text_layer",
        body_row_bboxes=[_box(tops) for _, tops in ROWS],
        body_row_pages=[1] * len(ROWS),
    )
    region = (XS[0] / W - 0.005, 80.0 / H, XS[-1] / W + 0.005, 175.0 / H)
    found = row_units(pdf, grid, region, "staggered")
    assert len(found) == len(ROWS)
    return pdf, found


def test_rows_whose_boxes_hold_each_others_lines_are_cut_to_their_own_columns(units) -> None:
    """The name row's outlines hold its name and its dosing line, printed lower, and none of the form row's
    words printed between; the form row's hold its form and count and not the dosing line beside them."""
    pdf, found = units
    name, form = (unit_outlines(u, (W, H)) for u in found[:2])
    for ch in char_boxes(pdf, ["Calmora solution", "once daily"]):
        assert holds(name, ch), (ch, name)
    for ch in char_boxes(pdf, ["Nebulised", "30 doses"]):
        assert not over(name, ch), (ch, name)
        assert holds(form, ch), (ch, form)
    for ch in char_boxes(pdf, ["once daily", "Calmora solution"]):
        assert not over(form, ch), (ch, form)


def test_rows_whose_boxes_hold_only_their_own_lines_stay_whole(units) -> None:
    """The trap: the row printed on one line, nothing of other rows beside it, keeps its box as wide as the
    table."""
    pdf, found = units
    for r in (2,):
        got = unit_outlines(found[r], (W, H))
        want = _box(ROWS[r][1])
        assert len(got) == 1
        assert got[0] == pytest.approx((want[0] * W, want[1] * H, want[2] * W, want[3] * H), abs=0.5)
        for ch in char_boxes(pdf, [c for c in ROWS[r][0] if c]):
            assert holds(got, ch), (ch, got)
