"""Every recommendation one graded unit, its grading system named: KDIGO as a system of its own, WHO
good practice statements, statements boxed as pictures, ESC tables that grade the recommendations.

Wording written here in the style of each publisher (no text of a published guideline); each test
has a trap that must not change.
"""

from __future__ import annotations

import pytest

from structaware_readers.grades import profile_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.structure.boxed_statements import is_boxed_statement, read_boxed_statements
from structaware_readers.units import build_units

H, P, F = BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.FIGURE


def _doc(*blocks: tuple[BlockKind, str] | Block, title: str = "") -> ParsedDocument:
    out = []
    for i, b in enumerate(blocks):
        if isinstance(b, Block):
            out.append(b.model_copy(update={"block_id": f"p1-e{i}"}))
        else:
            out.append(Block(block_id=f"p1-e{i}", kind=b[0], text=b[1], page=1, level=1 if b[0] is H else None))
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=1, blocks=out, title=title)


def _recs(units: list[Unit]) -> list[Unit]:
    return [u for u in units if u.unit_type is UnitType.RECOMMENDATION]


# ----------------------------------------------------------------------------- KDIGO as its own system

KDIGO_BODY = (
    (
        P,
        "Recommendation 2.3.1: We recommend that adults with polycystic kidney disease and rapid volume growth be offered a vasopressin antagonist (1B).",
    ),
    (P, "Recommendation 2.3.2: We suggest a low-salt diet for adults with polycystic kidney disease (2C)."),
    (P, "Practice Point 2.3.1: Check serum sodium two weeks after the first dose."),
)


def test_numeric_letter_grades_of_a_kdigo_guideline_are_kdigo() -> None:
    doc = _doc((H, "KDIGO 2031 Clinical Practice Guideline for Polycystic Kidney Disease"), *KDIGO_BODY)
    grades = [(u.grade.system, u.grade.grade, u.grade.strength, u.grade.certainty) for u in _recs(build_units(doc))]
    assert grades == [
        ("KDIGO", "1B", "strong", "moderate"),
        ("KDIGO", "2C", "weak", "low"),
        ("KDIGO", "practice point", "", ""),
    ]
    assert "Grade (KDIGO): (1B)" in _recs(build_units(doc))[0].context


def test_kdigo_grading_table_title_names_the_system_without_a_kdigo_title() -> None:
    legend = Block(
        block_id="t",
        kind=BlockKind.TABLE,
        page=3,
        caption="Table 2 | KDIGO nomenclature and description for grading recommendations",
        table=TableGrid(
            header_rows=[["Grade", "Implications"]], body_rows=[["Level 1 'We recommend'", "Most people would want it"]]
        ),
    )
    doc = _doc((H, "Management of cystic kidney disease in adults"), legend, *KDIGO_BODY)
    assert _recs(build_units(doc))[0].grade.system == "KDIGO"


def test_a_document_that_cites_kdigo_keeps_grade_for_its_numeric_letter_grades() -> None:
    # trap: a CHEST-style guideline prints the same 1A-2D form and quotes KDIGO in its text and tables
    cited = Block(
        block_id="t",
        kind=BlockKind.TABLE,
        page=4,
        caption="Table 5 | Other guidelines on anticoagulation in kidney disease",
        table=TableGrid(
            header_rows=[["Source", "Grading"]], body_rows=[["KDIGO", "grades its recommendations 1A to 2D"]]
        ),
    )
    doc = _doc(
        (H, "Antithrombotic Therapy for Leg Vein Thrombosis: Guideline of the Chest Physicians"),
        (
            P,
            "As the KDIGO guideline on kidney disease notes, doses of several anticoagulants depend on kidney function.",
        ),
        cited,
        (P, "In patients with a leg vein thrombosis, we suggest an oral factor Xa inhibitor over warfarin (2B)."),
        (P, "In patients with cancer-associated thrombosis, we recommend anticoagulation for at least 3 months (1B)."),
    )
    assert not profile_document(doc).kdigo
    assert [(u.grade.system, u.grade.grade) for u in _recs(build_units(doc))] == [("GRADE", "2B"), ("GRADE", "1B")]


# ----------------------------------------------------------------------------- WHO good practice statements


