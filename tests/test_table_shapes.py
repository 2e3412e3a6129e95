"""Every table shape of ../shared/cases read right, as a kind (issue 9, part 2).

Each test reads a case's own input through the product (MinerU content list / Unstructured elements
-> ParsedDocument -> units) and asserts the right values of its expected.md.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from structaware_readers.mineru import read_mineru
from structaware_readers.models import BlockKind, Unit, UnitType
from structaware_readers.tables import parse_html_table
from structaware_readers.units import build_units
from structaware_readers.unstructured import read_unstructured


def _case(shared_dir: Path, name: str) -> Path:
    return next((shared_dir / "cases").glob(f"{name}*"))


def _mineru_units(tmp_path: Path, html: str, *, caption: str = "", footnotes: list[str] | None = None) -> list[Unit]:
    """``html`` as the one table of a MinerU content list (page 3) under a heading."""
    items = [
        {"type": "text", "text": "Tables", "text_level": 1, "bbox": [50, 20, 400, 40], "page_idx": 2},
        {
            "type": "table",
            "img_path": "images/t.jpg",
            "table_caption": [caption] if caption else [],
            "table_footnote": footnotes or [],
            "table_body": html,
            "bbox": [50, 50, 950, 900],
            "page_idx": 2,
        },
    ]
    path = tmp_path / "t_content_list.json"
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return build_units(read_mineru(path))


def _rows(units: list[Unit]) -> list[Unit]:
    return [u for u in units if u.unit_type is UnitType.TABLE_ROW]


# ------------------------------------------------------------------ 02: phantom rows, unquoted spans


def test_rowspan_over_empty_tr_rows_gives_no_phantom_rows(shared_dir, tmp_path):
    html = (_case(shared_dir, "02-") / "input.html").read_text(encoding="utf-8")
    grid = parse_html_table(html)
    assert grid.header_rows == [["a", "b", "c"]]
    assert grid.n_cols == 3 and all(len(r) == 3 for r in grid.body_rows)
    rows = _rows(_mineru_units(tmp_path, html))
    assert [u.text for u in rows] == ["a: a1; b: b1; c: c1", "a: a1; b: b2; c: c2", "a: a1; b: b5; c: c5"]
    assert rows[2].table.cells == ["a1", "b5", "c5"]  # b5/c5 under b/c, not restarted at column 0


def test_unquoted_span_attributes(shared_dir, tmp_path):
    html = (_case(shared_dir, "02-") / "input_unquoted.html").read_text(encoding="utf-8")
    rows = _rows(_mineru_units(tmp_path, html))
    assert rows[0].table.headers == ["地区", "指标一", "指标二"]
    assert [u.text for u in rows] == ["地区: 山东河南; 指标一: 0; 指标二: 0", "地区: 山东河南; 指标一: 5; 指标二: 7"]
    assert rows[1].table.cells[0] == "山东河南" and rows[0].table.cells[1] == "0"  # "0" kept, not dropped


# --------------------------------------------------------- 03: merged cells duplicated by the parser


def test_unstructured_duplicated_merged_cells(shared_dir):
    doc = read_unstructured(_case(shared_dir, "03-") / "input.json")
    table = next(b for b in doc.blocks if b.kind is BlockKind.TABLE)
    assert table.table.n_cols == 8  # the grid keeps its columns
    rows = _rows(build_units(doc))
    assert len(rows) == 2
    for u in rows:
        assert u.context.count("HEADER") == 1
        assert "HEADER:" not in u.text
    assert re.split(r"[;,] ", rows[0].text) == ["5", "4", "3", "2", "1"]  # 5 values, not 8
    assert " ".join(rows[1].text.split()) == "AAA BBB CCC"  # once, not 8 times: the text-only row is kept


def test_equal_values_under_different_headers_are_both_kept(tmp_path):
    rows = _rows(
        _mineru_units(
            tmp_path, "<table><tr><td>a</td><td>x</td><td>y</td></tr><tr><td>r</td><td>0</td><td>0</td></tr></table>"
        )
    )
    assert rows[0].text == "a: r; x: 0; y: 0"


# ------------------------------------------------------------------- 04: title rows and band rows


def test_title_row_goes_to_the_caption_and_the_next_row_is_the_header(shared_dir, tmp_path):
    html = (_case(shared_dir, "04-") / "input_title_row.html").read_text(encoding="utf-8")
    rows = _rows(_mineru_units(tmp_path, html))
    assert len(rows) == 2
    assert rows[0].table.headers == ["#", "Genre", "Sub-Genre", "Title", "Author", "Publisher", "Added"]
    assert rows[0].text == (
        "#: 1; Genre: Fiction; Sub-Genre: Mystery; Title: Book One; Author: Author A; Publisher: Publisher X;"
        " Added: 2024-01-05"
    )
    assert rows[0].context.startswith("Table: Reading List |")
    assert not any("Reading List /" in h for h in rows[0].table.headers)


def test_band_rows_label_the_rows_below_them(shared_dir, tmp_path):
    html = (_case(shared_dir, "04-") / "input_band_rows.html").read_text(encoding="utf-8")
    rows = _rows(_mineru_units(tmp_path, html))
    assert [u.text for u in rows] == [
        "Regimen: Regimen A; Dose: 100 mg/m² d1; Category: 1",
        "Regimen: Regimen B; Dose: 75 mg/m² d1, d8; Category: 2A",
        "Regimen: Regimen C; Dose: AUC 5 d1; Category: 2A",
    ]
    assert [u.context.rsplit("| ", 1)[-1] for u in rows] == [
        "Group: Stage I–II",
        "Group: Stage I–II",
        "Group: Stage III",
    ]
    assert not any(u.text.startswith("Regimen: Stage") for u in rows)


# ----------------------------------------------------------------- 05: ACC/AHA recommendation table


def test_acc_aha_table_gives_one_graded_recommendation_per_recommendation(shared_dir, tmp_path):
    html = (_case(shared_dir, "05-") / "input.html").read_text(encoding="utf-8")
    caption = "Recommendations for Anticoagulation for Atrial Fibrillation (AF) in Patients With VHD"
    units = _mineru_units(tmp_path, html, caption=caption)
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recs) == 3
    # class, level with its suffix, system, and the strength the class stands for (ACC/AHA 2015+)
    assert [(u.grade.system, u.grade.grade, u.grade.certainty, u.grade.strength, u.grade.source) for u in recs] == [
        ("ACC/AHA", "I", "B-NR", "strong", "table_column"),
        ("ACC/AHA", "I", "C-LD", "strong", "table_column"),
        ("ACC/AHA", "IIa", "C-LD", "moderate", "table_column"),
    ]
    assert all(u.grade.direction == "" for u in recs)  # classes I and IIa are no recommendations against
    assert recs[0].text.startswith("Anticoagulation with a vitamin K antagonist (VKA) is indicated")
    assert "CHA2DS2-VASc" in recs[1].text and "CHA2DS2-VASc" in recs[2].text  # "CHA <sub>2</sub>DS" too
    assert "(34, 35)" in recs[0].text  # &nbsp; a plain space
    assert "MODIFIED: VKA" in recs[0].text
    for u in recs:
        assert caption in u.context
        assert u.table is not None and u.table.table_id and {"COR", "LOE"} <= set(u.table.headers)
    # the "See Online Data Supplements" rows are no unit, and no rowspan cell is emitted twice
    assert not any(u.text.startswith("See Online") for u in units)
    assert sum("vitamin K antagonist (VKA) is indicated" in u.text for u in units) == 1
    # supporting text: its own ungraded unit, never a group label of the next recommendation
    support = [u for u in _rows(units) if u.text.startswith("A retrospective analysis")]
    assert len(support) == 1 and support[0].grade is None and ">20,000" in support[0].text
    assert not any("Group: A retrospective" in u.context for u in units)
    # every colspan=4 paragraph: one ungraded unit naming the recommendation above it
    starts = ("A retrospective analysis", "Many patients with VHD", "DOACs appear to be as effective")
    supporting = [u for u in units if u.unit_type is not UnitType.RECOMMENDATION]
    assert [u.text[: len(t)] for u, t in zip(supporting, starts)] == list(starts) and len(supporting) == 3
    for u, rec in zip(supporting, recs):
        assert u.grade is None and f"Supporting text of: {rec.text[:40]}" in u.context
    # no rowspan cell (recommendation or rationale) emitted twice; the "See Online" note in the context
    for rec in recs:
        first_line, rationale = rec.text.splitlines()[0], rec.text.splitlines()[1]
        assert sum(first_line in u.text for u in units) == 1 and sum(rationale in u.text for u in units) == 1
        assert "Note: See Online Data Supplements 3 and 4." in rec.context
    assert not any("\xa0" in u.text or "&nbsp;" in u.text or "&gt;" in u.text for u in units)


# --------------------------------------------------------------------- 08: a two-row table stays two rows


def test_two_row_table_of_facts_gives_two_rows(shared_dir):
    units = build_units(read_mineru(_case(shared_dir, "08-") / "input_content_list.json"))
    rows = _rows(units)
    assert [u.table.cells[0] for u in rows] == ["Level of evidence A", "Level of evidence B"]
    assert all(u.pages == [2] for u in rows)


# ---------------------------------------------------- 27: Unstructured tables with missing/short HTML


def test_unstructured_tables_without_usable_html_never_abort(shared_dir, caplog):
    with caplog.at_level(logging.WARNING):
        doc = read_unstructured(_case(shared_dir, "27-") / "input_elements.json")
    units = build_units(doc)
    rows = _rows(units)
    assert all(u.text.strip() for u in units)
    # Table 4: no markup, no invented rows; its whole text is one unit under its title
    t4 = [u for u in units if "Chlortalidone 12.5 mg once daily 25 mg" in u.text]
    assert len(t4) == 1 and t4[0].unit_type is UnitType.SECTION and t4[0].pages == [9]
    assert "Table 4 Oral antihypertensive starting doses" in t4[0].context
    assert not any("Amlodipine" in u.text for u in rows)
    # Table 5: the two HTML rows, and the whole text kept because the HTML misses half of it
    t5 = [u for u in rows if u.pages == [10]]
    assert [u.table.cells[0] for u in t5] == ["Creatinine", "Potassium"]
    assert t5[0].table.headers == ["Test", "When", "Action if abnormal"]
    assert t5[0].table.caption == "Table 5 Monitoring after a dose change"
    assert t5[1].table.cells[1] == "1-2 weeks" and len(t5[1].table.cells) == 3
    assert any("Sodium 4 weeks Review diuretic if < 130 mmol/L" in u.text for u in units)
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("44dd55ee" in m and "page 10" in m and "sodium" in m for m in warned)
    # the tables left without a grid are logged by load_document once its recovery has run, not by the reader
    assert not any("page 9" in m or "page 11" in m for m in warned)
    # the same warnings reach the document, each naming its page and the table's block id, once
    t4_block, t5_block = (next(b for b in doc.blocks if b.kind is BlockKind.TABLE and b.page == p) for p in (9, 10))
    assert [w.split(":", 1)[0] for w in doc.warnings] == [
        f"page 9, element {t4_block.block_id}",
        f"page 10, element {t5_block.block_id}",
        f"page 11, element {table6_id(doc)}",
    ]
    assert "sodium" in doc.warnings[1] and "44dd55ee" in doc.warnings[1]
    assert len(warned) == 1
    # the untitled <table></table> table: its text is one unit of its own, no rows, no borrowed caption
    t6 = [u for u in units if "Month 3 < 130/80" in u.text]
    assert len(t6) == 1 and t6[0].pages == [11] and not any(u.pages == [11] for u in rows)
    table6 = next(b for b in doc.blocks if b.page == 11 and b.kind is BlockKind.TABLE)
    assert table6.caption == "" and table6.table is None


def table6_id(doc) -> str:
    return next(b.block_id for b in doc.blocks if b.kind is BlockKind.TABLE and b.page == 11)


def test_unstructured_table_warnings_are_not_repeated_by_the_loader(shared_dir, caplog):
    """``load_document`` tries the parser's text on the ungridded tables: one warning per table stays in the
    document, and one log line names the tables left without a grid (beside the partial table's own)."""
    from structaware_readers.load.loader import load_document

    with caplog.at_level(logging.WARNING):
        doc = load_document(_case(shared_dir, "27-") / "input_elements.json", pdf=False)
    assert len(doc.warnings) == 3 and len({w.split(":", 1)[0] for w in doc.warnings}) == 3
    assert sum("page 9" in w for w in doc.warnings) == 1 and sum("page 11" in w for w in doc.warnings) == 1
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 2 and "page 10" in logged[0] and "sodium" in logged[0]
    assert "2 table(s) without cell structure on pages 9, 11: their text stays section text" in logged[1]


# ------------------------------------------------- 28: inline markup, footnote markers, nested table


@pytest.fixture
def case28_rows(shared_dir) -> dict[str, Unit]:
    units = build_units(read_mineru(_case(shared_dir, "28-") / "input_content_list.json"))
    rows = _rows(units)
    assert len(rows) == 5
    return {u.table.cells[0]: u for u in rows}


def test_markup_in_cells_becomes_text_without_gluing(case28_rows):
    assert list(case28_rows) == ["Office BP", "eGFR", "HbA1c", "Potassium", "Serum sodium"]
    for u in case28_rows.values():
        assert u.pages == [12] and u.table.caption == "Table 3 Thresholds for action"
        assert u.table.headers == ["Parameter", "Threshold", "Action"]
        for bad in ("<eq>", "</eq>", "<sup>", "<br", "&nbsp;", "<table", "<td", "&gt;"):
            assert bad not in u.text
    bp = case28_rows["Office BP"]
    assert re.search(r"(≥|\\geq|>=)\s*140/90 mmHg", bp.text)
    assert "Action: Start drug treatment^a" in bp.text and "treatmenta" not in bp.text
    egfr = case28_rows["eGFR"]
    assert "30" in egfr.table.cells[1] and re.search(r"mL/min/1\.73 m(²|\^2|\^\{2\}|\$\^\{2\}\$)", egfr.text)
    assert "Avoid metformin^b" in egfr.text and "metforminb" not in egfr.text
    hba1c = case28_rows["HbA1c"].table.cells[1]
    assert "7.0%" in hba1c and "(53 mmol/mol)" in hba1c and "7.0%(53" not in hba1c
    potassium = case28_rows["Potassium"]
    assert "Threshold:" not in potassium.text
    action = potassium.table.cells[2]
    assert action.index(">5.5 mmol/L") < action.index("halve the dose") < action.index(">6.0 mmol/L")
    assert action.index(">6.0 mmol/L") < action.index("stop and recheck in 48 h")
    assert re.search(r"(\\leq|≤)\s*130 mmol/L", case28_rows["Serum sodium"].text)


def test_footnotes_reach_the_rows_that_mark_them(case28_rows):
    assert "Confirm with home or ambulatory readings." in case28_rows["Office BP"].context
    assert "Note a: Confirm with home or ambulatory readings." in case28_rows["Office BP"].context
    # the note is read like the cells: its formula is text, and it reaches only the row marked b
    assert "Note b: Reduce the dose when eGFR is 30-44 mL/min/1.73 m²." in case28_rows["eGFR"].context
    assert "Reduce the dose" not in case28_rows["HbA1c"].context
    assert "Confirm with home" not in case28_rows["eGFR"].context
    assert not any("Note" in u.context for k, u in case28_rows.items() if k not in ("Office BP", "eGFR"))


def test_bm25_tokens_of_a_formula_cell_are_not_glued(case28_rows):
    from structaware_retrievers.encoders import SparseEncoder

    tokens = set(SparseEncoder().tokenize(case28_rows["Office BP"].text))
    assert {"140", "90"} <= tokens
    assert not any(re.fullmatch(r"[a-z]+140", t) for t in tokens)


# -------------------------------------------------------- 29: USPSTF table with a title-only header


@pytest.fixture
def case29_rows(shared_dir) -> list[Unit]:
    return _rows(build_units(read_mineru(_case(shared_dir, "29-") / "input_content_list.json")))


def test_intro_that_names_grades_is_no_recommendation(shared_dir):
    units = build_units(read_mineru(_case(shared_dir, "29-") / "input_content_list.json"))
    intro = [u for u in units if "all Grade A and B services" in u.text]
    assert len(intro) == 1 and intro[0].unit_type is UnitType.SECTION and intro[0].grade is None
    assert not any(u.unit_type is UnitType.RECOMMENDATION for u in units)  # graded rows stay table rows


def test_title_only_header_is_the_caption_and_rows_keep_their_cells(case29_rows):
    rows = case29_rows
    assert len(rows) == 8 and all(u.pages == [3] for u in rows)
    title = "Screening and prevention for all adults"
    for u in rows:
        assert f"{title}:" not in u.text and u.context.count(title) == 1
        assert u.context.startswith(f"Table: {title}")
    depression = next(u for u in rows if u.text.startswith("Depression"))
    assert depression.text == "Depression; Screen all adults when follow-up care can be arranged; Grade B"
    assert sum(u.text.startswith("Cardiovascular health") for u in rows) == 3
    colorectal = rows[0]
    assert "Adults aged 45-75" in colorectal.text and "45-75Stool" not in colorectal.text
    assert "Grade A for ages 50-75; Grade B for ages 45-49" in colorectal.text  # the full grade text is kept
    # the table's footnote is context, not a row and not a recommendation
    assert all("Grade I: evidence is insufficient" in u.context for u in rows)
    assert not any(u.text.startswith("Grade I:") for u in rows)


def test_grade_letters_in_a_column(case29_rows):
    by_first = {
        u.table.cells[0] + ("/" + u.table.cells[1][:5] if u.table.cells[0] == "Cardiovascular health" else ""): u
        for u in case29_rows
    }
    assert by_first["Depression"].grade.grade == "B"
    assert by_first["Cardiovascular health/Blood"].grade.grade == "A"
    assert by_first["Cardiovascular health/Stati"].grade.grade == "B"
    assert by_first["Cardiovascular health/Low-d"].grade.grade == "D"
    # USPSTF D: a recommendation against; no other row is one
    assert by_first["Cardiovascular health/Low-d"].grade.direction == "against"
    assert [k for k, u in by_first.items() if u.grade.direction == "against"] == ["Cardiovascular health/Low-d"]
    assert by_first["Hepatitis C"].grade.grade == "B"  # the C of "Hepatitis C" is not a grade
    lipids = by_first["Lipids"].grade
    assert lipids.system == "GRADE" and lipids.grade == "2C" and lipids.strength == "weak" and lipids.certainty == "low"
    vitamin_d = by_first["Vitamin D deficiency"].grade
    assert vitamin_d.grade == "I" and vitamin_d.system == "USPSTF"  # insufficient evidence, not class I
    colorectal = by_first["Colorectal cancer"].grade
    assert colorectal.grade == "A" and "Grade B for ages 45-49" in colorectal.raw  # the full grade text is kept
    assert all(u.grade.source == "table_column" for u in case29_rows)  # read from the grade column


# ---------------------------------------- 06: a table with empty html at the top of the next page


def test_empty_html_table_is_a_warning_not_a_table_of_nothing(shared_dir, caplog):
    with caplog.at_level(logging.WARNING):
        doc = read_mineru(_case(shared_dir, "06-") / "input_content_list_v2.json")
    units = build_units(doc)
    assert all(u.text.strip() for u in units)
    rows = _rows(units)
    assert [u.text for u in rows] == [
        "检查项目: 血常规; 频次: 每周期; 备注: 化疗前",
        "检查项目: 肝肾功能; 频次: 每周期; 备注: 化疗前",
    ]
    assert all(u.pages == [1] for u in rows)
    empty = [b for b in doc.blocks if b.kind is BlockKind.TABLE and b.page == 2]
    assert len(empty) == 1 and empty[0].table is None and empty[0].caption == ""
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]  # the reader leaves it to load_document
    # in the document's warnings too, with page and element, once (also after the loader's recovery pass)
    prefix = f"page 2, element {empty[0].block_id}: table"
    assert [w for w in doc.warnings if w.startswith(prefix)] == doc.warnings and len(doc.warnings) == 1
    from structaware_readers.load.loader import load_document

    caplog.clear()
    with caplog.at_level(logging.WARNING):
        loaded = load_document(_case(shared_dir, "06-") / "input_content_list_v2.json", pdf=False)
    assert len(loaded.warnings) == 1 and loaded.warnings[0].startswith(prefix)
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1 and "1 table(s) without cell structure on page 2:" in logged[0]  # once, not twice


