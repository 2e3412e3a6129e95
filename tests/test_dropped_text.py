"""Text a parser dropped or set apart, given back from the PDF's text layer (:mod:`structaware_readers.text.restore`).

Contents lines whose titles the parser took out as headings, a footnote letter dropped with its spaces, and words
a parser dropped from a short block, gluing their neighbours. PDFs generated here, with text written for them.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.text.layer import document_words, page_words
from structaware_readers.text.restore import restore_from_text_layer, restore_text

FONT, SIZE = "Helvetica", 9
WIDTH, HEIGHT = letter


def _pdf(path: Path, lines: list[tuple[float, float, str]]) -> Path:
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont(FONT, SIZE)
    for x, y, text in lines:
        c.drawString(x, y, text)
    c.showPage()
    c.save()
    return path


def _box(x0: float, x1: float, top: float, bottom: float) -> tuple[float, float, float, float]:
    """A box (0..1, top-left origin) around text drawn between ``x0`` and ``x1`` with baselines ``top`` .. ``bottom``."""
    return (x0 / WIDTH, (HEIGHT - top - SIZE - 1) / HEIGHT, x1 / WIDTH, (HEIGHT - bottom + 3) / HEIGHT)


def _doc(*blocks: Block) -> ParsedDocument:
    return ParsedDocument(doc_id="0" * 16, name="d", source="d.pdf", parser="mineru", page_count=1, blocks=list(blocks))


def test_contents_lines_get_back_the_titles_the_parser_set_apart_as_headings(tmp_path):
    pdf = _pdf(
        tmp_path / "contents.pdf",
        [
            (72, 720, "Part One"),
            (72, 706, "Item 1. Overview of the Plan 4"),
            (72, 692, "Item 2. Garden Layout 9"),
            (72, 678, "Item 3. Seasonal Planting Notes 12"),
            (72, 600, "Item 4. Watering 15"),
            (72, 560, "Watering"),
        ],
    )
    items = ["Part One", "Item 1. Overview of the Plan 4", "Item 2. 9", "Item 3. 12", "Item 4. 15"]
    blocks = [
        Block(
            block_id="p1-e0",
            kind=BlockKind.LIST,
            page=1,
            text="\n".join(items),
            items=items,
            bbox=_box(72, 400, 720, 600),
        ),
        Block(block_id="p1-e1", kind=BlockKind.HEADING, page=1, text="Garden Layout", bbox=_box(110, 200, 692, 692)),
        Block(
            block_id="p1-e2",
            kind=BlockKind.HEADING,
            page=1,
            text="Seasonal Planting Notes",
            bbox=_box(110, 240, 678, 678),
        ),
        # trap: a heading below the list's box is the section it opens, though its words end a line's gap
        Block(block_id="p1-e3", kind=BlockKind.HEADING, page=1, text="Watering", bbox=_box(72, 120, 560, 560)),
    ]
    out = restore_from_text_layer(_doc(*blocks), pdf)
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e3"]
    want = [
        "Part One",
        "Item 1. Overview of the Plan 4",
        "Item 2. Garden Layout 9",
        "Item 3. Seasonal Planting Notes 12",
    ]
    assert out.blocks[0].items == [*want, "Item 4. 15"]
    assert out.blocks[0].text == "\n".join([*want, "Item 4. 15"])


def test_a_heading_the_line_does_not_print_stays_a_heading(tmp_path):
    pdf = _pdf(tmp_path / "contents.pdf", [(72, 720, "Item 1. Garden Layout 9"), (72, 706, "Item 2. 12")])
    items = ["Item 1. 9", "Item 2. 12"]
    blocks = [
        Block(
            block_id="p1-e0",
            kind=BlockKind.LIST,
            page=1,
            text="\n".join(items),
            items=items,
            bbox=_box(72, 400, 720, 706),
        ),
        # trap: inside the box, but the page prints no line with it between ``Item 2.`` and ``12``
        Block(block_id="p1-e1", kind=BlockKind.HEADING, page=1, text="Soil", bbox=_box(110, 140, 706, 706)),
    ]
    out = restore_from_text_layer(_doc(*blocks), pdf)
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1"]
    assert out.blocks[0].items == ["Item 1. 9", "Item 2. 12"]


def test_words_set_apart_by_a_footnote_letter_the_parser_dropped_get_their_space():
    text = "See the guides: https://example.org/Care-and-Family-Resources d See the list here: https://example.org/list"
    words, compounds = document_words([text])
    page = page_words(text, words, compounds)
    assert restore_text("Family-ResourcesSee the list here", page) == "Family-Resources See the list here"
    # trap: a lone letter before a word in lower case is no mark that opens a sentence: left glued
    page = page_words("give the dose b daily", *document_words(["give the dose b daily"]))
    assert restore_text("dosedaily", page) == "dosedaily"


def _cell_pdf(path: Path) -> Path:
    return _pdf(
        path,
        [
            (72, 720, "The mean-adjusted unit price is given per crate."),
            (300, 680, "Mean-"),
            (300, 670, "adjusted"),
            (300, 660, "unit price"),
        ],
    )


def test_a_short_block_whose_glued_word_hides_dropped_words_is_read_from_its_box(tmp_path):
    pdf = _cell_pdf(tmp_path / "cell.pdf")
    cell = Block(
        block_id="p1-e1", kind=BlockKind.PARAGRAPH, page=1, text="Meanunit price", bbox=_box(298, 360, 680, 660)
    )
    out = restore_from_text_layer(_doc(cell), pdf)
    assert out.blocks[0].text == "Mean-adjusted unit price"


def test_a_box_that_prints_other_words_than_the_glued_ones_hide_is_not_taken(tmp_path):
    pdf = _cell_pdf(tmp_path / "cell.pdf")
    # trap: the block holds a word its box does not print (``crates``): the box is not the block's text
    cell = Block(
        block_id="p1-e1", kind=BlockKind.PARAGRAPH, page=1, text="Meanunit price crates", bbox=_box(298, 360, 680, 660)
    )
    out = restore_from_text_layer(_doc(cell), pdf)
    assert out.blocks[0].text == "Meanunit price crates"
