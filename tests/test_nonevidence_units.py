"""Text that is not evidence: reference lists, contents, authors and notices become ``reference`` /
``front_matter`` units of their own, never section text, and a search leaves them out unless asked.

Small documents built here (blocks as the readers emit them, wording in the guideline style) pin the
rules of :mod:`structaware_readers.structure.front_matter`, the reference rules of
:mod:`structaware_readers.structure.references` and the unit builder's handling; each with a trap that stays
evidence (a numbered recommendation list above all). The search default is pinned on the filter
(:func:`structaware_retrievers.query.filters.evidence_default`) and, through every face and a real
in-process Qdrant index, in ``test_filter_conformance.py``.
"""

from __future__ import annotations

import pytest

from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.structure.front_matter import is_contents_line, mark_front_matter
from structaware_readers.structure.references import is_citation, mark_references
from structaware_readers.units import build_units
from structaware_retrievers.query.filters import Match, PointFilter, SearchFilter, evidence_default, to_point_filter

K = BlockKind
NE = {UnitType.REFERENCE, UnitType.FRONT_MATTER}


def _doc(*specs: tuple) -> ParsedDocument:
    """Blocks from ``(kind, text[, page[, level or items]])``; ids ``p{page}-e{j}``."""
    blocks = []
    for j, spec in enumerate(specs):
        kind, text = spec[0], spec[1]
        page = spec[2] if len(spec) > 2 else 1
        extra = spec[3] if len(spec) > 3 else None
        kw = {"level": extra or 1} if kind is K.HEADING else {"items": extra} if isinstance(extra, list) else {}
        blocks.append(Block(block_id=f"p{page}-e{j}", kind=kind, text=text, page=page, **kw))
    pages = max(b.page for b in blocks)
    return ParsedDocument(doc_id="e" * 16, source="x.json", name="x", parser="mineru", page_count=pages, blocks=blocks)


def _units(doc: ParsedDocument):
    return build_units(mark_front_matter(mark_references(doc)))


def _by_type(units, unit_type: UnitType) -> list[str]:
    return [u.text for u in units if u.unit_type is unit_type]


# ------------------------------------------------------------------------------------ contents


@pytest.mark.parametrize(
    "text",
    [
        "VI. Routine Pregnancy Care........................................ 12",
        "Recommendation Table 1 — Recommendations for estimating risk in people without disease . . . . . . 9",
        "Appendix C: Evidence Table……………………………… 86",
        "一、总则……………………………………… 3",
        "Abbreviations ........................................... iv",
    ],
)
def test_contents_lines(text: str) -> None:
    assert is_contents_line(text)


@pytest.mark.parametrize(
    "text",
    [
        "Titrate the dose every 2 to 4 weeks... then review.",  # an ellipsis, no leader
        "1. We recommend offering a statin to adults aged 40 to 75 years (strong recommendation).",
        "Blood pressure 140/90 mmHg or higher on 2 occasions",
    ],
)
def test_not_contents_lines(text: str) -> None:
    assert not is_contents_line(text)


def test_contents_are_front_matter_units_and_never_dilute_a_section() -> None:
    doc = _doc(
        (K.HEADING, "Clinical Practice Guideline for the Management of Hypertension"),
        (K.HEADING, "Table of Contents", 1, 2),
        (K.LIST, "", 1, ["I. Introduction.............................. 6", "II. Background.............................. 7",
                         "a. Provide education to patients about home monitoring devices.................... 45"]),
        (K.PARAGRAPH, "b. Peer Review Process", 1),  # a contents entry whose leader the parser cut off
        (K.HEADING, "I. Introduction", 2),
        (K.PARAGRAPH, "Hypertension is the most common condition seen in primary care and raises the risk of stroke.", 2),
        (K.PARAGRAPH, "Recommendation Table 2 — Recommendations for lipid-lowering therapy ........ 11", 2),
        (K.PARAGRAPH, "1. We recommend home blood pressure monitoring to confirm the diagnosis (strong recommendation).", 2),
    )  # fmt: skip
    units = _units(doc)
    front = _by_type(units, UnitType.FRONT_MATTER)
    assert front == [
        (
            "I. Introduction.............................. 6\nII. Background.............................. 7\n"
            "a. Provide education to patients about home monitoring devices.................... 45\nb. Peer Review Process"
        ),
        "Recommendation Table 2 — Recommendations for lipid-lowering therapy ........ 11",
    ]
    assert _by_type(units, UnitType.SECTION) == [doc.blocks[5].text]
    # trap: a numbered recommendation is no contents line and no reference
    assert _by_type(units, UnitType.RECOMMENDATION) == [
        "1. We recommend home blood pressure monitoring to confirm the diagnosis."
    ]


