"""Line breaks PDFium writes between glyphs of one line (:mod:`structaware_readers.text.glyph_lines`).

A PDF that draws each glyph as a text object of its own, on a page whose text fills more of its height than of its
width (a long table of narrow columns far apart), reads in PDFium with a line break after nearly every glyph. The
text layer the restore and the fidelity check read must print such a row as one line. PDFs generated here, with
text written for them.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.text.layer import PdfTextLayer
from structaware_readers.text.restore import restore_from_text_layer

FONT, SIZE = "Helvetica", 9
WIDTH, HEIGHT = letter
ROWS = 12
#: One row of the table: cells by their left edge, each cell as the pieces drawn as text objects of their own.
ROW = [(72, list("Orchard")), (250, list("4,512")), (350, ["2", "9", ".6"]), (450, ["(", "1", "3.1", ")"])]


def _pdf(path: Path, rows: int = ROWS) -> Path:
    """A page of ``rows`` table rows 12 points apart, drawn one piece (mostly one glyph) at a time."""
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont(FONT, SIZE)
    for r in range(rows):
        y = 740 - 12 * r
        for x, pieces in ROW:
            for piece in pieces:
                c.drawString(x, y, piece)
                x += c.stringWidth(piece, FONT, SIZE)
    c.drawString(72, 740 - 12 * rows - 30, "Cocoa yields held steady.")
    c.showPage()
    c.save()
    return path


def _doc(text: str, rows: int = ROWS) -> ParsedDocument:
    top = (HEIGHT - 740 - SIZE - 1) / HEIGHT
    bottom = (HEIGHT - 740 + 12 * rows) / HEIGHT
    block = Block(block_id="p1-e0", kind=BlockKind.PARAGRAPH, page=1, text=text, bbox=(0.1, top, 0.9, bottom))
    return ParsedDocument(doc_id="0" * 16, name="d", source="d.pdf", parser="mineru", page_count=1, blocks=[block])


def test_a_row_drawn_glyph_by_glyph_reads_as_one_line(tmp_path):
    page = PdfTextLayer(_pdf(tmp_path / "rows.pdf")).page(1)
    lines = page.text.splitlines()
    # trap: PDFium writes ``O`` / ``r`` / ``c`` ... and ``2`` / ``9.6``, one glyph a line
    assert lines[:ROWS] == ["Orchard 4,512 29.6 (13.1)"] * ROWS
    assert {"4,512", "29.6", "13.1"} <= page.tokens
    assert "orchard" in page.words
    assert lines[-1] == "Cocoa yields held steady."


def test_the_restore_keeps_a_figure_the_page_prints_whole_and_mends_a_glued_label(tmp_path):
    pdf = _pdf(tmp_path / "rows.pdf")
    out = restore_from_text_layer(_doc("Orchard4,512 29.6 (13.1)"), pdf)
    # trap: without the joined lines ``29.6`` is cut as the page's ``2`` and ``9.6``, and ``Orchard4,512`` is
    # left glued (the page prints no word ``orchard``)
    assert out.blocks[0].text == "Orchard 4,512 29.6 (13.1)"


def test_a_page_of_few_rows_is_read_as_before(tmp_path):
    """A short table fills more of the page's width than of its height: PDFium reads it in lines already."""
    page = PdfTextLayer(_pdf(tmp_path / "one.pdf", rows=1)).page(1)
    assert page.text.splitlines()[0] == "Orchard 4,512 29.6 (13.1)"


def _footer_pdf(path: Path, rows: int) -> Path:
    """A page of ``rows`` short lines ``-7-`` 12 points apart, drawn glyph by glyph, and nothing else."""
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont(FONT, SIZE)
    for r in range(rows):
        x = 290
        for ch in "-7-":
            c.drawString(x, 700 - 12 * r, ch)
            x += c.stringWidth(ch, FONT, SIZE)
    c.showPage()
    c.save()
    return path


def test_joining_a_page_s_lines_does_not_take_its_text_layer_away(tmp_path):
    """PDFium reads 34 characters (a glyph a line); joined, the page prints 18, fewer than a page with a
    text layer holds: it keeps its text layer, so its text is compared and mended."""
    page = PdfTextLayer(_footer_pdf(tmp_path / "footer.pdf", rows=4)).page(1)
    assert page is not None
    assert page.text.splitlines() == ["-7-"] * 4
    # trap: a page that prints too little as PDFium reads it still has no text layer
    assert PdfTextLayer(_footer_pdf(tmp_path / "one.pdf", rows=1)).page(1) is None
