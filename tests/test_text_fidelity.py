"""A unit's text is the PDF's own text: spaces and hyphens restored from the text layer, and the
fidelity check (``scripts/check_fidelity.py``) counting what is not.

The faults: MinerU's flash tier glues the words of a wrapped table cell (``againstmore``,
``angiotensin-convertingenzyme``) and drops a hyphen ending a line (``angiotensinconverting``), which
PDFium's text layer still prints (``angiotensin\\ufffeconverting``).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from structaware_readers.load.loader import prepare_document
from structaware_readers.mineru import read_mineru
from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.text.layer import PdfTextLayer, document_words, meant, page_words
from structaware_readers.text.restore import restore_from_text_layer, restore_text

FIX = Path(__file__).parent / "fixtures"
HTN_MIDDLE = FIX / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_2020_p23-25" / "middle_json.json"
HTN_PDF = FIX / "pdf" / "vadod_htn_2020_p23-25.pdf"
HTN_DOSES_MIDDLE = FIX / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_2020_p98-101" / "middle_json.json"
HTN_DOSES_PDF = FIX / "pdf" / "vadod_htn_2020_p98-101.pdf"

#: Lines of a made-up guideline page, each drawn on its own line: PDFium reads a hyphen that ends a
#: line as U+FFFE and drops the line break.
LINES = [
    "Angiotensin II receptor blockers and converting enzyme inhibitors lower blood pressure.",
    "In adults with hypertension, we suggest an angiotensin-",
    "converting enzyme inhibitor. These rec-",
    "ommendations apply to short-",
    "and long-term therapy with methylprednisolone. Pericardiocentesis",
    "is recommended for tamponade. The hazard ratio was 0.71 (95% CI 0.58 to 0.",
    "87) per 1.73 m2 over 72.0% of LDL-C patient-",
    "centered visits in which the patient was centered on care. Falls were asso-",
    "ciated with both statin and non-",
    "and partial adherence. Targets for LDL-",
    "C apply to all.",
]


def _page_pdf(path: Path, lines: list[str]) -> Path:
    c = canvas.Canvas(str(path), pagesize=letter)
    c.setFont("Helvetica", 10)
    y = 720
    for line in lines:
        c.drawString(72, y, line)
        y -= 14
    c.showPage()
    c.save()
    return path


@pytest.fixture(scope="module")
def made_pdf(tmp_path_factory) -> Path:
    return _page_pdf(tmp_path_factory.mktemp("fidelity") / "page.pdf", LINES)


def _doc(texts: list[str]) -> ParsedDocument:
    blocks = [Block(block_id=f"p1-e{i}", kind=BlockKind.PARAGRAPH, text=t, page=1) for i, t in enumerate(texts)]
    return ParsedDocument(doc_id="f" * 16, source="page.pdf", name="page", parser="test", page_count=1, blocks=blocks)


# ------------------------------------------------------------------ the text layer's words


def test_line_end_hyphens_read_as_the_writer_meant(made_pdf):
    layer = PdfTextLayer(made_pdf)
    page = layer.page(1)
    assert page is not None
    assert "\ufffe" in page.text  # PDFium's line-end hyphen
    assert page.breaks["angiotensinconverting"] == "angiotensin-converting"  # both halves are words
    assert page.breaks["recommendations"] == "recommendations"  # "ommendations" is no word: a syllable
    assert page.breaks["shortand"] == "short- and"  # a suspended hyphen
    assert page.breaks["patientcentered"] == "patient-centered"
    assert page.breaks["ldlc"] == "ldl-c"  # an abbreviation's hyphen stays
    # the document printing the joined word decides for it, a compound printed inside a line for the hyphen
    words, compounds = document_words(["the followup visit", "a self-monitoring plan"])
    assert meant("follow", "up", words, compounds) == "followup"
    assert meant("self", "monitoring", words | {"self", "monitoring"}, compounds) == "self-monitoring"
    assert layer.page(2) is None  # past the end


# ------------------------------------------------------------------ restoring text


def test_restore_gives_back_hyphens_and_spaces_the_page_prints(made_pdf):
    page = PdfTextLayer(made_pdf).page(1)
    assert page is not None
    fixed = restore_text(
        "we suggest an angiotensinconverting enzyme inhibitor. These recommendations apply to short- and "
        "long-term therapy with methylprednisolone. Pericardiocentesisisrecommendedfor tamponade over "
        "72.0% of LDL-C patient- centered visits",
        page,
    )
    assert "an angiotensin-converting enzyme inhibitor" in fixed
    assert "These recommendations apply" in fixed  # trap: a soft hyphen stays dropped
    assert "short- and long-term" in fixed  # trap: a suspended hyphen keeps its space
    assert "methylprednisolone" in fixed  # trap: a long word the page prints is never cut
    assert "Pericardiocentesis is recommended for tamponade" in fixed
    assert "LDL-C patient-centered visits" in fixed
    assert "72.0%" in fixed
    assert restore_text("Falls were asso- ciated with both statin and non- and partial adherence", page) == (
        "Falls were associated with both statin and non- and partial adherence"
    )  # a soft hyphen kept with the line's space is dropped; the trap, a suspended one, stays
    assert restore_text("targets for LDL- C apply", page) == "targets for LDL-C apply"  # an abbreviation's hyphen
    # trap: pieces that do not stand side by side on the page are no glued words ("bloodpressure" is,
    # "inhibitorpressure" is not)
    assert restore_text("inhibitorpressure", page) == "inhibitorpressure"
    assert restore_text("bloodpressure", page) == "blood pressure"


def test_table_cells_glued_by_the_parser_read_as_printed():
    """VA/DoD hypertension recommendation table (public domain): MinerU's cell text glues the words
    of wrapped lines; the text layer of the page has them apart."""
    doc = read_mineru(HTN_MIDDLE)
    before = " ".join(c for b in doc.blocks if b.table is not None for row in b.table.body_rows for c in row)
    assert "angiotensin-convertingenzyme" in before and "againstmore" in before  # the parser's glue
    after_doc = prepare_document(doc, pdf=HTN_PDF)
    after = " ".join(c for b in after_doc.blocks if b.table is not None for row in b.table.body_rows for c in row)
    assert "angiotensin-convertingenzyme" not in after and "againstmore" not in after
    assert "angiotensin-converting enzyme inhibitor" in after
    assert (
        "We recommend against more than one of the following three drug classes together in the same patient" in after
    )
    assert "Sub-topic" in " ".join(
        c
        for b in after_doc.blocks
        if b.table is not None
        for row in b.table.header_rows + b.table.body_rows
        for c in row
    )
    # traps: words the page prints whole stay whole; numbers untouched
    assert "spironolactone" in after and "sphygmomanometer" in after
    digits = lambda text: sorted(re.findall(r"\d+(?:[.,]\d+)*", text))
    assert digits(after) == digits(before)


def test_dose_table_cells_read_as_printed():
    """VA/DoD dose table (public domain): ``kidneyartery``, ``AVblock`` glued by the parser."""
    doc = prepare_document(read_mineru(HTN_DOSES_MIDDLE), pdf=HTN_DOSES_PDF)
    text = " ".join(c for b in doc.blocks if b.table is not None for row in b.table.body_rows for c in row)
    assert "kidney artery" in text and "kidneyartery" not in text
    assert "(see Recommendation" in text
    assert "AV block" in text and "AVblock" not in text
    assert "atrial fibrillation" in text


def test_without_a_pdf_nothing_changes():
    doc = read_mineru(HTN_MIDDLE)
    again = prepare_document(doc)
    assert any(
        "againstmore" in c for b in again.blocks if b.table is not None for row in b.table.body_rows for c in row
    )


def test_pages_without_a_text_layer_are_left_alone(tmp_path):
    pdf = _page_pdf(tmp_path / "blank.pdf", [""])
    doc = _doc(["control ofasthma symptoms"])
    assert restore_from_text_layer(doc, pdf) is doc


# ------------------------------------------------------------------ the fidelity check


def _checker():
    path = Path(__file__).parent.parent / "scripts" / "check_fidelity.py"
    spec = importlib.util.spec_from_file_location("check_fidelity", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["check_fidelity"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_check_counts_altered_numbers_glued_words_hyphens_and_markup(made_pdf, tmp_path, capsys):
    cf = _checker()
    units = [
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "The hazard ratio was 0. 71 (95% CI 0.58 to 0.87)",
        },
        {"unit_type": "section", "pages": [1], "source": "x/page.zip", "text": "per 1.73 m^2 over 72. 0% of visits"},
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "Pericardiocentesisisrecommendedfor tamponade",
        },
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "we suggest an angiotensinconverting enzyme inhibitor",
        },
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "LDL-C patient- centered <sup>a</sup> visits",
        },
        # traps: numbers as printed (one broken over two lines, a superscript), real long words,
        # a soft hyphen joined, a suspended hyphen, the caret of a superscript
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "0.71 (95% CI 0.58 to 0.87) per 1.73 m² and 1.73 m^2; 72.0%",
        },
        {
            "unit_type": "table_row",
            "pages": [1],
            "source": "x/page.zip",
            "text": "Hazard ratio / 95% CI: 0.71, 0.58 to 0.87",
        },
        {
            "unit_type": "section",
            "pages": [1],
            "source": "x/page.zip",
            "text": "methylprednisolone. These recommendations apply to short- and long-term therapy",
        },
        {"unit_type": "section", "pages": [], "source": "x/page.zip", "text": "no pages: 0. 5 unverifiable"},
    ]
    layers = cf.PdfLayers(made_pdf)
    c = cf.check_units(units, layers, name="page")
    assert (c.numbers, c.glued, c.hyphens, c.markup) == (2, 1, 2, 1)
    assert c.checked == 8 and c.superscripts == 2
    # a flow path's box names are the builder's, not numbers of the page; the same words elsewhere are
    path = "Box 47: The hazard ratio was 0.71 -(Yes)-> Box 48: visits"
    assert cf.check_units([{"unit_type": "flow_path", "pages": [1], "text": path}], layers).numbers == 0
    assert cf.check_units([{"unit_type": "section", "pages": [1], "text": path}], layers).numbers == 2
    dump = tmp_path / "page.jsonl"
    dump.write_text("\n".join(json.dumps(u) for u in units), encoding="utf-8")
    assert cf.main(["--units", str(dump), "--pdf-dir", str(made_pdf.parent)]) == 1
    out = capsys.readouterr().out
    assert "2 altered numbers, 1 glued words, 2 broken hyphens, 1 with markup" in out
    clean = tmp_path / "clean.jsonl"
    clean.write_text("\n".join(json.dumps(u) for u in units[5:8]), encoding="utf-8")
    assert cf.main(["--units", str(clean), "--pdf-dir", str(made_pdf.parent)]) == 0


def test_an_entry_ending_in_a_year_then_the_next_entry_number_are_two_numbers(tmp_path):
    """A list whose entries end in a year, read without the columns between (``2011.`` then ``9.2``):
    two numbers, each printed; a number with a space put in (``0. 92``), or one the page does not
    print, is still altered."""
    cf = _checker()
    pdf = _page_pdf(
        tmp_path / "list.pdf",
        [
            "9.1 Supply agreement with a maker of parts, dated as of March 3, 2011. 8-K 4.4 May 2, 2012",
            "9.2 List of offices of the company. The rate was 0.92 in the year.",
        ],
    )
    layers = cf.PdfLayers(pdf)

    def altered(text: str) -> list[str]:
        return cf.altered_numbers(text, cf.merge([layers.page(1)]))

    assert altered("dated as of March 3, 2011. 9.2 List of offices") == []
    assert cf.number_tokens("March 3, 2011. 9.2 List") == ["3", "2011.", "9.2"]
    assert altered("dated as of March 3, 2011. 9.21 List of offices") == ["9.21"]
    assert altered("dated as of March 3, 2012. 9.2 List of offices") == ["2012."]
    assert altered("dated as of March 3, 2011.9.2 List of offices") == ["2011.9.2"]
    assert altered("The rate was 0. 92 in the year") == ["0. 92"]


def test_figures_glued_to_a_word_the_page_prints_apart_are_glued_words(tmp_path):
    """A year over a header word (``2015`` / ``Grade``) or a mark and the word after it, glued by a
    parser: the check counts them; names and units the page prints glued are no fault."""
    cf = _checker()
    pdf = _page_pdf(
        tmp_path / "glue.pdf",
        ["Rec 2015", "Grade Category", "BMI 30 kg/m2 with two conditions", "Take 5mg of H2O at 10am daily."],
    )
    page = cf.merge([cf.PdfLayers(pdf).page(1)])
    assert cf.glued_words("Rec 2015Grade^3: B", page) == ["2015Grade"]
    assert cf.glued_words("BMI 30 kg/m^2with two conditions", page) == ["2with"]
    # traps: the words apart; runs the page prints glued; a figure after a letter is part of a name
    assert cf.glued_words("Rec 2015 Grade^3: B; kg/m^2 with two", page) == []
    assert cf.glued_words("Take 5mg of H2O at 10am daily.", page) == []
    assert cf.glued_words("see https://example.org/Plan%20Grade.pdf", page) == []  # an escaped space


def test_a_mark_after_a_number_that_the_layer_reads_elsewhere_is_checked_apart(tmp_path):
    """The text layer reads a number's raised mark apart from it (``~4,318.6`` ... ``5``): the unit's
    ``~4,318.6^5`` holds the printed number and mark; a changed number is still altered."""
    cf = _checker()
    pdf = _page_pdf(
        tmp_path / "marks.pdf", ["Units sold ~4,318.6 and 3,071.9 in the year.", "5", "Counts of 109 per litre."]
    )
    page = cf.merge([cf.PdfLayers(pdf).page(1)])
    assert cf.altered_numbers("Units sold: ~4,318.6^5; 3,071.9", page) == []
    assert cf.altered_numbers("Units sold: ~4,318.7^5; 3,071.9", page) == ["4,318.7"]
    assert cf.altered_numbers("Units sold: ~4,318^5; 3,071.9", page) == ["4,318"]  # not printed whole
    assert cf.altered_numbers("Counts of 10^9 per litre", page) == []  # glued, as the layer reads a power


def test_a_raised_mark_stays_on_its_own_line_in_a_rebuilt_cell():
    """VA/DoD dose table (public domain): ``tartrate^b`` under ``Metoprolol`` in one cell; the raised
    ``b`` touches the line above by a hair and was spliced into it (``Metoprob lol tartrate``)."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    doc = load_document(HTN_DOSES_MIDDLE, pdf=HTN_DOSES_PDF)
    text = "\n".join(u.text for u in build_units(doc))
    assert "Metoprob lol" not in text
    assert "Metoprolol tartrate^b" in text
    assert "Atenolol^b" in text  # trap: a mark on the first line of the cell stays a mark


