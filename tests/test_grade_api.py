"""The grade package's public API: the enriched Grade (direction, status, source), find_grades, grade_from_cells."""

from __future__ import annotations

import pytest

from structaware_readers.grades import (
    GRADE_SOURCES,
    detect_grade,
    find_grades,
    grade_from_cells,
)


def test_vadod_grade_gives_strength_direction_and_status() -> None:
    g = detect_grade("We recommend a short duration. (Strong for| Reviewed, New-replaced)")
    assert (g.system, g.strength, g.direction, g.status) == (
        "GRADE",
        "strong",
        "for",
        "Reviewed, New-replaced",
    )
    assert g.source == "sentence"
    g = detect_grade("(Strong for | Reviewed, New- replaced)")  # OCR spacing noise in the status
    assert g.status == "Reviewed, New-replaced"
    g = detect_grade("We recommend against opioid doses over 90 mg. (Strong against | Reviewed, New-added)")
    assert (g.strength, g.direction, g.status) == (
        "strong",
        "against",
        "Reviewed, New-added",
    )


@pytest.mark.parametrize(
    ("text", "grade", "direction"),
    [
        ("Class III: Harm", "III: Harm", "against"),
        ("COR 3: No Benefit, LOE B-R", "3: No Benefit", "against"),
        ("Class I, Level A", "I", ""),
        ("USPSTF recommendation: Grade D", "D", "against"),
        ("强烈不推荐常规使用", "", "against"),
    ],
)
def test_direction_from_the_grade(text: str, grade: str, direction: str) -> None:
    g = detect_grade(text)
    assert g is not None and g.grade == grade and g.direction == direction


def test_source_is_recorded_and_checked() -> None:
    assert detect_grade("Grade B", source="table_column").source == "table_column"
    assert set(GRADE_SOURCES) == {
        "sentence",
        "table_column",
        "next_paragraph",
        "heading",
        "document_default",
    }
    with pytest.raises(ValueError, match="source"):
        detect_grade("Grade B", source="cell")


def test_grade_from_cells_reads_cor_and_loe_columns() -> None:
    g = grade_from_cells(["COR", "LOE", "Recommendations"], ["I", "B-NR", "In patients with HFrEF, ..."])
    assert (g.system, g.grade, g.certainty, g.source) == (
        "ACC/AHA",
        "I",
        "B-NR",
        "table_column",
    )
    g = grade_from_cells(
        ["Class", "Level", "Recommendations"],
        ["IIa", "C", "Statins should be considered"],
    )
    assert (g.grade, g.certainty) == ("IIa", "C")
    g = grade_from_cells(["推荐意见", "证据等级", "推荐强度"], ["首选ACEI", "A", "强"])
    assert (g.strength, g.certainty) == ("strong", "A")
    # no grade column, or grade columns without a grade
    assert grade_from_cells(["Drug", "Dose"], ["Metformin", "500 mg"]) is None
    assert grade_from_cells(["Class", "Drug"], ["Biguanide", "Metformin"]) is None
    with pytest.raises(ValueError, match="2 headers for 1 cells"):
        grade_from_cells(["COR", "LOE"], ["I"])


def test_find_grades_splits_a_paragraph_of_graded_statements() -> None:
    text = (
        "a) We recommend against initiation of long-term opioid therapy for chronic pain. (Strong against) "
        "b) We recommend alternatives to opioid therapy. (Strong for) c) When pharmacologic therapies are "
        "used, we recommend non-opioids over opioids. (Strong for) (Reviewed, New-replaced)"
    )
    matches = find_grades(text)
    assert [(m.grade.strength, m.grade.direction) for m in matches] == [
        ("strong", "against"),
        ("strong", "for"),
        ("strong", "for"),
    ]
    assert text[matches[0].start : matches[0].end] == "Strong against"
    # a status on its own joins the label before it
    assert matches[2].grade.status == "Reviewed, New-replaced"
    assert text[matches[2].start : matches[2].end] == "Strong for) (Reviewed, New-replaced"
    assert find_grades("No grade here.") == []