def test_good_practice_statement_in_the_box_title_grades_the_statement_under_it() -> None:
    doc = _doc(
        (H, "2. Recommendations on relapse prevention"),
        (H, "Testing before anti-relapse treatment (2023 – good practice statement)"),
        (P, "The enzyme status of each patient should be used to guide the choice of anti-relapse medicine."),
        (P, "Testing is often unavailable at the periphery of the health system."),
        (H, "Rationale for the good practice statement"),
        (P, "Clinicians should explain the result of the test to the patient."),
    )
    recs = _recs(build_units(doc))
    assert len(recs) == 1
    g = recs[0].grade
    assert recs[0].text.startswith("The enzyme status of each patient should be used")
    assert (g.system, g.grade, g.strength, g.source) == (
        "GRADE",
        "good practice statement",
        "good practice statement",
        "heading",
    )
    assert recs[0].element_ids == ["p1-e1", "p1-e2"]  # the box title is the statement's
    # traps: the paragraph after the statement is not graded by the title; a heading that only
    # mentions good practice statements grades nothing
    assert not any("periphery" in u.text or "explain the result" in u.text for u in recs)


def test_good_practice_statement_strength_and_the_dashed_year_label() -> None:
    from structaware_readers.grades import detect_grade

    g = detect_grade("Monitoring after discharge (2019 - good practice statement)")
    assert g is not None and (g.system, g.strength) == ("GRADE", "good practice statement")
    # trap: inside a sentence the phrase is no label, year or not
    assert (
        detect_grade("The panel agreed in 2019 - after long debate - that a good practice statement was enough.")
        is None
    )


# ----------------------------------------------------------------------------- statements boxed as pictures

BOXED = (
    "Recommendation 4.2.1: We suggest that adults with\n"
    "proteinuria above 1 g/d despite maximal supportive care be of-\n"
    "fered a 6-month course of an oral immunosuppressant (2C)."
)


def test_a_graded_statement_read_as_a_picture_is_a_recommendation_again() -> None:
    doc = _doc(
        (H, "KDIGO 2031 Clinical Practice Guideline for Glomerular Disease"),
        (H, "4.2 Immunosuppression"),
        Block(block_id="x", kind=F, text=BOXED, page=1),
        (P, "Two trials support this suggestion."),
    )
    recs = _recs(build_units(read_boxed_statements(doc)))
    assert [(u.grade.system, u.grade.grade) for u in recs] == [("KDIGO", "2C")]
    assert recs[0].text.startswith("Recommendation 4.2.1: We suggest that adults with proteinuria above 1 g/d")
    assert "of- fered a 6-month course" in recs[0].text  # the line-end hyphen as a parser writes it, no PDF here


@pytest.mark.parametrize(
    ("text", "caption"),
    [
        ("Assess risk\nHigh risk (1B)\nLow risk\nTreat", ""),  # a chart's boxes: short labels
        (
            "Recommendation 4.2.1: We suggest that adults with proteinuria be offered\na course of treatment as shown.",
            "",
        ),  # no grade
        (BOXED, "Figure 3 | Summary of Recommendation 4.2.1"),  # a captioned figure stays a figure
        (
            "Proteinuria fell in the treated arm of the trial, from 2 g/d at the\nstart to 1 g/d at 6 months (2C).",
            "",
        ),  # no wording
    ],
)
def test_figures_that_are_not_boxed_statements_stay_figures(text: str, caption: str) -> None:
    doc = _doc((H, "4.2 Immunosuppression"), Block(block_id="x", kind=F, text=text, caption=caption, page=1))
    assert read_boxed_statements(doc) is doc
    assert not is_boxed_statement(text) or caption


# ----------------------------------------------------------------------------- graded tables, discussion text


def _rec_table(rows: list[list[str]]) -> Block:
    return Block(
        block_id="t",
        kind=BlockKind.TABLE,
        page=1,
        caption="Recommendation Table 3 — Recommendations for lipid lowering in older adults",
        table=TableGrid(header_rows=[["Recommendations", "Class^a", "Level^b"]], body_rows=rows),
    )