def test_figures_glued_by_the_parser_get_their_space_back_and_numbers_broken_over_lines_stay_whole():
    """A dose cell of two lines (``80-240`` over ``80-160``) that the parser glued into one figure."""
    layer = (
        "Inhaled corticosteroid Twice daily ≥4 years\r\n≥ 12 years\r\nLow dose\r\n80-240\r\n80-160\r\n"
        ">240-480\r\n>160-320\r\nThe pooled ratio was 0.\r\n71 and the dose 2.5-20 mg/day over 1,\r\n250 adults. "
        "Registration No. 333-\r\n181270 applies."
    )
    words, compounds = document_words([layer])
    page = page_words(layer, words, compounds)
    assert restore_text("Low dose: 80-24080-160; High: >240-480>160-320", page) == (
        "Low dose: 80-240 80-160; High: >240-480 >160-320"
    )
    assert restore_text("Twice daily ≥4years", page) == "Twice daily ≥4 years"
    # traps: a number the page breaks over two lines is one number; figures the page prints stay
    assert restore_text("The pooled ratio was 0.71 and the dose 2.5-20 mg/day over 1,250 adults.", page) == (
        "The pooled ratio was 0.71 and the dose 2.5-20 mg/day over 1,250 adults."
    )
    assert restore_text("(80-240)", page) == "(80-240)"
    assert restore_text("Registration No. 333-181270 applies.", page) == "Registration No. 333-181270 applies."


