"""No gain tuned to one kind of document that loses on another (issue 21, item 5): a grid rebuilt from
the PDF text layer replaces the parser's only when it reads the document's own words as well.

Generated input: ``tests/fixtures/pdf/glued_words_table.pdf`` (``make_glued_words_table.py``): a
two-column paper page whose small-font table has no space characters in its text layer
(``MMLUPhysics``), and the same page with spaces (the trap).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.table_recovery.stage6_markup_check import document_words, known_share
from structaware_readers.tables import grid_to_text, parse_html_table

GLUED = Path(__file__).parent / "fixtures" / "pdf" / "glued_words_table.pdf"
BODY = (
    "Table 2 compares the methods on MMLU Physics, MMLU Chemistry and Clinical Knowledge. Retrieval "
    "augmented prompting is best on every subset; chain of thought helps less on MMLU Chemistry."
)
#: what a parser's table recognition gives for the page: header words cut across cells
PARSER_HTML = (
    "<table><tr><td>Met</td><td>hod MMLU Phys</td><td>ics MMLU Chem</td><td>istry Clinical Know ledge</td></tr>"
    "<tr><td>Zero shot</td><td>41.2</td><td>38.5</td><td>55.0</td></tr>"
    "<tr><td>Chain of thought</td><td>44.8</td><td>40.1</td><td>58.3</td></tr>"
    "<tr><td>Retrieval augmented</td><td>47.9</td><td>43.6</td><td>61.7</td></tr></table>"
)
TABLE_BOX = (56 / 612, 134 / 792, 332 / 612, 196 / 792)


def _doc() -> ParsedDocument:
    blocks = []
    for page in (1, 2):
        grid = parse_html_table(PARSER_HTML)
        blocks += [
            Block(block_id=f"p{page}-e0", kind=BlockKind.PARAGRAPH, page=page, text=BODY, bbox=(0.09, 0.09, 0.5, 0.16)),
            Block(
                block_id=f"p{page}-e1",
                kind=BlockKind.TABLE,
                page=page,
                table=grid,
                text=grid_to_text(grid),
                bbox=TABLE_BOX,
            ),
        ]
    return ParsedDocument(
        doc_id="1" * 16,
        name="glued",
        source=str(GLUED),
        parser="mineru",
        input_format="test",
        page_count=2,
        blocks=blocks,
    )


def test_text_layer_without_spaces_keeps_the_parser_grid():
    out = recover_table_grids(_doc(), GLUED)
    glued, spaced = (b.table for b in out.blocks if b.kind is BlockKind.TABLE)
    # page 1: the text layer reads 'MMLUPhysics', 'Chainofthought': the parser's grid stays
    assert glued.grid_source == "parser_html"
    assert [r[0] for r in glued.body_rows] == ["Zero shot", "Chain of thought", "Retrieval augmented"]
    # page 2 (the trap): the same table with spaces in its text layer replaces the garbled header
    assert spaced.grid_source == "pdf_text_layer"
    assert spaced.header_rows == [["Method", "MMLU Physics", "MMLU Chemistry", "Clinical Knowledge"]]
    assert [r[0] for r in spaced.body_rows] == ["Zero shot", "Chain of thought", "Retrieval augmented"]


def test_a_grid_that_cuts_words_loses_them():
    """The VA/DoD LLA guideline's 2007 recommendation table read as text lines: the rotated header
    comes apart in letters ('M e N S' for 'Module'); the parser grid's words are not kept."""
    from structaware_readers.models import TableGrid
    from structaware_readers.table_recovery.stage6_markup_check import keeps_data

    vocab = document_words(["Module Section Number Recommendation Text Grade wound healing"])
    parser = TableGrid(
        header_rows=[["Module", "Section", "Number", "Recommendation Text"]],
        body_rows=[["A", "10.1", "3", "wound healing"]],
    )
    cut = TableGrid(
        header_rows=[["M e", "S", "N", "Recommendation Text"]], body_rows=[["A", "10.1", "3", "wound healing"]]
    )
    whole = TableGrid(
        header_rows=[["Module", "Section", "Number", "Recommendation Text"]],
        body_rows=[["A", "10.1", "3", "wound healing"]],
    )
    assert not keeps_data(parser, cut, vocab)
    assert keeps_data(parser, whole, vocab)