def test_running_prose_after_the_contents_ends_them() -> None:
    prose = (
        "The Department of Veterans Affairs and the Department of Defense first published this guideline to"
        " improve the care of patients with high blood pressure in primary care settings."
    )
    doc = _doc(
        (K.HEADING, "Contents"),
        (K.PARAGRAPH, "Introduction 1"),
        (K.PARAGRAPH, prose),
        (K.PARAGRAPH, "Short note on scope."),
    )
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == ["Introduction 1"]
    assert _by_type(units, UnitType.SECTION) == [f"{prose}\nShort note on scope."]


def test_long_entries_of_a_list_of_tables_are_contents_not_prose() -> None:
    """A journal's contents pages: entries that lead with their page (``S38 Table 1. ...``) and a list of
    supplementary tables without pages, each title long enough to pass for prose, wrapping over lines."""
    led = (
        "S38 Table 1. Factors to weigh when choosing a treatment for adults with a slowly progressive kidney"
        " disease S39 Table 2. Baseline characteristics of the trials reported since the last update"
    )
    listed = (
        "Table S6. Adults with the disease—an oral glucocorticoid plus supportive therapy versus supportive\n"
        "therapy alone\nTable A5.1. Children with the disease—an illustrative mix of regimens for each enzyme level"
    )
    prose = (
        "Table 2 shows that most trials enrolled adults with proteinuria above one gram per day, and only two"
        " of them followed the patients for longer than two years after the end of treatment."
    )
    doc = _doc(
        (K.HEADING, "Contents"),
        (K.PARAGRAPH, led),
        (K.HEADING, "Supplementary material"),
        (K.PARAGRAPH, listed, 2),
        (K.PARAGRAPH, prose, 2),
    )
    doc = doc.model_copy(update={"blocks": [*doc.blocks, Block(block_id="f1", kind=K.HEADER, text="contents", page=2)]})
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [led, listed]
    # trap: prose on a contents page that names a table without an entry's label ("Table 2 shows") is text
    assert _by_type(units, UnitType.SECTION) == [prose]


def test_chinese_contents_and_references() -> None:
    doc = _doc(
        (K.HEADING, "目 录"),
        (K.PARAGRAPH, "一、总则……………………………………… 3\n二、诊断……………………………………… 5"),
        (K.HEADING, "二、诊断"),
        (K.PARAGRAPH, "推荐意见：对初治患者行盆腔增强MRI评估宫旁情况（Ⅱa类推荐）。"),
        (K.PARAGRAPH, "MRI能清楚显示肿瘤与宫旁组织的关系。"),
        (K.HEADING, "参考文献"),
        (K.PARAGRAPH, "[1] 张明, 李华. 局部晚期宫颈癌同步放化疗疗效分析[J]. 中华肿瘤杂志, 2021, 43(2): 180-185."),
        (K.PARAGRAPH, "［2］ 王芳, 等. 宫颈癌根治术后辅助治疗[J]. 中国实用妇科与产科杂志, 2019, 35(4): 401-405."),
    )  # fmt: skip
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [doc.blocks[1].text]
    assert _by_type(units, UnitType.REFERENCE) == [f"{doc.blocks[6].text}\n{doc.blocks[7].text}"]
    assert _by_type(units, UnitType.RECOMMENDATION) == ["推荐意见：对初治患者行盆腔增强MRI评估宫旁情况。"]
    assert _by_type(units, UnitType.SECTION) == [doc.blocks[4].text]


# ------------------------------------------------------------------------------------ references


