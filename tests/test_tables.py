"""tables.parse_html_table on real MinerU table bodies and on small hand-written spans cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import TableGrid
from structaware_readers.tables import MAX_SPAN, grid_to_text, parse_html_table

FIX = Path(__file__).parent / "fixtures" / "mineru"
NAACL = FIX / "mineru-3.4.4_pipeline_cloudapi_naacl2024-long-132"
SYNTH_EN = FIX / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


def _load(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _assert_rectangular(grid: TableGrid) -> None:
    rows = grid.header_rows + grid.body_rows
    assert rows, "grid has no rows"
    assert {len(r) for r in rows} == {grid.n_cols}


# ------------------------------------------------------------------ real tables


def test_zh_vlm_table_rowspan_expanded(shared_dir: Path):
    """MinerU 2.6.6 VLM, Chinese aviation paper, table 1: '提供电源' spans 5 rows (rowspan="5")."""
    items = _load(
        shared_dir / "fixtures/mineru/mineru-2.6.6_vlm_preprocess_v4_zh-aviation-paper/demo1_content_list.json"
    )
    tables = [it for it in items if it["type"] == "table"]
    html = tables[0]["table_body"]
    assert 'rowspan="5"' in html
    grid = parse_html_table(html)
    _assert_rectangular(grid)
    assert grid.header_rows == [["序号", "相关飞机级功能要求", "功能编号", "配电系统功能", "功能描述"]]
    assert len(grid.body_rows) == 5
    assert [r[1] for r in grid.body_rows] == ["提供电源"] * 5
    assert [r[0] for r in grid.body_rows] == ["1", "2", "3", "4", "5"]
    # a "\n" inside a cell is kept as a line break inside the cell
    assert grid.body_rows[3][4].startswith("对外部电源提供电接口")


def test_zh_vlm_table_with_blank_rows_keeps_only_rows_with_text(shared_dir: Path):
    """Table 2 of the same output has 1,372 <tr>, almost all empty (a VLM artefact)."""
    items = _load(
        shared_dir / "fixtures/mineru/mineru-2.6.6_vlm_preprocess_v4_zh-aviation-paper/demo1_content_list.json"
    )
    html = [it for it in items if it["type"] == "table"][1]["table_body"]
    assert html.count("<tr>") > 1000
    grid = parse_html_table(html)
    _assert_rectangular(grid)
    assert grid.n_cols == 9
    assert all(any(c for c in row) for row in grid.body_rows)
    assert len(grid.body_rows) == 5


def test_pipeline_unquoted_spans(shared_dir: Path):
    """MinerU 2.7.6 pipeline writes unquoted attributes: <td rowspan=8 colspan=1>."""
    items = _load(
        shared_dir / "fixtures/mineru/mineru-2.7.6_pipeline_MinerU-pr4637_svolt-datasheet/svolt_content_list.json"
    )
    html = next(
        it["table_body"] for it in items if it["type"] == "table" and "rowspan=8" in (it.get("table_body") or "")
    )
    grid = parse_html_table(html)
    _assert_rectangular(grid)
    rows = grid.header_rows + grid.body_rows
    first = rows[0][0]
    assert first.startswith("-20℃≤T<-15℃")  # entity &lt; decoded
    # rows 2..7 repeat the rowspan=8 cell; the 8th covered row is an empty <tr></tr> (a phantom row: dropped)
    assert [r[0] for r in rows[:7]] == [first] * 7
    assert rows[7][0].startswith("-15")
    # a rowspan of 8 is far above MAX_HEADER_SPAN: only the first row is taken as header
    assert len(grid.header_rows) == 1


def test_two_level_header_from_first_row_rowspan():
    """NAACL 2024 table 2 (MinerU 3.4.4): Model/Type span two rows over 'Profile QA' sub-headers."""
    items = _load(NAACL / "content_list.json")
    html = next(it["table_body"] for it in items if it["type"] == "table" and "Profile QA" in it["table_body"])
    grid = parse_html_table(html)
    _assert_rectangular(grid)
    assert len(grid.header_rows) == 2
    headers = grid.column_headers()
    assert headers[:6] == [
        "Model", "Type", "Profile QA / ROUGE-1", "Profile QA / ROUGE-L",
        "Knowledge QA / ROUGE-1", "Knowledge QA / ROUGE-L",
    ]  # fmt: skip
    assert grid.body_rows[0][:3] == ["GPT3.5", "Standard", "32.07"]
    assert [r[0] for r in grid.body_rows[:5]] == ["GPT3.5"] * 5  # rowspan="5" in the body


def test_eq_tags_and_dollar_math_give_the_same_cells():
    """middle.json keeps MinerU's <eq>..</eq>; content_list 3.x turns them into $..$: same grid."""
    layout = _load(NAACL / "layout.json")
    eq_html = None
    for page in layout["pdf_info"]:
        for block in page["para_blocks"]:
            if block["type"] == "table":
                for sub in block["blocks"]:
                    for line in sub.get("lines", []):
                        for span in line["spans"]:
                            if "<eq>" in span.get("html", ""):
                                eq_html = eq_html or span["html"]
    assert eq_html is not None
    items = _load(NAACL / "content_list.json")
    dollar_html = next(it["table_body"] for it in items if it["type"] == "table" and "Sup. Lookup?" in it["table_body"])
    a, b = parse_html_table(eq_html), parse_html_table(dollar_html)
    assert a == b
    assert a.body_rows[0][0] == "$\\mathcal { M } _ { w o r k i n g }$"