def test_known_share_counts_distinct_words_of_the_document():
    vocab = document_words(["MMLU Physics results", "chain of thought"])
    assert vocab == Counter({"mmlu": 1, "physics": 1, "results": 1, "chain": 1, "thought": 1})
    assert known_share(["MMLU Physics", "MMLU"], vocab) == 1.0
    assert known_share(["MMLUPhysics", "Chainofthought"], vocab) == 0.0
    assert known_share(["41.2", "55.0"], vocab) == 1.0  # no words: nothing lost


# ---------------------------------------------------------------- items stacked in one ruled row

HTN_F1_PDF = Path(__file__).parent / "fixtures" / "pdf" / "vadod_htn_2020_p98-101.pdf"
HTN_F1 = (
    Path(__file__).parent
    / "fixtures"
    / "mineru"
    / "mineru-4.0.12_flash-tier_vadod_htn_2020_p98-101"
    / "middle_json.json"
)


@pytest.fixture(scope="module")
def f1_rows():
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    doc = load_document(HTN_F1, pdf=HTN_F1_PDF)
    return [u for u in build_units(doc) if u.unit_type.value == "table_row"]


def _by_drug(rows) -> dict[str, dict[str, str]]:
    out = {}
    for u in rows:
        cells = dict(zip(u.table.headers, u.table.cells))
        out[cells.get("Drug", "")] = cells
    return out


def test_dose_table_one_row_per_drug(f1_rows):
    """Table F-1 of the VA/DoD hypertension guideline stacks each class's drugs in one ruled row, each
    dose on its drug's line; the parser read 'Chlorthalidone^b HCTZ^b Indapamide' as one row."""
    drugs = _by_drug(f1_rows)
    assert drugs["Chlorthalidone^b"]["Usual Dose Range"] == "12.5-25 mg daily"
    assert drugs["HCTZ^b"]["Usual Dose Range"] == "25-50 mg daily^c"
    assert drugs["Indapamide"]["Usual Dose Range"] == "IR: 2.5 mg daily"
    assert drugs["Doxazosin"]["Usual Dose Range"] == "1-16 mg/daily"  # a continuation page
    assert drugs["Doxazosin"]["Comments^a"].startswith("• Initiate at low doses (1 mg)")
    # a dose wrapped over two lines stays whole, with the note under the last drug
    assert (
        drugs["Ramipril^b"]["Usual Dose Range"]
        == "2.5-20 mg/day (daily or divided bid) (10 mg daily for CV risk prevention)"
    )
    # the class (merged down) and the class's comments (a bulleted list) are in every drug's row
    assert {drugs[d][""] for d in ("Benazepril", "Enalapril", "Ramipril^b")} == {
        "Angiotensin-Converting Enzyme Inhibitors (ACEI)"
    }
    assert drugs["Benazepril"]["Comments^a"] == drugs["Ramipril^b"]["Comments^a"]
    assert not [d for d in drugs if "HCTZ" in d and "Indapamide" in d]  # the trap: three drugs in a row


def test_drugs_under_sub_labels_with_wrapped_names_get_a_row_each(f1_rows):
    """The beta-blocker and calcium-channel-blocker rows of Table F-1 group their drugs under bold
    sub-labels ('Cardioselective') and wrap names over two lines ('Metoprolol' / 'tartrate^b'), the
    footnote mark of the second line touching the first line's bottom: one row per drug, names whole."""
    drugs = _by_drug(f1_rows)
    assert (
        drugs["Metoprolol tartrate^b"]["Usual Dose Range"] == "Immediate release: 50-300 mg/day (daily or divided bid)"
    )
    assert drugs["Metoprolol succinate (XL)^b"]["Usual Dose Range"] == "Sustained release: 25-200 mg/day"
    assert drugs["Cardioselective Atenolol^b"]["Usual Dose Range"] == "25-100 mg daily (adjust dose in CKD)"
    assert drugs["Noncardioselective Propranolol"]["Usual Dose Range"].startswith("Immediate release: 80-160 mg/day")
    assert drugs["Diltiazem sustained release^b"]["Usual Dose Range"] == "120-540 mg daily"
    assert drugs["Non-DHP CCBs Verapamil sustained release^b"]["Usual Dose Range"] == "120-480 mg divided daily-bid"
    assert drugs["Methyldopa"]["Usual Dose Range"] == "500-2,000 mg/day (divided bid)"
    assert drugs["Clonidine Tablet^b"]["Usual Dose Range"] == "0.1-0.8 mg/day (divided bid)"
    assert drugs["Cardioselective Atenolol^b"][""] == "Beta-Adrenergic Blockers"
    # traps: no row of several drugs, no footnote mark inside a word
    assert not [
        d for d in drugs if ("Propranolol" in d and "Atenolol" in d) or ("Amlodipine" in d and "Felodipine" in d)
    ]
    assert not [d for d in drugs if "Metoprob" in d or "Diltiazebm" in d or "C lonidine" in d]


