"""The structure pass over every parsed document (issue 10): furniture, continued paragraphs, references.

Small documents built here (blocks as the readers emit them) pin each rule of
:mod:`structaware_readers.structure.furniture`, :mod:`structaware_readers.structure.continuations` and
:mod:`structaware_readers.structure.references`; the real-output cases live in ``test_structure_cases.py``.
"""

from __future__ import annotations

import pytest

from structaware_readers.load.loader import load_document, prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.structure.continuations import join_continued_paragraphs
from structaware_readers.structure.furniture import furniture_key, is_page_number, mark_furniture
from structaware_readers.structure.references import is_citation, mark_references
from structaware_readers.units import build_units

K = BlockKind


def _doc(*blocks: Block, pages: int = 3) -> ParsedDocument:
    return ParsedDocument(doc_id="d" * 16, source="x.json", name="x", parser="mineru", page_count=pages,
                          blocks=list(blocks))  # fmt: skip


def _b(bid: str, kind: BlockKind, text: str, bbox=None, **kw) -> Block:
    page = int(bid[1 : bid.index("-")])
    return Block(block_id=bid, kind=kind, text=text, page=page, bbox=bbox, **kw)


BODY = (0.1, 0.3, 0.9, 0.5)


# ------------------------------------------------------------------------------------ furniture


def test_furniture_key_ignores_digits_case_and_word_order():
    assert furniture_key("ESC Guidelines 3917") == furniture_key("3918 esc GUIDELINES") == "esc guidelines"
    assert furniture_key("12") == ""


@pytest.mark.parametrize("text", ["14", "- 3 -", "Page 3 of 10", "iv", "xii", "第 3 页", "3/12"])
def test_page_numbers(text):
    assert is_page_number(text)


@pytest.mark.parametrize("text", ["", "civil", "15 mg", "Table 3", "Key messages", "- "])
def test_not_page_numbers(text):
    assert not is_page_number(text)


def test_running_heads_need_the_band_and_two_pages():
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, "Annual Report 2023  7", (0.1, 0.02, 0.6, 0.04)),
        _b("p1-e1", K.PARAGRAPH, "Body text one.", BODY),
        _b("p2-e0", K.PARAGRAPH, "8  annual report 2023", (0.4, 0.02, 0.9, 0.04)),
        _b("p2-e1", K.PARAGRAPH, "Body text two.", BODY),
        _b("p3-e0", K.PARAGRAPH, "Only once at the top", (0.1, 0.02, 0.6, 0.04)),  # not repeated
        _b("p3-e1", K.HEADING, "Results", (0.1, 0.09, 0.4, 0.11), level=1),  # heading outside the narrow band
        _b("p2-e2", K.HEADING, "Results", (0.1, 0.08, 0.4, 0.10), level=1),
        _b("p3-e2", K.PARAGRAPH, "Confidential", (0.1, 0.95, 0.4, 0.97)),
        _b("p2-e3", K.PARAGRAPH, "confidential", (0.1, 0.95, 0.4, 0.97)),
        _b("p3-e3", K.PARAGRAPH, "27", (0.48, 0.95, 0.52, 0.97)),  # a page number needs no repetition
        _b("p3-e4", K.PARAGRAPH, "Downloaded from example.org by guest", (0.95, 0.2, 0.98, 0.8)),
    )
    kinds = {b.block_id: b.kind for b in mark_furniture(doc).blocks}
    assert kinds["p1-e0"] is K.HEADER and kinds["p2-e0"] is K.HEADER
    assert kinds["p3-e0"] is K.PARAGRAPH
    assert kinds["p3-e1"] is K.HEADING and kinds["p2-e2"] is K.HEADING
    assert kinds["p3-e2"] is K.FOOTER and kinds["p2-e3"] is K.FOOTER
    assert kinds["p3-e3"] is K.PAGE_NUMBER
    assert kinds["p3-e4"] is K.ASIDE
    assert kinds["p1-e1"] is K.PARAGRAPH and kinds["p2-e1"] is K.PARAGRAPH


def test_long_text_and_tables_in_the_band_are_never_furniture():
    long = "A" * 250
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, long, (0.1, 0.02, 0.9, 0.1)),
        _b("p2-e0", K.PARAGRAPH, long, (0.1, 0.02, 0.9, 0.1)),
        _b("p1-e1", K.TABLE, "7", (0.1, 0.9, 0.9, 0.95)),
    )
    assert mark_furniture(doc) is doc


