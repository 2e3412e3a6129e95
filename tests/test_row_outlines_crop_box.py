"""Row outlines of a page whose CropBox lies inside its MediaBox: boxes are 0..1 of the page a viewer shows.

A viewer (and the parser, which renders pages as PDFium does) shows a page's CropBox; pdfplumber places glyphs on
the whole MediaBox. Generated input (reportlab, written here; made-up words and figures): a borderless table with a
sentence printed just above it and a note just below, on a letter-size MediaBox whose CropBox is cut unevenly (30
points off the left, 22 off the right, 20 off the bottom, 42 off the top). The parser gives the table no cells,
only its region (0..1 of the shown page), so the grid is read from the text layer and its rows boxed from it. Each
row must read as printed and its unit outline its own characters (within :data:`pdf_chars.TOL` points of PDFium's
positions on the shown page) and none of the other rows, the sentence or the note. The same holds on a page turned
by ``/Rotate 90`` with that CropBox. The trap: the same drawing on a page whose CropBox is its MediaBox is read as
the page itself, uncut.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, recovered_row_units, unit_outlines
from structaware_readers.models import Unit
from structaware_readers.table_recovery.shown_page import shown_page

MEDIA = (612.0, 792.0)
#: CropBoxes (PDF points, origin bottom-left) and page turns of the cases
CASES = {
    "cut": ((30.0, 20.0, 590.0, 750.0), 0),
    "turned": ((30.0, 20.0, 590.0, 750.0), 90),
    "whole": ((0.0, 0.0, 612.0, 792.0), 0),
}
FONT, SIZE, LEAD = "Helvetica", 9.0, 14.0
#: left of the label column and right edges of the two figure columns (points from the shown page's left)
LEFT, RIGHTS = 60.0, [330.0, 420.0]
TOP = 150.0  # the header's top (points from the shown page's top)
HEADER = ["Orchard", "2041", "2040"]
ROWS = [
    ["Pear grafts", "1,482", "1,377"],
    ["Quince stock", "906", "874"],
    ["Medlar cuttings", "2,115", "1,968"],
    ["Sorb seedlings", "341", "402"],
]
ABOVE = "Grafting figures below are counted at the close of each season."
BELOW = "Seedlings lost to frost are left out."


def _shown_size(crop: tuple[float, float, float, float], turn: int) -> tuple[float, float]:
    width, height = crop[2] - crop[0], crop[3] - crop[1]
    return (height, width) if turn in (90, 270) else (width, height)


def _pdf(path: Path, case: str) -> tuple[float, float]:
    """The page of ``case``; returns the shown page's size (points)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    crop, turn = CASES[case]
    width, height = _shown_size(crop, turn)
    pagesize = MEDIA[::-1] if turn in (90, 270) else MEDIA  # reportlab writes a turned page's MediaBox turned back
    c = canvas.Canvas(str(path), pagesize=pagesize, invariant=1)
    if case != "whole":
        c.setCropBox(crop)
    c.setPageRotation(turn)
    if turn == 90:  # drawn turned back, so the shown page prints it upright
        c.transform(0, 1, -1, 0, crop[0] + height, crop[1])
    else:
        c.translate(crop[0], crop[1])
    c.setFont(FONT, SIZE)

    def line(top: float, cells: list[str]) -> None:
        c.drawString(LEFT, height - top - SIZE, cells[0])
        for right, cell in zip(RIGHTS, cells[1:]):
            c.drawString(right - stringWidth(cell, FONT, SIZE), height - top - SIZE, cell)

    line(TOP - LEAD, [ABOVE])
    for k, cells in enumerate([HEADER, *ROWS]):
        line(TOP + k * LEAD, cells)
    line(TOP + (len(ROWS) + 1) * LEAD, [BELOW])
    c.showPage()
    c.save()
    return width, height


def _rows(pdf: Path, size: tuple[float, float]) -> list[Unit]:
    width, height = size
    bottom = TOP + len(ROWS) * LEAD + SIZE + 2
    region = ((LEFT - 4) / width, (TOP - 2) / height, (RIGHTS[-1] + 4) / width, bottom / height)
    return recovered_row_units(pdf, region, "orchard")


@pytest.mark.parametrize("case", list(CASES))
def test_rows_are_outlined_on_the_page_a_viewer_shows(tmp_path, case) -> None:
    pdf = tmp_path / f"{case}.pdf"
    size = _pdf(pdf, case)
    units = _rows(pdf, size)
    assert [u.table.cells for u in units] == ROWS  # type: ignore[union-attr]
    lines = [" ".join(row) for row in ROWS]
    printed = [char_boxes(pdf, [row[0]], printed_once=True) + char_boxes(pdf, row[1:]) for row in ROWS]
    around = char_boxes(pdf, [ABOVE, BELOW], printed_once=True)
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, size)
        assert outlines, lines[r]
        for ch in printed[r]:
            assert holds(outlines, ch), (case, lines[r], ch, outlines)
        others = [ch for k, chars in enumerate(printed) if k != r for ch in chars]
        assert not any(over(outlines, ch) for ch in others + around), (case, lines[r], outlines)


def test_a_page_shown_whole_is_read_uncut(tmp_path) -> None:
    import pdfplumber

    whole, cut = tmp_path / "whole.pdf", tmp_path / "cut.pdf"
    _pdf(whole, "whole")
    _pdf(cut, "cut")
    with pdfplumber.open(whole) as plumber:
        assert shown_page(plumber, 1) is plumber.pages[0]
    with pdfplumber.open(cut) as plumber:
        page = shown_page(plumber, 1)
        assert tuple(page.bbox) == (30.0, 42.0, 590.0, 772.0)
        assert page.root_page is plumber.pages[0]
