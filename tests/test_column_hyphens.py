"""A hyphen ending a line of one column is joined only to the word the page prints after it, never to a word
of the column beside it.

A parser that reads a page of columns as one block puts the lines of both columns in one run of text and
joins a line-end hyphen (``option-``) to the next line it read, from the other column (``development``):
``optiondevelopment``, a word the page never prints. The block's text is mended against the PDF's text layer
(:mod:`structaware_readers.text.restore`): the hyphen's continuation is not confirmed, so the text is written as
printed, the hyphen kept with a space after it. A line-end hyphen whose continuation the page prints in the same
column is still read as the writer meant it.

Generated input (reportlab, text written for the test): a page of two columns, the left drawn before the right.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.text.layer import PdfTextLayer, written
from structaware_readers.text.restore import restore_from_text_layer, restore_text

LEFT = [
    "Each grant is valued with an option-",
    "pricing model at the grant date;",
    "the cost of treat-",
    "ment and of e-",
    "commerce sales is kept apart.",
]
RIGHT = [
    "Shop sales and e-commerce sales",
    "go to research and",
    "development expenses as they fall.",
]


@pytest.fixture(scope="module")
def two_columns(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("columns") / "columns.pdf"
    c = canvas.Canvas(str(path), pagesize=(612, 792))
    c.setFont("Helvetica", 10)
    for x, lines in ((72, LEFT), (330, RIGHT)):
        for k, line in enumerate(lines):
            c.drawString(x, 700 - 14 * k, line)
    c.save()
    return path


def _checker():
    path = Path(__file__).resolve().parents[1] / "scripts" / "check_fidelity.py"
    spec = importlib.util.spec_from_file_location("check_fidelity_columns", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _restored(pdf: Path, text: str) -> str:
    block = Block(block_id="p1-e0", kind=BlockKind.PARAGRAPH, text=text, page=1, bbox=(0.1, 0.1, 0.9, 0.3))
    doc = ParsedDocument(
        doc_id="c" * 16, source="columns.pdf", name="columns", parser="test", page_count=1, blocks=[block]
    )
    return restore_from_text_layer(doc, pdf).blocks[0].text


def test_the_text_layer_prints_the_hyphen_with_its_own_column(two_columns):
    page = PdfTextLayer(two_columns).page(1)
    assert page is not None
    assert page.heads["option"] == {"pricing"}  # the line after ``option-`` in its column
    assert "development" in page.words  # a word of the other column, starting a line


def test_a_line_end_hyphen_is_not_joined_to_the_other_columns_word(two_columns):
    interleaved = (
        "Each grant is valued with an optiondevelopment expenses as they fall. pricing model at the grant date;"
    )
    fixed = _restored(two_columns, interleaved)
    assert fixed == (
        "Each grant is valued with an option- development expenses as they fall. pricing model at the grant date;"
    )
    cf = _checker()
    page = cf.PdfLayers(two_columns).page(1)
    assert cf.glued_words(interleaved, page) == ["optiondevelopment"]  # what the check counts before the mend
    assert cf.glued_words(fixed, page) == [] and cf.broken_hyphens(fixed, page) == []


def test_a_hyphen_continued_in_its_own_column_is_read_as_the_writer_meant(two_columns):
    page = PdfTextLayer(two_columns).page(1)
    assert page is not None
    # trap: the page prints ``treat-`` / ``ment`` in one column: one word; ``e-`` / ``commerce``: the compound
    # the page prints inside a line keeps its hyphen
    assert restore_text("the cost of treatment and of ecommerce sales", page) == (
        "the cost of treatment and of e-commerce sales"
    )
    assert restore_text("the cost of treat- ment", page) == "the cost of treatment"
    # trap: words the page prints side by side are set apart as before, not read as a hyphen's continuation
    assert restore_text("research anddevelopment", page) == "research and development"
    # the parser reading the other column after the hyphen, the hyphen and its space already kept: as printed
    assert restore_text("an option- go to research", page) == "an option- go to research"
    # trap: the block does not hold the hyphen's continuation (the parser dropped it): no cut is made here, the
    # block is left to be read again from its box
    assert restore_text("valued with an optiondevelopment", page) == "valued with an optiondevelopment"


def test_a_box_read_again_keeps_a_hyphen_whose_continuation_lies_outside_it(two_columns):
    layer = PdfTextLayer(two_columns)
    page = layer.page(1)
    assert page is not None
    # the box holds the left column's first line and the right column's: ``option-`` is continued below the box
    box = layer.box_text(1, (0.1, 0.1, 0.9, 0.118))
    assert written(box, layer.doc_words, layer.compounds, page.breaks).split() == [
        *"Each grant is valued with an option- Shop sales and e-commerce sales".split()
    ]
    # trap: a hyphen continued inside the box is read as the writer meant it
    box = layer.box_text(1, (0.1, 0.1, 0.45, 0.19))
    assert "treatment" in written(box, layer.doc_words, layer.compounds, page.breaks)
