"""Every grading system as a kind: one recommendation unit per graded statement, its text without the
grade marks, the grade (system, class or strength, level or certainty) in ``Unit.grade``; each kind
with a near miss that must stay ungraded.

Wording is written here in the style each publisher prints (ESC class/level columns flattened to
text, a Chinese consensus's Ⅱa类推荐 and 证据等级, the CDC's recommendation category and evidence
type, NCCN categories, KDIGO 1A-2D); no text of a copyrighted guideline.
"""

from __future__ import annotations

import pytest

from structaware_readers.grades import detect_grade, find_grades, parse_class_level
from structaware_readers.models import Block, BlockKind, ParsedDocument, Unit, UnitType
from structaware_readers.units import build_units

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


def _doc(*blocks: tuple[BlockKind, str]) -> ParsedDocument:
    out = [
        Block(block_id=f"p1-e{i}", kind=k, text=t, page=1, level=1 if k is H else None)
        for i, (k, t) in enumerate(blocks)
    ]
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=1, blocks=out)


def _recs(units: list[Unit]) -> list[Unit]:
    return [u for u in units if u.unit_type is UnitType.RECOMMENDATION]


def _g(text: str) -> tuple[str, ...] | None:
    g = detect_grade(text)
    return None if g is None else (g.system, g.grade, g.strength, g.certainty, g.direction)


# ----------------------------------------------------------------------------- ESC


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # class and level after the statement, on its line, on the next lines, or glued together
        ("Lipid testing is recommended before starting therapy in every adult. I B", ("ESC", "I", "strong", "B", "")),
        ("A CT scan should be considered in selected persons.\nIIa\nC", ("ESC", "IIa", "moderate", "C", "")),
        ("Ezetimibe is recommended when the goal is not reached. IA", ("ESC", "I", "strong", "A", "")),
        ("Fish oil supplements are not recommended to lower risk. III B", ("ESC", "III", "", "B", "against")),
    ],
)
def test_esc_class_and_level_printed_after_the_statement(text: str, expected: tuple[str, ...]) -> None:
    assert _g(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # a sentence naming classes is no graded recommendation
        "Only trials that would lead to new or changed Class I/IIa or Class III recommendations were reviewed.",
        "Class I and IIa recommendations are listed in the summary table.",
        "Patients with NYHA class III symptoms were enrolled.",
        "Patients with Class II obesity were excluded.",
        "Stage IIIA disease was treated with surgery.",
    ],
)
def test_esc_traps_stay_ungraded(text: str) -> None:
    assert detect_grade(text) is None


def test_class_and_level_are_esc_in_a_document_naming_the_esc_and_acc_aha_forms_stay_acc_aha() -> None:
    statement = "Statin therapy should be considered in adults with HIV aged 40 years or older (Class IIa, Level C)."
    acc_form = "A high-intensity statin is recommended after an acute event (COR 1, LOE B-NR)."
    esc_doc = _doc(
        (H, "2025 Focused Update of the ESC Guidelines for the management of dyslipidaemias"),
        (P, statement),
        (P, acc_form),
    )
    recs = _recs(build_units(esc_doc))
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in recs] == [
        ("ESC", "IIa", "C"),
        ("ACC/AHA", "1", "B-NR"),
    ]
    assert recs[0].text == "Statin therapy should be considered in adults with HIV aged 40 years or older."
    assert recs[0].context.endswith("Grade (ESC): (Class IIa, Level C)")
    # trap: the same statement in a document that does not name the ESC keeps the shared reading
    other = _recs(
        build_units(_doc((H, "Guideline for the management of blood cholesterol"), (P, statement), (P, acc_form)))
    )
    assert other[0].grade.system == "ACC/AHA"


