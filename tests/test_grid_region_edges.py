"""A text-layer grid whose header lies in the region's padding above, and a footnote's top in it below.

Generated input: ``tests/fixtures/pdf/padded_edges_table.pdf`` (``make_padded_edges_table.py``, made-up
figures): a borderless table whose column header line (``Thereafter``, a word no paragraph of the
document uses) lies just above the parser's region and whose footnote, wider than the table, starts just
below it. The parser's markup glues two rows' figures into one cell (``4,215612``); the text layer's grid
reads the printed figures, the header line, and the footnote's top cut at the region's right edge
(``sto`` of ``stock``), which is no row of the table.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.rows_outside import without_rows_below
from structaware_readers.table_recovery.stage6_markup_check import keeps_data
from structaware_readers.tables import grid_to_text, parse_html_table

PDF = Path(__file__).parent / "fixtures" / "pdf" / "padded_edges_table.pdf"
W, H = 612, 792
#: the parser's region: from a point below the header line to a point above the footnote (points)
BOX = (58 / W, 152.5 / H, 332 / W, 183.5 / H)

#: the parser's grid: the first two rows glued into one, read as the header
GLUED_HTML = (
    "<table><tr><td>Seed stock held for sale Orchard leases</td><td>4,215612</td><td>3,980587</td><td>23525</td></tr>"
    "<tr><td>Total obligations</td><td>4,827</td><td>4,567</td><td>260</td></tr></table>"
)
FOOTNOTE = "(a) Amounts exclude the unamortized premiums of the orchard leases and of the seed stock held for sale."
REBUILT_BODY = [
    ["Seed stock held for sale", "4,215", "3,980", "235"],
    ["Orchard leases", "612", "587", "25"],
    ["Total obligations", "4,827", "4,567", "260"],
]


def _doc(html: str) -> ParsedDocument:
    grid = parse_html_table(html)
    table = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, table=grid, text=grid_to_text(grid), bbox=BOX)
    heading = Block(
        block_id="p1-e0",
        kind=BlockKind.PARAGRAPH,
        page=1,
        text="Obligations of the cooperative in thousands: seed stock held for sale, orchard leases, total obligations.",
        bbox=(0.09, 0.14, 0.5, 0.16),
    )
    note = Block(block_id="p1-e2", kind=BlockKind.PARAGRAPH, page=1, text=FOOTNOTE, bbox=(0.09, 0.232, 0.64, 0.243))
    return ParsedDocument(
        doc_id="4" * 16,
        name="padded_edges",
        source=str(PDF),
        parser="mineru",
        input_format="test",
        page_count=1,
        blocks=[heading, table, note],
    )


def _table(doc: ParsedDocument) -> TableGrid:
    return next(b.table for b in doc.blocks if b.kind is BlockKind.TABLE)


def test_a_grid_gluing_rows_is_read_again_with_its_printed_header_and_without_the_footnote():
    out = _table(recover_table_grids(_doc(GLUED_HTML), PDF))
    assert out.grid_source == "pdf_text_layer"
    assert out.header_rows == [["In thousands", "Total", "2031", "Thereafter"]]
    assert out.body_rows == REBUILT_BODY
    assert len(out.body_row_bboxes) == len(out.body_rows)


def test_rows_below_the_region_are_dropped_from_the_end_only():
    grid = TableGrid(
        header_rows=[["", "2031"]],
        body_rows=[["Seed", "1"], ["Total", "2"], ["(a) Amounts exclude the unamortized premiums of the sto", ""]],
        body_row_pages=[1, 1, 1],
        body_row_bboxes=[(0.1, 0.20, 0.5, 0.21), (0.1, 0.22, 0.5, 0.23), (0.1, 0.2405, 0.55, 0.25)],
    )
    kept = without_rows_below(grid, (0.1, 0.19, 0.5, 0.24))
    assert kept.body_rows == grid.body_rows[:2]
    assert kept.body_row_bboxes == grid.body_row_bboxes[:2] and kept.body_row_pages == [1, 1]
    # a row reaching into the region is the table's
    assert without_rows_below(grid, (0.1, 0.19, 0.5, 0.245)) == grid


def test_a_header_word_printed_whole_counts_as_the_documents_own():
    parser = TableGrid(header_rows=[["Seed Orchard", "4,215612"]], body_rows=[["Total", "4,827"]])
    rebuilt = TableGrid(
        header_rows=[["", "Thereafter"]], body_rows=[["Seed", "4,215"], ["Orchard", "612"], ["Total", "4,827"]]
    )
    vocabulary = Counter({"seed": 1, "orchard": 1, "total": 1})
    printed = {"4,215", "612", "4,827"}
    assert not keeps_data(parser, rebuilt, vocabulary, printed)
    assert keeps_data(parser, rebuilt, vocabulary, printed, {"thereafter", "seed"})
    # a piece of a word is no word the region prints whole
    cut = rebuilt.model_copy(update={"header_rows": [["", "Therea"]]})
    assert not keeps_data(parser, cut, vocabulary, printed, {"thereafter", "seed"})
