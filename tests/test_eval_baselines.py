"""Baselines of paper 3.3 over hand-built and real parsed documents (same text, furniture excluded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_retrievers.evaluation.baselines import (
    BLOCK_SEP,
    METHODS,
    block_text,
    char_windows,
    element_units,
    flat_chunks,
    get_method,
    heading_chunks,
    page_units,
)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURE = SHARED / "fixtures/mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"


def _doc() -> ParsedDocument:
    p1 = "Alpha " * 50  # 300 chars
    p2 = "Beta " * 80  # 400 chars
    p3 = "Gamma " * 20  # 120 chars
    blocks = [
        Block(block_id="p1-e0", kind=BlockKind.HEADER, text="RUNNING HEADER", page=1),
        Block(block_id="p1-e1", kind=BlockKind.HEADING, text="1 Dosing", page=1, level=1),
        Block(block_id="p1-e2", kind=BlockKind.PARAGRAPH, text=p1.strip(), page=1, bbox=(0.1, 0.2, 0.9, 0.3)),
        Block(
            block_id="p1-e3",
            kind=BlockKind.TABLE,
            text="Drug | Dose\nA | 5 mg",
            caption="Table 1 Doses",
            page=1,
            table=TableGrid(header_rows=[["Drug", "Dose"]], body_rows=[["A", "5 mg"]]),
        ),
        Block(block_id="p2-e0", kind=BlockKind.PARAGRAPH, text=p2.strip(), page=2),
        Block(block_id="p2-e1", kind=BlockKind.HEADING, text="2 Follow-up", page=2, level=1),
        Block(block_id="p2-e2", kind=BlockKind.PARAGRAPH, text=p3.strip(), page=2),
        Block(block_id="p2-e3", kind=BlockKind.PAGE_NUMBER, text="2", page=2),
    ]
    return ParsedDocument(
        doc_id="0123456789abcdef", source="hand.json", name="hand", parser="mineru", page_count=2, blocks=blocks
    )


def _body_text(doc: ParsedDocument) -> str:
    return BLOCK_SEP.join(block_text(b) for b in doc.body_blocks())


def test_char_windows_hand_computed():
    assert char_windows(1000) == [(0, 500), (450, 950), (900, 1000)]
    assert char_windows(500) == [(0, 500)]
    assert char_windows(501) == [(0, 500), (450, 501)]
    assert char_windows(0) == []
    with pytest.raises(ValueError):
        char_windows(10, size=50, overlap=50)


def test_flat_chunks_cover_body_text_with_overlap_and_provenance():
    doc = _doc()
    text = _body_text(doc)
    chunks = flat_chunks(doc)
    assert "RUNNING HEADER" not in text  # furniture excluded
    assert [c.text for c in chunks] == [text[s:e] for s, e in char_windows(len(text))]
    assert all(len(c.text) <= 500 for c in chunks)
    assert chunks[0].text[-50:] == chunks[1].text[:50]
    assert all(c.unit_type is UnitType.CHUNK and c.context == "" for c in chunks)
    # body: heading 0-8, paragraph 10-309, table 311-345, page-2 paragraph 347-746, heading 748-759,
    # paragraph 761-880: windows [0, 500) and [450, 880)
    assert len(text) == 880 and len(chunks) == 2
    assert chunks[0].element_ids == ["p1-e1", "p1-e2", "p1-e3", "p2-e0"] and chunks[0].pages == [1, 2]
    assert chunks[0].bboxes[1] == (0.1, 0.2, 0.9, 0.3) and chunks[0].element_pages == [1, 1, 1, 2]
    assert chunks[1].element_ids == ["p2-e0", "p2-e1", "p2-e2"] and chunks[1].pages == [2]
    assert len({c.unit_id for c in chunks}) == len(chunks)
    assert flat_chunks(doc)[0].unit_id == chunks[0].unit_id  # deterministic ids


def test_heading_chunks_never_cross_sections():
    doc = _doc()
    units = heading_chunks(doc)
    first_sec = [u for u in units if u.section_path == ["1 Dosing"]]
    second_sec = [u for u in units if u.section_path == ["2 Follow-up"]]
    assert first_sec and len(second_sec) == 1
    assert first_sec[0].text.startswith("1 Dosing")
    assert second_sec[0].text == "2 Follow-up" + BLOCK_SEP + block_text(doc.block("p2-e2"))
    assert all("Gamma" not in u.text for u in first_sec)
    assert all(len(u.text) <= 500 for u in units)


def test_page_and_element_units():
    doc = _doc()
    pages = page_units(doc)
    assert [u.pages for u in pages] == [[1], [2]]
    assert pages[0].element_ids == ["p1-e1", "p1-e2", "p1-e3"]
    assert "RUNNING HEADER" not in pages[0].text and pages[1].text.endswith("Gamma")
    elems = element_units(doc)
    assert [u.element_ids for u in elems] == [[b.block_id] for b in doc.body_blocks()]
    table = next(u for u in elems if u.element_ids == ["p1-e3"])
    assert table.text == "Table 1 Doses\nDrug | Dose\nA | 5 mg"  # one table = one element, caption kept
    assert all(u.unit_type is UnitType.ELEMENT and u.context == "" for u in elems)


def test_empty_document_raises_naming_the_file():
    doc = ParsedDocument(
        doc_id="0" * 16,
        source="empty.json",
        name="empty",
        parser="mineru",
        page_count=1,
        blocks=[Block(block_id="p1-e0", kind=BlockKind.FOOTER, text="footer only", page=1)],
    )
    for fn in (flat_chunks, heading_chunks, page_units, element_units):
        with pytest.raises(EmptyDocumentError, match=r"empty\.json"):
            fn(doc)


def test_method_registry():
    assert set(METHODS) == {"flat", "heading", "page", "element", "struct", "struct_noctx"}
    assert [k for k, m in METHODS.items() if m.element_addressable] == ["element", "struct", "struct_noctx"]
    with pytest.raises(ValueError, match="unknown method"):
        get_method("colpali")


def test_struct_and_ablation_share_text_not_context():
    doc = _doc()
    struct = METHODS["struct"].build(doc)
    noctx = METHODS["struct_noctx"].build(doc)
    assert [u.text for u in struct] == [u.text for u in noctx]
    assert any(u.context for u in struct)
    assert all(u.context == "" for u in noctx)
    assert any(u.unit_type is UnitType.TABLE_ROW for u in struct)


@pytest.mark.shared
def test_baselines_on_real_mineru_fixture():
    if not FIXTURE.is_dir():
        pytest.skip(f"shared fixture not found: {FIXTURE}")
    from structaware_readers.load.loader import load_document

    doc = load_document(FIXTURE)
    # a row of a table merged across pages may name the continuation part (Block.extra_ids)
    body_ids = {i for b in doc.body_blocks() for i in (b.block_id, *b.extra_ids)}
    text = _body_text(doc)
    for key, method in METHODS.items():
        units = method.build(doc)
        assert units, key
        for u in units:
            assert set(u.element_ids) <= body_ids, (key, u.element_ids)
            assert all(1 <= p <= doc.page_count for p in u.pages)
            assert len(u.bboxes) == len(u.element_ids) == len(u.element_pages)
    flat = flat_chunks(doc)
    rebuilt = flat[0].text + "".join(c.text[50:] for c in flat[1:])
    assert rebuilt == text
    assert len(page_units(doc)) == len({b.page for b in doc.body_blocks()})
