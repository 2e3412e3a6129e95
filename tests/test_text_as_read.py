"""Text as a reader sees it (issue 21, item 4): rotated and vertical table text read in its reading
direction, shading strips that are no cell borders, footnote marks and subscripts, inline markup.

Real inputs: pages 23-25 of the VA/DoD hypertension guideline (public domain) and their MinerU 4.0.12
flash-tier parse (``tests/fixtures/pdf/vadod_htn_2020_p23-25.pdf``,
``tests/fixtures/mineru/mineru-4.0.12_flash-tier_vadod_htn_2020_p23-25``), the NAACL 2024 paper's
MinerU 3.4.4 parse (CC BY 4.0); generated: ``rotated_text_tables.pdf`` (``make_rotated_text_tables.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")

from structaware_readers.load.loader import load_document
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.reading_direction import char_direction, join_words
from structaware_readers.table_recovery.ruling import hidden_strips
from structaware_readers.text.glyphs import repair_glyphs
from structaware_readers.text.inline_markup import has_markup, plain_text
from structaware_readers.units import build_units

FIXTURES = Path(__file__).parent / "fixtures"
ROTATED = FIXTURES / "pdf" / "rotated_text_tables.pdf"
HTN_PDF = FIXTURES / "pdf" / "vadod_htn_2020_p23-25.pdf"
HTN_MINERU = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_2020_p23-25" / "middle_json.json"
NAACL = FIXTURES / "mineru" / "mineru-3.4.4_pipeline_cloudapi_naacl2024-long-132"


def _grid(page_index: int, bbox):
    with pdfplumber.open(ROTATED) as pdf:
        return grid_from_region(pdf.pages[page_index], bbox, page_number=page_index + 1)


# ---------------------------------------------------------------- the hypertension guideline's table


@pytest.fixture(scope="module")
def htn_doc():
    return load_document(HTN_MINERU, pdf=HTN_PDF)


@pytest.fixture(scope="module")
def htn_rows(htn_doc):
    # the table's rows: recommendation units since issue 21 item 1 (one per row of a recommendation table)
    return [u for u in build_units(htn_doc) if u.table is not None]


def _cells(unit) -> dict[str, str]:
    return dict(zip(unit.table.headers, unit.table.cells))


def test_htn_recommendation_rows_read_forwards(htn_rows):
    """Every recommendation of the three pages is one row whose Topic and Sub-topic read as printed
    (written bottom-to-top in merged cells); never backwards, never spaced letter by letter."""
    by_number = {_cells(u).get("#"): _cells(u) for u in htn_rows}
    assert sorted(int(n.rstrip(".")) for n in by_number if n) == list(range(1, 29))
    assert by_number["1."]["Topic"] == "Screening, Diagnosis, and Monitoring"
    assert by_number["6."]["Topic"] == "Treatment Goals and General Approaches to Hypertension Management"
    assert by_number["10."]["Topic"] == "Treatment Goals and General Approaches to Hypertension Management (cont.)"
    assert by_number["18."]["Sub-topic"] == "b. Exercise/ Physical Activity"
    assert by_number["28."]["Sub-topic"] == "b. For Resistant Hypertension"
    assert by_number["24."]["Strength^a"] == "Strong against"
    for u in htn_rows:  # the traps: what the PDF text layer and MinerU gave before
        text = f"{u.text} {u.context}"
        assert "sehcaorppA" not in text and "tnemtaerT" not in text
        assert "Goa l s" not in text and "Screen i ng" not in text
        assert "Strengtha" not in text and "Sub- / topic" not in text


def test_htn_transposed_parser_grid_replaced(htn_doc, htn_rows):
    """Page 23: MinerU read the table turned (its header in the last column, rows reversed); the
    header words it spaced out are not in the text layer, so the page's grid is read from it."""
    table = next(b for b in htn_doc.blocks if b.page == 1 and b.table is not None)
    assert table.table.grid_source == "pdf_text_layer"
    page23 = [u for u in htn_rows if u.pages == [1]]
    assert len(page23) == 9
    first = _cells(page23[0])
    assert (first["Topic"], first["Sub-topic"], first["#"]) == (
        "Screening, Diagnosis, and Monitoring",
        "a. Screening",
        "1.",
    )
    assert page23[0].unit_type.value == "recommendation" and page23[0].text.startswith("We recommend screening adults")


