"""A table the parser split into a picture and loose figures, whose ruling lines frame only its body rows.

Generated input, built here (reportlab, Helvetica, made-up figures): a four-column table whose column
header (the years) is printed above cell borders drawn round the body rows only. The parser gave the
label column and the first columns as a picture whose box ends inside the third column, and each
figure of the third and fourth columns as a paragraph of its own. Read with its ruling lines, the
region's grid leaves the header out (less than the pieces' words); read as a borderless table, it holds
every piece, so the pieces become one table whose figures are the printed ones, none cut at the
picture's edge.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab")

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.table_recovery import recover_table_grids

W, H, SIZE = 612.0, 792.0, 9.0
#: right edges of the value columns (points); the label column starts at LEFT
RIGHTS = [330.0, 400.0, 480.0, 550.0]
LEFT = 60.0
PERIODS = ["Quarter", "Quarter", "Year", "Year"]
YEARS = ["2032", "2031", "2032", "2031"]
ROWS = [
    ["Orchard sales", "1,548,762", "1,527,818", "5,734,173", "5,362,912"],
    ["Seed stock", "897,943", "636,130", "3,057,145", "1,690,037"],
    ["Cider and juice", "710,646", "515,049", "2,604,238", "1,391,605"],
    ["Tours and tastings", "421,691", "369,577", "1,686,236", "1,009,503"],
    ["Grants received", "13,174", "8,318", "45,693", "226,083"],
    ["Storage fees", "252,602", "198,578", "937,272", "600,942"],
    ["Packing costs", "(137,132)", "(201,477)", "(594,954)", "(799,593)"],
    ["Net result", "3,592,216", "3,056,892", "13,127,485", "9,680,140"],
]
HEADER_TOP, BODY_TOP, LEAD = 136.0, 168.0, 16.0
#: the picture's right edge (points): inside the third column's figures
PICTURE_RIGHT = 455.0


def _pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    for x, period, year in zip(RIGHTS, PERIODS, YEARS):
        c.drawRightString(x, H - (HEADER_TOP + 11), period)
        c.drawRightString(x, H - (HEADER_TOP + 25), year)
    edges = [LEFT - 5, 250.0, 340.0, 410.0, 490.0, 560.0]
    for r, row in enumerate(ROWS):
        top = BODY_TOP + r * LEAD
        c.drawString(LEFT, H - (top + 11), row[0])
        for x, cell in zip(RIGHTS, row[1:]):
            c.drawRightString(x, H - (top + 11), cell)
        for x0, x1 in zip(edges, edges[1:]):  # cell borders round the body rows only
            c.rect(x0, H - (top + LEAD), x1 - x0, LEAD, stroke=1, fill=0)
    c.save()


def _box(x0: float, top: float, x1: float, bottom: float) -> tuple[float, float, float, float]:
    return (x0 / W, top / H, x1 / W, bottom / H)


def _doc(pdf: Path, *, last_column: bool = True) -> ParsedDocument:
    """The parser's pieces: the picture (the column header, the labels, the first two columns) and each
    figure of the third and (``last_column``) fourth columns as a paragraph."""
    bottom = BODY_TOP + len(ROWS) * LEAD
    picture_text = "\n".join(
        [" ".join(PERIODS), " ".join(YEARS), *("        ".join(row[:3]) for row in ROWS)]
    )  # what the parser read in the picture: the third column cut off
    blocks = [
        Block(
            block_id="p1-e0",
            kind=BlockKind.FIGURE,
            page=1,
            text=picture_text,
            bbox=_box(LEFT - 5, HEADER_TOP, PICTURE_RIGHT, bottom),
            source_type="image",
        )
    ]
    columns = [2, 3] if last_column else [2]
    for r, row in enumerate(ROWS):
        top = BODY_TOP + r * LEAD
        for col in columns:
            blocks.append(
                Block(
                    block_id=f"p1-e{len(blocks)}",
                    kind=BlockKind.PARAGRAPH,
                    page=1,
                    text=row[col + 1],
                    bbox=_box(RIGHTS[col] - 45, top + 2, RIGHTS[col], top + 12),
                )
            )
    return ParsedDocument(
        doc_id="5" * 16,
        name="split_ruled_part",
        source=str(pdf),
        parser="mineru",
        input_format="test",
        page_count=1,
        blocks=blocks,
    )


def test_pieces_under_a_header_outside_the_rules_are_one_table_with_whole_figures(tmp_path):
    pdf = tmp_path / "split_ruled_part.pdf"
    _pdf(pdf)
    out = recover_table_grids(_doc(pdf), pdf)
    tables = [b for b in out.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    grid = tables[0].table
    assert grid is not None and grid.grid_source == "pdf_text_layer"
    body = [[" ".join(c.split()) for c in row] for row in grid.body_rows]
    assert body == ROWS  # every figure whole, the third column's not cut at the picture's edge
    assert any([c for c in row if c] == YEARS for row in grid.header_rows), (grid.title, grid.header_rows)
    assert not [b for b in out.blocks if b.kind is BlockKind.PARAGRAPH]  # every piece taken in


def test_pieces_without_a_column_printed_on_their_rows_stay_apart(tmp_path):
    """The pieces miss the fourth column (printed on their rows, right of them): a borderless reading
    of their region would hold part of each row, so they are not joined."""
    pdf = tmp_path / "split_ruled_part.pdf"
    _pdf(pdf)
    out = recover_table_grids(_doc(pdf, last_column=False), pdf)
    assert not any(b.extra_ids for b in out.blocks)
    assert len([b for b in out.blocks if b.kind is BlockKind.PARAGRAPH]) == len(ROWS)
