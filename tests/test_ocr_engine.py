"""The OCR engine interface on real renders of CC0 fixture pages (extra ``structaware[ocr]``).

Ground truth is the PDF's own text layer inside the same region; the render is a real pypdfium2
render of the page, OCR'd by the bundled PP-OCRv6 small models, offline.
"""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("rapidocr", reason="the OCR tests need structaware[ocr]")
pytest.importorskip("pypdfium2")

from structaware_readers.errors import MissingExtraError
from structaware_readers.ocr import OcrEngine, OcrLine, RapidOcrEngine, default_engine, render_page
from structaware_readers.ocr.pages import open_pdf, pages_needing_ocr, scan_pages
from structaware_readers.ocr.quality import character_error_rate, normalise_for_cer

pytestmark = pytest.mark.integration

DPI = 150


def _text_in(pdf_path, page: int, box: tuple[float, float, float, float]) -> str:
    """The text layer inside ``box`` (0..1 of the page, origin top-left) of ``page``."""
    doc = open_pdf(pdf_path)
    p = doc[page - 1]
    w, h = p.get_size()
    tp = p.get_textpage()
    x0, y0, x1, y1 = box
    return tp.get_text_bounded(left=x0 * w, bottom=(1 - y1) * h, right=x1 * w, top=(1 - y0) * h)


@pytest.fixture(scope="module")
def en_pdf(fixtures_dir):
    return fixtures_dir / "pdf" / "synthetic_guideline_en.pdf"


@pytest.fixture(scope="module")
def en_page2_lines(en_pdf):
    img = render_page(en_pdf, 2, dpi=DPI)
    top = img.crop((0, 0, img.width // 2, img.height // 3))  # left column: heading, paragraphs
    return top, default_engine().read(top)


def test_default_engine_is_an_ocr_engine_and_loads_lazily():
    engine = RapidOcrEngine()
    assert isinstance(engine, OcrEngine)
    assert engine._engine is None  # nothing loaded before the first read
    assert engine.version.startswith("3.")


def test_lines_carry_text_boxes_in_image_fractions_and_confidence(en_page2_lines):
    _img, lines = en_page2_lines
    assert len(lines) >= 5
    for line in lines:
        assert isinstance(line, OcrLine)
        x0, y0, x1, y1 = line.bbox
        assert 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1
        assert 0 < line.confidence <= 1
        assert len(line.polygon) == 4
    # detection order is top to bottom
    tops = [ln.bbox[1] for ln in lines]
    assert tops[0] == min(tops)


def test_ocr_text_matches_the_text_layer_of_the_same_region(en_pdf, en_page2_lines):
    _img, lines = en_page2_lines
    ocr_text = "\n".join(ln.text for ln in lines)
    reference = _text_in(en_pdf, 2, (0.0, 0.0, 0.5, 1 / 3))
    assert len(normalise_for_cer(reference)) > 200
    cer = character_error_rate(ocr_text, reference)
    assert cer <= 0.03, (cer, ocr_text)
    # trap: the rate is not blind: another region's text is far off
    other = _text_in(en_pdf, 2, (0.0, 0.66, 0.5, 1.0))
    assert character_error_rate(ocr_text, other) > 0.5


def test_a_heading_box_is_where_the_heading_is(en_pdf, en_page2_lines):
    _img, lines = en_page2_lines
    heading = next(ln for ln in lines if "Introduction" in ln.text)
    # the same words in the text layer, cut by the OCR box (converted to the page: the crop is the
    # top-left sixth)
    x0, y0, x1, y1 = heading.bbox
    words = _text_in(en_pdf, 2, (x0 / 2 - 0.005, y0 / 3 - 0.005, x1 / 2 + 0.005, y1 / 3 + 0.005))
    assert "Introduction" in words


def test_blank_image_reads_nothing():
    from PIL import Image

    assert RapidOcrEngine().read(Image.new("RGB", (400, 300), "white")) == []


def test_bad_image_is_a_clear_error():
    import numpy as np

    with pytest.raises(ValueError, match="RGB"):
        RapidOcrEngine().read(np.zeros((10, 10), dtype=np.uint8))


def test_missing_engine_names_the_extra(monkeypatch):
    from PIL import Image

    monkeypatch.setitem(sys.modules, "rapidocr", None)  # import fails as if not installed
    with pytest.raises(MissingExtraError, match=r"structaware\[ocr\]"):
        RapidOcrEngine().read(Image.new("RGB", (50, 50), "white"))


def test_born_digital_pages_need_no_ocr_and_an_image_only_copy_does(en_pdf, tmp_path):
    assert pages_needing_ocr(en_pdf) == []
    scans = scan_pages(en_pdf)
    assert [s.page for s in scans] == [1, 2, 3, 4] and all(s.text_chars > 50 for s in scans)
    # an image-only copy of page 2 (a real render saved as a PDF): no text layer, one full-page image
    img = render_page(en_pdf, 2, dpi=72)
    scanned = tmp_path / "scan.pdf"
    img.save(scanned, "PDF", resolution=72)
    assert pages_needing_ocr(scanned) == [1]
    assert scan_pages(scanned)[0].image_cover > 0.9


def _tall_texts(image) -> list[str]:
    lines = default_engine().read(image)
    w, h = image.size
    return [normalise_for_cer(ln.text).lower() for ln in lines if ln.height * h > 1.5 * (ln.bbox[2] - ln.bbox[0]) * w]


@pytest.fixture(scope="module")
def rotated_page(fixtures_dir):
    """Page 1 of the CC0 fixture whose Topic column is turned to read upwards (as a VA/DoD recommendation table's)."""
    return render_page(fixtures_dir / "pdf" / "rotated_text_tables.pdf", 1, dpi=200)


def test_text_turned_to_read_upwards_is_read_the_right_way_up(rotated_page):
    tall = _tall_texts(rotated_page)
    assert "treatmentgoalsandgeneral" in tall and "approachestomanagement" in tall


def test_text_running_down_the_page_is_still_read_as_it_runs(rotated_page):
    # the same page upside down: the Topic column now runs downwards, as RapidOCR reads tall crops itself
    tall = _tall_texts(rotated_page.rotate(180))
    assert "treatmentgoalsandgeneral" in tall and "approachestomanagement" in tall


def test_without_the_second_reading_upward_text_is_garbage(rotated_page, monkeypatch):
    # the trap: RapidOCR alone turns an upward column upside down before recognising it
    monkeypatch.setattr(RapidOcrEngine, "_read_upward", lambda self, arr, quad, text, score: (text, score))
    tall = _tall_texts(rotated_page)
    assert "treatmentgoalsandgeneral" not in tall and "approachestomanagement" not in tall


def test_one_thread_reads_the_same_lines_boxes_and_scores(en_page2_lines):
    """A parse worker's engine runs on one ONNX Runtime thread (``set_default_threads(1)``): the same
    reading as on every core, line for line."""
    img, lines = en_page2_lines
    assert RapidOcrEngine(threads=1).read(img) == lines


def test_default_threads_apply_to_an_engine_not_yet_loaded(monkeypatch):
    import structaware_readers.ocr.engine as engine_module

    monkeypatch.setattr(engine_module, "_default", None)
    monkeypatch.setattr(engine_module, "_default_threads", None)
    engine_module.set_default_threads(1)
    assert default_engine().threads == 1
    engine_module.set_default_threads(None)
    assert default_engine().threads is None  # the same engine, not loaded yet
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="threads must be None or a positive integer"):
            engine_module.set_default_threads(bad)  # type: ignore[arg-type]