def test_a_reference_list_without_its_heading_is_reference_units_but_a_numbered_recommendation_list_is_not() -> None:
    """A journal layout: the parser kept no ``References`` heading; the entries follow the last section."""
    doc = _doc(
        (K.HEADING, "8. Lipid-lowering therapy"),
        (K.PARAGRAPH, "1. For people at very high risk, aim for an LDL-C below 1.4 mmol/L (Class I, Level A)."),
        (K.PARAGRAPH, "2. Adding ezetimibe is recommended when the goal is not reached on a statin (Class I, Level B)."),
        (K.PARAGRAPH, "Statins lower cardiovascular events in proportion to the LDL-C reduction they achieve."),
        (K.PARAGRAPH, "1. Farrow K, Lindqvist P, Osei B, et al. Lipid targets in secondary prevention: a review. Eur J Prev Med 2020;41:111-88."),
        (K.FOOTNOTE, "2. Haddad O, Stone R, Kim S, et al. Statin intolerance and cardiovascular outcomes. J Clin Lipid Res 2023;38:353-64."),
        (K.PARAGRAPH, "4 Novak TA, Reyes PC. Depression after myocardial infarction. Heart Mind J. 2015 Sep; 10(3): 221-224."),
    )  # fmt: skip
    units = _units(doc)
    assert _by_type(units, UnitType.REFERENCE) == ["\n".join(b.text for b in doc.blocks[4:])]
    assert len(_by_type(units, UnitType.RECOMMENDATION)) == 2
    assert _by_type(units, UnitType.SECTION) == [doc.blocks[3].text]


def test_a_citation_may_be_numbered_with_a_bare_number() -> None:
    assert is_citation(
        "4 Novak TA, Reyes PC. Depression after myocardial infarction. Heart Mind J. 2015; 10(3): 221-4."
    )
    # traps: a numbered statement with a year, and a year that opens a title
    assert not is_citation("4 Offer a statin to adults with a 10-year risk of 10% or more (updated 2019).")
    assert not is_citation("2019 Journal Club: Statins in older adults")


def test_a_reference_heading_goes_with_its_entries_and_section_text_around_them_stays_one_unit() -> None:
    doc = _doc(
        (K.HEADING, "Background"),
        (K.PARAGRAPH, "Chronic pain affects one adult in five."),
        (K.PARAGRAPH, "12. Avery J, Moreau L, et al. Chronic pain in primary care. Pain Rep Q 2018;67:1001-6."),
        (K.PARAGRAPH, "It is a leading reason for visits to primary care."),
        (K.HEADING, "References"),
        (K.PARAGRAPH, "13. Smith AB, et al. Opioid prescribing trends. JAMA 2019;321:100-10."),
    )
    units = _units(doc)
    assert _by_type(units, UnitType.SECTION) == [
        "Chronic pain affects one adult in five.\nIt is a leading reason for visits to primary care."
    ]
    refs = [u for u in units if u.unit_type is UnitType.REFERENCE]
    assert [u.text for u in refs] == [doc.blocks[2].text, doc.blocks[5].text]
    assert refs[1].element_ids == ["p1-e4", "p1-e5"] and refs[1].section_path == ["References"]
    assert [u.ordinal for u in units] == sorted(u.ordinal for u in units)


# ------------------------------------------------------------------------------------ authors and notices


