"""Grids for tables the parser left without cell structure (issue 9, part 1).

Real inputs: ``tests/fixtures/pdf/borderless_tables.pdf`` (generated for this project, CC0) and its
MinerU 4.0.12 flash-tier parse, in which page 1's table is a ``table`` block whose body is
space-aligned text (no grid) and page 2's has an HTML grid; the CDC guide and OHR-Bench pages through
``shared_dir`` (skipped without ``../shared``).
"""

from __future__ import annotations

import json
import logging
import shutil
import zipfile
from pathlib import Path

import pytest
from pydantic import ValidationError

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_readers.load.loader import load_document, prepare_document
from structaware_readers.mineru import read_mineru
from structaware_readers.models import BBOX_DECIMALS, GRID_SOURCES, BlockKind, TableGrid
from structaware_readers.table_recovery import has_grid, needs_grid, recover_table_grids
from structaware_readers.table_recovery.stage2_find_pdf import find_pdf
from structaware_readers.tables import parse_html_table
from structaware_readers.units import build_units

FIXTURES = Path(__file__).parent / "fixtures"
PDF = FIXTURES / "pdf" / "borderless_tables.pdf"
PARSE = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_borderless_tables"


def _table(doc, page):
    return next(b for b in doc.blocks if b.kind is BlockKind.TABLE and b.page == page)


def test_parser_markup_grid_says_where_it_came_from():
    grid = parse_html_table("<table><tr><td>Drug</td><td>Dose</td></tr><tr><td>A</td><td>5 mg</td></tr></table>")
    assert grid.grid_source == "parser_html"
    assert grid.body_row_bboxes == []  # the parser's HTML carries no row positions


def test_grid_source_outside_the_vocabulary_is_refused():
    assert set(GRID_SOURCES) == {"parser_html", "pdf_text_layer", "parser_text", "ocr_lines", "parser_blocks"}
    with pytest.raises(ValidationError, match="grid_source"):
        TableGrid(body_rows=[["a", "b"]], grid_source="guess")


def test_without_the_pdf_the_parsers_aligned_text_gives_the_grid():
    raw = read_mineru(PARSE)  # the parse as MinerU wrote it: page 1's table has no grid
    assert _table(raw, 1).table is None and needs_grid(_table(raw, 1))
    doc = load_document(PARSE, pdf=False)
    grid = _table(doc, 1).table
    assert grid.grid_source == "parser_text"
    assert grid.body_rows[2] == ["Provision for credit losses", "1,101", "(2,285)", "NM"]
    assert grid.body_rows[3] == ["Net income", "$8,649", "$11,948", "(28) %"]
    assert grid.body_row_bboxes == []  # character lines say nothing about page positions
    assert _table(doc, 2).table.grid_source == "parser_html"


def _unit_keys(units):
    return [(u.unit_type.value, u.text, u.context, u.element_ids, u.bboxes, u.pages) for u in units]


def _rounded(box):
    return tuple(round(x, BBOX_DECIMALS) for x in box)


@pytest.mark.parametrize("name", ["synthetic_guideline_en", "synthetic_guideline_zh"])
def test_synthetic_guidelines_give_the_same_units_with_their_pdf(name: str):
    parse = FIXTURES / "mineru" / f"mineru-4.0.12_flash-tier_{name}"
    with_pdf = load_document(parse, pdf=FIXTURES / "pdf" / f"{name}.pdf")
    assert with_pdf.warnings == []
    # the flowchart figure is looked at as a possible borderless table and stays a figure; the same
    # units, but each table row points at its own row (table_recovery.stage8_row_boxes), not at the table
    with_units, without_units = build_units(with_pdf), build_units(prepare_document(read_mineru(parse)))
    no_boxes = lambda keys: [k[:4] + k[5:] for k in keys]
    assert no_boxes(_unit_keys(with_units)) == no_boxes(_unit_keys(without_units))
    for a, b in zip(with_units, without_units):
        if a.unit_type.value != "table_row":
            assert a.bboxes == b.bboxes
            continue
        (row,), (table,) = a.bboxes, b.bboxes
        assert (row[0], row[2]) == (table[0], table[2]) and table[1] <= row[1] < row[3] <= table[3]
        assert row[3] - row[1] < 0.05  # one row of a 37-row page, not the table