def test_paragraphs_of_a_key_cell_are_items_only_beside_their_own_figures():
    from structaware_readers.table_recovery.stacked_rows import split_stacked

    cls = [(130.0, "Loop"), (141.0, "Diuretics")]
    drugs = [
        (100.0, "Short-acting"),
        (113.0, "Furosemide"),
        (124.0, "oral tablet^a"),
        (137.0, "Bumetanide"),
        (150.0, "Torsemide"),
    ]
    doses = [(113.0, "20-80 mg/day (divided"), (124.0, "bid)"), (137.0, "0.5-2 mg daily"), (150.0, "5-10 mg daily")]
    notes = [(100.0, "• Monitor electrolytes and"), (111.0, "kidney function"), (124.0, "• May cause ototoxicity")]
    rows = split_stacked([cls, drugs, doses, notes])
    assert [r[1:3] for r in rows] == [
        ["Short-acting Furosemide oral tablet^a", "20-80 mg/day (divided bid)"],
        ["Bumetanide", "0.5-2 mg daily"],
        ["Torsemide", "5-10 mg daily"],
    ]
    assert {r[0] for r in rows} == {"Loop Diuretics"} and rows[0][3] == rows[2][3]
    # trap: one sentence naming two drugs, wrapped over lines of one paragraph, stays one row
    combo = [(100.0, "Hydralazine with"), (111.0, "isosorbide dinitrate"), (122.0, "(fixed dose)")]
    combo_dose = [(100.0, "37.5/20 mg to"), (111.0, "75/40 mg three times"), (122.0, "daily")]
    assert split_stacked([cls, combo, combo_dose, notes]) is None
    # trap: a brand name under its generic name, beside a bracketed note of the one dosing sentence
    product = [(151.3, "Ipratropium/Albuterol"), (162.3, "solution"), (175.3, "DuoNeb")]
    dosing = [(151.3, "Inhale contents of one vial (3 mL)"), (162.3, "every 6 hours"), (175.3, "(Max: 3/18 mg/day)")]
    assert (
        split_stacked([[(163.9, "Nebulizers")], product, [(163.3, "Neb")], [(163.3, "0.5/3 mg/3 mL")], dosing]) is None
    )
    # trap: a line beside a sub-label belongs to no item, so the row is not cut
    assert split_stacked([cls, drugs, [(106.0, "40 mg max"), *doses], notes]) is None


def test_a_footnote_mark_touching_the_line_above_stays_on_its_own_line():
    """A raised mark whose top meets the bottom of the line above to a hundredth of a point belongs to
    the wrapped word below it ('tartrate^b'), not inside the word above ('Metoprob lol')."""
    from structaware_readers.table_recovery.reading_direction import cell_lines
    from synthetic_glyphs import glyphs as set_glyphs

    def glyphs(text, x, top, size, advance=4.5):
        return set_glyphs(text, x, top, size, advance, spaces=True)

    chars = glyphs("Metoprolol", 164.88, 476.62, 9.965) + glyphs("tartrate", 164.88, 487.66, 9.96, advance=3.84)
    chars += glyphs("b", 195.6, 486.58176, 6.48, advance=3.4)  # inside 'Metoprolol' across; its bottom is 486.585
    assert [t for _, t in cell_lines(chars)] == ["Metoprolol", "tartrate^b"]
    # trap: a mark well inside its line stays a mark of that line
    chars = glyphs("Atenolol", 164.88, 452.61, 9.96) + glyphs("b", 200.9, 451.5, 6.48, advance=3.4)
    assert [t for _, t in cell_lines(chars)] == ["Atenolol^b"]