def test_furniture_without_boxes_by_place_on_the_page():
    blocks = []
    for p, body in enumerate(["Revenue grew.", "Costs fell.", "Risks remain.", "Outlook is stable."], start=1):
        blocks += [
            _b(f"p{p}-e0", K.PARAGRAPH, f"Company Inc. | Form 10-K {p}"),
            _b(f"p{p}-e1", K.PARAGRAPH, body),
        ]
    marked = mark_furniture(_doc(*blocks, pages=4))
    assert [b.kind for b in marked.blocks if b.block_id.endswith("e0")] == [K.HEADER] * 4
    assert all(b.kind is K.PARAGRAPH for b in marked.blocks if b.block_id.endswith("e1"))


def test_page_numbers_mid_page_found_by_their_sequence():
    """Short pages: MinerU puts the printed page number right after the last line, mid-page."""
    blocks = []
    for p in range(1, 6):
        blocks += [
            _b(f"p{p}-e0", K.PARAGRAPH, f"Body text number {p} of the filing.", BODY),
            _b(f"p{p}-e1", K.PARAGRAPH, str(p + 40), (0.49, 0.55, 0.51, 0.57)),  # printed page = page + 40
            _b(f"p{p}-e2", K.PARAGRAPH, str(7 * p + 3), (0.8, 0.6, 0.85, 0.62)),  # a number in a table column
        ]
    kinds = {b.block_id: b.kind for b in mark_furniture(_doc(*blocks, pages=5)).blocks}
    assert [kinds[f"p{p}-e1"] for p in range(1, 6)] == [K.PAGE_NUMBER] * 5
    assert all(kinds[f"p{p}-e{j}"] is K.PARAGRAPH for p in range(1, 6) for j in (0, 2))


def test_a_parser_typed_running_head_that_is_one_of_the_documents_headings_is_a_heading_again():
    """MinerU types a heading that opens a page as its running head; its text, a heading twice
    elsewhere and a running head nowhere else, makes it a heading again, at their level."""
    head = (0.17, 0.04, 0.83, 0.06)
    blocks = []
    for p in range(1, 11):
        blocks.append(_b(f"p{p}-e0", K.HEADER, "Guideline for the Management of COPD", head))  # the running head
    blocks += [
        _b("p1-e1", K.HEADING, "Guideline for the Management of COPD", BODY, level=1),  # the title, once
        _b("p2-e1", K.HEADING, "Recommendation", BODY, level=2),
        _b("p3-e1", K.HEADING, "recommendation", BODY, level=3),
        _b("p4-e1", K.HEADING, "Recommendation", BODY, level=2),
        _b("p5-e1", K.HEADER, "Recommendation", (0.12, 0.09, 0.27, 0.11)),  # opens page 5: a heading
        _b("p6-e1", K.HEADER, "Discussion", (0.12, 0.09, 0.27, 0.11)),  # a heading only once elsewhere
        _b("p6-e2", K.HEADING, "Discussion", BODY, level=2),
        _b("p7-e1", K.HEADER, "Chapter 2", (0.12, 0.09, 0.27, 0.11)),  # no heading of that text
    ]
    marked = {b.block_id: b for b in mark_furniture(_doc(*blocks, pages=10)).blocks}
    assert (marked["p5-e1"].kind, marked["p5-e1"].level) == (K.HEADING, 2)
    assert all(marked[f"p{p}-e0"].kind is K.HEADER for p in range(1, 11))  # the title's running head stays
    assert marked["p6-e1"].kind is K.HEADER and marked["p7-e1"].kind is K.HEADER
    # a heading text that is also a running head on enough pages (2 and 10% of them) stays a running head
    many = [_b(f"p{p}-e1", K.HEADER, "Results", head) for p in (1, 2, 3)]
    many += [_b(f"p{p}-e2", K.HEADING, "Results", BODY, level=1) for p in (4, 5, 6, 7)]
    assert all(b.kind is K.HEADER for b in mark_furniture(_doc(*many, pages=10)).blocks if b.block_id.endswith("e1"))


