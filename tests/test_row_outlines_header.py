"""Outlines of header rows read as body rows, on a turned page built here.

A borderless dosing table on a page turned a quarter (``/Rotate 90``, printed so it reads upright): a
column header line, then four lines with figures but no label (schedule notes under the header), then
labelled data rows. Read from the text layer, every line above the first labelled data row is header;
the unit builder keeps the column header line and reads the other four as body rows
(:mod:`structaware_readers.tables.header_trim`). Each of those rows' units must outline its own line
(every character within :data:`pdf_chars.TOL` points of PDFium's positions on the displayed page) and hold no
other line of the table (the trap: the whole table's region holds them all) -- for a grid rebuilt from
the text layer (each header row keeps its line's box) and for the parser's grid of the same table
without boxes (stage 8 finds them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
from structaware_readers.units import build_units

#: How far (PDF points) a character may lie outside its row's outline.
W, H = 612.0, 792.0
LEAD, SIZE = 16.0, 10.0
#: Left edge of each column on the displayed page (points).
XS = [60.0, 220.0, 400.0]
HEADER = ["Weight band", "Daily dose (mg)", "Tablets per month"]
#: Lines with figures but no label: header lines to the text layer, body rows to the unit builder.
NOTES = [
    ["", "over 7 days", "7.5 mg tablets"],
    ["", "over 14 days", "15 mg tablets"],
    ["", "twice 3 days", "2 halves daily"],
    ["", "once 8 weeks", "45 mg weekly"],
]
DATA = [
    ["Under 10 kg", "2.75", "38"],
    ["From 10 to 19 kg", "6.25", "49"],
    ["From 20 to 34 kg", "13.5", "61"],
    ["35 kg and over", "27.5", "83"],
]
TOP = 80.0


def _make_pdf(path: Path) -> None:
    """The table on a turned page: drawn along the page's height so that it reads left to right when
    the page is shown turned (display x is the drawing's y, display y from the top its x)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setPageRotation(90)
    c.rotate(90)  # drawing x runs along the displayed line, drawing -y down the displayed page
    c.setFont("Helvetica", SIZE)
    c.drawString(XS[0], -(TOP - 30), "Table 2. Doses by body weight")
    for r, row in enumerate([HEADER, *NOTES, *DATA]):
        for x, cell in zip(XS, row):
            if cell:
                c.drawString(x, -(TOP + r * LEAD + 0.75 * LEAD), cell)
    c.save()


def _region() -> tuple[float, float, float, float]:
    """The table's region, 0..1 of the page in PDFium's frame for a turned page (display points over
    the page's own width and height)."""
    rows = 1 + len(NOTES) + len(DATA)
    return (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + rows * LEAD) / H + 0.005)


def _units(pdf: Path, grid: TableGrid) -> list[Unit]:
    text = "\n".join(" | ".join(r) for r in [*grid.header_rows, *grid.body_rows])
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text=text, bbox=_region(), table=grid)
    doc = ParsedDocument(doc_id="hdr00001", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    return [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]


@pytest.fixture(scope="module")
def pdf(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hdr") / "turned_dosing_table.pdf"
    _make_pdf(path)
    return path


def _text_layer_grid(pdf: Path) -> TableGrid:
    import pdfplumber

    with pdfplumber.open(str(pdf)) as plumber:
        grid = grid_from_region(plumber.pages[0], _region(), page_number=1)
    assert grid is not None
    return grid


def _parser_grid(pdf: Path) -> TableGrid:
    """The same rows as the parser's space-aligned text gives them: no boxes."""
    return TableGrid(
        header_rows=[HEADER, *NOTES], body_rows=DATA, body_row_pages=[1] * len(DATA), grid_source="parser_text"
    )


@pytest.mark.parametrize("make_grid", [_text_layer_grid, _parser_grid])
def test_header_rows_read_as_body_rows_are_outlined_with_their_own_line(pdf, make_grid) -> None:
    """The four note lines come out as row units of their own, each outlined whole on the turned page
    and holding no other line of the table; the data rows too."""
    grid = make_grid(pdf)
    assert len(grid.header_rows) == 1 + len(NOTES)  # the text layer reads them as header lines
    units = _units(pdf, grid)
    rows = [*NOTES, *DATA]
    assert [u.table.cells for u in units] == rows  # type: ignore[union-attr]
    size = (W, H)
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, size)
        assert outlines, unit.text
        own = [cell for cell in rows[r] if cell]
        for ch in char_boxes(pdf, own):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        others = [cell for k, row in enumerate([HEADER, *rows]) if k != r + 1 for cell in row if cell]
        for ch in char_boxes(pdf, others, printed_once=True):
            assert not over(outlines, ch), (unit.text, ch)


def test_only_the_outlines_change(pdf) -> None:
    """The header rows' boxes change no unit's id or text: the same units as from the grid without them."""
    grid = _text_layer_grid(pdf)
    with_boxes = _units(pdf, grid)
    without = _units(pdf, grid.model_copy(update={"header_row_bboxes": []}))
    assert [(u.unit_id, u.text) for u in with_boxes] == [(u.unit_id, u.text) for u in without]