def _middle_page(page_idx: int, blocks: list[dict]) -> dict:
    return {"page_idx": page_idx, "page_size": [595, 842], "para_blocks": blocks, "discarded_blocks": []}


def test_rows_of_the_continuation_are_read_from_middle_json(shared_dir, tmp_path):
    """The same run's middle.json holds the page-2 rows (``table_body`` span html): one table, 4 rows."""
    case = _case(shared_dir, "06-")
    v2 = json.loads((case / "input_content_list_v2.json").read_text(encoding="utf-8"))
    excerpt = json.loads((case / "input_middle_excerpt.json").read_text(encoding="utf-8"))
    table1 = v2[0][2]["content"]

    def text_block(kind: str, text: str, y: float, index: int, **extra) -> dict:
        span = {"bbox": [36, y, 400, y + 12], "type": "text", "content": text}
        return {
            "type": kind,
            "bbox": [36, y, 400, y + 12],
            "index": index,
            "lines": [{"bbox": span["bbox"], "spans": [span]}],
            **extra,
        }

    table_span = {"bbox": [36, 590, 555, 808], "type": "table", "html": table1["html"], "image_path": "1a2b3c.jpg"}
    page0 = [
        text_block("title", "3 检查项目与频次", 67, 0, level=1),
        text_block("text", "各项检查的频次见表1。", 92, 1),
        {
            "type": "table",
            "bbox": [36, 560, 555, 808],
            "index": 2,
            "blocks": [
                {"type": "table_caption", "bbox": [36, 560, 300, 575], "index": 2,
                 "lines": [{"bbox": [36, 560, 300, 575], "spans": [{"bbox": [36, 560, 300, 575], "type": "text", "content": "表1 检查项目与频次"}]}]},
                {"type": "table_body", "bbox": table_span["bbox"], "index": 3,
                 "lines": [{"bbox": table_span["bbox"], "spans": [table_span]}]},
            ],
        },
    ]  # fmt: skip
    page1 = excerpt["pdf_info"][1]
    page1["para_blocks"].append(text_block("text", "上述检查结果异常时应推迟治疗。", 150, 1))
    out = tmp_path / "run" / "hybrid_auto"
    out.mkdir(parents=True)
    middle = {"pdf_info": [_middle_page(0, page0), page1], "_backend": "hybrid", "_version_name": "3.x"}
    (out / "doc_middle.json").write_text(json.dumps(middle, ensure_ascii=False), encoding="utf-8")
    (out / "doc_content_list_v2.json").write_text(json.dumps(v2, ensure_ascii=False), encoding="utf-8")
    doc = read_mineru(tmp_path / "run")
    rows = _rows(build_units(doc))
    assert [u.text for u in rows[2:]] == [
        "检查项目: 心电图; 频次: 每2周期; 备注: 蒽环类治疗时",
        "检查项目: 心脏超声; 频次: 每4周期",
    ]
    assert [u.pages for u in rows] == [[1], [1], [2], [2]]
    assert len({u.table.table_id for u in rows}) == 1 and rows[3].table.caption == "表1 检查项目与频次"
    table = next(b for b in doc.blocks if b.kind is BlockKind.TABLE)
    assert [table.page, *table.extra_pages] == [1, 2]