def test_a_recommendation_heading_opening_a_page_of_a_real_guideline_starts_its_recommendation(fixtures_dir):
    """VA/DoD COPD guideline (2021) pages 27-29 as MinerU 4.0.12 reads them: page 29 opens with the
    heading ``Recommendation``, which MinerU types ``header``; before, recommendation 10 and its
    discussion were read as more discussion of recommendation 9."""
    import json

    folder = fixtures_dir / "mineru" / "mineru-4.0.12_flash-tier_vadod_copd_2021_p27-29"
    raw = json.loads((folder / "middle_json.json").read_text(encoding="utf-8"))
    first = raw["pages"][2]["blocks"][1]
    assert (first["type"], first["content"][0]["content"]) == ("header", "Recommendation")  # the parser's typing
    units = build_units(load_document(folder / "middle_json.json"))
    rec10 = [u for u in units if u.text.startswith("10. In patients with COPD")]
    assert len(rec10) == 1 and rec10[0].unit_type is UnitType.RECOMMENDATION
    assert rec10[0].section_path == ["Recommendation"] and rec10[0].grade.strength == "weak"
    assert rec10[0].pages == [3] and "p3-e2" in rec10[0].element_ids
    after = [u for u in units if u.pages == [3] and u.section_path == ["Discussion"]]
    assert after and all("Discusses: 10. In patients with COPD" in u.context for u in after)
    assert not any("Discusses: 9." in u.context for u in units if 3 in u.pages)


# ------------------------------------------------------------------------- continued paragraphs


def test_paragraph_continued_on_the_next_page_is_joined_past_furniture_and_footnotes():
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, "The dose is raised when the", BODY, parser_ids=["a"]),
        _b("p1-e1", K.FOOTNOTE, "* a footnote", (0.1, 0.9, 0.9, 0.92)),
        _b("p1-e2", K.PAGE_NUMBER, "14", (0.5, 0.95, 0.52, 0.97)),
        _b("p2-e0", K.HEADER, "Running head", (0.1, 0.02, 0.5, 0.04)),
        _b("p2-e1", K.PARAGRAPH, "target is not reached.", (0.1, 0.1, 0.9, 0.2), parser_ids=["b"]),
        _b("p2-e2", K.PARAGRAPH, "Next paragraph.", BODY),
    )
    out = join_continued_paragraphs(doc)
    joined = out.blocks[0]
    assert joined.text == "The dose is raised when the target is not reached."
    assert (joined.extra_pages, joined.extra_ids, joined.parser_ids) == ([2], ["p2-e1"], ["a", "b"])
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1", "p1-e2", "p2-e0", "p2-e2"]
    (unit,) = [u for u in build_units(out) if "reached" in u.text]
    assert unit.pages == [1, 2] and unit.element_ids[:2] == ["p1-e0", "p2-e1"]
    assert unit.text.index("reached.") < unit.text.index("* a footnote")


@pytest.mark.parametrize(
    "first,second",
    [
        ("The sentence ends here.", "lowercase start"),  # sentence end
        ("No punctuation", "Capital start"),  # new sentence starts
        ("结束了。", "新的段落"),  # CJK sentence end
    ],
)
def test_no_join_when_the_sentence_does_not_continue(first, second):
    doc = _doc(_b("p1-e0", K.PARAGRAPH, first, BODY), _b("p2-e0", K.PARAGRAPH, second, BODY))
    assert join_continued_paragraphs(doc) is doc


def test_cjk_halves_and_column_breaks_are_joined():
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, "血压控制目标为", (0.05, 0.5, 0.45, 0.95)),
        _b("p1-e1", K.PARAGRAPH, "收缩压低于140 mmHg。", (0.55, 0.1, 0.95, 0.3)),  # next column, higher up
        _b("p1-e2", K.PARAGRAPH, "治疗应持续", (0.55, 0.4, 0.95, 0.95)),
        _b("p2-e0", K.PARAGRAPH, "终身。", (0.05, 0.1, 0.45, 0.2)),
    )
    out = join_continued_paragraphs(doc).blocks
    assert [b.text for b in out] == ["血压控制目标为收缩压低于140 mmHg。", "治疗应持续终身。"]
    assert out[0].extra_pages == [1] and out[1].extra_pages == [2]


def test_heading_between_stops_the_join():
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, "A paragraph without end", BODY),
        _b("p2-e0", K.HEADING, "2 Methods", BODY, level=1),
        _b("p2-e1", K.PARAGRAPH, "lowercase start", BODY),
    )
    assert join_continued_paragraphs(doc) is doc


# ------------------------------------------------------------------------------- references


def test_citations():
    assert is_citation("[1] Doe J, Roe R. Oral anticoagulation. J Rhythm Stud. 2024;12:101-9.")
    assert is_citation("12. Smith AB, et al. Title. Lancet 2019; 393: 10-20.")
    assert not is_citation("1. We recommend anticoagulation for 8 weeks (strong recommendation).")
    assert not is_citation("In 2019, [1] showed a benefit.")


