"""Sections of a guideline as a reader sees them (issue 21, item 3): sidebars are sections of their
own, a discussion names the recommendation it discusses, people, references and contents lines are
no section path; and what is no recommendation in a guideline that grades its recommendations.

Real wording: the VA/DoD major depressive disorder guideline excerpt (public domain,
``tests/fixtures/pdf/SOURCES.md``) and quotes of VA/DoD participant lists.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.grades import profile_document
from structaware_readers.load.loader import load_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.structure.false_headings import false_heading_kind
from structaware_readers.units import build_units
from structaware_readers.units.discussion import DISCUSSION_HEADING

FIXTURES = Path(__file__).parent / "fixtures"
MDD = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_vadod_mdd_2022_excerpt"
MDD_PDF = FIXTURES / "pdf" / "vadod_mdd_2022_excerpt.pdf"


@pytest.fixture(scope="module")
def mdd_units() -> list[Unit]:
    return build_units(load_document(MDD, pdf=MDD_PDF))


def _doc(*blocks: tuple[BlockKind, str] | Block) -> ParsedDocument:
    out = []
    for i, b in enumerate(blocks):
        if isinstance(b, Block):
            out.append(b.model_copy(update={"block_id": f"p{b.page}-e{i}"}))
        else:
            kind, text = b
            out.append(
                Block(block_id=f"p1-e{i}", kind=kind, text=text, page=1, level=1 if kind is BlockKind.HEADING else None)
            )
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=2, blocks=out)


H, P = BlockKind.HEADING, BlockKind.PARAGRAPH
GRADED = [(P, f"We suggest drug {c} for adults with asthma. (Weak for | Reviewed, New-added)") for c in "ABCDE"]


# ----------------------------------------------------------------------------- sidebars


def test_sidebars_read_as_one_column_tables_are_sections_titled_by_their_heading(mdd_units: list[Unit]) -> None:
    side = {u.section_path[-1]: u for u in mdd_units if u.section_path and u.section_path[-1].startswith("Sidebar")}
    assert set(side) == {
        "Sidebar 1: Risk Assessment and Work-up",
        "Sidebar 2: DSM-5 Criteria",
        "Sidebar 3: Factors to be Considered in Treatment Choice",
    }
    assert side["Sidebar 1: Risk Assessment and Work-up"].unit_type is UnitType.SECTION
    assert "Functional status, medical history" in side["Sidebar 1: Risk Assessment and Work-up"].text
    # trap: no sidebar is left as table rows whose column header is the sidebar's title
    assert not [u for u in mdd_units if u.unit_type is UnitType.TABLE_ROW and "Sidebar" in u.context]


def test_a_sidebar_label_paragraph_heads_its_text_until_the_next_heading_or_table() -> None:
    table = TableGrid(header_rows=[["Drug", "Dose"]], body_rows=[["Prednisone", "40 mg"], ["Amoxicillin", "500 mg"]])
    units = build_units(
        _doc(
            (H, "C. Module C: Exacerbations"),
            (P, "Patients with an exacerbation are assessed in primary care."),
            (P, "Sidebar 5: Initiating Antibiotic Therapy"),
            (P, "Antibiotic choices: amoxicillin, azithromycin or doxycycline for 5 days."),
            Block(block_id="x", kind=BlockKind.TABLE, text="", page=1, table=table),
            (P, "Follow up within 30 days."),
        )
    )
    paths = [(u.section_path, u.text[:20]) for u in units if u.unit_type is UnitType.SECTION]
    assert paths == [
        (["C. Module C: Exacerbations"], "Patients with an exa"),
        (["C. Module C: Exacerbations", "Sidebar 5: Initiating Antibiotic Therapy"], "Antibiotic choices: "),
        (["C. Module C: Exacerbations"], "Follow up within 30 "),
    ]
    # trap: a sentence that mentions a sidebar is text, not a label
    units = build_units(_doc((H, "Module A"), (P, "See Sidebar 5: Initiating Antibiotic Therapy, for the choices.")))
    assert [u.section_path for u in units] == [["Module A"]]


# ----------------------------------------------------------------------------- discussions


def test_a_discussion_names_the_recommendation_it_discusses(mdd_units: list[Unit]) -> None:
    disc = [u for u in mdd_units if u.section_path == ["Discussion"]]
    assert {u.pages[0] for u in disc} == {6, 8}
    for u in disc:
        number = (
            "1. We suggest that all patients not currently receiving"
            if u.pages[0] == 6
            else "2. For patients with MDD, we suggest using a quantitative"
        )
        assert f"Discusses: {number}" in u.context, u.context
    # trap: the sections after a discussion under other headings name nothing
    assert not [u for u in mdd_units if u.section_path == ["Summary"] and "Discusses" in u.context]


def test_a_discussion_links_to_the_recommendation_unit_it_discusses(mdd_units: list[Unit]) -> None:
    by_id = {u.unit_id: u for u in mdd_units}
    disc = [u for u in mdd_units if u.section_path == ["Discussion"]]
    for u in disc:
        assert len(u.linked_ids) == 1, u.context
        rec = by_id[u.linked_ids[0]]
        assert rec.unit_type is UnitType.RECOMMENDATION and rec.doc_id == u.doc_id
        assert u.context.split("Discusses: ", 1)[1][:40] == rec.text[:40]
        assert rec.ordinal < u.ordinal
    # trap: units outside a discussion, and the recommendations themselves, link to nothing
    assert not [u for u in mdd_units if u.linked_ids and "Discusses" not in u.context]


def test_discussion_headings_and_what_they_keep() -> None:
    for text in ("Discussion", "a. Discussion", "Rationale", "Evidence Summary", "Summary of the Evidence", "推荐理由"):
        assert DISCUSSION_HEADING.match(text), text
    for text in ("Discussion of Screening Tools", "Evidence Table", "Summary", "Recommendation"):
        assert not DISCUSSION_HEADING.match(text), text
    units = build_units(
        _doc(
            (H, "VII. Recommendations"),
            *GRADED,
            (H, "b. Measurement Techniques"),
            (P, "2. We suggest using automated office blood pressure measurement. (Weak for | Reviewed, New-added)"),
            (P, "3. When it is not available, we suggest standard measurement. (Weak for | Reviewed, New-replaced)"),
            Block(block_id="d", kind=H, text="Discussion", page=1, level=2),
            (P, "The Work Group reviewed two systematic reviews."),
            Block(block_id="s", kind=H, text="Older adults", page=1, level=3),
            (P, "In older adults the readings were similar."),
            Block(block_id="c", kind=H, text="c. Monitoring", page=1, level=2),
            (P, "Monitoring is covered elsewhere."),
        )
    )
    ctx = {u.text[:12]: u.context for u in units if u.unit_type is UnitType.SECTION}
    want = "Discusses: 2. We suggest using automated office blood pressure measurement. | 3. When it"
    assert want in ctx["The Work Gro"] and want in ctx["In older adu"]  # a heading below the discussion keeps it
    assert "Discusses" not in ctx["Monitoring i"]  # the next sibling heading forgets it
    by_id = {u.unit_id: u for u in units}
    linked = {u.text[:12]: [by_id[i].text[:12] for i in u.linked_ids] for u in units if u.unit_type is UnitType.SECTION}
    assert linked["The Work Gro"] == linked["In older adu"] == ["2. We sugges", "3. When it i"]
    assert linked["Monitoring i"] == []


# ----------------------------------------------------------------------------- section paths


def test_participant_names_are_no_section_path(mdd_units: list[Unit]) -> None:
    people = [u for u in mdd_units if u.pages[0] == 9]
    assert people and all(u.section_path == ["Appendix E: Participant List"] for u in people)
    text = " ".join(u.text for u in people)
    assert "MAJ Rhanda Brockington, DNP, FNP-BC" in text and "Angela Giles, DBH, LCSW, BCD" in text


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("CDR Travis E. Harrell, MD, FACC, FACP", "person"),
        ("Lt Col. Jesse Wickham DO, FACP", "person"),
        ("Lt Col Joseph C Sky, MD, FACP, FACC", "person"),  # an initial without its dot
        ("R. Kevin Manning, PhD, CCC-SLP", "person"),  # an initial first
        ("Navjit (Nicky) Goraya, MD", "person"),  # a nickname in brackets
        ("COL (Ret.) Charles Hoge, MD", "person"),
        ("Lillian Pinault, MS, RD, CSG, CDE", "person"),
        ("Alicia Christy, MD, MHSCR, FACOG (Champion)", "person"),
        ("Jacqueline H. Langston, BSN, RN, Nurse Midwife", "person"),
        ("Angela Giles, DBH, LCSW, BCD", "person"),
        ("Dorene Doi, OTR/L", "person"),
        ("David X. Cifu, MD (Champion)", "person"),
        (
            "12. Whelton PK, Carey RM, Aronow WS, et al. 2017 ACC/AHA guideline. Hypertension. 2018;71(6):e13-e115.",
            "reference",
        ),
        ("James PA, Oparil S. Evidence-based guideline. JAMA. 2014;311(5):507-20", "reference"),
        ("VI. Routine Pregnancy Care........................................12", "toc"),
        ("Appendix B: Patient Focus Group Methods . . . . . . . 95", "toc"),
        # traps: real headings
        ("Major Depressive Disorder", ""),
        ("Colon Cancer Screening", ""),
        ("Drug Therapy", ""),
        ("Role of the MD in Primary Care", ""),
        ("Blood Pressure Targets, MA Cohort", ""),
        ("Heart Failure, HFrEF, HFpEF", ""),
        ("Vitamin D Supplementation", ""),
        ("Hepatitis B, C", ""),
        ("A. Screening (Adults), MA", ""),
        ("B. Treatment, DO", ""),
        ("Patients with CKD, DM", ""),
        ("Appendix I: Participant List", ""),
        ("2019 Updates", ""),
        ("a. Screening", ""),
    ],
)
def test_headings_that_are_people_references_or_contents_lines(text: str, kind: str) -> None:
    assert false_heading_kind(text) == kind


def test_a_false_heading_is_text_of_the_section_it_sits_in() -> None:
    units = build_units(
        _doc(
            (H, "Table of Contents"),
            (H, "I. Introduction.......................................1"),
            (H, "Appendix E: Participant List"),
            (H, "Andrew Buelt, DO"),
            (P, "Hospitalist, Bay Pines VA Healthcare System"),
        )
    )
    # the contents line is a front matter unit, never section text
    assert [(u.unit_type.value, u.section_path, u.text) for u in units] == [
        ("front_matter", ["Table of Contents"], "I. Introduction.......................................1"),
        ("section", ["Appendix E: Participant List"], "Andrew Buelt, DO\nHospitalist, Bay Pines VA Healthcare System"),
    ]


# ----------------------------------------------------------------------------- what is no recommendation


def test_in_a_guideline_that_grades_its_recommendations_ungraded_wording_is_none() -> None:
    doc = _doc(
        (H, "VA/DoD Clinical Practice Guideline for the Management of Asthma"),
        (P, "• Assess the patient's condition and determine, with the patient, the best treatment method."),
        (P, "When forming guideline recommendations, consideration should be given to patients' values."),
        *GRADED,
        (H, "Discussion"),
        (P, "In patients who are uncontrolled on ICS alone, we recommend adding a LABA over other options."),
        (P, "• Strong for (or “We recommend offering this option …”)"),
        (P, "The strength of recommendations in the 2016 CPG were: Strong for, Weak for, Weak against"),
        (H, "Recommendation"),
        (P, "There is insufficient evidence to recommend for or against drug G."),
        (P, "(Neither for nor against | Reviewed, New-added)"),
    )
    assert profile_document(doc).grades_recommendations
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION]
    assert [u.text.split(" for adults")[0] for u in recs[:5]] == [f"We suggest drug {c}" for c in "ABCDE"]
    # the only other one: a statement graded by the line after it
    assert len(recs) == 6 and recs[5].text.startswith(
        "There is insufficient evidence to recommend for or against drug G."
    )
    g = recs[5].grade
    assert g is not None and (g.direction, g.status, g.source) == ("neither", "Reviewed, New-added", "next_paragraph")
    assert recs[5].element_ids == ["p1-e13", "p1-e14"]


def test_a_guideline_that_does_not_grade_keeps_its_imperatives() -> None:
    # trap: NICE-style guidelines print ungraded imperatives as their recommendations
    doc = _doc(
        (H, "Hypertension in adults: diagnosis and management. NICE guideline"),
        (P, "Offer ambulatory blood pressure monitoring to confirm the diagnosis of hypertension."),
        (P, "Consider a target below 140/90 mmHg for adults aged under 80."),
        (P, "Measure blood pressure in both arms when assessing a person for hypertension."),
    )
    assert not profile_document(doc).grades_recommendations
    assert [u.unit_type for u in build_units(doc)] == [UnitType.RECOMMENDATION] * 3


def test_a_grade_line_closes_a_lead_in_and_its_list_items() -> None:
    items = Block(
        block_id="l",
        kind=BlockKind.LIST,
        text="",
        page=1,
        items=["• Buprenorphine/naloxone in any setting; or", "• Methadone in an Opioid Treatment Program"],
    )
    doc = _doc(
        (H, "VA/DoD Clinical Practice Guideline for the Management of Substance Use Disorders"),
        *GRADED,
        (H, "Recommendation"),
        (P, "For patients with opioid use disorder, we recommend one of the following strategies:"),
        items,
        (P, "(Strong for | Reviewed, Amended)"),
        (H, "Discussion"),
        (P, "Buprenorphine and methadone both reduce mortality."),
    )
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recs) == 6 and recs[5].text == (
        "For patients with opioid use disorder, we recommend one of the following strategies:\n"
        "• Buprenorphine/naloxone in any setting; or\n• Methadone in an Opioid Treatment Program"
    )  # the grade line is metadata and one context part, not statement text
    assert recs[5].context.endswith("Grade (GRADE): (Strong for | Reviewed, Amended)")
    assert (recs[5].grade.strength, recs[5].grade.direction) == ("strong", "for")
    # trap: a grade line after prose that states nothing is no recommendation: a grade alone states nothing
    doc = _doc(
        (H, "Guideline"),
        *GRADED,
        (H, "Notes"),
        (P, "The panel met twice in 2019."),
        (P, "(Weak for | Reviewed, Amended)"),
    )
    units = build_units(doc)
    assert len([u for u in units if u.unit_type is UnitType.RECOMMENDATION]) == 5
    assert units[-1].unit_type is UnitType.SECTION and units[-1].text.endswith("2019.\n(Weak for | Reviewed, Amended)")


def test_a_grade_line_closes_bullet_lines_typed_as_paragraphs() -> None:
    doc = _doc(
        (H, "VA/DoD Clinical Practice Guideline for the Management of Substance Use Disorders"),
        *GRADED,
        (H, "Recommendation"),
        (
            P,
            "28. For patients with alcohol use disorder in early recovery, we recommend one of the following approaches:",
        ),
        (P, "• Peer linkage"),
        (P, "• Network support"),
        (P, "(Strong for | Reviewed, New-replaced)"),
    )
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recs) == 6 and recs[5].text.endswith("approaches:\n• Peer linkage\n• Network support")
    assert (recs[5].grade.strength, recs[5].grade.direction) == ("strong", "for")
    # trap: a paragraph between them that is no bullet and states nothing breaks the chain
    doc = _doc(
        (H, "Guideline"),
        *GRADED,
        (H, "Recommendation"),
        (P, "We recommend one of the following approaches:"),
        (P, "• Peer linkage"),
        (P, "Both were studied in 2019."),
        (P, "(Strong for | Reviewed, New-replaced)"),
    )
    assert len([u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION]) == 5


def test_an_earlier_versions_recommendations_are_none_of_this_guidelines() -> None:
    doc = _doc(
        (H, "VA/DoD Clinical Practice Guideline for the Management of Chronic Kidney Disease"),
        *GRADED,
        (H, "Appendix D: 2014 Recommendation Categorization Table"),
        (P, "Topic – Periodic Evaluation Recommendation – We suggest that periodic evaluation for CKD be considered."),
        (P, "Weak for"),
    )
    units = build_units(doc)
    assert len([u for u in units if u.unit_type is UnitType.RECOMMENDATION]) == 5
    assert units[-1].unit_type is UnitType.SECTION and units[-1].text.endswith("be considered.\nWeak for")
