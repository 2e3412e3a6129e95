"""A long paragraph is cut into units at sentence ends only, each piece a slice of its text.

The fault: the cut once split after every dot and joined the pieces with a space, so ``1.73``
became ``1. 73`` and ``i.e.`` became ``i. e.``, and a unit could end inside a number.
"""

from __future__ import annotations

import re
from pathlib import Path

from structaware_readers.mineru import read_mineru
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.units import UnitOptions, build_units
from structaware_readers.units.common import sentences, title

CDC = (
    Path(__file__).parent
    / "fixtures"
    / "mineru"
    / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
)
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

PARAGRAPH = (
    "Empagliflozin reduced the risk of progression (HR 0.71; 95% CI 0.58-0.87) in adults with an eGFR of "
    "at least 20 ml/min per 1.73 m2, i.e. across the whole range studied. The effect was consistent, e.g. "
    "in people with and without diabetes (p = 0.004). Smith et al. found a mean change of -2.5 ml/min per "
    "1.73 m2 per year over 2.0 years. The proportion fell from 72.0% in 2014–2015 to 61.5% (0.\n72 of the "
    "earlier value) in 2019–2020. See Fig. 3 and Table 2.1 for the dose of 12.5 mg. "
) * 6


def _doc(text: str) -> ParsedDocument:
    blocks = [
        Block(block_id="p1-e1", kind=BlockKind.HEADING, text="1 Results", page=1, level=1),
        Block(block_id="p1-e2", kind=BlockKind.PARAGRAPH, text=text, page=1),
    ]
    return ParsedDocument(doc_id="c" * 16, source="cuts.pdf", name="cuts", parser="test", page_count=1, blocks=blocks)


def test_sentences_are_slices_that_join_back_to_the_text():
    pieces = sentences(PARAGRAPH)
    assert "".join(pieces) == PARAGRAPH
    assert len(pieces) > 20
    # no cut after a dot inside a number, an abbreviation or a number broken over two lines
    for a, b in zip(pieces, pieces[1:]):
        assert not (a.rstrip().endswith(("0.", "i.e.", "e.g.", "al.", "Fig.")) and b[:1].isdigit() | b[:1].islower())
    # the trap: a real sentence end after a number is still a cut
    assert sentences("It was 2.5 mg. Then 3.0 mg.") == ["It was 2.5 mg. ", "Then 3.0 mg."]
    assert sentences("中文第一句。第二句") == ["中文第一句。", "第二句"]


def test_a_long_section_is_cut_without_changing_a_number():
    units = build_units(_doc(PARAGRAPH), UnitOptions(max_section_chars=400))
    sections = [u for u in units if u.unit_type is UnitType.SECTION]
    assert len(sections) >= 4
    for u in sections:
        assert u.text in PARAGRAPH, u.text[:80]
        assert not re.search(r"\d\. \d", u.text)
        # a unit neither starts nor ends inside a number: never a digit or a number's dot on both sides of a cut
        at = PARAGRAPH.index(u.text)
        before, after = PARAGRAPH[:at].rstrip()[-2:], u.text[:1]
        assert not (after.isdigit() and (before[-1:].isdigit() or re.fullmatch(r"\d[.,]", before))), (before, after)
    printed = NUMBER.findall(PARAGRAPH)
    assert sorted(n for u in sections for n in NUMBER.findall(u.text)) == sorted(printed)


def test_titles_keep_their_numbers():
    caption = "Table 2.1. Doses of 12.5 mg and 0.71 per 1.73 m2 for adults. " + "More words here. " * 12
    assert title(caption).startswith("Table 2.1. Doses of 12.5 mg and 0.71 per 1.73 m2 for adults.")


def test_every_number_of_a_two_column_guideline_reaches_its_units_as_printed():
    """CDC outpatient guide (public domain, two columns): each number in a unit's text is one the
    parser read in that unit's source elements."""
    doc = read_mineru(CDC / "middle_json.json")
    by_id = {b.block_id: b for b in doc.blocks}
    units = build_units(doc, UnitOptions(max_section_chars=300))
    checked = 0
    for u in units:
        if u.unit_type is not UnitType.SECTION:
            continue
        source = "\n".join(by_id[e].text for e in u.element_ids if e in by_id)
        for n in NUMBER.findall(u.text):
            assert n in source, (u.element_ids, n)
            checked += 1
        assert not re.search(r"\d\. \d", u.text) or re.search(r"\d\. \d", source)
    assert checked > 50