# ---------------------------------------------------------------- generated tables


def test_rotated_cells_in_their_reading_direction():
    grid = _grid(0, (0.09, 0.09, 0.92, 0.38))
    assert grid.header_rows == [["Topic", "Sub-topic", "#", "Recommendation", "Strength^a", "Category"]]
    assert [r[:3] for r in grid.body_rows] == [
        ["Treatment Goals and General Approaches to Management", "a. Blood Pressure Goals", "6."],
        ["Treatment Goals and General Approaches to Management", "a. Blood Pressure Goals", "7."],
        ["Treatment Goals and General Approaches to Management", "a. Blood Pressure Goals", "8."],
    ]


def test_scripts_and_hyphens_as_printed():
    rows = _grid(0, (0.09, 0.09, 0.92, 0.38)).body_rows
    assert rows[1][3] == "We suggest measuring CO2 before and after pre- and post-operative care."  # subscript: no ^
    assert rows[2][3] == "We recommend chlorthalidone 12.5-25 mg daily for patients with hypertension."
    assert rows[0][3].endswith("blood pressure goal of <130 mm Hg.")


def test_fills_of_another_colour_and_stroked_cells_stay_borders():
    fills = _grid(1, (0.09, 0.09, 0.68, 0.21))
    assert fills.header_rows == [["Drug", "Dose", "Frequency"]]
    assert fills.body_rows == [["Chlorthalidone", "12.5-25 mg", "daily"], ["Indapamide", "1.25-2.5 mg", "daily"]]
    stroked = _grid(1, (0.09, 0.23, 0.68, 0.39))
    assert stroked.header_rows == [["Term", "Vertical", "Figures"]]
    # stacked CJK characters are one word; stacked single figures stay apart
    assert stroked.body_rows == [["Plan", "治疗方案", "1 2 3"], ["Other", "none", "4"]]


def test_hidden_strips_only_same_colour_unstroked_inside():
    outer = {"x0": 0, "x1": 100, "top": 0, "bottom": 100, "fill": True, "stroke": False, "non_stroking_color": (0.5,)}
    strip = {**outer, "x0": 2, "x1": 40}
    other_colour = {**strip, "non_stroking_color": (0.7,)}
    stroked = {**strip, "stroke": True}
    outside = {**strip, "x1": 140}
    assert hidden_strips([outer, strip, other_colour, stroked, outside]) == {1}


def test_char_direction_from_text_matrix():
    assert char_direction({"matrix": (10, 0, 0, 10, 0, 0)}) == "ltr"
    assert char_direction({"matrix": (0, 10, -10, 0, 0, 0)}) == "btt"  # rotated anticlockwise
    assert char_direction({"matrix": (0, -10, 10, 0, 0, 0)}) == "ttb"
    assert char_direction({"matrix": (-10, 0, 0, -10, 0, 0)}) == "rtl"


def test_join_words_cjk_and_line_end_hyphens():
    assert join_words([["慢性阻塞性"], ["肺疾病"]]) == "慢性阻塞性肺疾病"
    assert join_words([["Sub-"], ["topic"]]) == "Sub-topic"
    assert join_words([["pre-", "and", "post-operative"]]) == "pre- and post-operative"  # inside a line
    assert join_words([["Type", "2"], ["Diabetes"]]) == "Type 2 Diabetes"
    assert join_words([["Angiotensin-"], ["Converting"]]) == "Angiotensin-Converting"
    assert join_words([["therapy", "-"], ["Then"]]) == "therapy - Then"  # a dash set apart


