"""A markup grid interleaving a two-line period header, read again from the text layer.

Generated input: ``tests/fixtures/pdf/two_line_period_header.pdf`` (``make_two_line_period_header.py``,
made-up figures): a parser region holding a list of deferred items, a line of text and a table whose
period header prints on two lines (``AS OF JUNE 30,`` above the years), with the last row of the table
above just inside the region's padding. The parser's markup writes one column's figures twice, glues figures
of three lines into runs the page does not print and interleaves the header's two lines, cutting the years (``030`` of ``2030``).
The text layer's grid is taken: the markup's duplicate cell and its cut pieces are no data it must keep,
and the row above the region is the first table's, not this one's.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.rows_outside import without_rows_above
from structaware_readers.table_recovery.stage6_markup_check import keeps_data
from structaware_readers.tables import grid_to_text

PDF = Path(__file__).parent / "fixtures" / "pdf" / "two_line_period_header.pdf"
W, H = 612, 792
#: the parser's region: from just below the first table's last line to below the last row (points)
BOX = (58 / W, 132.2 / H, 332 / W, 238.5 / H)

#: the parser's grid as MinerU's markup gives it: no header row, the region's lines mixed in each row
INTERLEAVED = TableGrid(
    body_rows=[
        ["Deferred items: Seed stock held for sale Orchard leases", "", "(235)(188)", "(235)(188)", "(155)(167)"],
        [
            "Total deferred items A reconciliation of the reserve for returned produce follows: (In thousands)",
            "",
            "$AS O2031 2",
            "(423)512 $F JUNE 30, 030",
            "(322)4302029",
        ],
        ["Reserve, start of the period", "$", "477 $", "", ""],
        ["Additions", "", "64", "58", "71"],
        ["Reserve, end of the period", "$", "576 $", "535 $", "501"],
    ]
)


def _doc(grid: TableGrid) -> ParsedDocument:
    above = Block(
        block_id="p1-e1",
        kind=BlockKind.PARAGRAPH,
        page=1,
        text="Bulk grain held 410 388 Total grain assets after allowance 940 865",
        bbox=(58 / W, 114 / H, 332 / W, 131.5 / H),
    )
    table = Block(block_id="p1-e2", kind=BlockKind.TABLE, page=1, table=grid, text=grid_to_text(grid), bbox=BOX)
    note = Block(
        block_id="p1-e3",
        kind=BlockKind.PARAGRAPH,
        page=1,
        text=(
            "Deferred items of the cooperative: seed stock held for sale and orchard leases. A reconciliation of"
            " the reserve for returned produce, in thousands, from the start to the end of the period, with its"
            " additions; total deferred items as of June 30."
        ),
        bbox=(0.09, 0.4, 0.6, 0.45),
    )
    return ParsedDocument(
        doc_id="5" * 16,
        name="two_line_period_header",
        source=str(PDF),
        parser="mineru",
        input_format="test",
        page_count=1,
        blocks=[above, table, note],
    )


def _table(doc: ParsedDocument) -> TableGrid:
    return next(b.table for b in doc.blocks if b.kind is BlockKind.TABLE)


def test_an_interleaved_period_header_is_read_again_as_printed():
    out = _table(recover_table_grids(_doc(INTERLEAVED), PDF))
    assert out.grid_source == "pdf_text_layer"
    rows = [[c for c in row if c] for row in out.body_rows]
    assert ["AS OF JUNE 30,"] in rows
    assert ["(In thousands)", "2031", "2030", "2029"] in rows
    assert ["Reserve, start of the period", "$512", "$477", "$430"] in rows
    assert ["Seed stock held for sale", "(235)", "(155)"] in rows
    assert ["Total deferred items", "(423)", "(322)"] in rows
    # the first table's last row, in the region's padding only, stays out
    assert not any("grain" in c for row in out.body_rows for c in row)
    assert len(out.body_row_bboxes) == len(out.body_rows)


def test_figures_cut_or_written_twice_by_the_markup_need_not_be_kept():
    parser = TableGrid(body_rows=[["Seed", "(235)", "(235)"], ["Total", "$AS O2031 2", "030"]])
    rebuilt = TableGrid(body_rows=[["Seed", "(235)"], ["", "2031", "2030"], ["Total", "$512"]])
    printed = Counter({"235": 1, "2031": 1, "2030": 1, "512": 1})
    assert keeps_data(parser, rebuilt, None, printed)
    # printed twice, the second figure is a datum the rebuilt grid must keep
    assert not keeps_data(parser, rebuilt, None, printed + Counter({"235": 1}))
    # a figure the region prints nowhere, and no piece of a printed one, is kept by the parser's grid only
    other = parser.model_copy(update={"body_rows": [*parser.body_rows, ["Other", "9,991.1"]]})
    assert not keeps_data(other, rebuilt, None, printed)


def test_rows_above_the_region_are_dropped_from_the_start_only():
    grid = TableGrid(
        header_rows=[["", "2031"]],
        body_rows=[["Total grain", "940"], ["Seed", "1"], ["Total", "2"]],
        body_row_pages=[1, 1, 1],
        body_row_bboxes=[(0.1, 0.15, 0.5, 0.165), (0.1, 0.18, 0.5, 0.19), (0.1, 0.20, 0.5, 0.21)],
    )
    above = [((0.1, 0.1, 0.5, 0.166), "Total grain 940")]  # the block above, holding the first row
    kept = without_rows_above(grid, (0.1, 0.166, 0.5, 0.22), above)
    assert kept.body_rows == grid.body_rows[1:]
    assert kept.body_row_bboxes == grid.body_row_bboxes[1:] and kept.body_row_pages == [1, 1]
    assert kept.header_rows == grid.header_rows
    # a row reaching into the region is the table's
    assert without_rows_above(grid, (0.1, 0.16, 0.5, 0.22), above) == grid
    # a row no other block holds is one the parser's region cut off: it stays
    assert without_rows_above(grid, (0.1, 0.166, 0.5, 0.22), []) == grid
    assert without_rows_above(grid, (0.1, 0.166, 0.5, 0.22), [((0.1, 0.1, 0.5, 0.166), "")]) == grid
    # a line of years and note marks above the region is the table's column header read as a body row
    years = grid.model_copy(update={"body_rows": [["(In thousands)", "2031", "(1)"], *grid.body_rows[1:]]})
    assert without_rows_above(years, (0.1, 0.166, 0.5, 0.22), above) == years
