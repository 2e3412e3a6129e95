"""A text-layer grid with fewer body rows than the parser's replaces it when every parser row is in it.

Generated input: ``tests/fixtures/pdf/wrapped_label_table.pdf`` (``make_wrapped_label_table.py``, made-up
figures): a borderless table with a two-line column header and a row label wrapped over two lines. A parser
grid that cuts a header figure and word (``203`` | ``1``, ``Dece`` | ``mber``), keeps the years' line as a body row and the wrapped label
as two rows has two body rows more than the text layer's grid, with the same printed content.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.row_accounting import keeps_rows
from structaware_readers.tables import grid_to_text, parse_html_table

PDF = Path(__file__).parent / "fixtures" / "pdf" / "wrapped_label_table.pdf"
W, H = 612, 792
#: the table's region, rule to rule (points)
BOX = (55 / W, 128 / H, 335 / W, 192 / H)

_HEAD = "<tr><td></td><td>June 30, 203</td><td>1 Dece</td><td>mber 31, 2030</td></tr>"
_ROWS = (
    "<tr><td>(in thousands)</td><td>2031</td><td></td><td>2030</td></tr>"
    "<tr><td>Seed stock held for sale</td><td>4,215</td><td></td><td>3,980</td></tr>"
    "<tr><td>Orchard land and buildings held under</td><td></td><td></td><td></td></tr>"
    "<tr><td>long-term lease agreements</td><td>612</td><td></td><td>587</td></tr>"
)
_TOTAL = "<tr><td>Total holdings</td><td>4,827</td><td></td><td>4,567</td></tr>"
#: the parser's grid: a header figure and word cut at column boundaries (``203`` | ``1``, ``Dece`` | ``mber``),
#: the years' line and the two lines of the wrapped label as body rows
CUT_HTML = f"<table>{_HEAD}{_ROWS}{_TOTAL}</table>"
#: the same with only a word cut: no number to mend, the parser's rows stay
WORD_CUT_HTML = CUT_HTML.replace("June 30, 203</td><td>1 Dece", "June 30, 2031</td><td>Dece")
#: the same with a row the page does not print: the text layer's grid loses it and must not be taken
EXTRA_ROW_HTML = f"<table>{_HEAD}{_ROWS}<tr><td>Reserve fund</td><td>300</td><td></td><td>290</td></tr>{_TOTAL}</table>"

REBUILT_BODY = [
    ["Seed stock held for sale", "4,215", "3,980"],
    ["Orchard land and buildings held under long-term lease agreements", "612", "587"],
    ["Total holdings", "4,827", "4,567"],
]


def _doc(html: str) -> ParsedDocument:
    grid = parse_html_table(html)
    table = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, table=grid, text=grid_to_text(grid), bbox=BOX)
    heading = Block(
        block_id="p1-e0",
        kind=BlockKind.PARAGRAPH,
        page=1,
        text="Holdings of the cooperative in thousands, June and December: seed stock held for sale, orchard land"
        " and buildings held under long-term lease agreements, total holdings.",
        bbox=(0.09, 0.12, 0.5, 0.15),
    )
    return ParsedDocument(
        doc_id="3" * 16,
        name="wrapped_label",
        source=str(PDF),
        parser="mineru",
        input_format="test",
        page_count=1,
        blocks=[heading, table],
    )


def _table(doc: ParsedDocument) -> TableGrid:
    return next(b.table for b in doc.blocks if b.kind is BlockKind.TABLE)


def test_fewer_rows_holding_every_parser_row_replace_a_grid_that_cuts_words():
    parser = parse_html_table(CUT_HTML)
    out = _table(recover_table_grids(_doc(CUT_HTML), PDF))
    assert len(out.body_rows) < len(parser.body_rows)
    assert out.grid_source == "pdf_text_layer"
    assert out.header_rows == [["", "June 30,", "December 31,"], ["(in thousands)", "2031", "2030"]]
    assert out.body_rows == REBUILT_BODY


def test_fewer_rows_are_taken_only_to_mend_a_number():
    assert WORD_CUT_HTML != CUT_HTML
    out = _table(recover_table_grids(_doc(WORD_CUT_HTML), PDF))
    assert out.grid_source == "parser_html"


def test_a_rebuilt_grid_that_loses_a_parser_row_is_refused():
    out = _table(recover_table_grids(_doc(EXTRA_ROW_HTML), PDF))
    assert out.grid_source == "parser_html"
    assert ["Reserve fund", "300", "", "290"] in out.body_rows


def _grid(header: list[list[str]], body: list[list[str]]) -> TableGrid:
    return TableGrid(header_rows=header, body_rows=body)


def test_keeps_rows_finds_wrapped_labels_header_rows_and_cut_words():
    rebuilt = _grid([["", "Quarter ended"], ["(in units)", "2031"]], [["Net earnings", "1,208"], ["Total", "1,300"]])
    parser = _grid(
        [["", "Quar"]],
        [["(in units)", "2031"], ["Net earn", "ings 1,208"], ["Total", ""], ["", "1,300"]],
    )
    assert keeps_rows(parser, rebuilt)
    # a header's lines cut apart and interleaved by the parser, in its body: found in the rebuilt header
    header_lines = _grid([], [["(in units) Quarter", "ended 2031"], ["Net earnings", "1,208"], ["Total", "1,300"]])
    assert keeps_rows(header_lines, rebuilt)
    # a row glued from two printed rows is found in two rebuilt rows, its glued figures as the printed ones
    glued = _grid([], [["Net earnings Total", "1,2081,300"]])
    assert keeps_rows(glued, rebuilt)


def test_keeps_rows_refuses_lost_and_merged_rows():
    parser = _grid([], [["Seed sales", "4,215"], ["Orchard rentals", "612"], ["Net earnings", "1,208"]])
    lost = _grid([], [["Seed sales", "4,215"], ["Net earnings", "1,208"]])
    assert not keeps_rows(parser, lost)
    # two data rows read as one: every word and figure is there, but a row is gone
    merged = _grid([], [["Seed sales Orchard rentals", "4,215 612"], ["Net earnings", "1,208"]])
    assert not keeps_rows(parser, merged)
    # the same figure twice must be printed twice
    twice = _grid([], [["Seed sales", "612"], ["Orchard rentals", "612"]])
    assert not keeps_rows(twice, _grid([], [["Seed sales Orchard rentals", "612"]]))
    # a data row the rebuild took for a line of its header is lost, though its words and figures are there
    dosed = _grid([["Drug", "Dose"]], [["Alpha", "2.5 mg"], ["Beta", "30 mg"], ["Gamma", "1 mg"]])
    into_header = _grid([["Drug", "Dose"], ["Alpha", "2.5 mg"]], [["Beta", "30 mg"], ["Gamma", "1 mg"]])
    assert not keeps_rows(dosed, into_header)
    # rows out of order are not the parser's rows
    swapped = _grid([], [["Orchard rentals", "612"], ["Seed sales", "4,215"], ["Net earnings", "1,208"]])
    assert not keeps_rows(parser, swapped)