ESC_ROWS = [
    ["Statin therapy is recommended for adults over 75 years at very high risk.", "I", "A"],
    ["Ezetimibe should be considered when the LDL-C goal is not reached on a statin.", "IIa", "B"],
    ["Bile acid sequestrants should be considered when other drugs are not tolerated.", "IIb", "C"],
    ["Fibrates are not recommended to lower LDL-C.", "III", "B"],
    ["Rechecking lipid levels 8 weeks after a change of treatment is recommended.", "IIa", "C"],
]
LEGEND = "Classes of recommendation and levels of evidence are defined in the tables of the introduction."
DISCUSSION = "This Task Force recommends adding a non-statin drug when the goal is not reached on the highest tolerated statin dose."


def test_a_guideline_grading_its_recommendations_in_tables_keeps_discussion_text_as_section() -> None:
    doc = _doc(
        (H, "2031 ESC Guidelines for lipid management in older adults"),
        (P, LEGEND),
        (P, DISCUSSION),
        _rec_table(ESC_ROWS),
    )
    assert profile_document(doc).grades_recommendations
    recs = _recs(build_units(doc))
    assert len(recs) == 5 and all(u.grade is not None and u.grade.system == "ESC" for u in recs)
    assert not any(DISCUSSION[:30] in u.text for u in recs)


def test_ungraded_wording_still_counts_where_tables_grade_too_few_rows() -> None:
    # trap: two graded rows do not make a guideline that grades its recommendations
    doc = _doc(
        (H, "2031 ESC Guidelines for lipid management in older adults"),
        (P, LEGEND),
        (P, DISCUSSION),
        _rec_table(ESC_ROWS[:2]),
    )
    assert not profile_document(doc).grades_recommendations
    assert any(u.text.startswith("This Task Force recommends") for u in _recs(build_units(doc)))


# ----------------------------------------------------------------------------- discussion around a boxed statement


def test_a_statement_inside_a_discussion_starts_what_the_text_after_it_discusses() -> None:
    doc = _doc(
        (H, "KDIGO 2031 Clinical Practice Guideline for Glomerular Disease"),
        (H, "4.1 Supportive care"),
        (P, "Recommendation 4.1.1: We recommend a blood pressure target below 120 mm Hg systolic (1B)."),
        (H, "Rationale"),
        (P, "Blood pressure trials in kidney disease favour the lower target."),
        (P, "Recommendation 4.2.1: We suggest a 6-month course of an oral immunosuppressant (2C)."),
        (P, "Infections were more common in the immunosuppressed arm."),
    )
    units = build_units(doc)
    sections = {u.text[:20]: u for u in units if u.unit_type is UnitType.SECTION}
    assert "Discusses: Recommendation 4.1.1" in sections["Blood pressure trial"].context
    assert "Discusses: Recommendation 4.2.1" in sections["Infections were more"].context
    assert "4.1.1" not in sections["Infections were more"].context  # trap: the earlier group is over
    assert all("Discusses:" not in u.context for u in _recs(units))


def test_a_statement_inside_a_discussion_keeps_its_place_body_and_links() -> None:
    doc = _doc(
        (H, "KDIGO 2031 Clinical Practice Guideline for Glomerular Disease"),
        (H, "4.1 Supportive care"),
        (P, "Recommendation 4.1.1: We recommend a blood pressure target below 120 mm Hg systolic (1B)."),
        (H, "Rationale"),
        (P, "Blood pressure trials in kidney disease favour the lower target."),
        (P, "Practice Point 4.1.2: Signs that call for a gentler blood pressure target:"),
        (P, "Postural dizziness, recent falls or a systolic pressure already below 110 mm Hg."),
        (P, "Falls were more common in the intensive arm of the trials."),
    )
    units = build_units(doc)
    first = {u.text.split()[0]: u for u in units}
    rec, trials, point, falls = first["Recommendation"], first["Blood"], first["Practice"], first["Falls"]
    # the discussion text before the statement is flushed first: units in page order, each with its own links
    assert [u.text.split()[0] for u in units] == ["Recommendation", "Blood", "Practice", "Falls"]
    assert trials.linked_ids == [rec.unit_id] and falls.linked_ids == [point.unit_id]
    assert point.linked_ids == [] and "Discusses:" not in point.context
    # the statement ending with a colon takes the paragraph it announces, not the text after that
    assert "Postural dizziness" in point.text and "Falls" not in point.text