# ------------------------------------------------ 06: the header repair never takes a data row


def test_header_repair_never_moves_a_data_row_into_the_header():
    from structaware_readers.models import TableGrid
    from structaware_readers.units.table_rows import repair_header

    # case 06 merged on one page: a complete header over number-free data rows, most rows numeric
    rows = [
        ["血常规", "每周期", "化疗前"],
        ["肝肾功能", "每周期", "化疗前"],
        ["心电图", "每2周期", "蒽环类治疗时"],
        ["心脏超声", "每4周期", ""],
    ]
    grid = TableGrid(header_rows=[["检查项目", "频次", "备注"]], body_rows=rows)
    assert repair_header(grid) == grid
    # OHR-Bench (American Express 10-K): a number-free data row under a complete header stays data
    amex = TableGrid(
        header_rows=[["Amex's ROE", "Schedule Rate"]],
        body_rows=[["Below ROE Target Range", "Moody's A Rate"], ["Within ROE Target Range", "9%"], ["Above", "10%"]],
    )
    assert repair_header(amex).body_rows == amex.body_rows
    # header lines a parser left in the body still join: under spanning cells, a stub-less line, years
    split = TableGrid(
        header_rows=[["", "Three months ended March 31,", "Three months ended March 31,"]],
        body_rows=[
            ["", "Principal", "All other"],
            ["(in millions)", "2021", "2020"],
            ["Revenue", "5", "4"],
            ["Cost", "3", "2"],
        ],
    )
    repaired = repair_header(split)
    assert repaired.body_rows == [["Revenue", "5", "4"], ["Cost", "3", "2"]]
    assert repaired.column_headers()[1] == "Three months ended March 31, / Principal / 2021"