def test_authors_affiliations_and_notices_are_front_matter() -> None:
    doc = _doc(
        (K.HEADING, "Guidelines for the management of dyslipidaemias"),
        (K.PARAGRAPH, "Authors/Task Force Members: Anna Berg (Chairperson) (Sweden), Paolo Conti (Italy), Jan de Vries (Netherlands)"),
        (K.PARAGRAPH, "Lina Moreau (France), Tomas Novak (Czech Republic), Maria Silva (Portugal), Ian Walsh (Ireland), Olga Petrova (Bulgaria)"),
        (K.FOOTNOTE, "* Corresponding author: Anna Berg, Department of Cardiology, Lund University Hospital, Lund, Sweden. Email: anna.berg@example.org"),
        (K.PARAGRAPH, "Rachel Stone, MD; Omar Haddad, PharmD; Lucy Chen, MPH; Victor Alvarez, PhD"),
        (K.PARAGRAPH, "Disclaimer: This document gives the task force's opinion on the evidence available when it was written."),
        (K.PARAGRAPH, "Health professionals remain responsible for decisions about the care of each patient."),
        (K.HEADING, "1. Preamble", 2),
        (K.PARAGRAPH, "This update tells clinicians which lipid treatments work best for which patients.", 2),
        (K.PARAGRAPH, "As Dr Jane Roe, MD, noted in the consultation, adherence improves with fixed-dose combinations.", 2),
        (K.PARAGRAPH, ("Two departments chose four clinical leaders, Ann Lee, MD and Tom Hart, MD, MPH from the first and"
                       " CDR Paul Reyes, MD, FACC and Sara Kim, DO, FACP from the second, to act as champions of this"
                       " guideline."), 2),
        (K.HEADING, "Disclosure of the diagnosis to the patient", 2),
        (K.PARAGRAPH, "Explain the diagnosis in plain words and offer written information.", 2),
        (K.HEADING, "Conflicts of interest", 2),
        (K.PARAGRAPH, "Dr Berg reports consulting fees from a manufacturer of lipid-lowering drugs.", 2),
        (K.HEADING, "Acknowledgements", 2),
        (K.PARAGRAPH, "We thank the reviewers for their comments.", 2),
    )  # fmt: skip
    units = _units(doc)
    front = [b.text for b in doc.blocks if any(b.text in t for t in _by_type(units, UnitType.FRONT_MATTER))]
    assert front == [doc.blocks[i].text for i in (1, 2, 3, 4, 5, 6, 14, 16)]
    # traps: the preamble, prose naming clinicians, and a clinical heading that says "disclosure"
    assert _by_type(units, UnitType.SECTION) == [
        "\n".join(doc.blocks[i].text for i in (8, 9, 10)),
        doc.blocks[12].text,
    ]


def test_a_notice_runs_on_only_on_its_page() -> None:
    doc = _doc(
        (K.PARAGRAPH, "© The Society 2025. All rights reserved. For permissions, please write to the publisher.", 1),
        (
            K.PARAGRAPH,
            "Copies may be made for personal study only; any other reproduction needs the owner's permission.",
            1,
        ),
        (K.PARAGRAPH, "Screen adults for high blood pressure at every visit.", 2),
    )
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [f"{doc.blocks[0].text}\n{doc.blocks[1].text}"]
    assert _by_type(units, UnitType.SECTION) == [doc.blocks[2].text]


def test_a_copyright_mark_beside_a_figure_and_a_foreword_after_a_notice_stay_evidence() -> None:
    doc = _doc(
        (K.FIGURE, "", 1),
        (K.PARAGRAPH, "©", 1),  # the publisher's mark beside a figure: no notice runs on from it
        (K.PARAGRAPH, "Because the fall in LDL-C a drug brings is known in advance, two drugs may be started together.", 1),
        (K.HEADING, "Foreword", 2),
        # a mark the parser glued to the start of a sentence is no notice
        (K.PARAGRAPH, "© make the tables easier to read, each class of recommendation has a colour of its own.", 2),
        (K.PARAGRAPH, "Copyright 2025, The Renal Society. Issued by its press for members. All rights reserved.", 2),
        (K.PARAGRAPH, "The Society accepts no liability for harm that follows from use of this document.", 2),
        (K.PARAGRAPH, "Each graded statement follows a review of the trials on its clinical question.", 2),
        (K.HEADING, "Acknowledgements", 3),
        (K.PARAGRAPH, "We thank the external reviewers.", 3),
        (K.HEADING, "Glossary", 3, 2),  # set one level below the acknowledgements by the parser
        (K.PARAGRAPH, "Relapse: recurrence of parasitaemia from liver-stage parasites after the blood stage was cleared.", 3),
        (K.HEADING, "Content", 3),  # a column-like heading of a training plan, not a table of contents
        (K.PARAGRAPH, "Practical sessions for trainees", 3),
    )  # fmt: skip
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [
        "©",
        f"{doc.blocks[5].text}\n{doc.blocks[6].text}",
        doc.blocks[9].text,
    ]
    assert _by_type(units, UnitType.SECTION) == [
        doc.blocks[2].text,
        f"{doc.blocks[4].text}\n{doc.blocks[7].text}",
        doc.blocks[11].text,
        doc.blocks[13].text,
    ]


