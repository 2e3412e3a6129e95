"""The OCR route on real renders of the CC0 synthetic guidelines (extra ``structaware[ocr]``).

An image-only copy of pages of ``synthetic_guideline_zh.pdf`` (rendered with pypdfium2 and saved
as a PDF with no text layer: what a scanner gives) must read as the text layer does: headings with
their numbering depth, graded recommendations, the table as a grid, running heads as furniture,
two columns in reading order. A born-digital file with one scanned page is read page by page.
"""

from __future__ import annotations

import pytest

pytest.importorskip("rapidocr", reason="the OCR tests need structaware[ocr]")
pytest.importorskip("pypdfium2")

from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind, UnitType
from structaware_readers.ocr.pages import open_pdf, render_page
from structaware_readers.units import build_units

pytestmark = pytest.mark.integration

DPI = 150  # the "scan" resolution (the route renders it again at its own OCR resolution)


def _image_pdf(src, pages: list[int], target):
    images = [render_page(src, p, dpi=DPI) for p in pages]
    images[0].save(target, "PDF", resolution=DPI, save_all=True, append_images=images[1:])
    return target


@pytest.fixture(scope="module")
def zh_scan(fixtures_dir, tmp_path_factory, monkeypatch_module):
    monkeypatch_module.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    pdf = _image_pdf(
        fixtures_dir / "pdf" / "synthetic_guideline_zh.pdf", [2, 3], tmp_path_factory.mktemp("scan") / "zh_scan.pdf"
    )
    doc = load_document(pdf)
    return doc, build_units(doc)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _squash(s: str) -> str:
    return "".join(s.split())


def test_a_scan_is_read_by_the_ocr_route_and_says_so(zh_scan):
    doc, _ = zh_scan
    assert doc.parser == "ocr" and doc.page_count == 2
    assert sorted(doc.page_routes) == [1, 2]
    assert all(r.startswith("ocr:rapidocr") for r in doc.page_routes.values())
    assert all(b.source_type.startswith("ocr") for b in doc.blocks)


def test_headings_get_their_numbering_depth_and_body_text_is_no_heading(zh_scan):
    doc, _ = zh_scan
    headings = {_squash(b.text): b.level for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert headings.get("2.1血压测量") == 2
    assert headings.get("2.1.1确诊方法") == 3
    assert any(t.endswith("前言") and lvl == 1 for t, lvl in headings.items())
    assert not any(t.startswith("本文件") for t in headings)  # trap: a paragraph is not a heading


def test_running_head_and_page_number_are_furniture(zh_scan):
    doc, units = zh_scan
    heads = [b for b in doc.blocks if "合成测试文档" in b.text and b.bbox[1] < 0.06]
    assert heads and all(b.kind is BlockKind.HEADER for b in heads)
    assert {b.text for b in doc.blocks if b.kind is BlockKind.PAGE_NUMBER} >= {"2", "3"}
    assert not any(u.text == "高血压基层诊疗指南（合成测试文档）" for u in units)


def test_graded_recommendations_are_units_with_their_grade(zh_scan):
    _, units = zh_scan
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION and "推荐意见2.1" in _squash(u.text)]
    assert len(recs) == 1
    grade = recs[0].grade
    assert grade.grade == "A" and grade.strength == "strong" and grade.certainty == "high"
    weak = next(u for u in units if u.unit_type is UnitType.RECOMMENDATION and "推荐意见3.1" in _squash(u.text))
    assert weak.grade.strength == "weak" and weak.grade.grade == "C"  # trap: not every grade is A


def test_the_table_is_a_grid_with_its_header_and_rows(zh_scan):
    doc, units = zh_scan
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1 and tables[0].page == 2
    grid = tables[0].table
    assert grid.grid_source == "ocr_lines"
    assert [_squash(c) for c in grid.header_rows[0]] == ["人群", "诊室血压目标", "动态血压目标", "推荐等级"]
    rows = [[_squash(c) for c in r] for r in grid.body_rows]
    assert rows[0] == ["18-20岁成人", "<140/90mmHg", "<135/85mmHg", "A"]
    assert rows[1][0] == "21-23岁成人" and rows[1][3] == "B"  # trap: each row keeps its own grade
    assert len(grid.body_row_bboxes) == len(grid.body_rows) and grid.body_row_bboxes[0][1] < grid.body_row_bboxes[1][1]
    assert "表1" in _squash(tables[0].caption)
    row_units = [u for u in units if u.unit_type is UnitType.TABLE_ROW]
    assert len(row_units) == len(grid.body_rows)
    assert "推荐等级: A" in row_units[0].text and row_units[0].grade.grade == "A"


def test_two_columns_are_read_column_by_column(zh_scan):
    doc, _ = zh_scan
    page1 = [b for b in doc.blocks if b.page == 1 and not b.is_furniture]
    texts = [_squash(b.text) for b in page1]
    left_last = next(i for i, t in enumerate(texts) if t.startswith("推荐意见2.1"))
    right_first = next(i for i, t in enumerate(texts) if t.endswith("治疗") and len(t) <= 4)
    intro = next(i for i, t in enumerate(texts) if t.endswith("前言"))
    assert intro < left_last < right_first  # the left column (to 2.1.1) is read before the right (3 治疗)


def test_a_scanned_page_inside_a_born_digital_file_is_read_by_ocr(fixtures_dir, tmp_path, monkeypatch):
    import pypdfium2 as pdfium

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    src = fixtures_dir / "pdf" / "synthetic_guideline_en.pdf"
    scanned = _image_pdf(src, [3], tmp_path / "p3.pdf")
    mixed = pdfium.PdfDocument.new()
    mixed.import_pages(open_pdf(src), [1])  # page 2 (text layer)
    mixed.import_pages(open_pdf(scanned), [0])  # page 3 as an image
    target = tmp_path / "mixed.pdf"
    mixed.save(target)
    doc = load_document(target)
    assert doc.parser == "mineru"
    assert list(doc.page_routes) == [2] and doc.page_routes[2].startswith("ocr:")
    assert all(not b.source_type.startswith("ocr") for b in doc.blocks if b.page == 1)
    assert all(b.source_type.startswith("ocr") for b in doc.blocks if b.page == 2)
    units = build_units(doc)
    rows = [u for u in units if u.unit_type is UnitType.TABLE_ROW and 2 in u.pages]
    assert any("Adults 18-20 y" in u.text and "Grade: A" in u.text for u in rows)
    assert any(u.unit_type is UnitType.SECTION and 1 in u.pages and "Introduction" in u.context for u in units)


def test_without_the_ocr_engine_a_mixed_file_keeps_its_text_pages_and_names_the_others(
    fixtures_dir, tmp_path, monkeypatch
):
    import sys

    import pypdfium2 as pdfium

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if structaware[ocr] were not installed
    monkeypatch.setattr("structaware_readers.ocr.engine._default", None)
    src = fixtures_dir / "pdf" / "synthetic_guideline_en.pdf"
    scanned = _image_pdf(src, [3], tmp_path / "p3.pdf")
    mixed = pdfium.PdfDocument.new()
    mixed.import_pages(open_pdf(src), [1])
    mixed.import_pages(open_pdf(scanned), [0])
    target = tmp_path / "mixed.pdf"
    mixed.save(target)
    doc = load_document(target)
    assert doc.page_routes == {}
    assert any(b.page == 1 and "Introduction" in b.text for b in doc.blocks)
    assert not any(b.page == 2 and b.kind is BlockKind.TABLE for b in doc.blocks)
    assert any(w.startswith("page(s) 2: no text layer, not read") and "structaware[ocr]" in w for w in doc.warnings)