def test_figures_glued_to_a_unit_the_page_prints_apart_get_their_space_back():
    """The parser glues a figure to the unit printed after it (``≥2times/year``, ``≥6mEq/L``): the unit holds a
    slash, so it is no word of the page, but each of its words is and the page prints the two runs side by side."""
    layer = (
        "Attacks 0-1 times/year or ≥2 times/year\r\npotassium (<2.5 mEq/L or ≥6 mEq/L)\r\nper 1.73 m2 area "
        "https://\r\ndoi.org/10.2147"
    )
    words, compounds = document_words([layer])
    page = page_words(layer, words, compounds)
    assert restore_text("0-1 times/year; ≥2times/year", page) == "0-1 times/year; ≥2 times/year"
    assert restore_text("(<2.5 mEq/L or ≥6mEq/L)", page) == "(<2.5 mEq/L or ≥6 mEq/L)"
    # traps: runs the page never prints side by side stay glued; figures the page prints stay whole
    assert restore_text("≥6times/year", page) == "≥6times/year"
    assert restore_text("per 1.73 m2 area", page) == "per 1.73 m2 area"
    assert restore_text("see https://doi.org/10.2147", page) == "see https://doi.org/10.2147"  # wrapped address


def test_pdfium_line_end_hyphen_reads_as_the_printed_hyphen():
    """Text read by PDFium's character API (an algorithm's words over its image) holds U+0002 for a
    hyphen ending a line; it was written as a space (``angiotensin converting``)."""
    from structaware_readers.text.glyphs import repair_glyphs

    assert repair_glyphs("start an angiotensin\x02converting enzyme inhibitor") == (
        "start an angiotensin-converting enzyme inhibitor"
    )
    assert repair_glyphs("Sub\ufffetopic") == "Sub-topic"
    assert repair_glyphs("dose\x02 10 mg") == "dose  10 mg"  # trap: no letters on both sides, a control character


