"""A numbered entry a parser cut at its number is read back as the page prints it: its number, its
first line, the rest; never ``5. 18 and over`` (a number the page does not print) under a heading
that is the entry's first line. Blocks written here, placed as MinerU places such a cut."""

from __future__ import annotations

from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.entry_numbers import join_entry_numbers
from structaware_readers.units import build_units
from synthetic_docs import synthetic_doc

FIRST = "Survey Office. Share of adults with a high reading on the scale among those aged"
REST = "40 and over: two regions, 2001 through 2011. 2012; https://example.org/survey/2012.htm."


def _blocks() -> list[Block]:
    return [
        Block(
            block_id="p1-e0", kind=BlockKind.HEADING, level=1, text="References", page=1, bbox=(0.12, 0.09, 0.23, 0.11)
        ),
        Block(block_id="p1-e1", kind=BlockKind.HEADER, text="1.", page=1, bbox=(0.118, 0.123, 0.13, 0.14)),
        Block(
            block_id="p1-e2",
            kind=BlockKind.PARAGRAPH,
            text="Office of Records. Guide to the guide. Second edition; Revised March 3, 2019.",
            page=1,
            bbox=(0.165, 0.123, 0.83, 0.156),
        ),
        Block(
            block_id="p1-e3",
            kind=BlockKind.PARAGRAPH,
            text="2. Smith AB, Jones CD. A trial of walking. J Walk. 2017;12(3):45-52.",
            page=1,
            bbox=(0.118, 0.157, 0.877, 0.205),
        ),
        Block(block_id="p1-e4", kind=BlockKind.HEADING, level=2, text=FIRST, page=1, bbox=(0.165, 0.206, 0.881, 0.222)),
        Block(block_id="p1-e5", kind=BlockKind.PARAGRAPH, text=f"3. {REST}", page=1, bbox=(0.118, 0.206, 0.742, 0.253)),
        Block(
            block_id="p1-e6",
            kind=BlockKind.PARAGRAPH,
            text="4. Brown EF, et al. Sleep and weight. Lancet. 2014;384(9945):755-765.",
            page=1,
            bbox=(0.118, 0.255, 0.876, 0.303),
        ),
    ]


def test_first_line_set_apart_goes_back_after_the_number():
    doc = join_entry_numbers(synthetic_doc(_blocks()))
    texts = [b.text for b in doc.blocks]
    assert f"3. {FIRST} {REST}" in texts
    assert FIRST not in texts and f"3. {REST}" not in texts
    entry = next(b for b in doc.blocks if b.text.startswith("3. "))
    assert (entry.block_id, entry.bbox) == ("p1-e5", (0.118, 0.206, 0.881, 0.253))


def test_lone_number_goes_back_before_its_entry():
    doc = join_entry_numbers(synthetic_doc(_blocks()))
    assert doc.blocks[1].text.startswith("1. Office of Records.")
    assert all(b.text != "1." for b in doc.blocks)


def test_reference_units_start_where_the_page_prints_them():
    units = [u for u in build_units(prepare_document(synthetic_doc(_blocks()))) if u.unit_type.value == "reference"]
    text = " ".join(u.text for u in units)
    assert f"3. {FIRST} {REST}" in text and "3. 40" not in text
    assert text.startswith("1. Office of Records.")
    assert all(u.section_path == ["References"] for u in units)  # the entry's first line is no section


def test_blocks_on_other_lines_or_far_right_stay_apart():
    blocks = _blocks()
    blocks[4] = blocks[4].model_copy(update={"bbox": (0.165, 0.19, 0.881, 0.205)})  # a line above the entry
    blocks[1] = blocks[1].model_copy(update={"bbox": (0.118, 0.30, 0.13, 0.32)})  # a number on another line
    doc = join_entry_numbers(synthetic_doc(blocks))
    assert doc is not None and [b.text for b in doc.blocks] == [b.text for b in blocks]
    far = _blocks()
    far[4] = far[4].model_copy(update={"bbox": (0.5, 0.206, 0.881, 0.222)})  # the next column, not an indent
    far[1] = far[1].model_copy(update={"bbox": (0.118, 0.30, 0.13, 0.32)})
    assert [b.text for b in join_entry_numbers(synthetic_doc(far)).blocks] == [b.text for b in far]