def test_html_and_markdown_renderings_of_one_table_agree():
    """4.x: the same table as HTML (content_list) and as a Markdown pipe table (structured_content)."""
    html = next(it["table_body"] for it in _load(SYNTH_EN / "content_list.rendered.json") if it["type"] == "table")
    pages = _load(SYNTH_EN / "structured_content.json")["pages"]
    md = next(b["content"] for p in pages for b in p["blocks"] if b["type"] == "table")
    assert "&lt;140/90" in html and "&lt;140/90" in md
    g_html, g_md = parse_html_table(html), parse_html_table(md, field="content")
    # the HTML has no <th>: the first row is the header by the documented heuristic
    assert g_html.header_rows == g_md.header_rows == [["Population", "Clinic target", "ABPM target", "Grade"]]
    assert g_html.body_rows == g_md.body_rows
    assert g_html.body_rows[0] == ["Adults 18-20 y", "<140/90 mmHg", "<135/85 mmHg", "A"]
    assert len(g_html.body_rows) == 37


def _all_fixture_tables():
    out = []
    for path in sorted(FIX.glob("*/*.json")):
        data = _load(path)
        if isinstance(data, list) and data and isinstance(data[0], dict):
            out += [
                pytest.param(path.name, i, it["table_body"], id=f"{path.parent.name[:24]}/{path.name}[{i}]")
                for i, it in enumerate(data)
                if it.get("type") == "table" and it.get("table_body")
            ]
    return out


@pytest.mark.parametrize("name,index,html", _all_fixture_tables())
def test_every_fixture_table_is_rectangular(name, index, html):
    try:
        grid = parse_html_table(html, path=name, field=f"[{index}].table_body")
    except MalformedInputError as exc:
        # 4.x flash writes some layout tables as plain text: refused, naming file and field
        assert "<table" not in html and f"[{index}].table_body" in str(exc) and name in str(exc)
        return
    _assert_rectangular(grid)
    assert grid.body_rows


# ------------------------------------------------------------ hand-written cases


def test_rowspan_and_colspan_together():
    grid = parse_html_table(
        "<table><tr><td rowspan='2' colspan='2'>A</td><td>B</td></tr>"
        "<tr><td>C</td></tr><tr><td>D</td><td>E</td><td>F</td></tr></table>"
    )
    # the first row's rowspan of 2 makes a two-row header (documented heuristic)
    assert grid.header_rows == [["A", "A", "B"], ["A", "A", "C"]]
    assert grid.body_rows == [["D", "E", "F"]]
    assert grid.column_headers() == ["A", "A", "B / C"]
    in_body = parse_html_table(
        "<table><tr><td>h1</td><td>h2</td><td>h3</td></tr>"
        "<tr><td rowspan='2' colspan='2'>A</td><td>B</td></tr><tr><td>C</td></tr></table>"
    )
    assert in_body.header_rows == [["h1", "h2", "h3"]]
    assert in_body.body_rows == [["A", "A", "B"], ["A", "A", "C"]]


def test_thead_and_th_rows_are_headers():
    grid = parse_html_table(
        "<table><thead><tr><th>Drug</th><th>Dose</th></tr></thead>"
        "<tbody><tr><td>X</td><td>5 mg</td></tr><tr><td>Y</td><td>10 mg</td></tr></tbody></table>"
    )
    assert grid.header_rows == [["Drug", "Dose"]]
    assert grid.body_rows == [["X", "5 mg"], ["Y", "10 mg"]]
    th_only = parse_html_table(
        "<table><tr><th colspan=2>Dose</th></tr><tr><th>Adults</th><th>Children</th></tr><tr><td>1</td><td>2</td></tr></table>"
    )
    assert th_only.header_rows == [["Dose", "Dose"], ["Adults", "Children"]]
    assert th_only.column_headers() == ["Dose / Adults", "Dose / Children"]


