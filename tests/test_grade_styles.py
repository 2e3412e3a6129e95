"""The grade styles issue 21 names, each read as a kind on guideline wording, each with a trap.

Wording: short quotes of published statements (ESC 2021 heart failure, NCCN ovarian cancer, WHO
tuberculosis, KDIGO 2022 diabetes in CKD) and, for the Chinese tier tables, text written here in
the form CSCO prints (no text of a copyrighted guideline).
"""

from __future__ import annotations

import pytest

from structaware_readers.grades import detect_grade, find_grades
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.tables import parse_html_table
from structaware_readers.units import build_units

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


def _doc(*blocks: tuple[BlockKind, str] | Block) -> ParsedDocument:
    out = []
    for i, b in enumerate(blocks):
        if isinstance(b, Block):
            out.append(b.model_copy(update={"block_id": f"p1-e{i}"}))
        else:
            out.append(Block(block_id=f"p1-e{i}", kind=b[0], text=b[1], page=1, level=1 if b[0] is H else None))
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=1, blocks=out)


def _recs(units: list[Unit]) -> list[Unit]:
    return [u for u in units if u.unit_type is UnitType.RECOMMENDATION]


# ----------------------------------------------------------------------------- ESC


ESC_TWO_LINES = (
    "SGLT2 inhibitors are recommended for patients with HFrEF to reduce the risk of HF hospitalization and death. I A\n"
    "Catheter ablation should be considered in patients with symptomatic AF to improve symptoms.\nIIa B"
)


def test_esc_class_and_level_close_the_statement_or_stand_on_the_next_line() -> None:
    labels = find_grades(ESC_TWO_LINES)
    assert [(m.grade.system, m.grade.grade) for m in labels] == [("ESC", "I"), ("ESC", "IIa")]
    units = build_units(
        _doc((H, "2021 ESC Guidelines for the diagnosis and treatment of heart failure"), (P, ESC_TWO_LINES))
    )
    recs = _recs(units)
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in recs] == [
        ("ESC", "I", "A"),
        ("ESC", "IIa", "B"),
    ]
    # the class and level are metadata, not statement text
    assert [u.text.split()[-1] for u in recs] == ["death.", "symptoms."]


def test_esc_class_and_level_printed_as_the_next_paragraph() -> None:
    graded = [(P, f"Drug {c} is recommended in patients with HFrEF to reduce mortality. I A") for c in "ABCDE"]
    units = build_units(
        _doc(
            (H, "2021 ESC Guidelines for the diagnosis and treatment of heart failure"),
            *graded,
            (P, "An ICD should be considered in patients with DCM and a pathogenic mutation."),
            (P, "IIa C"),
            (P, "The phase II trials enrolled 300 patients; it should be considered that none was blinded."),
        )
    )
    recs = _recs(units)
    assert len(recs) == 6
    assert recs[5].text == "An ICD should be considered in patients with DCM and a pathogenic mutation."
    assert (recs[5].grade.system, recs[5].grade.grade, recs[5].grade.certainty, recs[5].grade.source) == (
        "ESC",
        "IIa",
        "C",
        "next_paragraph",
    )
    assert recs[5].context.endswith("Grade (ESC): IIa C")


@pytest.mark.parametrize(
    "text",
    [
        "Patients with type I B cell lymphoma were excluded.",
        "Table 2 shows results in phase IIa C cohorts.",
        "Vitamin B I A",
    ],
)
def test_esc_traps(text: str) -> None:
    assert detect_grade(text) is None


# ----------------------------------------------------------------------------- NCCN


@pytest.mark.parametrize(
    ("text", "grade", "preference"),
    [
        ("Olaparib (category 1, preferred)", "1", "preferred"),
        ("Niraparib (category 2A, other recommended regimen)", "2A", "other recommended"),
        ("Bevacizumab (category 2B; useful in certain circumstances)", "2B", "useful in certain circumstances"),
        ("Carboplatin/paclitaxel (category 1)", "1", ""),
    ],
)
def test_nccn_category_with_its_preference_tier(text: str, grade: str, preference: str) -> None:
    g = detect_grade(text)
    assert g is not None and (g.system, g.grade, g.preference) == ("NCCN", grade, preference)


def test_nccn_document_default_and_preference_tiers_in_units() -> None:
    units = build_units(
        _doc(
            (H, "NCCN Guidelines Version 1.2024 Ovarian Cancer"),
            (P, "All recommendations are category 2A unless otherwise indicated."),
            (P, "Olaparib is recommended as maintenance therapy (category 1, preferred)."),
            (P, "Rucaparib is recommended as maintenance therapy for BRCA-mutated disease."),
            (H, "Preferred Regimens"),  # trap: a tier alone is no grade
            (P, "Preferred regimens are listed by efficacy, safety and toxicity."),
        )
    )
    recs = {u.text.split()[0]: u.grade for u in _recs(units)}
    assert set(recs) == {"Olaparib", "Rucaparib"}
    assert (recs["Olaparib"].grade, recs["Olaparib"].preference, recs["Olaparib"].source) == (
        "1",
        "preferred",
        "sentence",
    )
    assert (recs["Rucaparib"].grade, recs["Rucaparib"].source) == ("2A", "document_default")