def test_parenthesised_footnote_markers_of_financial_tables(tmp_path):
    html = (
        "<table><tr><td>(in millions)</td><td>2021</td></tr>"
        "<tr><td>Other income(<sup>a</sup>)</td><td>1,123</td></tr><tr><td>Income tax expense</td><td>3,397</td></tr></table>"
    )
    rows = _rows(_mineru_units(tmp_path, html, footnotes=["(a) Included operating lease income of $1.3 billion."]))
    assert rows[0].text == "(in millions): Other income(a); 2021: 1,123"
    assert rows[0].context.endswith("Note a: Included operating lease income of $1.3 billion.")
    assert "operating lease" not in rows[1].context


def test_a_footnote_legend_of_cell_symbols_reaches_the_rows_that_print_them(tmp_path):
    """VA/DoD obesity guideline (2020), Table I-1 (post-surgical monitoring schedule): visits marked
    ``X`` or ``Xa``, the legend under the table. Before, no row said that ``Xa`` means after a gastric
    bypass, and a question about vitamin B12 after Roux-en-Y gastric bypass missed the row."""
    html = (
        "<table><tr><td></td><td>Pre-operative</td><td>6Months</td><td>12Months</td><td>Continue Annually</td></tr>"
        "<tr><td>Complete blood count</td><td>X</td><td>X</td><td>X</td><td>X</td></tr>"
        "<tr><td>Vitamin B12</td><td>X</td><td>Xa</td><td>Xa</td><td>Xa</td></tr>"
        "<tr><td>Vitamin A</td><td></td><td></td><td>+/-</td><td>+/-</td></tr>"  # X not in every row
        "<tr><td>Ferritin</td><td>X</td><td>12</td><td>N</td><td>X</td></tr></table>"
    )
    footnote = (
        "X: Indicate the suggested schedule for laboratory monitoring after metabolic/bariatric surgery. "
        "Xa: Examinations should be performed after Roux-en-Y gastric bypass +/-: optional "
        "Abbreviations: LFT: liver function test; PTH: parathyroid hormone 12: a number is no symbol. N: in a sentence"
    )
    rows = {u.table.cells[0]: u for u in _rows(_mineru_units(tmp_path, html, footnotes=[footnote]))}
    b12, cbc, vit_a, ferritin = rows["Vitamin B12"], rows["Complete blood count"], rows["Vitamin A"], rows["Ferritin"]
    assert "Note Xa: Examinations should be performed after Roux-en-Y gastric bypass" in b12.context
    assert (
        "Note +/-: optional" in vit_a.context
        and "Abbreviations" not in vit_a.context.split("Note +/-:")[1].split("|")[0]
    )
    assert "Roux-en-Y" not in cbc.context and "optional" not in b12.context
    # X (not in every row) is explained once, by the general note every row carries; a number cell is no symbol
    assert all(u.context.count("Indicate the suggested schedule") == 1 for u in rows.values())
    assert "Note 12" not in ferritin.context and "Note X:" not in b12.context


