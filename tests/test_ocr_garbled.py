"""Pages whose text layer is garbage (fonts without a Unicode map, mojibake) are read by OCR.

Input built at test time: the CC0 ``synthetic_guideline_zh.pdf`` with its font's ``/ToUnicode`` key
renamed (same length, so every offset of the file holds): the page still prints the Chinese text,
but PDFium extracts the font's character codes (control characters, ``ÄÅÇÉ``), as it does for
born-digital Chinese standards set in fonts embedded without a Unicode map.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("pypdfium2")

from structaware_readers.errors import MissingExtraError
from structaware_readers.ocr.pages import open_pdf, scan_pages
from structaware_readers.ocr.text_layer import TextLayerQuality, text_quality

pytestmark = pytest.mark.integration


def _without_unicode_map(fixtures_dir, tmp_path, pages: list[int] | None = None):
    raw = (fixtures_dir / "pdf" / "synthetic_guideline_zh.pdf").read_bytes()
    assert raw.count(b"/ToUnicode") == 1
    target = tmp_path / "zh_no_unicode_map.pdf"
    target.write_bytes(raw.replace(b"/ToUnicode", b"/ToUnicodX"))
    if pages is None:
        return target
    import pypdfium2 as pdfium

    part = pdfium.PdfDocument.new()
    part.import_pages(open_pdf(target), [p - 1 for p in pages])
    out = tmp_path / "zh_no_unicode_map_part.pdf"
    part.save(out)
    return out


def _squash(s: str) -> str:
    return "".join(s.split())


def test_mojibake_control_codes_and_cid_placeholders_are_unreadable():
    # CJK words extracted as Western code-page bytes (what the synthetic page gives without its map)
    assert text_quality("ÂÊ \x06¥“å ºª“å ìî\xadâ\n18-20”\x0cÂ").unreadable_share >= 0.5
    assert text_quality("(cid:12)(cid:345)(cid:7) (cid:88)").unreadable_share == 1.0
    assert text_quality("\x01\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11" * 2).garbled
    # traps: European words, Chinese punctuation runs, units and signs of dose tables read fine
    assert text_quality("Ärzte empfehlen 5 mg täglich; ações préventives créées à l'hôpital").unreadable_share < 0.1
    assert text_quality("推荐意见：……见表1——“强推荐”（A级）").unreadable == 0
    assert text_quality("±2 °C, 5×10³ µg/L, ≥140/90 mmHg · ½ tablet ®").unreadable == 0
    # a private-use bullet glyph or two in a page of text is no garbage
    assert not text_quality("\uf0b7 Monitor potassium and kidney function within 2 weeks " * 3).garbled


def test_share_thresholds_garbled_suspect_and_too_short():
    assert TextLayerQuality(100, 60).garbled and not TextLayerQuality(100, 60).suspect
    assert TextLayerQuality(100, 30).suspect and not TextLayerQuality(100, 30).garbled
    assert not TextLayerQuality(100, 5).suspect  # trap: a few odd glyphs
    assert TextLayerQuality(100, 0, map_errors=0.9).garbled  # PDFium's own map errors count
    assert not TextLayerQuality(10, 10).garbled  # too little text to judge


def test_pages_set_in_a_font_without_unicode_map_need_ocr(fixtures_dir, tmp_path):
    scans = scan_pages(_without_unicode_map(fixtures_dir, tmp_path))
    # pages 1-2 are prose (garbled); pages 3-4 are mostly a table of ASCII figures that still map
    assert [s.page for s in scans if s.needs_ocr] == [1, 2]
    assert all(s.garbled and not s.scanned and "unreadable" in s.reason for s in scans[:2])
    # trap: the same file with its Unicode map, and the other fixtures, need no OCR
    for name in (
        "synthetic_guideline_zh.pdf",
        "synthetic_guideline_en.pdf",
        "vadod_htn_2020_p98-101.pdf",
        "vadod_mdd_2022_excerpt.pdf",
    ):
        assert not [s.page for s in scan_pages(fixtures_dir / "pdf" / name) if s.needs_ocr], name


def test_without_the_ocr_extra_the_error_names_it_not_minerus_models(fixtures_dir, tmp_path, monkeypatch):
    from structaware_readers.load.loader import load_document

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if structaware[ocr] were not installed
    monkeypatch.setattr("structaware_readers.ocr.engine._default", None)
    monkeypatch.setattr("structaware_readers.load.pdf_route.mineru_ocr_ready", lambda: False)
    pdf = _without_unicode_map(fixtures_dir, tmp_path, pages=[1, 2])
    with pytest.raises(MissingExtraError) as err:
        load_document(pdf)
    message = str(err.value)
    assert "pip install 'structaware[ocr]'" in message and "page(s) 1-2: its text layer is unreadable" in message
    assert "mineru-models-download" not in message and "MinerU" not in message


def test_a_garbled_page_is_read_by_ocr_into_real_chinese_text(fixtures_dir, tmp_path, monkeypatch):
    pytest.importorskip("rapidocr", reason="reading the page needs structaware[ocr]")
    from structaware_readers.load.loader import load_document
    from structaware_readers.models import BlockKind, UnitType
    from structaware_readers.units import build_units

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("structaware_readers.load.pdf_route.mineru_ocr_ready", lambda: False)
    doc = load_document(_without_unicode_map(fixtures_dir, tmp_path, pages=[2]))
    assert doc.parser == "ocr" and list(doc.page_routes) == [1] and doc.page_routes[1].startswith("ocr:")
    headings = {_squash(b.text) for b in doc.blocks if b.kind is BlockKind.HEADING}
    assert {"2.1血压测量", "2.1.1确诊方法"} <= headings
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION and "推荐意见2.1" in _squash(u.text)]
    assert len(recs) == 1 and recs[0].grade.grade == "A"
    assert not any("\x06" in b.text or "ºª" in b.text for b in doc.blocks)  # none of the text layer's codes


@pytest.mark.shared
def test_a_chinese_standard_without_unicode_map_reads_as_chinese(shared_dir, tmp_path, monkeypatch):
    """A page of a Chinese engineering standard (local testing only: read from ../shared, never copied)
    whose every font lacks a Unicode map: the OCR route gives its Chinese text."""
    pytest.importorskip("rapidocr", reason="reading the page needs structaware[ocr]")
    import pypdfium2 as pdfium

    from structaware_readers.load.loader import load_document

    src = shared_dir / "fixtures" / "pdf" / "zh_drainage_facility_maintenance_standard_draft.pdf"
    if not src.is_file():
        pytest.skip(f"{src} not found")
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("structaware_readers.load.pdf_route.mineru_ocr_ready", lambda: False)
    assert all(s.garbled for s in scan_pages(src) if s.text_chars >= 16)
    part = pdfium.PdfDocument.new()
    part.import_pages(open_pdf(src), [2])  # page 3: a short page
    target = tmp_path / "page3.pdf"
    part.save(target)
    doc = load_document(target)
    text = _squash(" ".join(b.text for b in doc.blocks))
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    assert doc.parser == "ocr" and cjk >= 10 and cjk >= 0.5 * len(text)