def test_row_boxes_come_only_from_a_text_layer_that_holds_the_rows():
    from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes

    doc = read_mineru(FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en" / "middle_json.json")
    table = lambda d: next(b for b in d.blocks if b.kind is BlockKind.TABLE).table
    assert table(doc).body_row_bboxes == []
    own = table(add_row_boxes(doc, FIXTURES / "pdf" / "synthetic_guideline_en.pdf"))
    assert len(own.body_row_bboxes) == 60 and all(own.body_row_bboxes)
    assert own.body_row_pages == [3] * 37 + [4] * 23  # each box on its own page's part of the table
    tops = [b[1] for b in own.body_row_bboxes[:37]]
    assert tops == sorted(tops) and all(
        b[1] < b[3] <= c[1] for b, c in zip(own.body_row_bboxes, own.body_row_bboxes[1:37])
    )
    # the trap: the Chinese guideline's PDF has 4 pages too, but its text layer holds none of these rows
    other = add_row_boxes(doc, FIXTURES / "pdf" / "synthetic_guideline_zh.pdf")
    assert not any(table(other).body_row_bboxes)
    assert add_row_boxes(doc, FIXTURES / "pdf" / "tiny_heading_table.pdf") is doc  # 1 page: not its PDF
    with pytest.raises(InputNotFoundError):
        add_row_boxes(doc, FIXTURES / "pdf" / "missing.pdf")
    with pytest.raises(MalformedInputError):
        add_row_boxes(doc, FIXTURES / "pdf" / "corrupt_truncated.pdf")


def test_cdc_guide_without_its_pdf_gives_the_same_units_and_names_each_table(caplog):
    parse = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
    with caplog.at_level(logging.WARNING):
        doc = load_document(parse)
    # one log line for the document, naming the pages, once the grid recovery has tried them again: not one per
    # table, nor one from the reader before the recovery
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(logged) == 1 and "8 table(s) without cell structure on pages 21, 26, 31, 33, 37, 38, 39" in logged[0]
    assert _unit_keys(build_units(doc)) == _unit_keys(build_units(prepare_document(read_mineru(parse))))
    # its checklists wrap cells over several lines: their text lines give no trusted grid
    tables = [w for w in doc.warnings if "table has no cell structure" in w]
    assert len(tables) == 8 and doc.warnings[0].startswith("page 21, element p21-e1: table has no cell structure")
    # (and its cover's logos are named among the figures that give no unit)
    assert doc.warnings[8:] == ["3 figures hold no text the parser read and give no unit: pages 1"]


def test_grid_rebuilt_from_the_pdf_text_layer(caplog):
    with caplog.at_level(logging.WARNING):
        doc = load_document(PARSE, pdf=PDF)
    # MinerU left the table without cells, the PDF gave it a grid: nothing to warn about
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not any("table" in w for w in doc.warnings)
    assert _table(read_mineru(PARSE), 1).table is None  # what the parser gave: a table without cells
    grid = _table(doc, 1).table
    assert grid is not None and grid.grid_source == "pdf_text_layer"
    assert grid.body_rows == [
        ["Total net revenue", "$31,630", "$31,400", "1 %"],
        ["Noninterest expense", "18,749", "17,667", "6"],
        ["Provision for credit losses", "1,101", "(2,285)", "NM"],  # wrapped label joined
        ["Net income", "$8,649", "$11,948", "(28) %"],
        ["Selected ratios:", "", "", ""],  # a label-only group row stays a row of its own
        ["Return on common equity", "13 %", "18 %", ""],
        ["Overhead ratio", "59", "56", ""],
    ]
    assert grid.body_row_pages == [1] * 7
    # each row has its own box, inside the table's region, top to bottom
    region = _table(doc, 1).bbox
    tops = [b[1] for b in grid.body_row_bboxes]
    assert tops == sorted(tops) and len(set(tops)) == 7
    for x0, y0, x1, y1 in grid.body_row_bboxes:
        assert region[0] - 0.01 <= x0 < x1 <= region[2] + 0.01
        assert region[1] - 0.01 <= y0 < y1 <= region[3] + 0.01
    assert doc.warnings == []


def test_row_units_point_at_their_own_row():
    doc = load_document(PARSE, pdf=PDF)
    grid = _table(doc, 1).table
    rows = [u for u in build_units(doc) if u.unit_type.value == "table_row" and u.pages == [1]]
    net = next(u for u in rows if "Net income" in u.text)
    assert "$8,649" in net.text and "$11,948" in net.text
    assert net.element_ids == [_table(doc, 1).block_id]
    assert net.bboxes == [_rounded(grid.body_row_bboxes[3])]  # Unit.bboxes keep BBOX_DECIMALS
    assert net.bboxes[0] != _table(doc, 1).bbox


def test_pdf_found_inside_an_output_folder_and_beside_a_zip(tmp_path: Path):
    folder = tmp_path / "filing"
    shutil.copytree(PARSE, folder)
    shutil.copy(PDF, folder / "filing_origin.pdf")  # MinerU's own name for the input PDF
    assert find_pdf(folder, name="filing") == folder / "filing_origin.pdf"
    assert _table(load_document(folder), 1).table.grid_source == "pdf_text_layer"

    zipped = tmp_path / "zips" / "report.zip"
    zipped.parent.mkdir()
    with zipfile.ZipFile(zipped, "w") as zf:
        for f in PARSE.iterdir():
            zf.write(f, f.name)
    assert find_pdf(zipped, name="report") is None
    assert _table(load_document(zipped), 1).table.grid_source == "parser_text"
    shutil.copy(PDF, zipped.parent / "report.pdf")
    assert _table(load_document(zipped), 1).table.grid_source == "pdf_text_layer"


def test_pdf_inside_a_zip_is_read_from_the_zip(tmp_path: Path):
    zipped = tmp_path / "out.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        for f in PARSE.iterdir():
            zf.write(f, f"out/{f.name}")
        zf.write(PDF, "out/out_origin.pdf")
    found = find_pdf(zipped, name="out")
    assert isinstance(found, bytes) and found.startswith(b"%PDF")
    assert _table(load_document(zipped), 1).table.grid_source == "pdf_text_layer"


def test_a_pdf_input_is_its_own_pdf():
    assert find_pdf(PDF, name="borderless_tables") == PDF


def test_pdf_with_another_page_count_is_not_used():
    other = FIXTURES / "pdf" / "tiny_heading_table.pdf"  # 1 page; the parse has 2
    doc = load_document(PARSE, pdf=other)
    assert _table(doc, 1).table.grid_source == "parser_text"  # the parser's text is still read
    assert len(doc.warnings) == 1 and "tiny_heading_table.pdf has 1 pages" in doc.warnings[0]


def test_continued_rows_keep_their_pages_and_boxes():
    """``tables.continued.append_rows``: a repeated header is dropped with its box; pages and boxes stay
    aligned with the rows, ``None`` where a part had no row boxes."""
    from structaware_readers.tables.continued import append_rows

    first = TableGrid(header_rows=[["Item", "2021"]], body_rows=[["Revenue", "5"]])  # the parser's cells
    second = TableGrid(
        header_rows=[["item", "2021"]],
        body_rows=[["Cost", "3"], ["Net", "2"]],
        body_row_bboxes=[(0.1, 0.1, 0.9, 0.15), (0.1, 0.15, 0.9, 0.2)],
        grid_source="pdf_text_layer",
    )
    merged = append_rows(first, 4, second, 5)
    assert merged.header_rows == [["Item", "2021"]]
    assert merged.body_rows == [["Revenue", "5"], ["Cost", "3"], ["Net", "2"]]
    assert merged.body_row_pages == [4, 5, 5]
    assert merged.body_row_bboxes == [None, (0.1, 0.1, 0.9, 0.15), (0.1, 0.15, 0.9, 0.2)]
    # a continuation whose first row is not the header keeps that row as a body row
    other = second.model_copy(update={"header_rows": [["Tax", "1"]]})
    assert append_rows(first, 4, other, 5).body_rows[1] == ["Tax", "1"]
    assert append_rows(first, 4, other, 5).body_row_bboxes[1] is None
    # without any row box, none is invented
    assert append_rows(first, 4, first, 5).body_row_bboxes == []


def test_a_rebuilt_part_with_its_own_header_starts_a_new_table():
    """JPMorgan 10-Q p86/p87: the fair-value table for March 31, 2021 ends page 86 and the same layout for
    December 31, 2020 starts page 87: not one table, although it is first on its page with as many columns."""
    from structaware_readers.tables.continued import continues

    march = TableGrid(header_rows=[["March 31, 2021", "Level 1", "Level 2"]], body_rows=[["Loans", "1", "2"]])
    december = TableGrid(header_rows=[["December 31, 2020", "Level 1", "Level 2"]], body_rows=[["Loans", "3", "4"]])
    rows_only = TableGrid(body_rows=[["Deposits", "5", "6"], ["Other", "7", "8"]])
    repeated = march.model_copy(update={"body_rows": [["Deposits", "5", "6"]]})
    kw = {"flagged": False, "by_position": True, "caption": "", "own_header_starts_a_table": True}
    assert not continues(march, december, **kw)
    assert continues(march, rows_only, **kw) and continues(march, repeated, **kw)
    assert continues(march, december, **{**kw, "caption": "Table 5 (continued)"})
    assert continues(march, december, **{**kw, "flagged": True})  # the parser says so
    assert not continues(march, rows_only, **{**kw, "caption": "Table 6 Deposits"})  # a new caption
    assert not continues(march, rows_only, **{**kw, "by_position": False})
    # the parser's own grids keep the assembler's rule (their header rows are the parser's markup)
    assert continues(march, december, **{**kw, "own_header_starts_a_table": False})


def test_bad_pdf_argument_is_a_typed_error(tmp_path: Path):
    with pytest.raises(InputNotFoundError) as missing:
        load_document(PARSE, pdf=tmp_path / "nope.pdf")
    assert missing.value.field == "pdf"
    with pytest.raises(MalformedInputError) as broken:
        load_document(PARSE, pdf=FIXTURES / "pdf" / "corrupt_truncated.pdf")
    assert broken.value.field == "pdf"


def test_table_region_without_text_is_a_warning_and_stays_section_text():
    doc = read_mineru(PARSE)
    table = _table(doc, 1)
    # an empty region (the bottom of the page) and flattened text: nothing to rebuild a grid from
    broken = table.model_copy(update={"bbox": (0.1, 0.8, 0.9, 0.9), "text": " ".join(table.text.split())})
    moved = doc.model_copy(update={"blocks": [broken if b is table else b for b in doc.blocks]})
    out = recover_table_grids(moved, PDF)
    assert _table(out, 1).table is None
    assert out.warnings == [
        (
            f"page 1, element {table.block_id}: table has no cell structure and none could be rebuilt from the"
            " PDF text layer or the parser's text; its text stays section text"
        )
    ]
    units = build_units(out)
    assert any("Net income" in u.text and u.unit_type.value == "section" for u in units)


def test_harness_hands_the_pdf_to_the_loader(tmp_path: Path):
    from structaware_retrievers.evaluation.harness import load_question_documents
    from structaware_retrievers.evaluation.questions import Question

    docs, parsed = tmp_path / "pdfs", tmp_path / "parsed"
    docs.mkdir()
    shutil.copytree(PARSE, parsed / "filing")
    shutil.copy(PDF, docs / "filing.pdf")
    q = Question(qid="q1", question="net income", doc="pdfs/filing.pdf", doc_stem="filing", gold_pages=(1,))
    with_pdf = load_question_documents([q], docs, parsed)["filing"]
    without = load_question_documents([q], docs, parsed, pdf_tables=False)["filing"]
    assert _table(with_pdf, 1).table.grid_source == "pdf_text_layer"
    assert _table(without, 1).table.grid_source == "parser_text"


# ----------------------------------------------------------------------------- shared material


@pytest.mark.shared
def test_cdc_guide_tables_get_grids_and_figures_stay_figures(shared_dir: Path):
    parse = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
    pdf = shared_dir / "fixtures" / "pdf" / "cdc_2016_outpatient_infection_prevention_guide.pdf"
    before = load_document(parse, pdf=False)
    after = load_document(parse, pdf=pdf)
    tables = [b for b in before.blocks if b.kind is BlockKind.TABLE and not has_grid(b.table)]
    assert len(tables) == 8
    rebuilt = [after.block(b.block_id) for b in tables]  # the part, or the table it continues (below)
    assert all(has_grid(b.table) for b in rebuilt)
    assert all(r == "pdf_text_layer" for b in rebuilt for r in ([b.table.grid_source] if not b.extra_pages else []))
    # no table left unread; the only warning names the cover's logos (figures without text, issue 22)
    assert after.warnings == ["3 figures hold no text the parser read and give no unit: pages 1"]
    # the checklists are ruled tables: whole cells, however many lines they wrap over
    checklist = after.block("p26-e2").table
    assert checklist.header_rows == [["Elements to be assessed", "Assessment", "Notes/Areas for Improvement"]]
    assert checklist.body_rows[1][0].startswith("B. HCP are required to demonstrate competency with safe inje")
    assert checklist.body_rows[1][1] == "Yes No"
    # a figure whose region holds no table of figures stays a figure
    figures_before = {b.block_id for b in before.blocks if b.kind is BlockKind.FIGURE}
    figures_after = {b.block_id for b in after.blocks if b.kind is BlockKind.FIGURE}
    assert figures_after == figures_before


@pytest.mark.shared
def test_cdc_tables_continued_across_pages_are_one_table_once_rebuilt(shared_dir: Path):
    """The CDC checklists run over page breaks; parts the parser left without cells get their grid from
    the PDF and are then merged like the parser's own continued tables: one table, its rows lettered
    A, B, C ... without a gap, the header not repeated as a row, each row with its page (and its box
    where the grid was rebuilt)."""
    parse = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
    pdf = shared_dir / "fixtures" / "pdf" / "cdc_2016_outpatient_infection_prevention_guide.pdf"
    before = load_document(parse, pdf=False)
    doc = load_document(parse, pdf=pdf)
    merged = {b.block_id: b for b in doc.blocks if b.kind is BlockKind.TABLE and b.extra_pages}
    assert {k: (b.extra_pages, b.extra_ids) for k, b in merged.items()} == {
        "p23-e1": ([24], ["p24-e0"]),  # merged by the reader (both parts have the parser's cells)
        "p30-e3": ([31], ["p31-e0"]),  # parser's cells + a part rebuilt from the PDF
        "p33-e2": ([34], ["p34-e1"]),  # rebuilt + parser's cells (caption "... (continued)")
        "p37-e2": ([38], ["p38-e0"]),  # rebuilt + rebuilt
        "p38-e3": ([39, 40], ["p39-e1", "p40-e1"]),  # three pages
    }
    assert not any(b.block_id in {"p31-e0", "p34-e1", "p38-e0", "p39-e1", "p40-e1"} for b in doc.blocks)
    assert [b.block_id for b in before.blocks if b.kind is BlockKind.TABLE and b.extra_pages] == ["p23-e1"]
    header = ["Elements to be assessed", "Assessment", "Notes/Areas for Improvement"]
    for b in list(merged.values())[1:]:
        grid = b.table
        assert grid.header_rows == [header] and header not in grid.body_rows
        letters = [row[0][0] for row in grid.body_rows]
        assert letters == [chr(ord("A") + k) for k in range(len(letters))], b.block_id
        assert len(grid.body_row_pages) == len(grid.body_rows) == len(grid.body_row_bboxes)
        assert grid.body_row_pages == sorted(grid.body_row_pages) and set(grid.body_row_pages) == {
            b.page,
            *b.extra_pages,
        }
    p30 = merged["p30-e3"].table
    assert p30.body_row_pages == [30] * 7 + [31] * 2
    # every row has its box: the parser's rows located in the text layer (row_boxes), the rebuilt rows
    # from their grid; on each page the rows run down the page without overlapping
    boxes = p30.body_row_bboxes
    assert all(box is not None for box in boxes)
    for rows in (boxes[:7], boxes[7:]):
        assert all(a[3] <= b[1] + 1e-6 for a, b in zip(rows, rows[1:])), rows
    # a row of the continuation points at its own page, element part and row box
    rows = [u for u in build_units(doc) if u.table is not None and u.table.table_id == "p30-e3"]
    assert len(rows) == 9 and len({u.unit_id for u in rows}) == 9
    h_row = next(u for u in rows if u.table.cells[0].startswith("H. Facility has policies"))
    assert (
        h_row.pages == [31] and h_row.bboxes == [_rounded(p30.body_row_bboxes[7])] and h_row.element_ids == ["p31-e0"]
    )


@pytest.mark.shared
def test_ohrbench_borderless_table_row_holds_its_figures(shared_dir: Path):
    bench = shared_dir / "bench" / "finance"
    zipped = bench / "mineru-4.0.12-flash" / "JPMORGAN_2021Q1_10Q.zip"
    if not zipped.is_file():
        pytest.skip("OHR-Bench finance parse not present")
    doc = read_mineru(zipped)
    page25 = doc.model_copy(update={"blocks": [b for b in doc.blocks if b.page == 25]})  # only page 25 is opened
    grid = recover_table_grids(page25, bench / "pdfs" / "JPMORGAN_2021Q1_10Q.pdf").block("p25-e1").table
    assert grid is not None and grid.grid_source == "pdf_text_layer"
    row = next(r for r in grid.body_rows if r[0].startswith("Nonaccrual loans retained"))
    assert row[1:] == ["$842", "$689", "22 %"]  # OHR-Bench gold: Nonaccrual loans retained & $ & 842 & $ & 689 & 22 %


def test_cli_units_takes_the_pdf_and_prints_warnings(cli):
    with_pdf = cli("units", str(PARSE), "--json", "--pdf", str(PDF))
    assert with_pdf.returncode == 0, with_pdf.stderr
    rows = [json.loads(line) for line in with_pdf.stdout.splitlines()]
    net = next(r for r in rows if r["unit_type"] == "table_row" and "Net income" in r["text"])
    assert net["pages"] == [1] and "$8,649" in net["text"]
    other = cli("units", str(PARSE), "--pdf", str(FIXTURES / "pdf" / "tiny_heading_table.pdf"))
    assert other.returncode == 0
    assert "warning: mineru-4.0.12_flash-tier_borderless_tables: " in other.stderr and "has 1 pages" in other.stderr


def _with_header(doc, block_id: str, header: list[list[str]]):
    blocks = [
        b.model_copy(update={"table": b.table.model_copy(update={"header_rows": header})})
        if b.block_id == block_id
        else b
        for b in doc.blocks
    ]
    return doc.model_copy(update={"blocks": blocks})


_PAGE2_BODY = [
    ["Consumer & Community Banking", "$1,181.6", "$1,148.1", "3 %"],
    ["Corporate & Investment Bank", "757.1", "719.6", "5"],
    ["Commercial Banking", "305.2", "312.3", "(2)"],
    ["Asset & Wealth Management", "274.7", "282.1", "(3)"],
    ["Total deposits", "$2,518.6", "$2,462.3", "2 %"],
]


def test_parser_markup_that_took_a_data_row_for_the_header_is_rebuilt_from_the_pdf():
    raw = read_mineru(PARSE)
    # MinerU's HTML for page 2 lost the real header and took the first data row for it
    assert _table(raw, 2).table.header_rows == [["Consumer & Community Banking", "$ 1,181.6", "$ 1,148.1", "3 %"]]
    grid = _table(load_document(PARSE, pdf=PDF), 2).table
    assert grid.grid_source == "pdf_text_layer"
    assert grid.header_rows == [["(in billions)", "Jun 30, 2022", "Dec 31, 2021", "Change"]]
    assert grid.body_rows == _PAGE2_BODY  # the row taken for the header is a body row again
    assert len(grid.body_row_bboxes) == 5
    # without the PDF the parser's grid is all there is
    assert _table(load_document(PARSE, pdf=False), 2).table.grid_source == "parser_html"


def test_parser_markup_whose_header_cuts_words_is_rebuilt_and_a_sound_one_is_kept():
    raw = read_mineru(PARSE)
    body = _table(raw, 2).table.body_rows
    garbled = _with_header(raw, _table(raw, 2).block_id, [["(in billions)", "Jun 30, De2022", "c 31, 2021", "Cha nge"]])
    grid = _table(recover_table_grids(garbled, PDF), 2).table
    assert grid.grid_source == "pdf_text_layer" and grid.header_rows[0][1:] == [
        "Jun 30, 2022",
        "Dec 31, 2021",
        "Change",
    ]
    assert grid.body_rows == _PAGE2_BODY
    # a header whose words are all in the PDF region stays the parser's
    sound = _with_header(raw, _table(raw, 2).block_id, [["(in billions)", "Jun 30, 2022", "Dec 31, 2021", "Change"]])
    kept = _table(recover_table_grids(sound, PDF), 2).table
    assert kept.grid_source == "parser_html" and kept.body_rows == body


def test_a_rebuild_that_loses_figures_leaves_the_parser_markup():
    raw = read_mineru(PARSE)
    block = _table(raw, 2)
    # body figures the PDF region does not hold (another table's values): the rebuild would lose them
    other = [[label, "9,991.1", "9,992.2", "9 %"] for label, *_ in block.table.body_rows]
    table = block.table.model_copy(
        update={"header_rows": [["(in billions)", "Ju n 30", "De c 31", "Cha nge"]], "body_rows": other}
    )
    doc = raw.model_copy(
        update={"blocks": [b.model_copy(update={"table": table}) if b is block else b for b in raw.blocks]}
    )
    grid = _table(recover_table_grids(doc, PDF), 2).table
    assert grid.grid_source == "parser_html" and grid.body_rows == other


@pytest.mark.parametrize(
    "header, title, rest",
    [
        # a title line the region took in (label column only, three words or more) is the title
        (
            [["Financial performance of JPMorgan Chase", "", ""], ["(in millions)", "2022", "2021"]],
            "Financial performance of JPMorgan Chase",
            [["(in millions)", "2022", "2021"]],
        ),
        # a unit note or a short stub label is a column header line, not a title
        ([["(in millions, except ratios)", "", ""], ["", "2022", "2021"]], "", None),
        ([["Selected metrics", "", ""], ["", "2022", "2021"]], "", None),
        # a row with text beyond the label column is a header line; the only header row is never taken
        ([["Three months ended June 30,", "2022", "2021"]], "", None),
        ([["The following table presents the loans:", "", ""]], "", None),
    ],
)
def test_a_label_only_first_header_row_of_words_is_the_tables_title(header, title, rest):
    from structaware_readers.table_recovery.grid_rules import split_title

    assert split_title(header) == (title, header if rest is None else rest)


def test_a_text_tables_title_line_becomes_the_grid_title():
    text = "\n".join(
        [
            "Noninterest expense by line of business",
            "(in millions)                 2022        2021",
            "Compensation expense        $ 9,088     $ 8,630",
            "Occupancy expense             1,157       1,109",
        ]
    )
    from structaware_readers.table_recovery.parser_text import grid_from_aligned_text

    grid = grid_from_aligned_text(text, page_number=3)
    assert grid.title == "Noninterest expense by line of business"
    assert grid.header_rows == [["(in millions)", "2022", "2021"]]
    assert grid.body_rows[0] == ["Compensation expense", "$ 9,088", "$ 8,630"]