# ------------------------------------------------------------------ footnotes longer than a title

_DOSES = (
    "<table><tr><td>Drug</td><td>Usual dose</td></tr>"
    "<tr><td>Drug A</td><td>10 mg daily</td></tr><tr><td>Drug B</td><td>5-10 mg daily</td></tr></table>"
)
_LONG_NOTE = (
    "Doses are for adults with normal kidney function and are taken once a day unless the row says otherwise. "
    "Halve the starting dose when the estimated glomerular filtration rate is below 30 mL/min/1.73 m2, "
    "and check potassium 0.5 to 1 week after each increase."
)


def test_a_long_table_footnote_is_a_unit_of_its_own_after_the_rows(tmp_path):
    """Row contexts carry only a footnote's first sentence; the rest (here a renal dose rule with its
    numbers) must still reach a unit, as printed, after the rows and in the table's context."""
    units = _mineru_units(tmp_path, _DOSES, caption="Table 2. Doses", footnotes=[_LONG_NOTE])
    rows = _rows(units)
    assert [u.text for u in rows] == [
        "Drug: Drug A; Usual dose: 10 mg daily",
        "Drug: Drug B; Usual dose: 5-10 mg daily",
    ]
    assert all("30 mL/min" not in u.context for u in rows)  # the context keeps a title, not the rule
    notes = [u for u in units if u.unit_type is UnitType.SECTION and "30 mL/min" in u.text]
    assert len(notes) == 1 and notes[0].text == _LONG_NOTE
    assert units.index(notes[0]) > units.index(rows[-1])
    assert "Table: Table 2. Doses" in notes[0].context and notes[0].element_ids == rows[0].element_ids[:1]


def test_a_short_table_footnote_stays_in_the_row_contexts_only(tmp_path):
    units = _mineru_units(tmp_path, _DOSES, caption="Table 2. Doses", footnotes=["Doses are for adults."])
    assert [u.unit_type for u in units].count(UnitType.SECTION) == 0
    assert all(u.context.endswith("Note: Doses are for adults.") for u in _rows(units))


def test_the_footnote_of_boxed_text_is_kept_with_the_box(tmp_path):
    html = "<table><tr><td>Key points</td></tr><tr><td>Start low and go slow.</td></tr></table>"
    units = _mineru_units(tmp_path, html, footnotes=["Adapted from the 2019 consensus statement."])
    (box,) = [u for u in units if "Start low" in u.text]
    assert box.unit_type is UnitType.SECTION
    assert box.text.endswith("Adapted from the 2019 consensus statement.")