# ----------------------------------------------------------------------------- WHO


def test_who_statement_followed_by_its_strength_and_certainty_line() -> None:
    units = build_units(
        _doc(
            (H, "WHO consolidated guidelines on tuberculosis"),
            (P, "Recommendation 1: In people with drug-susceptible TB, WHO recommends the 4-month regimen."),
            (P, "Strong recommendation, moderate-certainty evidence"),
            (P, "Recommendation 2: WHO suggests that children with non-severe TB receive a 4-month regimen."),
            (P, "Conditional recommendation, low-certainty evidence"),
            (P, "A strong recommendation means that most people would want the recommended course of action."),
        )
    )
    recs = _recs(units)
    assert [(u.grade.strength, u.grade.certainty, u.grade.source) for u in recs] == [
        ("strong", "moderate", "next_paragraph"),
        ("conditional", "low", "next_paragraph"),
    ]
    # trap: the definition of a strong recommendation is no recommendation
    assert not [u for u in recs if u.text.startswith("A strong recommendation")]


# ----------------------------------------------------------------------------- KDIGO


def test_kdigo_recommendations_and_practice_points() -> None:
    units = build_units(
        _doc(
            (H, "KDIGO 2022 Clinical Practice Guideline for Diabetes Management in Chronic Kidney Disease"),
            (
                P,
                "Recommendation 1.3.1: We recommend treating patients with T2D, CKD, and an eGFR ≥20 with an SGLT2i (1A).",
            ),
            (
                P,
                "Practice Point 1.3.1: Once an SGLT2i is initiated, it is reasonable to continue it even if the eGFR falls below 20.",
            ),
            (P, "The 1A grade means that most patients should receive the recommended course of action."),
        )
    )
    grades = [(u.grade.system, u.grade.grade, u.grade.strength) for u in _recs(units)]
    assert grades == [("KDIGO", "1A", "strong"), ("KDIGO", "practice point", "")]  # a KDIGO guideline's title


# ----------------------------------------------------------------------------- CSCO tier tables

TIER_TABLE = (
    "<table><tr><td>分层</td><td>Ⅰ级推荐</td><td>Ⅱ级推荐</td><td>Ⅲ级推荐</td></tr>"
    "<tr><td>ⅠA1期</td><td>筋膜外子宫切除术（2A类）</td><td>宫颈锥切术（2A类）</td><td></td></tr>"
    "<tr><td>ⅠB1期</td><td>广泛子宫切除术+盆腔淋巴结切除术（1A类）<br>根治性放疗（1B类）</td>"
    "<td>前哨淋巴结显影（2B类）</td><td>临床研究</td></tr></table>"
)


def test_chinese_tier_columns_give_one_recommendation_per_tier_cell() -> None:
    table = Block(block_id="t", kind=BlockKind.TABLE, text="", page=1, table=parse_html_table(TIER_TABLE))
    units = build_units(_doc((H, "早期宫颈癌的治疗"), table))
    recs = _recs(units)
    got = [(u.text.split("（")[0], u.grade.grade, u.grade.certainty) for u in recs]
    assert got == [
        ("筋膜外子宫切除术", "I", "2A"),
        ("宫颈锥切术", "II", "2A"),
        ("广泛子宫切除术+盆腔淋巴结切除术", "I", ""),  # two options marked 1A and 1B: no single category
        ("前哨淋巴结显影", "II", "2B"),
        ("临床研究", "III", ""),
    ]
    assert "Topic: ⅠB1期 | Tier: Ⅲ级推荐" in recs[4].context and all(u.grade.system == "CSCO" for u in recs)


def test_a_grade_column_is_not_a_tier_table() -> None:
    # trap: a "推荐级别" column holding tiers is the grade column of a table of recommendations (one
    # recommendation unit per row, its statement as text), not a tier table (a unit per tier cell)
    grid = TableGrid(
        header_rows=[["推荐意见", "推荐级别", "证据级别"]],
        body_rows=[
            ["高危患者推荐使用他汀类药物", "Ⅰ级推荐", "1A类证据"],
            ["不推荐常规使用阿司匹林", "Ⅱ级推荐", "2B类证据"],
        ],
    )
    table = Block(block_id="t", kind=BlockKind.TABLE, text="", page=1, table=grid)
    units = build_units(_doc((H, "血脂异常防治指南"), table))
    assert [u.unit_type for u in units] == [UnitType.RECOMMENDATION, UnitType.RECOMMENDATION]
    assert [u.text for u in units] == ["高危患者推荐使用他汀类药物", "不推荐常规使用阿司匹林"]
    assert [(u.grade.system, u.grade.grade, u.grade.certainty) for u in units] == [
        ("CSCO", "I", "1A"),
        ("CSCO", "II", "2B"),
    ]