def test_a_reference_list_set_in_superscript_stays_one_mark():
    """MinerU styles a superscript reference list ``53,60,61`` as ``53`` / ``,6`` / ``0`` / ``,6`` / ``1``
    (the separators plain): read as it was, a caret fell inside a number (``6^0``)."""
    from structaware_readers.mineru.drafts import spans_text
    from structaware_readers.text.inline_markup import plain_text

    def sup(text: str) -> dict:
        return {"type": "text", "content": text, "styles": ["superscript"]}

    spans = [
        {"type": "text", "content": "Low certainty of evidence on proteinuria (Supplementary Table S7"},
        sup("53"), {"type": "text", "content": ",6"}, sup("0"), {"type": "text", "content": ",6"}, sup("1"),
        {"type": "text", "content": ")."},
    ]  # fmt: skip
    text = plain_text(spans_text(spans, path=None, fld="content"))
    assert "53,60,61" in text and "^" not in text  # one mark, longer than a caret's (set apart, as cells do)
    assert text.startswith("Low certainty of evidence on proteinuria (Supplementary Table S7")
    # traps: a plain run with words or a space between two marks is no part of them; a subscript stays one
    spans = [
        {"type": "text", "content": "eGFR below 30 ml/min per 1.73 m"}, sup("2"), {"type": "text", "content": ", 44"},
        sup("a"), {"type": "text", "content": " and CO"}, {"type": "text", "content": "2", "styles": ["subscript"]},
    ]  # fmt: skip
    assert plain_text(spans_text(spans, path=None, fld="content")) == "eGFR below 30 ml/min per 1.73 m^2, 44^a and CO2"