@pytest.mark.parametrize(
    ("cls", "level", "expected"),
    [
        ("I", "B", ("ESC", "I", "strong", "B", "")),
        ("Ⅱa", "C", ("ESC", "IIa", "moderate", "C", "")),
        ("IIb^c", "B*", ("ESC", "IIb", "weak", "B", "")),
        ("IA", "", ("ESC", "I", "strong", "A", "")),  # glued in one cell
        ("IIa\nB", "", ("ESC", "IIa", "moderate", "B", "")),  # two lines of one cell
        ("III", "C", ("ESC", "III", "", "C", "against")),
        ("2a", "B-NR", ("ACC/AHA", "2a", "moderate", "B-NR", "")),
        ("III: Harm", "B-R", ("ACC/AHA", "III: Harm", "strong", "B-R", "against")),
        ("I", "C-EO", ("ACC/AHA", "I", "strong", "C-EO", "")),
    ],
)
def test_parse_class_level(cls: str, level: str, expected: tuple[str, ...]) -> None:
    g = parse_class_level(cls, level)
    assert g is not None and (g.system, g.grade, g.strength, g.certainty, g.direction) == expected
    assert g.source == "table_column"


def test_parse_class_level_traps_and_forced_system() -> None:
    assert parse_class_level("Table", "3A") is None  # table numbering
    assert parse_class_level("Recommendations", "Level") is None  # the header row
    assert parse_class_level("", "B") is None  # a level alone
    forced = parse_class_level("I", "A", system="ACC/AHA")
    assert forced is not None and forced.system == "ACC/AHA"
    with pytest.raises(ValueError):
        parse_class_level("I", "A", system="NCCN")


# ----------------------------------------------------------------------------- Chinese consensus


def test_chinese_consensus_classes_one_unit_per_graded_sentence() -> None:
    text = "推荐意见:建议由两名高年资医师共同完成妇科检查（Ⅱ a 类推荐）。 建议治疗前完善盆腔 MRI 检查（Ⅱa类推荐）。"
    doc = _doc(
        (H, "宫颈癌诊治中国专家共识"), (H, "推荐等级"), (P, text), (P, "手术前应评估淋巴结状态（Ⅰ类推荐，A级证据）。")
    )
    recs = _recs(build_units(doc))
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in recs] == [
        ("CN", "IIa", ""),
        ("CN", "IIa", ""),
        ("CN", "I", "A"),
    ]
    assert [u.text for u in recs] == [
        "推荐意见:建议由两名高年资医师共同完成妇科检查。",
        "建议治疗前完善盆腔 MRI 检查。",
        "手术前应评估淋巴结状态。",
    ]


def test_chinese_consensus_evidence_level_alone_grades_evidence_not_a_recommendation() -> None:
    doc = _doc(
        (H, "宫颈癌诊治中国专家共识"),
        (H, "推荐等级"),
        (P, "两项随机对照试验显示两组的总生存相近（1b证据等级）。"),
        (P, "建议首选同步放化疗（Ⅱa类推荐，1b证据等级）。"),
    )
    recs = _recs(build_units(doc))
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in recs] == [("CN", "IIa", "1b")]


@pytest.mark.parametrize("text", ["术后切口为Ⅰ类切口。", "本研究为Ⅱ期临床试验。", "ⅡB期宫颈癌的诊断难点在于宫旁浸润。"])
def test_chinese_traps_stay_ungraded(text: str) -> None:
    assert detect_grade(text) is None


# ----------------------------------------------------------------------------- CDC / ACIP


def test_cdc_recommendation_category_and_evidence_type() -> None:
    assert _g("Clinicians should offer naloxone when risk is high (recommendation category: A; evidence type: 4).") == (
        "CDC/ACIP",
        "A",
        "strong",
        "4",
        "",
    )
    split = "Clinicians should review monitoring data (recommendation category: B; evidence\ntype: 3)."
    assert _g(split) == ("CDC/ACIP", "B", "conditional", "3", "")
    units = build_units(
        _doc(
            (H, "Clinical Practice Guideline for Prescribing Opioids for Pain"),
            *[
                (
                    P,
                    f"Clinicians should discuss option {c} with patients (recommendation category: A; evidence type: 2).",
                )
                for c in "ABCDE"
            ],
        )
    )
    recs = _recs(units)
    assert len(recs) == 5 and recs[0].text == "Clinicians should discuss option A with patients."
    assert recs[0].context.endswith("Grade (CDC/ACIP): (recommendation category: A; evidence type: 2)")