def test_prepare_document_reads_boxed_statements() -> None:
    from structaware_readers.load.loader import prepare_document

    doc = _doc((H, "4.2 Immunosuppression"), Block(block_id="x", kind=F, text=BOXED, page=1, bbox=(0.1, 0.2, 0.5, 0.3)))
    kinds = [b.kind for b in prepare_document(doc).blocks]
    assert F not in kinds and P in kinds


def test_a_bare_practice_point_is_kdigo_only_in_a_kdigo_guideline() -> None:
    body = (
        (P, "Practice point: Offer a written asthma action plan to every adult at the first visit."),
        (P, "Practice Point 3.1.2: Review inhaler technique at every visit."),
    )
    kdigo = _recs(build_units(_doc((H, "KDIGO 2031 Clinical Practice Guideline for Kidney Care in Asthma"), *body)))
    other = _recs(build_units(_doc((H, "Australian Guideline for the Management of Asthma in Adults"), *body)))
    assert [u.grade.system for u in kdigo] == ["KDIGO", "KDIGO"]
    # trap: another publisher's unnumbered practice point is a consensus statement, not KDIGO's;
    # the numbered form is KDIGO's own label wherever it is printed
    assert [(u.grade.system, u.grade.grade) for u in other] == [
        ("consensus", "practice point"),
        ("KDIGO", "practice point"),
    ]


# ----------------------------------------------------------------------------- a statement that ends with a colon


def test_a_statement_ending_with_a_colon_takes_the_paragraph_or_list_it_announces() -> None:
    L = BlockKind.LIST
    factors = Block(
        block_id="x",
        kind=L,
        page=1,
        text="",
        items=["Serum potassium above 5.5 mmol/l", "eGFR below 20 ml/min per 1.73 m^2"],
    )
    doc = _doc(
        (H, "KDIGO 2031 Clinical Practice Guideline for Polycystic Kidney Disease"),
        (P, "Practice Point 2.4.1: Factors to consider before starting a vasopressin antagonist:"),
        factors,
        (P, "The Work Group reviewed three trials of vasopressin antagonists in adults."),
        (P, "Practice Point 2.4.2: Tolvaptan dosing:"),
        (P, "Start at 45 mg in the morning and 15 mg in the afternoon, and titrate monthly."),
        (P, "Recommendation 2.4.3: We suggest a low-salt diet for adults with polycystic kidney disease (2C)."),
        (P, "Practice Point 2.4.4: Recheck serum sodium two weeks after the first dose."),
        (P, "Sodium can fall quickly in older adults."),
        (H, "Referral"),
        (P, "Consider referral for specialist advice when:"),
        (P, "Kidney volume is measured by magnetic resonance imaging in most centres."),
    )
    recs = _recs(build_units(doc))
    by_label = {u.text.split(":")[0]: u for u in recs}
    first = by_label["Practice Point 2.4.1"]
    # the list it announces, every item, in the unit as printed; the discussion after it stays section text
    assert first.text == (
        "Practice Point 2.4.1: Factors to consider before starting a vasopressin antagonist:\n"
        "Serum potassium above 5.5 mmol/l\neGFR below 20 ml/min per 1.73 m^2"
    )
    assert first.element_ids == ["p1-e1", "p1-e2"]
    assert by_label["Practice Point 2.4.2"].text.endswith(
        "\nStart at 45 mg in the morning and 15 mg in the afternoon, and titrate monthly."
    )
    # trap: a graded statement after a colon-ended one is a recommendation of its own
    assert by_label["Recommendation 2.4.3"].grade.grade == "2C"
    # traps: a statement without a colon takes nothing after it, nor does an ungraded one with a colon
    assert (
        by_label["Practice Point 2.4.4"].text
        == "Practice Point 2.4.4: Recheck serum sodium two weeks after the first dose."
    )
    sections = " ".join(u.text for u in build_units(doc) if u.unit_type is UnitType.SECTION)
    assert "Work Group reviewed three trials" in sections and "Sodium can fall quickly" in sections
    assert "magnetic resonance imaging" in sections
