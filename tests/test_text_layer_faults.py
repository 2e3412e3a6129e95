"""Where a parser's text and the PDF's text layer part, and which of the two is the page's text.

Restored from the text layer (:mod:`structaware_readers.text.restore`): lines printed on top of each
other that the parser merged glyph by glyph, a dash the font maps to a control character (dropped by
the parser), words set apart by a check box the parser dropped, a figure glued across a lone dash.
Not faults (``scripts/check_fidelity.py``): a letter the font names not, a word a narrow cell wraps
without a hyphen, a table's column headers printed on the page where the table starts, a flow path
read from a chart that is a picture.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from reportlab.lib.pagesizes import letter
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas

from structaware_readers.text.glyph_marks import raised_runs, with_dashes
from structaware_readers.text.layer import PdfTextLayer, document_words, page_words
from structaware_readers.text.overlapped_lines import unshuffle
from structaware_readers.text.restore import restore_text

FONT, SIZE = "Helvetica", 9


def _page(text: str, doc_text: str | None = None):
    words, compounds = document_words([doc_text or text])
    return page_words(text, words, compounds)


def _checker():
    path = Path(__file__).resolve().parents[1] / "scripts" / "check_fidelity.py"
    spec = importlib.util.spec_from_file_location("check_fidelity_faults", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _merged_by_x(first: str, second: str) -> str:
    """How a parser that takes two overlapping lines for one reads them: the glyphs of both sorted
    from left to right (a space where a line's own space falls)."""
    glyphs = []
    for line in (first, second):
        for i, ch in enumerate(line):
            glyphs.append((stringWidth(line[:i], FONT, SIZE), ch))
    return "".join(ch for _, ch in sorted(glyphs, key=lambda g: g[0]))


# ------------------------------------------------------------------ lines on top of each other


def _placed_pdf(path: Path, pages: list[list[tuple[float, float, str]]]) -> Path:
    """A PDF of ``pages``, each a list of ``(x, y, text)`` drawn in Helvetica (PDF points, origin bottom-left)."""
    c = canvas.Canvas(str(path), pagesize=letter)
    for page in pages:
        c.setFont(FONT, SIZE)
        for x, y, text in page:
            c.drawString(x, y, text)
        c.showPage()
    c.save()
    return path


def _cell_pdf(path: Path) -> Path:
    return _placed_pdf(
        path,
        [
            [
                (72, 720, "Urinary tract infection in adults: treat for 3 days."),
                (72, 700, "Review date:"),
                (72, 692, "Jun 2021"),  # 8 points below: PDFium reads two lines, a parser one
                (72, 670, "Nitrofurantoin 100mg modified-release twice a day."),
            ]
        ],
    )


def test_overlapping_lines_merged_glyph_by_glyph_read_as_the_page_prints(tmp_path):
    page = PdfTextLayer(_cell_pdf(tmp_path / "cell.pdf")).page(1)
    merged = _merged_by_x("Review date:", "Jun 2021")
    assert merged not in page.text and "Review date:" not in merged
    cell = f"Public Health England {merged}"
    assert restore_text(cell, page) == "Public Health England Review date: Jun 2021"
    # traps: the lines in the page's order, or one after the other in another order, are readings
    # of the page; a misspelt word whose letters the lines hold cannot be read from them
    assert restore_text("Review date: Jun 2021", page) == "Review date: Jun 2021"
    assert restore_text("Jun 2021 Review date:", page) == "Jun 2021 Review date:"
    assert restore_text("Reveiw date: Jun 2021", page) == "Reveiw date: Jun 2021"


def _shared_lines_pdf(path: Path) -> Path:
    """A two-line label left of a dose: the label's second line shares its line of the text layer
    with the dose (``Compound Calciferol 25 mg once a day``)."""
    first = [(72, 720, "Vitamin"), (72, 710, "Compound"), (200, 710, "Calciferol 25 mg once a day")]
    second = [(72, 680, "Mineral"), (72, 670, "Salts"), (200, 670, "Ferrous fumarate 210 mg twice a day")]
    return _placed_pdf(path, [first + second])


def test_a_cell_merged_from_lines_it_shares_with_other_cells_is_read_as_printed(tmp_path):
    page = PdfTextLayer(_shared_lines_pdf(tmp_path / "shared.pdf")).page(1)
    assert "Compound Calciferol 25 mg once a day" in page.text
    merged = _merged_by_x("Vitamin", "Compound")
    assert restore_text(merged, page) == "Vitamin Compound"
    assert unshuffle(f"{merged} Calciferol", page) == "Vitamin Compound Calciferol"
    # traps: the label as printed; the merge of two lines that are not next to each other; a word
    # the text layer reads after the label stays where the parser put it
    assert unshuffle("Vitamin Compound", page) == "Vitamin Compound"
    far = _merged_by_x("Vitamin", "Salts")
    assert unshuffle(far, page) == far
    assert unshuffle(f"Calciferol {merged}", page) == "Calciferol Vitamin Compound"


def test_a_raised_mark_in_pieces_of_two_lines_stays_one_raised_run():
    page = _page("Dose Drops\r\ntake one at\r\nnoon2A,3D with tea\r\nfor 5 days")
    # ``take one at`` over ``noon`` and its raised marks, merged glyph by glyph; a caret before each raised glyph
    assert unshuffle("tnaokoeno ^2n^Ae,a3tD", page) == "take one at noon^2A,3D"
    assert unshuffle("take one at noon^2A,3D", page) == "take one at noon^2A,3D"  # trap: as printed


def test_a_word_glued_to_the_raised_mark_before_it_gets_its_space():
    page = _page("adults with BMI of 30 kg/m2 with two conditions;3B repeat in a week\r\nthe integral of x2dx here")
    assert restore_text("BMI of 30 kg/m^2with two", page) == "BMI of 30 kg/m^2 with two"
    assert restore_text("conditions;^3Brepeat in a week", page) == "conditions;^3B repeat in a week"
    # traps: a mark the page prints glued to what follows; a word the page does not print
    assert restore_text("the integral of x^2dx here", page) == "the integral of x^2dx here"
    assert restore_text("kg/m^2within", page) == "kg/m^2within"


def test_a_year_and_the_header_word_printed_under_it_are_set_apart():
    # header cells of two lines (``2014`` over ``Grade`` with its raised mark), other cells' lines between
    page = _page(
        "Location 2014\r\nGrade3 Category\r\n2019\r\nRec Number Page\r\nRecommendation\r\nthe 1999Update files\r\n"
        "2031 2030\r\nLedger\r\nSundry fees"
    )
    assert restore_text("2014Grade^3", page) == "2014 Grade^3"
    assert restore_text("2019Recommendation", page) == "2019 Recommendation"
    assert restore_text("2031Sundry fees", page) == "2031 Sundry fees"  # a year printed beside the next column's
    # traps: a run the page prints glued; a word that starts no line; figures the page prints in no run of their own
    assert restore_text("the 1999Update files", page) == "the 1999Update files"
    assert restore_text("2014Category", page) == "2014Category"
    assert restore_text("1999Recommendation", page) == "1999Recommendation"


def test_a_raised_mark_of_an_overlapping_line_keeps_its_caret():
    page = _page("Adult dose\r\n400mg3A+\r\nthen\r\n200mg OD3A+\r\n,5D\r\nfor 7 days")
    # the dose line and the line of its marks below it, read as one
    assert unshuffle("then 2,050Dmg OD^3A+", page) == "then 200mg OD^3A+ ,5D"
    assert unshuffle("then 200mg OD^3A+ ,5D", page) == "then 200mg OD^3A+ ,5D"  # trap: already as printed


# ------------------------------------------------------------------ glyphs the font names not


def test_a_dash_the_font_maps_to_a_control_character_is_given_back():
    text = "eGFR 45\x0590 ml/min and 2\x058 visits"
    chars = text  # one character a glyph here
    figure = (0.0, 100.0, 4.0, 106.5)
    bar = (4.0, 102.9, 10.0, 103.3)  # a flat bar at the figures' middle height
    square = (4.0, 100.0, 10.0, 106.0)  # a check box: as high as wide
    boxes = {text.index("\x05"): bar, text.rindex("\x05"): square}
    new, dashless = with_dashes(text, chars, lambda i: boxes.get(i, figure))
    assert new == "eGFR 45\u201390 ml/min and 2\x058 visits"
    assert dashless == {"4590": "45\u201390"}
    page = _page(new)
    page.dashless = dashless
    assert restore_text("eGFR 4590 ml/min", page) == "eGFR 45\u201390 ml/min"
    # traps: a number the page prints stays; a glyph that is no bar is no dash
    assert restore_text("eGFR 45\u201390 ml/min", page) == "eGFR 45\u201390 ml/min"
    assert restore_text("and 28 visits", page) == "and 28 visits"
    # and a run between figures that is no glyph of the font is left as the text layer has it
    assert with_dashes("2021 and 2022", "2021 and 2022", lambda i: figure) == ("2021 and 2022", {})


def test_a_letter_the_font_names_not_leaves_one_word():
    cf = _checker()
    page = _page("Writing group: Selin Yılmazo\x01glu, MD; Rana Demir, PhD")
    assert cf.glued_words("Selin Yılmazoglu, MD", page) == []
    assert restore_text("Selin Yılmazoglu, MD", page) == "Selin Yılmazoglu, MD"
    assert cf.glued_words("SelinYılmazoglu, MD", page) == ["SelinYılmazoglu"]  # trap: a real glue


# ------------------------------------------------------------------ words and figures set apart


def test_words_set_apart_by_a_check_box_the_parser_dropped_get_their_space():
    page = _page(
        "Triggers: \uf06f dust \uf06f exercise \uf06f stress \uf06f pet dander\r\nIf sepsis suspected\uf0e0Refer"
    )
    assert restore_text("▪ stressother allergies ▪ exercisestress", page) == "▪ stressother allergies ▪ exercise stress"
    assert restore_text("If sepsis suspectedRefer", page) == "If sepsis suspected Refer"
    # trap: ``stressother``'s pieces do not stand side by side on the page: left whole
    assert "stressother" in restore_text("stressother", page)


def test_a_word_a_narrow_cell_wraps_without_a_hyphen_is_the_word():
    cf = _checker()
    text = "Adults with hyper\r\ntension/diabetes\r\nor kidney disease"
    page = _page(text, doc_text=text + "\r\nTreat hypertension early.")
    assert cf.glued_words("Adults with hypertension/diabetes or kidney disease", page) == []
    assert restore_text("with hypertension/diabetes", page) == "with hypertension/diabetes"
    # trap: a document that never prints the word whole: the two pieces are the page's words
    alone = _page(text)
    assert cf.glued_words("with hypertension/diabetes", alone) == ["hypertension"]
    # trap: two words a line break parts (``in`` is printed inside lines) stay two words, even where
    # the document prints the joined word too
    wrapped = "Do not start the agent in\r\npatients with anaemia, as in the clinic."
    page = _page(wrapped, doc_text=wrapped + "\r\nCare of inpatients differs.")
    assert restore_text("start the agent inpatients with anaemia", page) == "start the agent in patients with anaemia"


def test_figures_glued_across_a_lone_dash_get_their_spaces():
    page = _page("Late preterm 34 0/7 - 36 6/7 weeks Increased risk\r\nratio 0.\r\n71 overall")
    assert restore_text("34 0/7 -366/7weeks", page) == "34 0/7 - 36 6/7 weeks"
    assert restore_text("ratio 0.71 overall", page) == "ratio 0.71 overall"  # trap: a number over two lines


# ------------------------------------------------------------------ what the check leaves out


def _two_page_pdf(path: Path) -> Path:
    first = [
        (72, 720, "Table 3. Starting doses"),
        (72, 700, "Drug    Maximum 40 mg daily"),
        (72, 680, "Atorvastatin    20 mg; 25 mg in frail adults"),
    ]
    second = [
        (72, 720, "Rosuvastatin    10 mg once daily at night"),
        (72, 300, "Figure 2. Care pathway (the chart above is a picture)"),
    ]
    return _placed_pdf(path, [first, second])


def test_a_row_on_a_later_page_names_headers_printed_where_the_table_starts(tmp_path):
    cf = _checker()
    layers = cf.PdfLayers(_two_page_pdf(tmp_path / "doses.pdf"))
    row = {
        "unit_type": "table_row", "pages": [2], "text": "Drug: Rosuvastatin; Maximum 40 mg daily: 10 mg",
        "table": {"table_id": "p1-e2", "headers": ["Drug", "Maximum 40 mg daily"], "cells": ["Rosuvastatin", "10 mg"]},
    }  # fmt: skip
    assert cf.check_units([row], layers).numbers == 0
    # trap: a cell's number printed only on the table's first page is still not the row's
    wrong = {**row, "text": "Drug: Rosuvastatin; Maximum 40 mg daily: 25 mg"}
    assert cf.check_units([wrong], layers).numbers == 1


def test_a_flow_path_read_from_a_picture_is_counted_apart(tmp_path):
    cf = _checker()
    layers = cf.PdfLayers(_two_page_pdf(tmp_path / "doses.pdf"))
    path = {
        "unit_type": "flow_path", "pages": [2], "text": "Offer 12 sessions -> Review at 8 weeks",
        "element_ids": ["p2-e4"], "element_pages": [2], "bboxes": [[0.1, 0.2, 0.9, 0.55]],
        "flow": {"flowchart_id": "p2-e4", "source": "Offer 12 sessions", "target": "Review at 8 weeks"},
    }  # fmt: skip
    c = cf.check_units([path], layers)
    assert (c.pictures, c.checked, c.numbers) == (1, 0, 0)
    # trap: a chart whose box holds the page's text is compared with it
    drawn = {**path, "bboxes": [[0.05, 0.0, 0.95, 0.1]]}
    c = cf.check_units([drawn], layers)
    assert (c.pictures, c.checked, c.numbers) == (0, 1, 2)


# ------------------------------------------------------------------ raised reference marks


def _marks_pdf(path: Path) -> Path:
    """A page whose reference marks are set raised and smaller, right after the text they follow."""
    c = canvas.Canvas(str(path), pagesize=letter)
    y = 720
    for pieces in (
        [
            ("The first edition was published in 2019.", False),
            ("12", True),
            (" Since then, trials have reported.", False),
        ],
        [("Outcomes are listed in Supplementary Table S4", False), ("31,33", True), (". Adherence was high.", False)],
        [("Kidney function fell in adults.", False), ("7", True), (" The 2019. 12 cohort is another.", False)],
    ):
        t = c.beginText(72, y)
        for text, raised in pieces:
            t.setFont(FONT, 6 if raised else 10)
            t.setRise(4 if raised else 0)
            t.textOut(text)
        c.drawText(t)
        y -= 20
    c.showPage()
    c.save()
    return path


def test_a_reference_mark_the_parser_set_apart_from_a_number_is_written_raised(tmp_path):
    page = PdfTextLayer(_marks_pdf(tmp_path / "marks.pdf")).page(1)
    assert "2019.12" in page.text  # the text layer glues the mark to the number
    assert restore_text("published in 2019. 12 Since then", page) == "published in 2019.^12 Since then"
    assert restore_text("Supplementary Table S4 31,33 . Adherence", page) == "Supplementary Table S4^31,33. Adherence"
    # traps: a mark after a word reads as no other number; the page's own spaced figures; a mark the
    # parser glued (as the text layer prints it) is not read from the glyphs
    assert restore_text("fell in adults. 7 The", page) == "fell in adults. 7 The"
    assert restore_text("The 2019. 12 cohort", page) == "The 2019. 12 cohort"
    assert restore_text("published in 2019.12 Since", page) == "published in 2019.12 Since"


def test_raised_figures_need_one_baseline_and_smaller_glyphs():
    def boxes(spec):
        return lambda i: spec[i]

    base, up = (0.0, 100.0, 5.0, 107.0), (0.0, 104.0, 3.0, 109.0)
    run = "2019.12"
    spec = [(i * 5.0, *b[1:2], i * 5.0 + 4, b[3]) for i, b in enumerate([base] * 4 + [(0, 100, 2, 101)] + [up] * 2)]
    assert raised_runs(run, boxes(spec)) == {"2019.12": "2019.^12"}
    # traps: glyphs not set left to right (rotated text), and figures as tall as the rest
    assert raised_runs(run, boxes(list(reversed(spec)))) == {}
    tall = [*spec[:5], *[(x0, 104.0, x1, 111.0) for x0, _, x1, _ in spec[5:]]]
    assert raised_runs(run, boxes(tall)) == {}


def test_a_column_of_amounts_read_as_one_cell_is_cut_into_the_printed_amounts():
    page = _page(
        "Consolidated balance sheet (in millions)\r\nCash and due from banks $ 31,204 $ 29,518\r\n"
        "Deposits with banks 512,660 488,105\r\nLoans, net of allowance 1,004,215 (21,300) 982,915\r\n"
        "Total as of June 30, 2022 and 2021"
    )
    assert restore_text("June 30, 2022$ 31,204512,660", page) == "June 30, 2022$ 31,204 512,660"
    assert restore_text("512,6601,004,215(21,300)982,915", page) == "512,660 1,004,215 (21,300) 982,915"
    # traps: a date whose space the parser lost is no pair of amounts; a piece the page does not
    # print keeps the run whole; an amount in brackets alone stays
    assert restore_text("June 30,2022", page) == "June 30,2022"
    assert restore_text("$ 31,204512,661", page) == "$ 31,204512,661"
    assert restore_text("(21,300)", page) == "(21,300)"
    # a count and its share in brackets is no column of amounts
    shares = _page("Placebo 52 (31.7) 47 (29.4)")
    assert restore_text("52(31.7)", shares) == "52(31.7)"


def test_a_printed_hyphen_ending_a_line_is_read_as_the_writer_meant():
    cf = _checker()
    text = "a randomised, double\u2010blind, placebo\u2010controlled, phase 3 trial.\r\nA placebo\u2010\r\ncontrolled trial of oral therapy, a well\u2010\r\ntolerated dose and reg\u2010\r\nimens; it is well tolerated"
    page = _page(text)
    assert restore_text("A placebocontrolled trial", page) == "A placebo-controlled trial"
    assert cf.glued_words("A placebocontrolled trial", page) == []
    assert cf.broken_hyphens("A placebocontrolled trial", page) == ["placebocontrolled"]
    # traps: a syllable break is joined (``regimens``); a compound the page never prints whole
    # inside a line, both halves words of it, keeps its hyphen
    assert restore_text("and regimens", page) == "and regimens"
    assert restore_text("a welltolerated dose", page) == "a well-tolerated dose"


def test_words_read_in_another_order_than_the_text_layer_are_no_overlap():
    # a link set on its own line by the text layer: whole words in another order, no glyphs merged
    page = _page("See the sections\r\nand .\r\nDiet in Pregnancy\r\nExercise in Pregnancy\r\nfor advice.")
    text = "See the sections Diet in Pregnancy and Exercise in Pregnancy."
    assert unshuffle(text, page) == text