def test_stacked_split_needs_items_in_line_with_figures():
    from structaware_readers.table_recovery.stacked_rows import may_hold_stacked_rows, split_stacked

    drugs = [(100.0, "Chlorthalidone^b"), (112.0, "HCTZ^b"), (124.0, "Indapamide")]
    doses = [(100.0, "12.5-25 mg daily"), (112.0, "25-50 mg daily^c"), (124.0, "IR: 2.5 mg daily")]
    comments = [
        (100.0, "• May cause gout"),
        (112.0, "• Monitor K+ levels"),
        (124.0, "• Rare photosensitivity"),
        (136.0, "• Hyponatremia"),
    ]
    cls = [(108.0, "Thiazide-type"), (120.0, "Diuretics")]
    assert split_stacked([cls, drugs, doses, comments]) == [
        [
            "Thiazide-type Diuretics",
            "Chlorthalidone^b",
            "12.5-25 mg daily",
            "• May cause gout • Monitor K+ levels • Rare photosensitivity • Hyponatremia",
        ],
        [
            "Thiazide-type Diuretics",
            "HCTZ^b",
            "25-50 mg daily^c",
            "• May cause gout • Monitor K+ levels • Rare photosensitivity • Hyponatremia",
        ],
        [
            "Thiazide-type Diuretics",
            "Indapamide",
            "IR: 2.5 mg daily",
            "• May cause gout • Monitor K+ levels • Rare photosensitivity • Hyponatremia",
        ],
    ]
    # traps: a wrapped category beside a wrapped recommendation; names beside prose without figures
    category = [(100.0, "Reviewed,"), (112.0, "New-added")]
    recommendation = [
        (100.0, "We suggest offering home blood pressure"),
        (112.0, "Self-monitoring with co-interventions."),
    ]
    assert split_stacked([None, recommendation, category]) is None
    assert split_stacked([drugs, [(100.0, "Preferred"), (112.0, "Alternative"), (124.0, "Avoid")]]) is None
    assert may_hold_stacked_rows(
        [["Thiazide-type Diuretics", "Chlorthalidone^b HCTZ^b Indapamide", "12.5-25 mg daily 25-50 mg daily"]]
    )
    assert not may_hold_stacked_rows([["Screening", "We recommend screening adults, 18 to 39 years", "Strong for"]])
    assert not may_hold_stacked_rows(
        [["A", "10.1", "3", "The potential for wound healing", "I A"]]
    )  # a grade, no names


def test_label_spanning_its_row_takes_no_figures_from_above():
    """A ruled cell spanning the whole row (a group label such as 'OTHER ASSETS') repeats itself over
    the columns it covers; the figures of the row above stay there."""
    from structaware_readers.table_recovery.pdf_text_layer import _fill_covered

    cells = [(0, 10, 300, 20), None, None]  # the label's cell reaches over the figure columns
    col_x1 = [100.0, 200.0, 300.0]
    above = ["Total investments", "29,505", "28,120"]
    reach_down = [10.0, 10.0, 10.0]  # the cells above end where this row starts
    assert _fill_covered(["OTHER ASSETS", None, None], cells, col_x1, reach_down, above) == ["OTHER ASSETS"] * 3
    # a merged cell reaching down from the row above (rowspan) is repeated
    cells = [(0, 10, 100, 20), None, (200, 10, 300, 20)]
    assert _fill_covered(
        ["Lisinopril", None, "daily"], cells, col_x1, [10.0, 20.0, 10.0], ["ACEI", "10-40 mg", "x"]
    ) == ["Lisinopril", "10-40 mg", "daily"]
    # neither: empty, never the figure above
    assert _fill_covered(["Label", None, "4"], cells, col_x1, [10.0, 10.0, 10.0], above) == ["Label", "", "4"]


def test_more_rows_for_another_reason_is_no_ground_to_replace():
    from structaware_readers.table_recovery.stacked_rows import splits_names

    parser = [["ACEI", "Benazepril Enalapril", "10-40 mg 5-40 mg"]]
    assert splits_names(parser, [["ACEI", "Benazepril", "10-40 mg"], ["ACEI", "Enalapril", "5-40 mg"]])
    # lines of the same row read apart (a wrapped label), the names still together: no
    assert not splits_names(parser, [["ACEI", "Benazepril Enalapril", "10-40 mg"], ["", "", "5-40 mg"]])
    assert not splits_names([["Total Revenue", "1,204 (2.5)"]], [["Total", ""], ["Revenue", "1,204"]])