def test_single_row_table_has_no_header_and_unknown_spans_count_as_one():
    grid = parse_html_table("<table><tr><td rowspan=x>a</td><td colspan='2;'>b</td></tr></table>")
    assert grid.header_rows == []
    assert grid.body_rows == [["a", "b", "b"]]


def test_rowspan_zero_runs_to_the_end_of_the_group_and_huge_spans_are_clamped():
    grid = parse_html_table(
        "<table><tr><td>h1</td><td>h2</td></tr><tr><td rowspan=0>z</td><td>1</td></tr><tr><td>2</td></tr></table>"
    )
    assert grid.body_rows == [["z", "1"], ["z", "2"]]
    wide = parse_html_table(f"<table><tr><td colspan={MAX_SPAN * 50}>w</td></tr></table>")
    assert wide.n_cols == MAX_SPAN


def test_cell_text_entities_breaks_eq_and_nested_tables():
    grid = parse_html_table(
        "<table><tr><td>BP</td><td>Note</td></tr>"
        "<tr><td>&lt;140/90&nbsp;mmHg</td><td>line 1<br>line 2 <eq>\\alpha</eq> <eq>\\frac{a}{b}</eq></td></tr>"
        "<tr><td>n</td><td><table><tr><td>in1</td><td>in2</td></tr></table></td></tr></table>"
    )
    # a formula that is plain text once its symbols are written out loses its dollars; others keep them
    assert grid.body_rows[0] == ["<140/90 mmHg", "line 1\nline 2 α $\\frac{a}{b}$"]
    assert grid.body_rows[1] == ["n", "in1 in2"]  # nested table: text of the outer cell, not extra rows
    assert len(grid.body_rows) == 2


def test_short_scripts_are_set_against_the_word_before_them():
    grid = parse_html_table(
        "<table><tr><td>Score</td><td>Action</td></tr>"
        "<tr><td>CHA <sub>2</sub>DS <sub>2</sub>-VASc, H<sub>2</sub>O</td><td>Start treatment <sup>a</sup></td></tr>"
        "<tr><td>x<br><sub>2</sub></td><td>see ( <sup>b</sup> ) and <sup>a long superscript</sup></td></tr></table>"
    )
    assert grid.body_rows[0] == ["CHA2DS2-VASc, H2O", "Start treatment^a"]
    # never across a line break; a script after a bracket or a long one stays apart
    assert grid.body_rows[1] == ["x\n2", "see ( b ) and a long superscript"]


def test_markdown_pipe_table_with_escaped_pipe():
    grid = parse_html_table("| a | b |\n| :-- | --: |\n| x \\| y | &gt;2 |\n", field="content")
    assert grid.header_rows == [["a", "b"]]
    assert grid.body_rows == [["x | y", ">2"]]


def test_latex_tabular_best_effort():
    grid = parse_html_table(
        "\\begin{tabular}{|c|c|c|}\\hline Drug & Dose & Grade \\\\ \\hline "
        "X & \\multicolumn{2}{c}{5 mg} \\\\ Y & 10 mg & A \\\\ \\end{tabular}"
    )
    assert grid.header_rows == [["Drug", "Dose", "Grade"]]
    assert grid.body_rows == [["X", "5 mg", "5 mg"], ["Y", "10 mg", "A"]]


@pytest.mark.parametrize("body", ["Questions     Details\nIs it licensed?  Yes  No", "   ", "<table></table>"])
def test_non_tables_raise_naming_file_and_field(body):
    with pytest.raises(MalformedInputError) as info:
        parse_html_table(body, path="doc.json", field="[3].table_body")
    assert info.value.path == "doc.json"
    assert info.value.field == "[3].table_body"
    assert str(info.value).startswith("doc.json: [3].table_body: ")


def test_non_string_raises():
    with pytest.raises(MalformedInputError):
        parse_html_table(["<table>"], path="x.json")  # type: ignore[arg-type]


def test_grid_to_text_one_line_per_row():
    grid = TableGrid(header_rows=[["a", "b"]], body_rows=[["1", "two\nlines"]])
    assert grid_to_text(grid) == "a | b\n1 | two lines"