@pytest.mark.parametrize(
    "text",
    [
        "Recommendations are assigned one of two categories (category A or B).",
        "Category A recommendations apply to all persons in the group.",
        "Recommendation category B acknowledges variation in data availability.",
        "Opioids improved short-term pain versus placebo (evidence type 2).",  # a finding's evidence, no recommendation
    ],
)
def test_cdc_traps_stay_ungraded(text: str) -> None:
    assert detect_grade(text) is None


# ----------------------------------------------------------------------------- NCCN, KDIGO and non-grades


def test_nccn_option_keeps_category_and_preference_and_bi_rads_is_no_category() -> None:
    g = detect_grade("Olaparib (category 1, preferred)")
    assert g is not None and (g.system, g.grade, g.preference) == ("NCCN", "1", "preferred")
    assert detect_grade("The lesion was classified as BI-RADS category 3.") is None
    assert detect_grade("A BI-RADS category 4 finding requires biopsy.") is None


def test_kdigo_statement_text_without_its_grade_and_practice_point_kept_whole() -> None:
    units = build_units(
        _doc(
            (H, "KDIGO Clinical Practice Guideline for Glomerular Diseases"),
            (
                P,
                "Recommendation 1.4.1: We suggest treating adults at risk of progression with an SGLT2 inhibitor (2B).",
            ),
            (P, "Practice Point 1.4.2: Review the dose at every visit."),
        )
    )
    recs = _recs(units)
    assert [(u.grade.system, u.grade.grade) for u in recs] == [("KDIGO", "2B"), ("KDIGO", "practice point")]
    assert (
        recs[0].text
        == "Recommendation 1.4.1: We suggest treating adults at risk of progression with an SGLT2 inhibitor."
    )
    assert recs[1].text == "Practice Point 1.4.2: Review the dose at every visit."  # the label numbers the statement


@pytest.mark.parametrize(
    "text",
    ["A Level 2 alert was issued by the pharmacy.", "Level 2 alert", "See Table 3A for doses.", "Table 3A"],
)
def test_event_levels_and_table_numbers_are_no_grades(text: str) -> None:
    assert not find_grades(text)


def test_cdc_graded_guideline_keeps_ungraded_clinician_advice_in_its_section() -> None:
    graded = [
        (P, f"Clinicians should offer therapy {c} before opioids (recommendation category: A; evidence type: 3).")
        for c in "ABCDE"
    ]
    units = build_units(
        _doc(
            (H, "Clinical Practice Guideline for Prescribing Opioids for Pain"),
            *graded,
            (H, "Implementation Considerations"),
            (P, "• Clinicians should maximize use of nonpharmacologic therapies as appropriate."),
        )
    )
    recs = _recs(units)
    assert len(recs) == 5 and all(u.grade.system == "CDC/ACIP" for u in recs)
    # trap: ungraded advice in a guideline that grades its recommendations is section text
    assert units[-1].unit_type is UnitType.SECTION and units[-1].text.startswith("• Clinicians should maximize")


# ----------------------------------------------------------------------------- CSCO tier tables


def _tier_table(h1: str, h2: str, h3: str) -> Block:
    from structaware_readers.tables import parse_html_table

    html = (
        f"<table><tr><td>分层</td><td>{h1}</td><td>{h2}</td><td>{h3}</td></tr>"
        "<tr><td>一线治疗</td><td>方案A（1A类）</td><td>方案B（2A类）</td><td>方案C [3类]</td></tr></table>"
    )
    return Block(block_id="t", kind=BlockKind.TABLE, text="", page=1, table=parse_html_table(html))


