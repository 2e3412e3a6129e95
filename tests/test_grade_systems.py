"""Each grading system as guideline writers print it, with traps that must stay ungraded (issue 11).

Wording is taken from published guidelines (short quotes of their grade labels and statement
openings); traps come from the same documents or from filings and clinical prose.
"""

from __future__ import annotations

import pytest

from structaware_readers.grades import detect_grade
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.units import build_units

# (system module, real-world wording, expected (system, grade, strength, certainty, direction))
WORDING = [
    # GRADE (GRADE handbook; ATS/IDSA; VA/DoD)
    (
        "GRADE",
        "We suggest against routine use of corticosteroids (conditional recommendation, very low certainty evidence).",
        ("GRADE", "", "conditional", "very low", ""),
    ),
    (
        "GRADE",
        "We recommend against long-term opioid therapy. (Strong against | Reviewed, Amended)",
        ("GRADE", "", "strong", "", "against"),
    ),
    (
        "GRADE",
        "Strength of recommendation: weak for; Quality of evidence: low",
        ("GRADE", "", "weak", "low", "for"),
    ),
    ("GRADE", "Grade 1A", ("GRADE", "1A", "strong", "high", "")),
    # ACC/AHA (2022 AHA/ACC/HFSA heart failure guideline)
    (
        "ACC/AHA",
        "In patients with HFrEF, the use of ARNi is recommended to reduce morbidity and mortality. COR 1, LOE A",
        ("ACC/AHA", "1", "strong", "A", ""),
    ),
    (
        "ACC/AHA",
        "Class III: Harm, Level of Evidence: B-R",
        ("ACC/AHA", "III: Harm", "strong", "B-R", "against"),
    ),
    ("ACC/AHA", "COR 2b LOE C-LD", ("ACC/AHA", "2b", "weak", "C-LD", "")),
    # ESC (class and level printed in the last columns, flattened to the end of the sentence)
    (
        "ESC",
        "Statins are recommended for all patients with chronic coronary syndromes. I A",
        ("ESC", "I", "strong", "A", ""),
    ),
    (
        "ESC",
        "Catheter ablation should be considered in selected patients (Class IIa, Level B).",
        ("ACC/AHA", "IIa", "moderate", "B", ""),
    ),
    # NCCN
    ("NCCN", "Osimertinib (category 1, preferred)", ("NCCN", "1", "", "", "")),
    (
        "NCCN",
        "Pembrolizumab is a category 2A recommendation for this setting.",
        ("NCCN", "2A", "", "", ""),
    ),
    # USPSTF
    (
        "USPSTF",
        "The USPSTF recommends screening for colorectal cancer in adults aged 50 to 75 years. (A recommendation) Grade A",
        ("USPSTF", "A", "", "", ""),
    ),
    ("USPSTF", "I statement", ("USPSTF", "I", "", "", "")),
    # Oxford CEBM
    ("Oxford", "Level of evidence: 2b", ("Oxford", "2b", "", "2b", "")),
    # SIGN
    ("SIGN", "Level of evidence 1++", ("SIGN", "1++", "", "1++", "")),
    ("SIGN", "SIGN grade B", ("SIGN", "B", "", "", "")),
    # KDIGO
    (
        "KDIGO",
        "We suggest that patients with CKD and diabetes be treated with an SGLT2i (2B).",
        ("GRADE", "2B", "weak", "moderate", ""),
    ),
    (
        "KDIGO",
        "Practice Point 1.3.1: Use a validated risk equation to estimate absolute risk.",
        ("KDIGO", "practice point", "", "", ""),
    ),
    # WHO (strength and certainty printed after the statement)
    (
        "WHO",
        "Strong recommendation, moderate quality of evidence",
        ("GRADE", "", "strong", "moderate", ""),
    ),
    # Chinese
    (
        "zh",
        "推荐意见3：对于高危患者，推荐使用他汀类药物（强推荐，中等质量证据）",
        ("GRADE", "", "strong", "moderate", "for"),
    ),
    ("zh", "证据等级：B；推荐强度：弱", ("GRADE", "B", "weak", "B", "")),
    ("zh", "奥希替尼一线治疗（Ⅰ级推荐，1A类证据）", ("CSCO", "I", "", "1A", "")),
    (
        "zh",
        "奥希替尼一线治疗（l级推荐，1A类证据）",
        ("CSCO", "I", "", "1A", ""),
    ),  # OCR read Ⅰ as l
    ("zh", "阿法替尼（Ill级推荐）", ("CSCO", "III", "", "", "")),  # OCR read Ⅲ as Ill
    ("zh", "术后辅助化疗【A级】", ("zh", "A", "", "", "")),
]

