"""The unit builder on real MinerU outputs of the synthetic guidelines (CC0, tests/fixtures/mineru)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.mineru import read_mineru
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.units import UnitOptions, build_units

FIX = Path(__file__).parent / "fixtures" / "mineru"
EN = FIX / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
ZH = FIX / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"


@pytest.fixture(scope="module")
def en_units():
    return build_units(read_mineru(EN / "middle_json.json"))


@pytest.fixture(scope="module")
def zh_units():
    return build_units(read_mineru(ZH / "middle_json.json"))


def test_table_rows_carry_their_headers_and_span_the_continued_table(en_units):
    rows = [u for u in en_units if u.unit_type is UnitType.TABLE_ROW]
    # Table 1 runs over pages 3 and 4: 37 + 23 body rows, one table, no repeated header row
    assert len(rows) == 60
    assert len({u.table.table_id for u in rows}) == 1
    assert [u.table.row_index for u in rows] == list(range(60))
    first = rows[0]
    assert first.text == "Population: Adults 18-20 y; Clinic target: <140/90 mmHg; ABPM target: <135/85 mmHg; Grade: A"
    assert first.context.startswith("Table: Table 1. Blood pressure targets by population")
    assert "Columns: Population; Clinic target; ABPM target; Grade" in first.context
    assert first.table.headers == ["Population", "Clinic target", "ABPM target", "Grade"]
    assert first.pages == [3]
    row_131 = next(u for u in rows if "Adults 129-131 y" in u.text)
    assert row_131.pages == [4]
    # a row of the continuation points at the continuation element on page 4, not at page 3's
    assert row_131.element_ids == ["p4-e1"] and row_131.element_pages == [4]
    assert row_131.bboxes[0] != first.bboxes[0]
    assert not any(u.text.startswith("Population: Population") for u in rows)
    # a row's grade column is parsed as a grade
    assert first.grade is not None and first.grade.grade == "A"


def test_recommendations_are_units_with_parsed_grades(en_units):
    recs = [u for u in en_units if u.unit_type is UnitType.RECOMMENDATION]
    by_id = {re.match(r"Recommendation (\d\.\d)", u.text).group(1): u for u in recs}
    assert set(by_id) == {"1.1", "2.1", "3.1"}
    assert by_id["2.1"].grade.strength == "strong"
    assert by_id["2.1"].grade.certainty == "high"
    assert by_id["2.1"].grade.grade == "A"
    assert by_id["3.1"].grade.strength == "conditional"
    assert by_id["3.1"].grade.grade == "C"
    assert by_id["1.1"].grade.certainty == "moderate"
    assert by_id["2.1"].context == (
        "Section: 2 Diagnosis > 2.1 Blood pressure measurement > 2.1.1 Confirming the diagnosis"
        " | Grade (GRADE): (Strong recommendation; high-quality evidence) [Grade A]"
    )
    assert by_id["2.1"].text.endswith("to confirm the diagnosis.")  # the statement without its grade marks
    # a recommendation is not repeated inside its section unit
    sections = [u for u in en_units if u.unit_type is UnitType.SECTION]
    assert not any("Recommendation 2.1" in u.text for u in sections)


def test_section_units_have_heading_paths_and_provenance(en_units):
    sections = [u for u in en_units if u.unit_type is UnitType.SECTION]
    contexts = {u.context for u in sections}
    assert "Section: 1 Introduction" in contexts
    assert "Section: 2 Diagnosis > 2.1 Blood pressure measurement" in contexts
    for u in en_units:
        assert u.pages and all(p >= 1 for p in u.pages)
        assert len(u.element_ids) == len(u.bboxes) == len(u.element_pages)
        for box in u.bboxes:
            assert box is None or all(0.0 <= c <= 1.0 for c in box)
        # furniture never becomes unit text
        assert "Synthetic Guideline on Hypertension v1.0" not in u.text


def test_figure_unit_keeps_caption_and_figure_text(en_units):
    figures = [u for u in en_units if u.unit_type is UnitType.FIGURE]
    assert len(figures) == 1
    assert figures[0].context.startswith("Figure: Figure 1. Diagnostic flowchart")
    assert "ABPM average >= 135/85 mmHg?" in figures[0].text
    assert figures[0].pages == [2]


def test_chinese_recommendations_and_table(zh_units):
    recs = [u for u in zh_units if u.unit_type is UnitType.RECOMMENDATION]
    texts = {u.text[:8]: u for u in recs}
    assert {"推荐意见1.1", "推荐意见2.1", "推荐意见3.1"} <= {t[:7] for t in texts}
    rec21 = next(u for u in recs if u.text.startswith("推荐意见2.1"))
    assert rec21.grade.strength == "strong" and rec21.grade.certainty == "high" and rec21.grade.grade == "A"
    rec31 = next(u for u in recs if u.text.startswith("推荐意见3.1"))
    assert rec31.grade.strength == "weak" and rec31.grade.grade == "C"
    assert (
        rec21.context
        == "Section: 2 诊断 > 2.1 血压测量 > 2.1.1 确诊方法 | Grade (GRADE): （强推荐，高质量证据）【A级】"
    )
    assert rec21.text.endswith("以确诊。")
    rows = [u for u in zh_units if u.unit_type is UnitType.TABLE_ROW]
    assert len(rows) == 60
    assert rows[0].text.startswith("人群: 18-20岁成人; 诊室血压目标: <140/90 mmHg")


def test_ids_are_deterministic_and_unique(en_units):
    again = build_units(read_mineru(EN / "middle_json.json"))
    assert [u.unit_id for u in again] == [u.unit_id for u in en_units]
    assert len({u.unit_id for u in en_units}) == len(en_units)
    assert [u.ordinal for u in en_units] == list(range(len(en_units)))


def test_every_rendering_gives_the_same_units():
    texts = []
    for name in ("middle_json.json", "content_list.rendered.json", "structured_content.json"):
        units = build_units(read_mineru(EN / name))
        texts.append([(u.unit_type.value, u.text, u.context) for u in units])
    assert texts[0] == texts[1] == texts[2]


def test_long_sections_split_at_paragraph_boundaries():
    para = "Blood pressure should be measured twice. " * 10  # 410 characters
    blocks = [Block(block_id="p1-e0", kind=BlockKind.HEADING, text="1 Methods", page=1, level=1)]
    blocks += [Block(block_id=f"p1-e{i}", kind=BlockKind.PARAGRAPH, text=para.strip(), page=1) for i in range(1, 6)]
    doc = ParsedDocument(doc_id="0" * 16, source="x", name="x", parser="test", page_count=1, blocks=blocks)
    units = build_units(doc, UnitOptions(max_section_chars=900))
    assert [len(u.element_ids) for u in units] == [3, 2, 1]  # heading + 2 paragraphs, then 2, then 1
    assert units[0].element_ids[0] == "p1-e0"
    assert all(len(u.text) <= 900 for u in units)
    assert all(u.context == "Section: 1 Methods" for u in units)


def test_group_rows_label_the_rows_below_them():
    grid = TableGrid(
        header_rows=[["Drug", "Dose"]],
        body_rows=[["Adults", "Adults"], ["Amlodipine", "5 mg"], ["Children", "Children"], ["Amlodipine", "2.5 mg"]],
    )
    blocks = [Block(block_id="p1-e0", kind=BlockKind.TABLE, text="", page=1, table=grid, caption="Table 2. Doses")]
    doc = ParsedDocument(doc_id="1" * 16, source="x", name="x", parser="test", page_count=1, blocks=blocks)
    rows = build_units(doc)
    assert [u.text for u in rows] == ["Drug: Amlodipine; Dose: 5 mg", "Drug: Amlodipine; Dose: 2.5 mg"]
    assert rows[0].context.endswith("Group: Adults") and rows[1].context.endswith("Group: Children")


def test_flowchart_blocks_become_one_unit_per_edge():
    src = "flowchart TD\n  A[Clinic BP >= 140/90] --> B{ABPM >= 135/85?}\n  B -->|yes| C[Diagnose hypertension]\n  B -->|no| D[Re-check in 5 years]"
    blocks = [
        Block(block_id="p2-e3", kind=BlockKind.FLOWCHART, text="", page=2, mermaid=src, caption="Figure 1. Diagnosis")
    ]
    doc = ParsedDocument(doc_id="2" * 16, source="x", name="x", parser="test", page_count=2, blocks=blocks)
    units = build_units(doc)
    assert [u.text for u in units] == [
        "Clinic BP >= 140/90 -> ABPM >= 135/85?",
        "ABPM >= 135/85? -(yes)-> Diagnose hypertension",
        "ABPM >= 135/85? -(no)-> Re-check in 5 years",
    ]
    assert all(u.unit_type is UnitType.FLOW_PATH and u.context == "Flowchart: Figure 1. Diagnosis" for u in units)
    assert units[1].flow.label == "yes" and units[1].flow.target == "Diagnose hypertension"


def test_context_ablation_empties_contexts(en_units):
    doc = read_mineru(EN / "middle_json.json")
    plain = build_units(doc, UnitOptions(include_context=False))
    assert all(u.context == "" for u in plain)
    assert [u.text for u in plain] == [u.text for u in en_units]


def test_document_without_body_text_is_an_error():
    blocks = [Block(block_id="p1-e0", kind=BlockKind.PAGE_NUMBER, text="1", page=1)]
    doc = ParsedDocument(doc_id="3" * 16, source="empty.json", name="empty", parser="test", page_count=1, blocks=blocks)
    with pytest.raises(EmptyDocumentError, match=r"empty\.json"):
        build_units(doc)


def _one_block_doc(block: Block) -> ParsedDocument:
    return ParsedDocument(doc_id="4" * 16, source="t.json", name="t", parser="test", page_count=1, blocks=[block])


def test_space_aligned_text_tables_become_rows_with_header_and_group_context():
    # a borderless financial table as MinerU's flash tier leaves it: a TABLE block with text, no grid
    text = "\n".join(
        [
            "                          Three months ended June 30,  Six months ended June 30,",
            "(in millions)                     2022         2021          2022         2021",
            "Net income                  $    8,649  $    11,948   $    16,931  $    26,248",
            "Other comprehensive income/(loss), after-tax",
            "Fair value hedges                   51          (23)         161          (51)",
        ]
    )
    block = Block(block_id="p89-e2", kind=BlockKind.TABLE, text=text, page=89)
    assert [u.unit_type for u in build_units(_one_block_doc(block))] == [UnitType.SECTION]  # off by default
    rows = build_units(_one_block_doc(block), UnitOptions(text_table_rows=True))
    assert [u.text for u in rows] == [
        "Net income: $8,649, $11,948, $16,931, $26,248",
        "Fair value hedges: 51, (23), 161, (51)",
    ]
    assert all(u.unit_type is UnitType.TABLE_ROW and u.element_ids == ["p89-e2"] for u in rows)
    assert (
        "Columns: Three months ended June 30, Six months ended June 30, / (in millions) 2022 2021 2022 2021"
        in rows[0].context
    )
    assert rows[1].context.endswith("Group: Other comprehensive income/(loss), after-tax")
    # no row context carries a text table's footnote: it is a unit of its own, after the rows
    noted = block.model_copy(update={"footnote": "(a) Includes amounts reclassified to earnings."})
    units = build_units(_one_block_doc(noted), UnitOptions(text_table_rows=True))
    assert [u.unit_type for u in units] == [UnitType.TABLE_ROW, UnitType.TABLE_ROW, UnitType.SECTION]
    assert units[-1].text == "(a) Includes amounts reclassified to earnings." and units[-1].element_ids == ["p89-e2"]


def test_a_text_table_without_numeric_rows_stays_section_text():
    block = Block(
        block_id="p1-e0",
        kind=BlockKind.TABLE,
        text="Hand hygiene   before and after care\nGloves   when touching blood",
        page=1,
    )
    units = build_units(_one_block_doc(block), UnitOptions(text_table_rows=True))
    assert [u.unit_type for u in units] == [UnitType.SECTION]


def test_label_only_rows_head_groups_and_split_headers_are_repaired():
    grid = TableGrid(
        header_rows=[["", "Three months ended March 31,", "Three months ended March 31,"]],
        body_rows=[
            ["(in millions)", "2021", "2020"],  # has numbers: stays a body row
            ["Loans reported as trading assets:", "", ""],
            ["Principal", "5,114", "4,402"],
            ["Interest", "12", "9"],
        ],
    )
    block = Block(block_id="p97-e1", kind=BlockKind.TABLE, text="", page=97, table=grid)
    rows = build_units(_one_block_doc(block))
    principal = next(u for u in rows if "5,114" in u.text)
    assert principal.context.endswith("Group: Loans reported as trading assets:")
    assert not any(u.text.startswith("Column 1: Loans") for u in rows)

    header_split = TableGrid(
        header_rows=[["Drug", "Dose", "Dose"]],
        body_rows=[["", "Adults", "Children"], ["Amlodipine", "5 mg", "2.5 mg"], ["Lisinopril", "10 mg", "5 mg"]],
    )
    block = Block(block_id="p2-e1", kind=BlockKind.TABLE, text="", page=2, table=header_split)
    rows = build_units(_one_block_doc(block))
    assert rows[0].text == "Drug: Amlodipine; Dose / Adults: 5 mg; Dose / Children: 2.5 mg"
    assert len(rows) == 2


def test_a_mermaid_fence_partitioned_by_unstructured_becomes_flow_paths():
    from structaware_readers.unstructured import read_unstructured

    doc = read_unstructured(Path(__file__).parent / "fixtures/unstructured/generated/sample.md.json")
    flows = [u for u in build_units(doc) if u.unit_type is UnitType.FLOW_PATH]
    assert [u.text for u in flows] == [
        "Clinic BP >= 140/90 -> ABPM confirms?",
        "ABPM confirms? -(yes)-> Diagnose hypertension",
        "ABPM confirms? -(no)-> Re-measure in 5 years",
    ]
    assert flows[0].context == "Flowchart | Section: 1 Management of Hypertension > 1.1 Blood pressure targets"
    assert flows[1].flow.source == "ABPM confirms?" and flows[1].flow.label == "yes"


def test_wrapped_row_labels_are_joined_in_text_tables():
    text = "\n".join(
        [
            "(in millions, except ratios) 2021         2020      Change",
            "Nonaccrual loans:",
            "  Nonaccrual loans",
            "    retained(a)         $    842     $     689         22 %",
            "  Nonaccrual loans held-",
            "    for-sale and loans at",
            "    fair value(b)           1,266          766         65",
        ]
    )
    block = Block(block_id="p25-e1", kind=BlockKind.TABLE, text=text, page=25)
    rows = build_units(_one_block_doc(block), UnitOptions(text_table_rows=True))
    assert [u.text for u in rows] == [
        "Nonaccrual loans retained(a): $842, $689, 22 %",
        "Nonaccrual loans held-for-sale and loans at fair value(b): 1,266, 766, 65",
    ]
    assert "Nonaccrual loans:" in rows[0].context  # lines before the first row are column-header context


def _doc(*blocks: Block) -> ParsedDocument:
    return ParsedDocument(
        doc_id="5" * 16, source="filing.json", name="filing", parser="test", page_count=59, blocks=list(blocks)
    )


_STATEMENT = TableGrid(
    header_rows=[["", "2018", "2019"]],
    body_rows=[["Net income", "$", "10,073"], ["Net sales", "232,887", "280,522"]],
)


def test_a_table_without_caption_takes_the_title_line_or_lead_in_just_before_it():
    title = Block(block_id="p39-e4", kind=BlockKind.PARAGRAPH, text="CONSOLIDATED STATEMENTS OF OPERATIONS", page=39)
    table = Block(block_id="p39-e5", kind=BlockKind.TABLE, text="", page=39, table=_STATEMENT)
    units = build_units(_doc(title, table))
    rows = [u for u in units if u.unit_type is UnitType.TABLE_ROW]
    assert [u.context.split(" | ")[0] for u in rows] == ["Table: CONSOLIDATED STATEMENTS OF OPERATIONS"] * 2
    # the title line stays searchable text of its own, nothing is lost
    assert any(u.unit_type is UnitType.SECTION and u.text == title.text for u in units)

    lead = "Our other long-term liabilities are summarized as follows (in millions):"
    units = build_units(
        _doc(
            Block(block_id="p58-e2", kind=BlockKind.PARAGRAPH, text=lead, page=58),
            table.model_copy(update={"block_id": "p59-e0", "page": 59}),
        )
    )
    assert next(u for u in units if u.unit_type is UnitType.TABLE_ROW).context.startswith(f"Table: {lead} |")

    # a sentence that says it describes the table below, whatever its last character
    says = "The following table presents goodwill attributed to the reportable business segments and Corporate."
    units = build_units(
        _doc(
            Block(block_id="p171-e2", kind=BlockKind.PARAGRAPH, text=says, page=171),
            table.model_copy(update={"block_id": "p171-e3", "page": 171}),
        )
    )
    assert next(u for u in units if u.unit_type is UnitType.TABLE_ROW).context.startswith(f"Table: {says} |")


@pytest.mark.parametrize(
    "text, page",
    [
        ("Net sales increased 20% in 2019, compared to the prior year.", 39),  # a sentence, not a title
        ("Note: amounts are unaudited", 39),  # a note
        ("(a) Includes collateral dependent loans", 39),  # a footnote
        ("CONSOLIDATED STATEMENTS OF OPERATIONS", 37),  # two pages away
        ("11,171", 39),  # a stray figure (a piece of a split table) names nothing
        ("(2.5) $ 1,204", 39),
    ],
)
def test_text_that_does_not_title_the_table_is_not_its_title(text, page):
    units = build_units(
        _doc(
            Block(block_id=f"p{page}-e1", kind=BlockKind.PARAGRAPH, text=text, page=page),
            Block(block_id="p39-e5", kind=BlockKind.TABLE, text="", page=39, table=_STATEMENT),
        )
    )
    assert next(u for u in units if u.unit_type is UnitType.TABLE_ROW).context.split(" | ")[0] == "Table"


def test_a_caption_wins_over_the_line_before_the_table():
    units = build_units(
        _doc(
            Block(block_id="p39-e4", kind=BlockKind.PARAGRAPH, text="SUMMARY", page=39),
            Block(
                block_id="p39-e5",
                kind=BlockKind.TABLE,
                text="",
                page=39,
                table=_STATEMENT,
                caption="Table 4. Results of operations",
            ),
        )
    )
    assert next(u for u in units if u.unit_type is UnitType.TABLE_ROW).context.startswith("Table: Table 4. Results")


def test_sign_cells_join_their_value_and_unnamed_columns_get_no_invented_header():
    units = build_units(_doc(Block(block_id="p39-e5", kind=BlockKind.TABLE, text="", page=39, table=_STATEMENT)))
    rows = [u for u in units if u.unit_type is UnitType.TABLE_ROW]
    # "$" in a column of its own (a PDF-rebuilt grid) is written with the value next to it; the stub
    # column has no header, so the label stands alone (no "Column 1: Net income")
    assert rows[0].text == "Net income; 2019: $10,073"
    assert rows[1].text == "Net sales; 2018: 232,887; 2019: 280,522"
    assert rows[0].table.headers == ["", "2018", "2019"]
    assert "Columns: 2018; 2019" in rows[0].context and "Column 1" not in rows[0].context
    percent = TableGrid(header_rows=[["", "Change", ""]], body_rows=[["Service", "4.4", "%"], ["Other", "(4.5)", "%"]])
    units = build_units(_doc(Block(block_id="p28-e2", kind=BlockKind.TABLE, text="", page=28, table=percent)))
    assert [u.text for u in units if u.unit_type is UnitType.TABLE_ROW] == [
        "Service; Change: 4.4%",
        "Other; Change: (4.5)%",
    ]


def test_a_heading_without_letters_is_section_text_not_a_level_of_the_path():
    blocks = [
        Block(block_id="p52-e0", kind=BlockKind.HEADING, text="Note 3—PROPERTY AND EQUIPMENT", page=52, level=1),
        Block(block_id="p52-e1", kind=BlockKind.HEADING, text="5 $", page=52, level=2),  # a table cell typed as a title
        Block(
            block_id="p52-e2", kind=BlockKind.PARAGRAPH, text="Property and equipment, at cost, consisted of:", page=52
        ),
        Block(block_id="p52-e3", kind=BlockKind.HEADING, text="___________________", page=52, level=2),
        Block(block_id="p52-e4", kind=BlockKind.PARAGRAPH, text="Depreciation expense was $8.8 billion.", page=52),
    ]
    units = build_units(_doc(*blocks))
    assert {tuple(u.section_path) for u in units} == {("Note 3—PROPERTY AND EQUIPMENT",)}
    assert all(u.context == "Section: Note 3—PROPERTY AND EQUIPMENT" for u in units)
    text = "\n".join(u.text for u in units)
    assert "5 $" in text and "Depreciation expense" in text  # nothing is lost


def test_a_heading_that_titles_the_next_table_is_its_caption_not_a_section():
    # MinerU typed "Table 1. Recommended targets" as a title; the table after it has no caption
    doc = read_mineru(FIX / "mineru-4.0.12_flash-tier_tiny_heading_table")
    title = next(b for b in doc.blocks if b.text.strip() == "Table 1. Recommended targets")
    assert title.kind is BlockKind.HEADING
    units = build_units(doc)
    rows = [u for u in units if u.unit_type == UnitType.TABLE_ROW]
    assert len(rows) == 2 and all(u.context.startswith("Table: Table 1. Recommended targets | Columns: ") for u in rows)
    assert all("Table 1" not in " > ".join(u.section_path) for u in units)
    assert all(title.block_id not in u.element_ids for u in units)  # its text is in the rows' context
    source = next(u for u in units if u.text.startswith("Source:"))
    assert source.context == "Section: 1 Management of Hypertension > 1.1 Blood pressure targets"


def test_a_numbered_heading_before_a_table_still_opens_a_section():
    blocks = [
        Block(block_id="p1-e1", kind=BlockKind.HEADING, text="2 Tables of doses", page=1, level=1),
        Block(block_id="p1-e2", kind=BlockKind.HEADING, text="Table 3 Doses", page=1, level=2),
        Block(block_id="p1-e3", kind=BlockKind.TABLE, text="", page=1, caption="Table 3. Doses by age",
              table=TableGrid(header_rows=[["Age", "Dose"]], body_rows=[["< 12", "5 mg"], ["12+", "10 mg"]])),
    ]  # fmt: skip
    units = build_units(
        ParsedDocument(doc_id="3" * 16, source="x", name="x", parser="test", page_count=1, blocks=blocks)
    )
    rows = [u for u in units if u.unit_type == UnitType.TABLE_ROW]
    # the table has its own caption: the heading before it stays a heading
    assert rows and all(u.section_path == ["2 Tables of doses", "Table 3 Doses"] for u in rows)