@pytest.mark.parametrize(
    "headers",
    [
        ("Ⅰ级推荐", "Ⅱ级推荐", "Ⅲ级推荐"),
        ("级推荐", "级推荐", "级推荐"),  # the numerals lost by the text layer
        ("Ⅰ级推荐", "ⅡI级推荐", "川级推荐"),  # misread numerals
    ],
)
def test_csco_tier_headers_whatever_the_text_layer_did_to_them(headers: tuple[str, str, str]) -> None:
    units = build_units(ParsedDocument(
        doc_id="d", name="d", source="d.json", parser="mineru", page_count=1,
        blocks=[Block(block_id="h", kind=H, text="晚期肺癌的治疗", page=1, level=1), _tier_table(*headers)],
    ))  # fmt: skip
    recs = _recs(units)
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in recs] == [
        ("CSCO", "I", "1A"),
        ("CSCO", "II", "2A"),
        ("CSCO", "III", "3"),
    ]
    assert recs[2].text == "方案C [3类]"


def test_nccn_one_line_options_with_their_category_and_the_document_default() -> None:
    doc = _doc(
        (H, "NCCN Guidelines Version 1.2025 Ovarian Cancer"),
        (P, "All recommendations are category 2A unless otherwise indicated."),
        (H, "Maintenance therapy"),
        (P, "Olaparib (category 1, preferred)"),
        (P, "Bevacizumab (category 2B), or"),
        (P, "Rucaparib"),
        (P, "Response was assessed by CT every 12 weeks."),
        (P, "The lesion was classified as BI-RADS category 3."),
    )
    units = build_units(doc)
    got = [(u.text, u.grade.grade, u.grade.preference, u.grade.source) for u in _recs(units)]
    assert got == [
        ("Olaparib", "1", "preferred", "sentence"),
        ("Bevacizumab, or", "2B", "", "sentence"),  # the alternative stays with its option
        ("Rucaparib", "2A", "", "document_default"),  # the ungraded option takes the document's default
    ]
    # traps: a finding after the options, an imaging category: section text
    section = [u.text for u in units if u.unit_type is UnitType.SECTION]
    assert any("BI-RADS category 3" in t and "assessed by CT" in t for t in section)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("We suggest rest and fluids (Weak for | Reviewed, New-added).", "We suggest rest and fluids."),
        ("Offer ABPM. (Strong recommendation; high-quality evidence) [Grade A]", "Offer ABPM."),
        ("Olaparib (category 1, preferred) is an option after response", "Olaparib is an option after response"),
        ("建议首选同步放化疗（Ⅱ a 类推荐）。", "建议首选同步放化疗。"),
        ("Statins should be considered.\nIIa\nC", "Statins should be considered."),
        ("(2B)", "(2B)"),  # a text that is only a grade keeps it
    ],
)
def test_statement_text_without_its_grade_marks(text: str, kept: str) -> None:
    from structaware_readers.units.grade_marks import strip_marks

    assert strip_marks(text, [(m.start, m.end) for m in find_grades(text)]) == kept


@pytest.mark.parametrize(
    "text", ["Patients were enrolled in the trial.\nIIIA", "Patients were enrolled in the trial.\nIIB"]
)
def test_a_cancer_stage_after_a_sentence_is_no_esc_class(text: str) -> None:
    assert detect_grade(text) is None  # ESC has no class II, and class III is printed apart from its level


@pytest.mark.parametrize("cell", ["IIIA", "IIB"])
def test_a_stage_cell_is_no_esc_class_and_level(cell: str) -> None:
    assert detect_grade(cell) is None  # trap beside the glued "IIaB" / "IA" cells, which are ESC grades
    assert _g("IIaB") == ("ESC", "IIa", "moderate", "B", "")
