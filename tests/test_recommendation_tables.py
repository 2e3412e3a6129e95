"""Recommendation tables become one ``recommendation`` unit per recommendation (issue 21, item 1).

The real case: nine pages of the VA/DoD major depressive disorder guideline (public domain, see
``tests/fixtures/pdf/SOURCES.md``) parsed by MinerU 4.0.12 (flash tier): its recommendation table
runs over four pages; MinerU reads the two middle ones a quarter turn round (each HTML row is a
printed column, row numbers falling ``19. 18. ... 11. #``) and gives the last one without cell
markup (rebuilt from the PDF's text layer). Beside it, the traps: the grading scheme's own table
(``Strong for | We recommend …``), evidence tables and an earlier version's recommendations.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from structaware_readers.grades import detect_grade, grade_from_cells
from structaware_readers.load.loader import load_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.tables import parse_html_table
from structaware_readers.tables.html_grid import HtmlRow
from structaware_readers.tables.rotated import turn_back
from structaware_readers.units import build_units

FIXTURES = Path(__file__).parent / "fixtures"
MDD = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_vadod_mdd_2022_excerpt"
MDD_PDF = FIXTURES / "pdf" / "vadod_mdd_2022_excerpt.pdf"


@pytest.fixture(scope="module")
def mdd_units() -> list[Unit]:
    return build_units(load_document(MDD, pdf=MDD_PDF))


def _number(unit: Unit) -> int | None:
    m = re.search(r"\bRecommendation (\d+)\b", unit.context)
    return int(m.group(1)) if m else None


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).lower()


# ----------------------------------------------------------------------------- the real guideline


def test_every_row_of_the_four_page_table_is_one_recommendation(mdd_units: list[Unit]) -> None:
    from_table = [u for u in mdd_units if u.unit_type is UnitType.RECOMMENDATION and u.table is not None]
    assert sorted(_number(u) for u in from_table) == list(range(1, 37))
    # trap: no other unit of the table pages is a table row holding a recommendation's cells
    assert not [u for u in mdd_units if u.unit_type is UnitType.TABLE_ROW and u.pages[0] in (3, 4, 5, 6)]


@pytest.mark.parametrize(
    ("number", "page", "strength", "direction", "status", "starts"),
    [
        (3, 3, "strong", "for", "Reviewed, Amended", "For patients with MDD who are being treated in the primary care"),
        (
            12,
            4,
            "weak",
            "against",
            "Reviewed, New-added",
            "When choosing an initial pharmacotherapy, we suggest against",
        ),
        (
            13,
            4,
            "",
            "neither",
            "Reviewed, New-added",
            "There is insufficient evidence to recommend for or against pharmacogenetic",
        ),
        (20, 5, "strong", "for", "Reviewed, Not changed", "We recommend offering electroconvulsive therapy"),
        (
            34,
            6,
            "strong",
            "against",
            "Reviewed, Not changed",
            "For patients with MDD, we recommend against using deep brain",
        ),
    ],
)
def test_strength_direction_and_category_come_from_the_table_columns(
    mdd_units: list[Unit], number: int, page: int, strength: str, direction: str, status: str, starts: str
) -> None:
    (unit,) = [u for u in mdd_units if u.table is not None and _number(u) == number]
    assert unit.unit_type is UnitType.RECOMMENDATION and unit.pages == [page]
    assert unit.text.startswith(starts)
    g = unit.grade
    assert g is not None and (g.system, g.strength, g.direction, g.status, g.source) == (
        "GRADE",
        strength,
        direction,
        status,
        "table_column",
    )


def test_a_turned_page_gives_one_strength_per_recommendation(mdd_units: list[Unit]) -> None:
    turned = [u for u in mdd_units if u.table is not None and u.pages[0] in (4, 5)]
    assert len(turned) == 16  # recommendations 11-26
    for u in turned:
        assert len(re.findall(r"\b(?:Strong|Weak)\s*(?:for|against)\b|Neither for nor against", u.text)) == 1, u.text
        assert "Columns: Topic; #; Recommendation; Strength" in u.context  # the printed header, not a rotated topic


def test_merged_topic_cells_are_in_the_context(mdd_units: list[Unit]) -> None:
    by_number = {_number(u): u for u in mdd_units if u.table is not None}
    # the topic is one merged cell over rows 15-19, written vertically on a page read turned round
    for n in (15, 19):
        topic = re.search(r"Topic: ([^|]*)", by_number[n].context)
        assert topic and _squeezed(topic.group(1)).startswith("treatmentofmddthatissevere")
    # the topic goes on over the next page ("(cont.)" dropped); recommendation 21 opens another one
    assert _squeezed(by_number[20].context).endswith("initialtreatment|recommendation20")
    assert "relapse" in _squeezed(by_number[21].context) and "treatmentofmdd" not in _squeezed(by_number[21].context)
    # trap: no topic holds a row number (a number cell spread over a topic column)
    assert not any(re.search(r"Topic: [^|]*\b\d+\.", u.context) for u in by_number.values())


def test_the_grading_scheme_is_no_recommendation(mdd_units: list[Unit]) -> None:
    # page 1: the strength and direction definitions (a table of "Strong for | We recommend …") and
    # the methods text around it
    assert not [u for u in mdd_units if u.pages[0] == 1 and u.unit_type is UnitType.RECOMMENDATION]
    defs = [u for u in mdd_units if u.pages[0] == 1 and u.unit_type is UnitType.TABLE_ROW]
    assert len(defs) == 5 and all("General Corresponding Text" in u.text for u in defs)


def test_the_body_copy_of_a_recommendation_keeps_its_sentence_grade(mdd_units: list[Unit]) -> None:
    body = [u for u in mdd_units if u.unit_type is UnitType.RECOMMENDATION and u.table is None]
    assert [u.text[:3] for u in body] == ["1. ", "2. "]
    assert all(
        u.grade and u.grade.source == "sentence" and (u.grade.strength, u.grade.direction) == ("weak", "for")
        for u in body
    )


# ----------------------------------------------------------------------------- table layouts


def _table_doc(headers: list[str], rows: list[list[str]], *, caption: str = "") -> ParsedDocument:
    grid = TableGrid(header_rows=[headers], body_rows=rows)
    blocks = [
        Block(block_id="p1-e0", kind=BlockKind.HEADING, text="VII. Recommendations", page=1, level=1),
        Block(block_id="p1-e1", kind=BlockKind.TABLE, text="", page=1, table=grid, caption=caption),
    ]
    return ParsedDocument(doc_id="d", name="d", source="d.json", parser="mineru", page_count=1, blocks=blocks)


VADOD_HEADERS = ["Topic", "Sub-topic", "#", "Recommendation", "Strength^a", "Category^b"]
VADOD_ROWS = [
    [
        "Screening",
        "",
        "1.",
        "We recommend screening adults for elevated blood pressure periodically.",
        "Strong for",
        "Not Reviewed, Amended",
    ],
    [
        "Treatment (cont.)",
        "a. Blood Pressure Goals",
        "2.",
        "For patients 60 years and over, we recommend a systolic goal of less than 150 mmHg.",
        "Weakfor",
        "Reviewed, Amended",
    ],
    [
        "Treatment (cont.)",
        "",
        "3.",
        "There is insufficient evidence to recommend for or against home blood pressure telemonitoring.",
        "Neither for nor against",
        "Reviewed, New-added",
    ],
    [
        "Treatment (cont.)",
        "",
        "4.",
        "For pregnant women who have had bariatric surgery, we recommend vitamin testing.",
        "N/A",
        "Reviewed, New-replaced",
    ],
]


def test_a_strength_table_gives_recommendations_with_topic_number_and_metadata() -> None:
    units = build_units(_table_doc(VADOD_HEADERS, VADOD_ROWS))
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recs) == 4
    assert (
        recs[0].text
        == "We recommend screening adults for elevated blood pressure periodically.\nStrength: Strong for; Category: Not Reviewed, Amended"
    )
    assert "Topic: Screening | Recommendation 1" in recs[0].context
    # "(cont.)" dropped; a sub-topic left empty under a merged cell is carried down within its topic
    assert "Topic: Treatment > a. Blood Pressure Goals | Recommendation 3" in recs[2].context
    assert [(u.grade.strength, u.grade.direction, u.grade.status) if u.grade else None for u in recs] == [
        ("strong", "for", "Not reviewed, Amended"),
        ("weak", "for", "Reviewed, Amended"),
        ("", "neither", "Reviewed, New-added"),
        None,  # "N/A": a recommendation of the table without a strength
    ]


@pytest.mark.parametrize(
    ("headers", "rows", "caption"),
    [
        # the grading scheme: strength and recommendation in one header, a definition in the other
        (
            ["Recommendation Strength and Direction", "General Corresponding Text"],
            [["Strong for", "We recommend …"], ["Weak against", "We suggest against …"]],
            "Table 2. Strength and Direction of Recommendations",
        ),
        # an evidence table restates the recommendations with their studies
        (
            ["Recommendation", "Evidence", "Strength of Recommendation", "Recommendation Category"],
            [
                [
                    "1. We suggest spirometry if there is a need to confirm asthma.",
                    "[21,22]",
                    "Weak for",
                    "Reviewed, New-replaced",
                ],
                [
                    "2. We suggest against whole-body plethysmography for asthma.",
                    "[23]",
                    "Weak against",
                    "Reviewed, New-replaced",
                ],
            ],
            "Table H-1. Evidence Table",
        ),
        # an earlier version's recommendations, dated in the header
        (
            [
                "2015 CPG Recommendation #",
                "2015 CPG Recommendation Text",
                "2015 CPG Strength of Recommendation",
                "2021 CPG Recommendation Category",
            ],
            [
                [
                    "5",
                    "For patients with moderate-severe alcohol use disorder, we recommend offering acamprosate.",
                    "Strong for",
                    "Reviewed, Amended",
                ],
                [
                    "6",
                    "For patients with alcohol use disorder, we suggest offering topiramate.",
                    "Weak for",
                    "Reviewed, Amended",
                ],
            ],
            "",
        ),
    ],
    ids=["grading-scheme", "evidence-table", "earlier-version"],
)
def test_tables_that_are_no_recommendation_tables(headers: list[str], rows: list[list[str]], caption: str) -> None:
    units = build_units(_table_doc(headers, rows, caption=caption))
    assert [u.unit_type for u in units if u.table is not None] == [UnitType.TABLE_ROW] * len(rows)


CLASS_LEVEL_ROWS = [
    ["Home monitoring is recommended to confirm a raised office reading.", "I", "B"],
    ["Repeat office measurement may be considered when the first reading is borderline.", "IIb", "C"],
]


def test_a_cross_reference_to_an_evidence_table_in_the_caption_keeps_the_recommendations() -> None:
    caption = "Recommendation Table 3 — Recommendations for confirming the diagnosis (see also Supplementary data online, Evidence Table 3)"
    units = build_units(_table_doc(["Recommendations", "Class^a", "Level^b"], CLASS_LEVEL_ROWS, caption=caption))
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert [(u.grade.grade, u.grade.certainty) if u.grade else None for u in recs] == [("I", "B"), ("IIb", "C")]
    # the trap: a caption that names the table an evidence table is still none
    units = build_units(
        _table_doc(
            ["Recommendations", "Class", "Level"],
            CLASS_LEVEL_ROWS,
            caption="Evidence Table 3 — Studies behind the diagnosis",
        )
    )
    assert [u.unit_type for u in units if u.table is not None] == [UnitType.TABLE_ROW] * 2


def test_chinese_class_and_level_columns_and_a_strength_quality_table() -> None:
    zh = [
        ["推荐对局部晚期患者行同步放化疗。", "Ⅰ类", "1a"],
        ["可考虑在放化疗后行辅助化疗。", "Ⅱb类", "2b"],
    ]
    recs = [
        u
        for u in build_units(_table_doc(["推荐意见", "推荐等级", "证据等级"], zh))
        if u.unit_type is UnitType.RECOMMENDATION
    ]
    assert [(u.grade.grade, u.grade.certainty) if u.grade else None for u in recs] == [("I", "1a"), ("IIb", "2b")]
    grade_rows = [
        ["Offer a long-acting bronchodilator to adults with daily symptoms.", "Strong", "Moderate"],
        ["Consider a short course of oral steroids after an admission.", "Conditional", "Low"],
    ]
    recs = [
        u
        for u in build_units(_table_doc(["Recommendation", "Strength", "Quality of evidence"], grade_rows))
        if u.unit_type is UnitType.RECOMMENDATION
    ]
    assert [(u.grade.strength, u.grade.certainty) if u.grade else None for u in recs] == [
        ("strong", "moderate"),
        ("conditional", "low"),
    ]
    # the trap: a table defining the evidence levels has no recommendation column
    levels = [["1a级", "同质性较好的随机对照试验的系统综述"], ["2b级", "单项队列研究"]]
    units = build_units(_table_doc(["证据等级", "代表意义"], levels))
    assert [u.unit_type for u in units if u.table is not None] == [UnitType.TABLE_ROW] * 2


def test_one_graded_row_is_no_strength_table() -> None:
    # a table whose one row happens to have a strength cell is left to table_row units
    units = build_units(
        _table_doc(VADOD_HEADERS, [VADOD_ROWS[0], ["Screening", "", "", "Ask about home readings", "", ""]])
    )
    assert [u.unit_type for u in units if u.table is not None] == [UnitType.TABLE_ROW] * 2


def test_strength_cells_as_guideline_writers_print_them() -> None:
    for cell, want in [
        ("Weak for", ("weak", "for")),
        ("Weakfor", ("weak", "for")),
        ("Strong against", ("strong", "against")),
        ("Neither for nor against", ("", "neither")),
    ]:
        g = grade_from_cells(["Strength", "Category"], [cell, "Reviewed, New- replaced"])
        assert g is not None and (g.strength, g.direction, g.status) == (*want, "Reviewed, New-replaced"), cell
    assert grade_from_cells(["Strength", "Category"], ["Not applicable", "Reviewed, New-added"]) is None
    g = detect_grade(
        "There is insufficient evidence to recommend for or against X. (Neither for nor against | Reviewed, New-added)"
    )
    assert g is not None and (g.direction, g.status) == ("neither", "Reviewed, New-added")
    # traps: prose that is neither for nor against something, a word glued to "for"
    assert detect_grade("The panel was neither for nor against the plan at first.") is None
    assert detect_grade("Weakforce is no grade.") is None


# ----------------------------------------------------------------------------- tables read turned round


def _rows(*rows: list[str]) -> list[HtmlRow]:
    return [HtmlRow(cells=list(r), is_head=False, covers_below=0) for r in rows]


def test_a_table_read_turned_round_is_turned_back() -> None:
    turned = _rows(
        ["Treatment", "Treatment", "Screening", "Topic"],
        ["3.", "2.", "1.", "#"],
        ["Offer drug B to adults with stage 2.", "Offer drug A to adults.", "Screen all adults.", "Recommendation"],
        ["Weak for", "Strong for", "Strong for", "Strength"],
    )
    rows = turn_back(turned)
    assert rows is not None and [r.cells for r in rows] == [
        ["Topic", "#", "Recommendation", "Strength"],
        ["Screening", "1.", "Screen all adults.", "Strong for"],
        ["Treatment", "2.", "Offer drug A to adults.", "Strong for"],
        ["Treatment", "3.", "Offer drug B to adults with stage 2.", "Weak for"],
    ]
    html = (
        "<table>"
        + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in (t.cells for t in turned))
        + "</table>"
    )
    grid = parse_html_table(html)
    assert grid.header_rows == [["Topic", "#", "Recommendation", "Strength"]] and len(grid.body_rows) == 3


@pytest.mark.parametrize(
    "rows",
    [
        # a table printed with its header in the first column and rising numbers: as printed
        [["#", "1.", "2.", "3."], ["Drug", "A", "B", "C"], ["Dose", "5 mg", "10 mg", "20 mg"]],
        # falling figures in a row of a year-on-year table, no label after them
        [["Revenue", "2023", "2022", "2021"], ["Units", "3", "2", "1"], ["Stores", "12", "11", "10"]],
        # falling numbers with a label last, but a sentence in the last column: no header there
        [
            ["9.", "8.", "7.", "#"],
            ["a", "b", "c", "This is a sentence that no header would ever be, it is far too long."],
            ["x", "y", "z", "w"],
        ],
    ],
    ids=["header-first-column", "falling-figures", "long-last-cells"],
)
def test_tables_that_are_not_turned_stay_as_they_are(rows: list[list[str]]) -> None:
    assert turn_back(_rows(*rows)) is None