TRAPS = [
    (
        "GRADE",
        "A strong recommendation means that most informed patients would choose the intervention.",
    ),
    (
        "GRADE",
        "There is low quality evidence that the drug reduces pain in some trials.",
    ),
    ("ACC/AHA", "Patients with NYHA class III symptoms were enrolled."),
    ("ESC", "The phase II A cohort enrolled 40 patients and reported results in 2019."),
    ("NCCN", "The storm was a Category 3 hurricane when it reached the coast."),
    ("USPSTF", "Hepatitis C screening uptake rose in 2020."),
    ("USPSTF", "The task force keeps a list of all Grade A and B services."),
    ("USPSTF", "UpToDate: Grade 2C"),  # GRADE 2C, not USPSTF C: checked below
    (
        "Oxford",
        "Level 2 inputs are observable inputs other than quoted prices included in Level 1.",
    ),
    ("SIGN", "Trace 2+ proteinuria on dipstick."),
    ("KDIGO", "Table (2A) lists the doses used."),
    ("WHO", "WHO grade 2 toxicity occurred in 10% of patients."),
    ("zh", "该路段为A级公路，限速80公里。"),
    ("zh", "3级高血压患者应尽快就诊。"),
    ("zh", "本研究为Ⅱ期临床试验。"),
]


@pytest.mark.parametrize(
    ("system", "text", "expected"),
    WORDING,
    ids=[f"{w[0]}-{i}" for i, w in enumerate(WORDING)],
)
def test_real_world_wording(system: str, text: str, expected: tuple[str, ...]) -> None:
    g = detect_grade(text)
    assert g is not None, text
    assert (g.system, g.grade, g.strength, g.certainty, g.direction) == expected


@pytest.mark.parametrize(("system", "text"), TRAPS, ids=[f"{t[0]}-{i}" for i, t in enumerate(TRAPS)])
def test_traps_stay_ungraded(system: str, text: str) -> None:
    g = detect_grade(text)
    if text.startswith("UpToDate"):
        assert g is not None and (g.system, g.grade) == ("GRADE", "2C")
    else:
        assert g is None, (text, g)


def _doc(*blocks: tuple[BlockKind, str]) -> ParsedDocument:
    return ParsedDocument(
        doc_id="d",
        name="d",
        source="d.json",
        parser="mineru",
        page_count=1,
        blocks=[
            Block(
                block_id=f"p1-e{i}",
                kind=k,
                text=t,
                page=1,
                level=1 if k is BlockKind.HEADING else None,
            )
            for i, (k, t) in enumerate(blocks)
        ],
    )


def test_nccn_document_default_grades_ungraded_recommendations() -> None:
    units = build_units(
        _doc(
            (
                BlockKind.HEADING,
                "NCCN Guidelines Version 2.2024 Non-Small Cell Lung Cancer",
            ),
            (
                BlockKind.PARAGRAPH,
                "All recommendations are category 2A unless otherwise indicated.",
            ),
            (
                BlockKind.PARAGRAPH,
                "Osimertinib is recommended as adjuvant therapy (category 1).",
            ),
            (
                BlockKind.PARAGRAPH,
                "Atezolizumab is recommended as adjuvant therapy after chemotherapy.",
            ),
        )
    )
    recs = {u.text[:12]: u.grade for u in units if u.unit_type is UnitType.RECOMMENDATION}
    assert (recs["Osimertinib "].grade, recs["Osimertinib "].source) == (
        "1",
        "sentence",
    )
    assert (
        recs["Atezolizumab"].system,
        recs["Atezolizumab"].grade,
        recs["Atezolizumab"].source,
    ) == (
        "NCCN",
        "2A",
        "document_default",
    )


def test_who_grade_in_the_next_paragraph_attaches_to_the_recommendation() -> None:
    units = build_units(
        _doc(
            (
                BlockKind.HEADING,
                "WHO guidelines on core components of infection prevention and control programmes",
            ),
            (
                BlockKind.PARAGRAPH,
                "Recommendation 1: The panel recommends that active IPC programmes be established.",
            ),
            (BlockKind.PARAGRAPH, "(Strong recommendation, low quality of evidence)"),
            (
                BlockKind.PARAGRAPH,
                "Recommendation 2: WHO recommends that IPC education be in place for all health workers.",
            ),
            (
                BlockKind.PARAGRAPH,
                "Strong recommendation, moderate quality of evidence",
            ),
            (
                BlockKind.PARAGRAPH,
                "Remarks: the GDG noted that training should be team-based.",
            ),
        )
    )
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert [(u.grade.strength, u.grade.certainty, u.grade.source) for u in recs[:2]] == [
        ("strong", "low", "next_paragraph"),
        ("strong", "moderate", "next_paragraph"),
    ]
    assert recs[0].element_ids == ["p1-e1", "p1-e2"] and "(Strong recommendation" in recs[0].context
    assert "Strong recommendation" not in recs[0].text  # the grade line is metadata, not statement text