def test_references_kept_out_of_recommendations():
    doc = _doc(
        _b("p1-e0", K.HEADING, "3 Treatment", BODY, level=1),
        _b("p1-e1", K.PARAGRAPH, "We recommend statins (strong recommendation, high-certainty evidence).", BODY),
        _b("p1-e2", K.HEADING, "Bibliography", BODY, level=1),
        _b("p1-e3", K.PARAGRAPH, "Panel. Strong recommendation for statins. Report, 2020.", BODY),
        _b("p1-e4", K.HEADING, "Annex A", BODY, level=1),
        _b("p1-e5", K.PARAGRAPH, "We recommend reporting (strong recommendation, low-certainty evidence).", BODY),
        _b(
            "p1-e6",
            K.LIST,
            "",
            BODY,
            items=["[1] Doe J. Strong recommendation. J Med. 2021;3:1-9.", "[2] Roe R et al. Trial. 2022;4(2):5-8."],
        ),
    )
    marked = mark_references(doc)
    kinds = [b.kind for b in marked.blocks]
    assert kinds[3] is K.REFERENCE and kinds[5] is K.PARAGRAPH and kinds[6] is K.REFERENCE
    units = build_units(marked)
    recs = [u.text for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert recs == ["We recommend statins.", "We recommend reporting."]  # the grade marks are metadata
    refs = [u for u in units if "Doe J" in u.text]
    # a reference unit of its own, never section text
    assert len(refs) == 1 and refs[0].unit_type is UnitType.REFERENCE and "Roe R et al" in refs[0].text


def test_running_prose_after_a_reference_list_ends_it():
    """CDC 2016 p19: the checklist appendix follows the references with no heading the parser saw."""
    prose = (
        "This checklist is a companion to the Guide to Infection Prevention for Outpatient Settings and is"
        " intended to assist in the assessment of infection control programs and practices."
    )
    doc = _doc(
        _b("p1-e0", K.HEADING, "References", BODY, level=1),
        _b("p1-e1", K.PARAGRAPH, "7. Williams IT, Perz JF. Viral hepatitis. Clin Infect Dis 2004;38:1592-1598.", BODY),
        _b("p1-e2", K.PARAGRAPH, "Transmission of infectious diseases in outpatient care settings, a review", BODY),
        _b("p2-e0", K.PARAGRAPH, prose, BODY),
    )
    kinds = [b.kind for b in mark_references(doc).blocks]
    assert kinds[1:] == [K.REFERENCE, K.REFERENCE, K.PARAGRAPH]


def test_prepare_document_runs_every_step_once():
    doc = _doc(
        _b("p1-e0", K.PARAGRAPH, "Guide 2024", (0.1, 0.02, 0.5, 0.04)),
        _b("p1-e1", K.PARAGRAPH, "It continues on the", BODY),
        _b("p2-e0", K.PARAGRAPH, "Guide 2024", (0.1, 0.02, 0.5, 0.04)),
        _b("p2-e1", K.PARAGRAPH, "next page.", (0.1, 0.1, 0.9, 0.2)),
    )
    out = prepare_document(doc)
    assert [(b.kind, b.text) for b in out.body_blocks()] == [(K.PARAGRAPH, "It continues on the next page.")]
    assert prepare_document(out).blocks == out.blocks


# ------------------------------------------------------------------- parser element ids on units


def test_unstructured_element_ids_reach_units_and_both_framework_faces():
    from structaware_readers.unstructured import read_unstructured

    elements = [
        {"type": "Title", "element_id": "t-1", "text": "2 Screening", "metadata": {"page_number": 1}},
        {"type": "NarrativeText", "element_id": "n-1", "text": "Blood pressure was measured in every adult.",
         "metadata": {"page_number": 1, "parent_id": "t-1"}},
        {"type": "ListItem", "element_id": "l-1", "text": "The result was recorded.", "metadata": {"page_number": 1}},
        {"type": "ListItem", "element_id": "l-2", "text": "The patient was told.", "metadata": {"page_number": 1}},
    ]  # fmt: skip
    (unit,) = build_units(prepare_document(read_unstructured(elements)))
    assert unit.source_element_ids == ["t-1", "n-1", "l-1", "l-2"]  # the parser's ids, beside ours
    assert unit.element_ids == ["p1-e0", "p1-e1", "p1-e2"]
    assert unit.to_payload()["source_element_ids"] == ["t-1", "n-1", "l-1", "l-2"]

    documents = pytest.importorskip("langchain_structaware.documents")
    assert documents.unit_to_document(unit).metadata["source_element_ids"] == ["t-1", "n-1", "l-1", "l-2"]
    nodes = pytest.importorskip("llama_index.node_parser.structaware.nodes")
    assert nodes.unit_to_node(unit).metadata["source_element_ids"] == "t-1,n-1,l-1,l-2"