def test_a_header_found_in_pdfiums_runs_is_passed_without_parsing_the_page(monkeypatch):
    """Stage 6 first looks for a header's words in PDFium's text runs of the region (milliseconds a
    page); found there, the header is right and pdfplumber never parses the page. The trap: the
    garbled header is not in the runs, so the page is parsed and the header replaced as before."""
    from structaware_readers.table_recovery import stage6_markup_check as stage6

    parsed: list[tuple[float, ...]] = []
    region_words = stage6._region_words
    monkeypatch.setattr(stage6, "_region_words", lambda page, bbox: parsed.append(bbox) or region_words(page, bbox))
    right = (
        "<table><tr><td>Method</td><td>MMLU Physics</td><td>MMLU Chemistry</td><td>Clinical Knowledge</td></tr>"
        + PARSER_HTML.split("</tr>", 1)[1]
    )
    doc = _doc()
    blocks = [
        b.model_copy(update={"table": parse_html_table(right)}) if b.kind is BlockKind.TABLE and b.page == 2 else b
        for b in doc.blocks
    ]
    out = recover_table_grids(doc.model_copy(update={"blocks": blocks}), GLUED)
    kept = next(b.table for b in out.blocks if b.kind is BlockKind.TABLE and b.page == 2)
    assert kept.grid_source == "parser_html" and kept.header_rows == [
        ["Method", "MMLU Physics", "MMLU Chemistry", "Clinical Knowledge"]
    ]
    # page 1's garbled header: its words are not in the runs either ('MMLUPhysics'), so pdfplumber reads it
    assert parsed == [TABLE_BOX]
    parsed.clear()
    out = recover_table_grids(_doc(), GLUED)  # both pages garbled: both parsed, page 2 replaced
    assert len(parsed) == 2
    assert (
        next(b.table for b in out.blocks if b.kind is BlockKind.TABLE and b.page == 2).grid_source == "pdf_text_layer"
    )


def test_a_merged_table_s_other_pages_stay_unread_when_its_stacked_rows_page_cuts_no_names(monkeypatch):
    """Stage 6 reads a table merged across pages from the text layer when a row may stack items; the
    parts holding such rows are read first, and when their page cuts none of the names into rows the
    other pages are never parsed (pdfplumber: about 0.1 s a page). Table F-1 (4 pages) with one row on
    page 2 that only looks stacked ('Apply Limits': two capitalised words beside two figures): one page
    read, parser grid kept. The trap: F-1 as the parser read it is cut on every page, all 4 read."""
    import pdfplumber

    from structaware_readers.mineru import read_mineru
    from structaware_readers.table_recovery import stage6_markup_check as stage6

    read_pages: list[int] = []
    grid_from_region = stage6.grid_from_region
    monkeypatch.setattr(
        stage6, "grid_from_region", lambda page, bbox, page_number: read_pages.append(page_number) or grid_from_region(page, bbox, page_number=page_number)
    )  # fmt: skip
    block = next(b for b in read_mineru(HTN_F1).blocks if b.kind is BlockKind.TABLE and b.extra_pages)
    # class and drug cells read as prose ('Thiazide-type and Diuretics'): no row looks stacked ...
    rows = [
        [cell.replace(" ", " and ") if c < 2 else cell for c, cell in enumerate(row)] for row in block.table.body_rows
    ]
    rows[2][1] = "Apply Limits"  # ... but page 2's first
    assert block.table.body_row_pages[2] == 2
    looks_stacked = block.model_copy(update={"table": block.table.model_copy(update={"body_rows": rows})})
    with pdfplumber.open(HTN_F1_PDF) as pdf:
        pages = [pdf.pages[p - 1] for p in (block.page, *block.extra_pages)]
        assert stage6.check_parts(looks_stacked, pages) is None
        assert read_pages == [2]
        read_pages.clear()
        rebuilt = stage6.check_parts(block, pages)
    assert read_pages == [1, 2, 3, 4] and rebuilt is not None and len(rebuilt.body_rows) > len(block.table.body_rows)