def test_headings_that_are_contents_lines_or_people_make_front_matter_units() -> None:
    doc = _doc(
        (K.HEADING, "Appendix E: Participant List"),
        (K.HEADING, "Lt Col Jordan Avery, MD, FACP"),
        (K.PARAGRAPH, "Internal Medicine, Regional Medical Center"),
        (K.HEADING, "Table of Contents"),
        (K.HEADING, "I. Introduction.......................................1"),
        (K.HEADING, "Module A: Screening"),
        (K.PARAGRAPH, "Screen adults for high blood pressure at every visit."),
    )
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [
        "Lt Col Jordan Avery, MD, FACP\nInternal Medicine, Regional Medical Center",
        "I. Introduction.......................................1",
    ]
    assert [(u.unit_type, u.section_path) for u in units if u.unit_type not in NE] == [
        (UnitType.SECTION, ["Module A: Screening"])
    ]


def test_a_filing_with_a_contents_link_on_every_page_and_a_funding_section_keeps_its_text() -> None:
    """Filings print ``Table of Contents`` (a link back) at the top of every page, and ``Funding`` is a
    liquidity section: neither marks front matter; the real contents page (dot leaders) still does."""
    specs: list[tuple] = [
        (K.HEADING, "Table of Contents", 1),
        (K.PARAGRAPH, "Item 7. Management's Discussion ........ 40", 1),
    ]
    for page in range(2, 12):
        specs += [(K.HEADING, "Table of Contents", page), (K.PARAGRAPH, f"Net revenue (in millions) {page}", page)]
    specs += [(K.HEADING, "Funding", 12), (K.PARAGRAPH, "Sources of funds: deposits and secured borrowings.", 12)]
    units = _units(_doc(*specs))
    assert _by_type(units, UnitType.FRONT_MATTER) == ["Item 7. Management's Discussion ........ 40"]
    assert len(_by_type(units, UnitType.SECTION)) == 11


def test_a_name_with_a_credential_alone_in_a_vote_table_stays_evidence() -> None:
    doc = _doc(
        (K.PARAGRAPH, "(1) The following persons were elected to serve as directors:"),
        (K.PARAGRAPH, "Maria Lopez"),
        (K.PARAGRAPH, "1,003,283,751"),
        (K.PARAGRAPH, "Peter J. Hale, MD"),
        (K.PARAGRAPH, "955,503,117"),
        (K.HEADING, "Work Group"),
        (K.PARAGRAPH, "Anna Berg, MD, MPH Lund University Hospital"),
        (K.PARAGRAPH, "Omar Haddad, PharmD, BCPS Pharmacy Service"),
    )
    units = _units(doc)
    assert _by_type(units, UnitType.FRONT_MATTER) == [f"{doc.blocks[6].text}\n{doc.blocks[7].text}"]
    assert "Peter J. Hale, MD\n955,503,117" in _by_type(units, UnitType.SECTION)[0]


# ------------------------------------------------------------------------------------ search default


def test_the_search_default_leaves_non_evidence_out_unless_a_filter_names_it() -> None:
    hidden = Match("unit_type", ("reference", "front_matter"))
    assert evidence_default(None) == PointFilter(must_not=(hidden,))
    # a filter on other keys or other types keeps the default
    for flt in ({"doc_name": "x"}, {"unit_type": {"$ne": "section"}}, SearchFilter(unit_types=["section"])):
        assert hidden in evidence_default(to_point_filter(flt)).must_not, flt
    # naming a type that is not evidence hands the decision to the filter
    for flt in (
        {"unit_type": "reference"},
        {"unit_type": {"$in": ["section", "front_matter"]}},
        SearchFilter(unit_types=["front_matter"]),
        {"$or": [{"unit_type": "reference"}, {"page": 2}]},
    ):
        compiled = to_point_filter(flt)
        assert evidence_default(compiled) == compiled, flt
