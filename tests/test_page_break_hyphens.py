"""A word hyphenated where a page ends, its second half starting the next page: the joined paragraph writes it
as the writer meant it (the document's text layer says which), never as ``on- line``.

Generated input (reportlab, text written for the test): a page printing the compound ``on-line`` inside a line
and the word ``manufactured`` whole.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfgen import canvas

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.structure.continuations import join_continued_paragraphs
from structaware_readers.text.layer import PdfTextLayer

BODY = (0.1, 0.3, 0.9, 0.5)


def _layer(path: Path) -> PdfTextLayer:
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Helvetica", 10)
    for k, line in enumerate(["We sell on-line and in the shop to all members.", "Goods are manufactured abroad."]):
        c.drawString(72, 700 - 14 * k, line)
    c.save()
    return PdfTextLayer(path)


def _joined(first: str, second: str, hyphen) -> str:
    blocks = [
        Block(block_id="p1-e0", kind=BlockKind.PARAGRAPH, text=first, page=1, bbox=BODY),
        Block(block_id="p2-e0", kind=BlockKind.PARAGRAPH, text=second, page=2, bbox=BODY),
    ]
    doc = ParsedDocument(doc_id="d" * 16, source="x.json", name="x", parser="mineru", page_count=2, blocks=blocks)
    (out,) = join_continued_paragraphs(doc, hyphen).blocks
    return out.text


def test_a_compound_hyphenated_at_a_page_end_keeps_its_hyphen_and_loses_the_space(tmp_path):
    layer = _layer(tmp_path / "words.pdf")
    assert _joined("For our on-", "line orders we ship", layer.line_end_hyphen) == "For our on-line orders we ship"


def test_a_word_hyphenated_at_a_page_end_is_one_word(tmp_path):
    layer = _layer(tmp_path / "words.pdf")
    assert _joined("Goods are manu-", "factured abroad.", layer.line_end_hyphen) == "Goods are manufactured abroad."


def test_a_suspended_hyphen_and_a_join_without_a_layer_keep_the_space(tmp_path):
    layer = _layer(tmp_path / "words.pdf")
    assert _joined("both short-", "and long-term", layer.line_end_hyphen) == "both short- and long-term"
    assert _joined("For our on-", "line orders", None) == "For our on- line orders"