# ---------------------------------------------------------------- inline markup


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        ("Kai Zhang<sup>1</sup>, Yangyang Kang<sup>2</sup>", "Kai Zhang^1, Yangyang Kang^2"),
        ("<sup>1</sup> In addition, between 1995 and 2007", "1 In addition, between 1995 and 2007"),
        ("metformin<sup>b</sup> daily", "metformin^b daily"),
        ("CHA<sub>2</sub>DS<sub>2</sub>-VASc", "CHA2DS2-VASc"),
        # words a parser took for a subscript: a line under a figure, words after a mark
        ("2015<sub>Grade</sub><sup>3</sup>", "2015 Grade^3"),
        ("17<sub>Recommendation</sub>", "17 Recommendation"),
        ("kg/m<sup>2</sup> <sub>with</sub> <sub>one</sub> <sub>or</sub> more", "kg/m^2 with one or more"),
        ("tablets<sup>1A</sup>+,2D <sub>OR</sub>", "tablets^1A+,2D OR"),
        ("T<sub>max</sub>, 18<sub>F</sub>-FDG, H<sub>2</sub>O", "Tmax, 18F-FDG, H2O"),  # traps: scripts
        ("BP &lt;140/90 mm Hg &amp; HbA1c &#8805; 7%", "BP <140/90 mm Hg & HbA1c ≥ 7%"),
        ('<span style="color:red">Weak</span> for', "Weak for"),
        # traps: text that only looks like markup
        ("<140/90 mm Hg", "<140/90 mm Hg"),
        ("if a <b and c> d", "if a <b and c> d"),
        ("AT&T and &parameter", "AT&T and &parameter"),
        ("$x^{2}$ stays math", "$x^{2}$ stays math"),
    ],
)
def test_plain_text(raw, plain):
    assert plain_text(raw) == plain


def test_plain_text_keeps_lines_without_markup():
    assert plain_text("first  line\nx<sup>2</sup> and  y") == "first  line\nx^2 and y"


def test_paper_units_hold_no_markup():
    """The NAACL paper's MinerU output writes author affiliations and footnote marks as <sup>: its
    units hold ``^1``-style marks and no tag."""
    units = build_units(load_document(NAACL))
    assert not [u.text[:80] for u in units if has_markup(u.text) or has_markup(u.context)]
    first = next(u for u in units if "Kai Zhang" in u.text)
    assert "Kai Zhang^1, Yangyang Kang^2" in first.text


# ---------------------------------------------------------------- glyphs without a name


@pytest.mark.parametrize(
    ("raw", "read"),
    [
        # the VA/DoD asthma guideline's Wingdings 2 square bullets (U+F0A1), at line starts and run
        # into one line
        (
            "\uf0a1 Symptoms suggestive of airway hyperresponsiveness",
            "▪ Symptoms suggestive of airway hyperresponsiveness",
        ),
        ("e.g.,: \uf0a1 Resource use\n\uf0a1 Equity", "e.g.,: ▪ Resource use\n▪ Equity"),
        ("\uf0a1 Recent hospitalization \uf0a1 ED visit", "▪ Recent hospitalization ▪ ED visit"),
        (
            "Sidebar B: Assessment: \uf0a1Symptoms (see Sidebar A) \uf0a1Pattern",
            "Sidebar B: Assessment: ▪ Symptoms (see Sidebar A) ▪ Pattern",
        ),
        ("\uf0a1", "▪"),
        ("2025\x03年\x036月", "2025 年 6月"),  # a space glyph mapped to U+0003
        ("an ef(cid:28)cient retriever", "an efcient retriever"),
        # traps: a Private Use Area glyph set against a figure is no bullet; real bullets and
        # symbols stay
        ("BP \uf0b3140 mm Hg", "BP 140 mm Hg"),
        ("ab\uf0a1cd", "abcd"),
        ("• ICS ♦ Budesonide ≥ 140 ☑ done", "• ICS ♦ Budesonide ≥ 140 ☑ done"),
        ("tab\tand\nnewline", "tab\tand\nnewline"),
    ],
)
def test_repair_glyphs(raw, read):
    assert repair_glyphs(raw) == read


def test_table_cells_and_captions_are_read_too():
    from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
    from structaware_readers.text.as_read import read_as_printed

    grid = TableGrid(header_rows=[["Step", "Therapy"]], body_rows=[["1", "\uf0a1 Initial therapy: \uf0a1 ICS"]])
    doc = ParsedDocument(
        doc_id="0" * 16, name="t", source="t", parser="mineru", input_format="test", page_count=1,
        blocks=[
            Block(block_id="p1-e0", kind=BlockKind.TABLE, page=1, table=grid, caption="Table 1<sup>a</sup>"),
            Block(block_id="p1-e1", kind=BlockKind.PARAGRAPH, page=1, text="plain"),
        ],
    )  # fmt: skip
    out = read_as_printed(doc)
    assert out.blocks[0].table.body_rows == [["1", "▪ Initial therapy: ▪ ICS"]]
    assert out.blocks[0].caption == "Table 1^a"
    assert out.blocks[1] is doc.blocks[1]  # untouched blocks are not copied
    assert read_as_printed(out) is out
