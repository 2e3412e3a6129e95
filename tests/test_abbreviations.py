"""Abbreviations a document defines, and the long forms BM25 indexes with a unit that uses them
unspelt (:mod:`structaware_readers.units.abbreviations`, ``Unit.expansions``, ``Unit.search_text``).

Real wording: the VA/DoD major depressive disorder guideline excerpt (public domain,
``tests/fixtures/pdf/SOURCES.md``) and quotes of VA/DoD guidelines (public domain).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit
from structaware_readers.units import UnitOptions, build_units
from structaware_readers.units.abbreviations import expansions, find_abbreviations, long_form

FIXTURES = Path(__file__).parent / "fixtures"
MDD = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_vadod_mdd_2022_excerpt"
MDD_PDF = FIXTURES / "pdf" / "vadod_mdd_2022_excerpt.pdf"


@pytest.mark.parametrize(
    ("before", "short", "want"),
    [
        ("We recommend offering electroconvulsive therapy", "ECT", "electroconvulsive therapy"),
        ("The prevalence of hypertension", "HTN", "hypertension"),
        ("patients treated with an erythropoiesis-stimulating agent", "ESA", "erythropoiesis-stimulating agent"),
        ("a one-hour glucose challenge test", "GCT", "glucose challenge test"),
        ("offer a comprehensive lifestyle intervention", "CLI", "comprehensive lifestyle intervention"),
        # the first letter starts a word that is no function word: not "and commitment therapy"
        ("such as acceptance and commitment therapy", "ACT", "acceptance and commitment therapy"),
        ("Short Form 36 Health Survey Questionnaire", "SF-36", "Short Form 36 Health Survey Questionnaire"),
    ],
)
def test_long_forms_as_guidelines_write_them(before: str, short: str, want: str) -> None:
    assert long_form(short, before) == want


@pytest.mark.parametrize(
    ("before", "short"),
    [
        ("this is a Not reviewed, Amended recommendation", "Weak for"),  # a grade in brackets
        ("the evidence was reviewed", "29"),  # a reference number
        ("costs were reported", "in millions"),  # no capital letter
        ("the study found", "SR"),  # the letters are not there in order
    ],
)
def test_brackets_that_define_nothing(before: str, short: str) -> None:
    assert long_form(short, before) is None


def _doc(*blocks: Block) -> ParsedDocument:
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=3, blocks=list(blocks))


def test_an_abbreviation_list_and_the_text_both_define_and_the_first_wins() -> None:
    table = TableGrid(
        header_rows=[["Abbreviation", "Definition"]],
        body_rows=[["ESA", "erythropoiesis-stimulating agent"], ["eGFR", "estimated glomerular filtration rate"]],
    )
    doc = _doc(
        Block(
            block_id="p1-e0",
            kind=BlockKind.PARAGRAPH,
            page=1,
            text="Anemia is treated with an erythropoietin-stimulating agent (ESA).",
        ),
        Block(block_id="p2-e0", kind=BlockKind.TABLE, page=2, text="", table=table),
        Block(
            block_id="p3-e0",
            kind=BlockKind.REFERENCE,
            page=3,
            text="12. Smith J. Kidney Disease Outcomes (KDO). 2019;3:1-9.",
        ),
    )
    got = find_abbreviations(doc)
    assert got["ESA"] == "erythropoiesis-stimulating agent"  # the list first
    assert got["eGFR"] == "estimated glomerular filtration rate"
    assert "KDO" not in got  # trap: a bibliography defines nothing
    # trap: a two-column table of other headers is no abbreviation list
    other = TableGrid(header_rows=[["Drug", "Dose"]], body_rows=[["ACE", "10 mg"]])
    assert find_abbreviations(_doc(Block(block_id="p1-e0", kind=BlockKind.TABLE, page=1, text="", table=other))) == {}


def test_expansions_are_the_unspelt_short_forms_a_text_uses() -> None:
    defined = {
        "ECT": "electroconvulsive therapy",
        "MDD": "major depressive disorder",
        "ACT": "acceptance and commitment therapy",
    }
    text = "Symptom improvement with ECT is short-term in MDD (major depressive disorder); ECT again."
    assert expansions(text, defined) == ["electroconvulsive therapy"]  # MDD is spelt out, ECT named once
    # traps: a word that merely contains a short form, or another case of it, uses none
    assert expansions("ACTH levels and the act of screening; ECTopic", defined) == []


def test_units_carry_expansions_that_bm25_indexes_and_no_reader_is_handed() -> None:
    from structaware_readers.load.loader import load_document

    doc = load_document(MDD, pdf=MDD_PDF)
    units = build_units(doc)
    assert find_abbreviations(doc)["MBC"] == "measurement-based care"
    using = [u for u in units if "Joint Commission requires MBC" in u.text]
    assert len(using) == 1 and "measurement-based care" in using[0].expansions
    unit = using[0]
    assert (
        unit.search_text().endswith("measurement-based care") and "measurement-based care" not in unit.embedding_text()
    )
    assert Unit.from_payload(unit.to_payload()).expansions == unit.expansions
    # trap: the unit that spells it out gets no expansion of it; with the option off, no unit gets any
    defining = next(u for u in units if "measurement-based care (MBC)" in u.text)
    assert "measurement-based care" not in defining.expansions
    off = build_units(doc, UnitOptions(abbreviation_expansions=False))
    assert not any(u.expansions for u in off) and [u.unit_id for u in off] == [u.unit_id for u in units]
