"""Table-row outlines of the parser's header row when the parser's table is joined to the loose rows above it.

A page drawn here (reportlab, Helvetica): a caption, a two-column table whose column names and first row the parser
gave as loose text blocks, and the rest as a table block whose header row is the table's second row (the parser saw
a table only from there). The loose table takes the parser's table in (:mod:`structaware_readers.loose_tables`):
its header row becomes a body row, boxed from the top of the parser's table to its first body row's box, as stage 8
left it. Rows of the parser's table are placed by stage 8 first, as the loader does.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType

W, H = 612.0, 792.0
LEAD, SIZE = 14.0, 10.0
X0, X1, X2 = 80.0, 200.0, 540.0
CAPTION = "Table 7. Outline of the refresher course for kit users"
HEADER = ["Part", "Topics"]
#: Each row: its label, its topic lines. The first is loose; the second is the parser's header row.
ROWS = [
    ("Opening the kit", ["• Naming each part of the kit", "• Checking the seal and the date"]),
    ("Reading strips", ["• Where the coloured bands appear"]),
    ("Cleaning up", ["• Sealing used strips in the bin", "• Wiping the bench"]),
    ("Keeping records", ["• Writing each result in the daybook"]),
]


def _draw(path: Path) -> list[float]:
    """The page; returns each row's top (the header's first) and the table's bottom, in points from the top."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.8 * LEAD), line)

    text(X0, 80.0, CAPTION)
    tops = [110.0]
    text(X0, tops[0], HEADER[0])
    text(X1, tops[0], HEADER[1])
    top = tops[0] + LEAD + 8
    for label, lines in ROWS:
        tops.append(top)
        text(X0, top, label)
        for k, line in enumerate(lines):
            text(X1, top + k * LEAD, line)
        top += len(lines) * LEAD + 8
    tops.append(top)
    for y in tops[1:]:
        c.line(X0, H - (y - 4), X2, H - (y - 4))
    c.save()
    return tops


def _box(x0: float, top: float, x1: float, bottom: float) -> tuple[float, float, float, float]:
    return (x0 / W, top / H, x1 / W, bottom / H)


def _units(pdf: Path, tops: list[float]) -> list[Unit]:
    """The row units of the page as the loader builds them: stage 8 boxes the parser's table, then the loose table
    above takes it in."""
    from structaware_readers.loose_tables import gather_loose_tables
    from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
    from structaware_readers.units import build_units

    def block(n: int, kind: BlockKind, text: str, box: tuple[float, float, float, float], **kw) -> Block:
        return Block(block_id=f"p1-e{n}", kind=kind, page=1, text=text, bbox=box, **kw)

    label, lines = ROWS[0]
    blocks = [
        block(0, BlockKind.PARAGRAPH, CAPTION, _box(X0, 80, X2, 80 + LEAD)),
        block(1, BlockKind.PARAGRAPH, HEADER[0], _box(X0, tops[0], X0 + 30, tops[0] + LEAD)),
        block(2, BlockKind.PARAGRAPH, HEADER[1], _box(X1, tops[0], X1 + 40, tops[0] + LEAD)),
        block(3, BlockKind.PARAGRAPH, label, _box(X0, tops[1], X0 + 80, tops[1] + LEAD)),
        block(4, BlockKind.PARAGRAPH, "\n".join(lines), _box(X1, tops[1], X2 - 80, tops[1] + 2 * LEAD)),
    ]
    rest = [(lab, " ".join(ls)) for lab, ls in ROWS[1:]]
    grid = TableGrid(header_rows=[list(rest[0])], body_rows=[list(r) for r in rest[1:]], grid_source="parser_html")
    text = "\n".join(" | ".join(r) for r in rest)
    blocks.append(block(5, BlockKind.TABLE, text, _box(X0 - 2, tops[2] - 4, X2, tops[-1] - 4), table=grid))
    doc = ParsedDocument(
        doc_id="joined001", source=str(pdf), name="joined", parser="mineru", page_count=1, blocks=blocks
    )
    doc = gather_loose_tables(add_row_boxes(doc, pdf), pdf)
    return [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    pdf = tmp_path_factory.mktemp("rows") / "joined_header.pdf"
    tops = _draw(pdf)
    return pdf, tops, _units(pdf, tops)


def _row(units: list[Unit], label: str) -> Unit:
    return next(u for u in units if u.table is not None and u.table.cells[0] == label)


def test_the_parsers_header_row_gets_its_own_outline(page) -> None:
    """The parser's header row, a body row of the joined table, is outlined on its own line: its outline holds its
    label and topic and none of the rows above or below."""
    pdf, _, units = page
    assert [u.table.cells[0] for u in units] == [label for label, _ in ROWS]  # type: ignore[union-attr]
    label, lines = ROWS[1]
    own = unit_outlines(_row(units, label), (W, H))
    for ch in char_boxes(pdf, [label, *lines]):
        assert holds(own, ch), (label, ch, own)
    for other, other_lines in (ROWS[0], ROWS[2]):
        for ch in char_boxes(pdf, [other, *other_lines]):
            assert not over(own, ch), (label, other, ch, own)


def test_the_rows_around_keep_their_outlines(page) -> None:
    """The trap: the loose row above and the parser's body rows below keep outlines of their own lines."""
    pdf, _, units = page
    for i in (0, 2, 3):
        label, lines = ROWS[i]
        own = unit_outlines(_row(units, label), (W, H))
        for ch in char_boxes(pdf, [label, *lines]):
            assert holds(own, ch), (label, ch, own)
        for j, (other, other_lines) in enumerate(ROWS):
            if j != i:
                for ch in char_boxes(pdf, [other, *other_lines]):
                    assert not over(own, ch), (label, other, ch, own)
