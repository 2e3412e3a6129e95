"""Algorithms described in text become ``flow_path`` units on the algorithm's page; figures that give
no unit are named in the warnings (structaware_readers.algorithms).

Real document: eight pages of the VA/DoD hypertension guideline (public domain; pages 18-20: the
algorithm section with the images of Modules A and B; 71-72: the study flow diagram and its text
description; 121-123: appendix K, the alternative text of Modules A and B), parsed by MinerU 4.0.12
(flash tier): ``tests/fixtures/mineru/mineru-4.0.12_flash-tier_vadod_htn_algorithm_pages``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import FIXTURES_DIR
from structaware_readers.algorithms import attach_described_algorithms
from structaware_readers.algorithms.unread import note_unread_figures
from structaware_readers.load.loader import load_document, prepare_document
from structaware_readers.mermaid import Flowchart, FlowEdge, parse_mermaid, to_mermaid
from structaware_readers.mineru import read_mineru
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.units import UnitOptions, build_units

HTN = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_algorithm_pages"


@pytest.fixture(scope="module")
def htn_doc() -> ParsedDocument:
    return load_document(HTN, pdf=False)


@pytest.fixture(scope="module")
def htn_units(htn_doc: ParsedDocument) -> list:
    return build_units(htn_doc)


def _paths(units: list, title: str) -> list:
    return [u for u in units if u.unit_type is UnitType.FLOW_PATH and u.flow.title == title]


def test_every_edge_of_each_module_is_a_flow_path(htn_units: list) -> None:
    a = _paths(htn_units, "Module A: Screening and Diagnosis")
    b = _paths(htn_units, "Module B: Treatment")
    assert len(a) == 18 and len(b) == 11
    texts = {u.text for u in a}
    assert (
        "Box 6: Does patient have an acute injury or illness? -(Yes)-> Box 7: Return after acute episode resolved"
        " (typically within 4 weeks)"
    ) in texts
    assert (
        "Box 7: Return after acute episode resolved (typically within 4 weeks) -> Box 4: Obtain office blood pressure (see Sidebar 1)"
        in texts
    )
    # the branch label and both box texts are in the unit's metadata too
    edge = next(u for u in a if u.text.startswith("Box 2:") and "-(No)->" in u.text)
    assert (edge.flow.source, edge.flow.label) == ("Box 2: Is the patient currently being treated for HTN?", "No")
    assert edge.flow.target == "Box 4: Obtain office blood pressure (see Sidebar 1)"


def test_flow_paths_point_at_the_image_and_the_description(htn_units: list) -> None:
    for u in _paths(htn_units, "Module A: Screening and Diagnosis"):
        # fixture page 2 = guideline page 19 (the image), page 6 = guideline page 121 (its description)
        assert u.element_ids[0] == "p2-e2" and 2 in u.pages
        assert any(p >= 6 for p in u.pages) and all(p in (2, 6, 7) for p in u.pages)
        assert len(u.bboxes) == len(u.element_ids) == len(u.element_pages)
        assert u.context.startswith("Flowchart: Module A: Screening and Diagnosis | Section: V. Algorithm")
    # an edge points at the paragraph that states it, not at the whole appendix
    edge = next(
        u for u in htn_units if u.unit_type is UnitType.FLOW_PATH and u.text.startswith("Box 24:") and "(Yes)" in u.text
    )
    assert edge.pages == [3, 8] and edge.element_ids == ["p3-e2", "p8-e1"]


HTN_TITLE = (
    "VA/DoD CLINICAL PRACTICE GUIDELINE FOR THE DIAGNOSIS AND MANAGEMENT OF HYPERTENSION IN THE PRIMARY CARE SETTING"
)


def test_a_flow_path_names_its_guideline(htn_doc: ParsedDocument) -> None:
    # the extract has no cover page; the whole guideline's MinerU title is this one
    units = build_units(htn_doc.model_copy(update={"title": HTN_TITLE}))
    paths = [u for u in units if u.unit_type is UnitType.FLOW_PATH]
    assert len(paths) == 37
    for u in paths:
        assert u.context.startswith(f"Flowchart: {u.flow.title} | Section: ")
        assert u.context.endswith(f" | Document: {HTN_TITLE}")
    # trap: only flow paths take the document's title; sections keep their heading path alone
    assert not any("Document:" in u.context for u in units if u.unit_type is not UnitType.FLOW_PATH)
    # trap: a document without a title adds nothing, nor one built without document contexts
    assert not any("Document:" in u.context for u in build_units(htn_doc))
    plain = build_units(htn_doc.model_copy(update={"title": HTN_TITLE}), UnitOptions(document_context=False))
    assert not any("Document:" in u.context for u in plain) and len(plain) == len(units)


def test_a_flow_path_context_says_the_chart_s_heading_once(htn_units: list) -> None:
    contexts = Counter(u.context for u in htn_units if u.unit_type is UnitType.FLOW_PATH)
    # the module's heading is the chart's title: the section part stops at its parent
    assert contexts["Flowchart: Module A: Screening and Diagnosis | Section: V. Algorithm"] == 18
    assert contexts["Flowchart: Module B: Treatment | Section: V. Algorithm"] == 11
    # trap: a chart under a heading that is not its title keeps the whole path
    assert contexts["Flowchart: Figure A-1. Study Flow Diagram | Section: V. Algorithm > B. Module B: Treatment"] == 8


def test_a_chart_titled_by_its_document_does_not_repeat_it() -> None:
    src = "flowchart TD\n  A[Clinic BP >= 140/90] --> B[Diagnose hypertension]"
    block = Block(
        block_id="p1-e0", kind=BlockKind.FLOWCHART, text="", page=1, mermaid=src, caption="Hypertension algorithm"
    )
    doc = ParsedDocument(
        doc_id="3" * 16, source="x", name="x", parser="test", page_count=1, blocks=[block], title="Hypertension"
    )
    assert [u.context for u in build_units(doc)] == ["Flowchart: Hypertension algorithm"]
    other = doc.model_copy(update={"title": "Diabetes in adults"})
    assert [u.context for u in build_units(other)] == [
        "Flowchart: Hypertension algorithm | Document: Diabetes in adults"
    ]


def test_description_paragraphs_are_no_section_text(htn_units: list) -> None:
    sections = [u for u in htn_units if u.unit_type is UnitType.SECTION]
    assert not any("If the answer is" in u.text or "connects to Box" in u.text for u in sections)
    # trap: the text around the outline stays section text (the abbreviations under the image)
    assert any(u.text.startswith("Abbreviations: ABPM: ambulatory blood pressure monitoring") for u in sections)


def test_study_flow_description_is_a_flowchart_too(htn_units: list) -> None:
    study = _paths(htn_units, "Figure A-1. Study Flow Diagram")
    assert len(study) == 8
    assert "Box 7: 314 articles reviewed -> Box 9: 97 included studies" in {u.text for u in study}


def test_flowchart_block_carries_mermaid_of_the_same_chart(htn_doc: ParsedDocument) -> None:
    block = next(b for b in htn_doc.blocks if b.kind is BlockKind.FLOWCHART and b.caption.startswith("Module B"))
    chart = parse_mermaid(block.mermaid)
    assert chart.title == "Module B: Treatment"
    assert [(chart.label(e.source), e.label, chart.label(e.target)) for e in chart.edges] == [
        (e.source_label, e.label, e.target_label) for e in block.flowchart.edges
    ]
    # the outline's paragraphs are kept as the block's continuations (ids resolvable through doc.block)
    assert htn_doc.block("p8-e1") is block


def test_no_warning_for_described_algorithms(htn_doc: ParsedDocument) -> None:
    assert not any("algorithm" in w for w in htn_doc.warnings)


def test_algorithm_image_without_description_is_a_warning() -> None:
    raw = read_mineru(HTN)
    # the same pages without the appendix (pages 6-8): the algorithm images stay unread
    cut = raw.model_copy(update={"blocks": [b for b in raw.blocks if b.page < 6]})
    doc = prepare_document(cut)
    warnings = [w for w in doc.warnings if "algorithm image" in w]
    assert len(warnings) == 2
    assert warnings[0].startswith("p.2: the algorithm image 'A. Module A: Screening and Diagnosis' (p2-e2)")
    assert not any(u.unit_type is UnitType.FLOW_PATH and u.flow.title.startswith("Module") for u in build_units(doc))


def _figure(bid: str, page: int, **kw) -> Block:
    return Block(block_id=bid, kind=BlockKind.FIGURE, page=page, bbox=(0.1, 0.1, 0.9, 0.6), source_type="image", **kw)


def test_figures_without_text_are_listed_by_page() -> None:
    doc = ParsedDocument(
        doc_id="0" * 16,
        source="x",
        name="x",
        parser="mineru",
        page_count=3,
        blocks=[
            Block(block_id="p1-e0", kind=BlockKind.HEADING, page=1, text="Appendix B: Figures"),
            _figure("p1-e1", 1),
            _figure("p2-e0", 2, caption="Figure B-1. Inhaler technique"),
            _figure("p3-e0", 3),
        ],
    )
    out = note_unread_figures(doc)
    assert out.warnings == ["2 figures hold no text the parser read and give no unit: pages 1, 3"]
    # trap: a document whose figures all have text is returned as it is
    named = doc.model_copy(update={"blocks": [doc.blocks[0], doc.blocks[2]]})
    assert note_unread_figures(named) is named


def test_outline_without_its_image_points_at_the_description() -> None:
    raw = read_mineru(HTN)
    cut = raw.model_copy(update={"blocks": [b for b in raw.blocks if b.page >= 6]})
    doc = attach_described_algorithms(cut)
    flows = [b for b in doc.blocks if b.kind is BlockKind.FLOWCHART]
    assert [b.caption for b in flows] == ["Module A: Screening and Diagnosis", "Module B: Treatment"]
    assert flows[0].block_id == "p6-e2" and flows[0].page == 6
    assert sum("has no image found" in w for w in doc.warnings) == 2
    units = build_units(doc)
    first = next(u for u in units if u.unit_type is UnitType.FLOW_PATH)
    # the paragraph that quotes Box 1 ("1. Module A begins with Box 1 ...": the flowchart block took its
    # place) and the one "2. Box 1 connects to Box 2 ..."
    assert first.element_ids == ["p6-e2", "p6-e3"] and first.pages == [6]


def test_module_title_split_into_two_headings_and_title_paragraph() -> None:
    """mTBI prints Module B's title as two headings; asthma types Module A's image title as a paragraph."""

    def block(bid: str, kind: BlockKind, page: int, text: str = "", **kw) -> Block:
        return Block(block_id=bid, kind=kind, page=page, text=text, bbox=(0.1, 0.1, 0.9, 0.2), **kw)

    blocks = [
        block("p1-e0", BlockKind.PARAGRAPH, 1, "A. Module A: Assessment and Diagnosis of Asthma"),
        _figure("p1-e1", 1),
        block("p2-e0", BlockKind.HEADING, 2, "B. Module B: Management of Symptoms Persisting >7 Days After Mild"),
        block("p2-e1", BlockKind.HEADING, 2, "Traumatic Brain Injury"),
        _figure("p2-e2", 2),
        block(
            "p3-e0",
            BlockKind.HEADING,
            3,
            "Appendix K: Alternative Text Descriptions of Algorithm Modules A. Module A: Assessment and Diagnosis of Asthma",
        ),
        block(
            "p3-e1",
            BlockKind.PARAGRAPH,
            3,
            "1. Module A begins with Box 1, in the shape of a rounded rectangle: “Person with chief complaint suggestive of asthma (see Sidebar A)”",
        ),
        block(
            "p3-e2",
            BlockKind.PARAGRAPH,
            3,
            "2. Box 1 connects to Box 2, in the shape of a rectangle: “Obtain history and physical examination (see Sidebar B)”",
        ),
        block("p3-e3", BlockKind.HEADING, 3, "B. Module B: Management of Symptoms Persisting >7 Days After Mild"),
        block("p3-e4", BlockKind.HEADING, 3, "Traumatic Brain Injury"),
        block(
            "p3-e5",
            BlockKind.PARAGRAPH,
            3,
            "1. Module B starts with Box 12, in the shape of a rounded rectangle: “Patient with persistent symptoms”",
        ),
        block(
            "p3-e6",
            BlockKind.PARAGRAPH,
            3,
            "2. Box 12 connects to Box 13, in the shape of a rectangle: “Complete history and physical examination”",
        ),
        block("p3-e7", BlockKind.HEADING, 3, "Appendix L: Abbreviations"),
        block("p3-e8", BlockKind.PARAGRAPH, 3, "Box 1 connects to Box 2 is not read here: the outline has ended."),
    ]
    doc = ParsedDocument(doc_id="0" * 16, source="x", name="x", parser="mineru", page_count=3, blocks=blocks)
    out = attach_described_algorithms(doc)
    flows = {b.block_id: b for b in out.blocks if b.kind is BlockKind.FLOWCHART}
    assert set(flows) == {"p1-e1", "p2-e2"}
    assert (
        flows["p2-e2"].caption
        == "Module B: Management of Symptoms Persisting >7 Days After Mild Traumatic Brain Injury"
    )
    # the image, the paragraph quoting Box 1 and the one stating the edge (and quoting Box 2)
    assert flows["p1-e1"].flowchart.edges[0].element_ids == ["p1-e1", "p3-e1", "p3-e2"]
    # trap: the paragraph after the next appendix heading is no part of the outline
    assert any(b.block_id == "p3-e8" and b.kind is BlockKind.PARAGRAPH for b in out.blocks)


def test_to_mermaid_round_trip() -> None:
    chart = Flowchart(title='Module "A": #1')
    chart.nodes = {"1": 'Box 1: say "yes"', "end": "End; stop", "B2": "Box 2: 是否 <140/90 mmHg?"}
    chart.edges = [
        FlowEdge("1", "B2", "Yes (still suspect asthma)"),
        FlowEdge("B2", "end", ""),
        FlowEdge("B2", "1", "No | maybe"),
    ]
    back = parse_mermaid(to_mermaid(chart))
    assert back.title == 'Module "A": #1'
    assert [(back.label(e.source), e.label, back.label(e.target)) for e in back.edges] == [
        ('Box 1: say "yes"', "Yes (still suspect asthma)", "Box 2: 是否 <140/90 mmHg?"),
        ("Box 2: 是否 <140/90 mmHg?", "", "End; stop"),
        ("Box 2: 是否 <140/90 mmHg?", "No | maybe", 'Box 1: say "yes"'),
    ]
    # trap: Mermaid keywords and digit ids are never written as bare ids
    assert "\n    end[" not in to_mermaid(chart) and "\n    1[" not in to_mermaid(chart)
    assert Counter(e.head for e in back.edges) == Counter({"arrow": 3})
