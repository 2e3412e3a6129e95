"""Character positions read from a test PDF's text layer (PDFium), and a unit's outlines in the same frame,
for tests that check evidence outlines against where the page prints the text.

Boxes are ``(x0, y0, x1, y1)`` in PDF points from the page's top-left corner.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType

Box = tuple[float, float, float, float]

#: How far (points) a printed character may lie outside an outline that holds it.
TOL = 2.0


def char_boxes(pdf: Path, lines: list[str], *, printed_once: bool = False) -> list[Box]:
    """The boxes of the printed characters of each of ``lines`` on page 1, each line found by searching
    the text layer for it (its first occurrence; ``printed_once``: asserting there is no second)."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[0]
        width, height = (int(v) for v in page.get_size())
        textpage = page.get_textpage()
        x, y = ctypes.c_int(), ctypes.c_int()
        out = []
        for line in lines:
            searcher = textpage.search(line, match_case=True, match_whole_word=False)
            found = searcher.get_next()
            assert found is not None, line
            if printed_once:
                assert searcher.get_next() is None, f"{line!r} is printed twice"
            start, count = found
            for i in range(start, start + count):
                if not textpage.get_text_range(i, 1).strip():
                    continue
                left, bottom, right, top = textpage.get_charbox(i)
                corners = []
                for px, py in ((left, top), (right, bottom)):
                    pdfium_c.FPDF_PageToDevice(page, 0, 0, width, height, 0, px, py, ctypes.byref(x), ctypes.byref(y))
                    corners.append((x.value, y.value))
                (x0, x1), (y0, y1) = sorted(c[0] for c in corners), sorted(c[1] for c in corners)
                out.append((x0, y0, x1, y1))
        return out
    finally:
        doc.close()


def unit_outlines(unit: Unit, size: tuple[float, float]) -> list[Box]:
    """The unit's bboxes (0..1 of the page) in points on a page of ``size`` (width, height)."""
    w, h = size
    return [(b[0] * w, b[1] * h, b[2] * w, b[3] * h) for b in unit.bboxes if b is not None]


def holds(outlines: list[Box], ch: Box, tol: float = TOL) -> bool:
    """One of ``outlines`` holds the character box ``ch`` whole, within ``tol`` points."""
    return any(
        o[0] - tol <= ch[0] and o[1] - tol <= ch[1] and ch[2] <= o[2] + tol and ch[3] <= o[3] + tol for o in outlines
    )


def over(outlines: list[Box], ch: Box) -> bool:
    """The middle of the character box ``ch`` lies inside one of ``outlines``."""
    mx, my = (ch[0] + ch[2]) / 2, (ch[1] + ch[3]) / 2
    return any(o[0] <= mx <= o[2] and o[1] <= my <= o[3] for o in outlines)


def row_units(pdf: Path, grid: TableGrid, region: Box, name: str) -> list[Unit]:
    """The table-row units of a one-page document whose one table block is ``grid`` in ``region`` (0..1 of
    page 1, top-left), boxed against ``pdf``'s text layer (stage 8) as the loader does."""
    from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
    from structaware_readers.units import build_units

    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region, table=grid)
    doc = ParsedDocument(doc_id=f"{name}001", source=str(pdf), name=name, parser="mineru", page_count=1, blocks=[block])
    return [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]


def recovered_row_units(pdf: Path, region: Box, name: str) -> list[Unit]:
    """The table-row units of a one-page document whose one table block the parser left without cells, only its
    ``region`` (0..1 of page 1, top-left): its grid read from ``pdf``'s text layer and its rows boxed, as the loader
    does."""
    from structaware_readers.table_recovery import recover_tables
    from structaware_readers.units import build_units

    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text="", bbox=region)
    doc = ParsedDocument(doc_id=f"{name}001", source=str(pdf), name=name, parser="mineru", page_count=1, blocks=[block])
    return [u for u in build_units(recover_tables(doc, pdf, pdf)) if u.unit_type is UnitType.TABLE_ROW]


def check_own_columns(
    pdf: Path, units: list[Unit], columns: list[list[str]], region: Box, size: tuple[float, float]
) -> None:
    """Each table unit ``r`` (``row_index``) is outlined as printed column ``columns[r]`` (its lines' texts): every
    character of that column held, none of another column's under an outline, and no outline the whole ``region``
    (0..1 of the page; ``size`` the page's width and height in points). Raises ``AssertionError``."""
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == list(range(len(columns))), sorted(by_row)
    chars = [[box for line in col for box in char_boxes(pdf, [line])] for col in columns]
    whole = tuple(v * s for v, s in zip(region, (*size, *size)))
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, size)
        assert outlines and all(o != whole for o in outlines), (unit.text, outlines)
        for box in chars[r]:
            assert holds(outlines, box), (unit.text, box, outlines)
        for k, boxes in enumerate(chars):
            assert k == r or not any(over(outlines, box) for box in boxes), (unit.text, columns[k])
