"""Malformed and unusual PDFs (``tests/malformed_pdfs.py``) end in units or one typed error naming the file.

Every case of the generator is ingested in one run, as ``structaware ingest FOLDER`` would, into an
index that already holds a good document, each process under a 2 GB cap on address space
(``tests/malformed_ingest.py``): no crash, no hang, no out-of-memory, no advice to download
MinerU's models (the ``ocr`` extra is installed), and the good document still whole afterwards.
The route's pieces are tested in-process below: blank pages, MinerU refusing a file whose pages it
could read, and the render budget.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("rapidocr", reason="the malformed-PDF route needs structaware[ocr]")
pytest.importorskip("pypdfium2")

from malformed_ingest import good_index, run_batch
from malformed_pdfs import CASES, LINES, blank_pages, huge_blank_image, thousands_of_pages, write_cases
from structaware_readers.common import limits
from structaware_readers.errors import EmptyDocumentError
from structaware_readers.load import pdf_route as route
from structaware_readers.mineru.failures import ModelsMissingError
from structaware_readers.ocr.engine import OcrLine
from structaware_readers.ocr.pages import render_page, scan_pages

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    import os

    work = tmp_path_factory.mktemp("malformed")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "STRUCTAWARE_CACHE_DIR": str(work / "cache")}
    pdfs = write_cases(work / "cases")
    template = good_index(work / "template", env=env)
    return run_batch(list(pdfs.values()), template, work, timeout=1800, env=env)


@pytest.mark.slow  # one ingest of every case, MinerU and OCR included
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_malformed_pdf_ends_in_units_or_a_typed_error_naming_it(case, outcomes) -> None:
    got = outcomes[f"{case.name}.pdf"]
    allowed = {"units", "error"} if case.expect == "either" else {case.expect}
    assert got.kind in allowed, f"{case.name}: {got.kind}: {got.message}"
    if got.kind == "units":
        assert got.units > 0
    else:
        assert f"{case.name}.pdf" in got.message and "mineru-models-download" not in got.message


# -- the route's pieces, in-process ---------------------------------------------------------------


class _Engine:
    """An OCR engine that reads one line per page it is given and records the pages' sizes."""

    name, version, revision = "fake", "1", 0

    def __init__(self) -> None:
        self.sizes: list[tuple[int, int]] = []

    def read(self, image) -> list[OcrLine]:
        self.sizes.append(image.size)
        return [OcrLine(LINES[0], (0.1, 0.1, 0.9, 0.12), 0.99)]


def _no_mineru(*args, **kwargs):
    raise AssertionError("MinerU must not be asked to read this file")


def _mineru_refuses(path, *args, **kwargs):
    raise ModelsMissingError(
        "FileNotFoundError: Model repo is not ready -- download them with `mineru-models-download`",
        path=path,
        field="mineru tier=flash",
    )


def test_a_pdf_of_blank_pages_is_an_empty_document_named_before_any_parser_runs(tmp_path, monkeypatch) -> None:
    pdf = tmp_path / "blank.pdf"
    pdf.write_bytes(blank_pages())
    monkeypatch.setattr("structaware_readers.mineru.read_mineru", _no_mineru)
    with pytest.raises(EmptyDocumentError) as err:
        route.read_pdf(pdf, engine=_Engine())
    assert str(pdf) in str(err.value) and err.value.field == "pages" and "3 page(s)" in str(err.value)


def test_blank_pages_are_blank_and_a_page_with_an_image_is_not(tmp_path) -> None:
    pdf = tmp_path / "pages.pdf"
    pdf.write_bytes(thousands_of_pages())
    scans = scan_pages(pdf)
    assert len(scans) == 3000 and not scans[0].blank and all(s.blank for s in scans[1:])
    image_page = tmp_path / "image.pdf"
    image_page.write_bytes(huge_blank_image())
    (scan,) = scan_pages(image_page)
    assert not scan.blank and scan.objects == 1 and scan.scanned  # trap: an image with no text is no blank page


def test_when_mineru_refuses_a_file_it_is_read_by_ocr_and_its_blank_pages_are_skipped(tmp_path, monkeypatch) -> None:
    pdf = tmp_path / "mostly_blank.pdf"
    pdf.write_bytes(thousands_of_pages())
    monkeypatch.setattr("structaware_readers.mineru.read_mineru", _mineru_refuses)
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    engine = _Engine()
    doc = route.read_pdf(pdf, engine=engine)
    assert doc.parser == "ocr" and doc.page_count == 3000
    assert len(engine.sizes) == 1 and list(doc.page_routes) == [1]  # the 2,999 blank pages never rendered
    assert any(LINES[0] in b.text for b in doc.blocks)
    assert any(w.startswith("MinerU did not read this PDF") for w in doc.warnings)


def test_without_the_ocr_extra_a_refused_file_names_the_extra_not_minerus_models(tmp_path, monkeypatch) -> None:
    import sys

    from structaware_readers.errors import MissingExtraError

    pdf = tmp_path / "mostly_blank.pdf"
    pdf.write_bytes(thousands_of_pages())
    monkeypatch.setattr("structaware_readers.mineru.read_mineru", _mineru_refuses)
    monkeypatch.setitem(sys.modules, "rapidocr", None)  # as if structaware[ocr] were not installed
    monkeypatch.setattr("structaware_readers.ocr.engine._default", None)
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))  # no page read by OCR before
    with pytest.raises(MissingExtraError) as err:
        route.read_pdf(pdf)
    message = str(err.value)
    assert str(pdf) in message and "structaware[ocr]" in message and "did not read it" in message
    assert "mineru-models-download" not in message


def test_a_page_is_rendered_within_the_pixel_budget_keeping_its_shape(tmp_path, monkeypatch) -> None:
    src = Path(__file__).resolve().parent / "fixtures" / "pdf" / "tiny_heading_table.pdf"
    full = render_page(src, 1, dpi=100)  # trap: a page within the budget keeps its resolution
    assert abs(full.width - 595.2756 * 100 / 72) <= 1 and abs(full.height - 841.8898 * 100 / 72) <= 1
    monkeypatch.setattr(limits, "MAX_RENDER_PIXELS", 200_000)
    small = render_page(src, 1, dpi=100)
    assert 190_000 < small.width * small.height <= 202_000  # PDFium rounds each side up
    assert abs(small.width / small.height - full.width / full.height) < 0.01


def test_render_scale_keeps_a_page_within_the_budget_and_leaves_an_ordinary_one_alone() -> None:
    assert limits.render_scale(612, 792, 200 / 72) == 200 / 72
    s = limits.render_scale(12_000, 12_000, 200 / 72)
    assert (12_000 * s) ** 2 <= limits.MAX_RENDER_PIXELS * 1.0001 and s < 200 / 72
    assert limits.render_scale(1e6, 1e6, 200 / 72) * 1e6 == pytest.approx(6000)
