"""Running MinerU 4.x (offline ``flash`` tier) on real PDFs: parse_pdf, its cache and its errors.

These tests run the real ``mineru-kit`` (about 2-5 s per run on 2 cores): no model, no network.
The PDFs are the CC0 fixtures in tests/fixtures/pdf (see SOURCES.md); the scanned Chinese PDF
(no licence, not copied) is read from ../shared and its test skips when that folder is absent.
The remote route (mineru-api) is tested from recorded cassettes in test_mineru_api_client.py.
"""

from __future__ import annotations

import json
import re
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from structaware_readers.errors import (
    InputNotFoundError,
    MalformedInputError,
    ParserUnavailableError,
    StructawareError,
    UnknownFormatError,
)
from structaware_readers.ids import doc_id_from_file
from structaware_readers.mineru import pdf as mineru_pdf
from structaware_readers.models import BlockKind, ParsedDocument

pytestmark = pytest.mark.integration

try:
    MINERU_VERSION = metadata.version("mineru")
except metadata.PackageNotFoundError:  # pragma: no cover - mineru is a dependency of the package
    pytest.skip("MinerU is not installed", allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
PDFS = REPO / "tests" / "fixtures" / "pdf"
TINY = PDFS / "tiny_heading_table.pdf"
SYNTH_EN = PDFS / "synthetic_guideline_en.pdf"
CORRUPT = PDFS / "corrupt_truncated.pdf"
SCANNED = REPO.parent / "shared" / "fixtures" / "pdf" / "zh_drainage_facility_maintenance_standard_draft.pdf"
MINERU_FIXTURES = REPO.parent / "shared" / "fixtures" / "mineru"


class RunCounter:
    """Wraps the real ``run_mineru_kit`` and counts how often MinerU is actually started."""

    def __init__(self, mp: pytest.MonkeyPatch) -> None:
        self.calls: list[Path] = []
        real = mineru_pdf.run_mineru_kit

        def counting(pdf: Path, *args, **kwargs):
            self.calls.append(pdf)
            return real(pdf, *args, **kwargs)

        mp.setattr(mineru_pdf, "run_mineru_kit", counting)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> RunCounter:
    return RunCounter(monkeypatch)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory):
    """One real flash run on tiny_heading_table.pdf (with the zip package kept), then two cached calls."""
    tmp = tmp_path_factory.mktemp("tiny")
    cache, first_zip, second_zip = tmp / "cache", tmp / "first.zip", tmp / "again.zip"
    with pytest.MonkeyPatch.context() as mp:
        counter = RunCounter(mp)
        first = mineru_pdf.parse_pdf(TINY, cache_dir=cache, keep_output=first_zip, timeout=120)
        runs_after_first = len(counter.calls)
        second = mineru_pdf.parse_pdf(TINY, cache_dir=cache, timeout=120)
        third = mineru_pdf.parse_pdf(TINY, cache_dir=cache, keep_output=second_zip, timeout=120)
        runs_after_all = len(counter.calls)
    return {
        "first": first, "second": second, "third": third, "cache": cache,
        "first_zip": first_zip, "second_zip": second_zip,
        "runs_after_first": runs_after_first, "runs_after_all": runs_after_all,
    }  # fmt: skip


def _headings(doc: ParsedDocument) -> list[str]:
    return [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]


def _grid(block) -> list[list[str]]:
    assert block.table is not None
    return block.table.header_rows + block.table.body_rows


# ---------------------------------------------------------------------------- the flash route
def test_tiny_pdf_identity_headings_and_table(tiny_run):
    doc: ParsedDocument = tiny_run["first"]
    assert doc.doc_id == doc_id_from_file(TINY)
    assert doc.source == str(TINY)
    assert doc.name == "tiny_heading_table"
    assert doc.parser == "mineru"
    assert doc.parser_version == MINERU_VERSION
    assert doc.page_count == 1
    assert {"1 Management of Hypertension", "1.1 Blood pressure targets"} <= set(_headings(doc))
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1
    assert _grid(tables[0]) == [
        ["Population", "Clinic BP target", "Grade"],
        ["Age < 80", "< 140/90 mmHg", "A"],
        ["Age >= 80", "< 150/90 mmHg", "B"],
    ]
    rec = [b for b in doc.blocks if b.text.startswith("Recommendation 1:")]
    assert rec and "strong recommendation, high-quality evidence" in rec[0].text
    for b in doc.blocks:
        assert re.fullmatch(r"p1-e\d+", b.block_id)
        assert b.page == 1
        assert b.bbox is not None and all(0.0 <= c <= 1.0 for c in b.bbox)
        assert b.bbox[0] < b.bbox[2] and b.bbox[1] < b.bbox[3]


def test_second_parse_is_served_from_the_cache(tiny_run):
    assert tiny_run["runs_after_first"] == 1
    assert tiny_run["runs_after_all"] == 1, "MinerU ran again although the cache held the result"
    assert tiny_run["second"].model_dump() == tiny_run["first"].model_dump()
    assert tiny_run["third"].model_dump() == tiny_run["first"].model_dump()
    entry = tiny_run["cache"] / "mineru" / doc_id_from_file(TINY) / f"flash-{MINERU_VERSION}.json"
    record = json.loads(entry.read_text(encoding="utf-8"))
    assert record["doc_id"] == doc_id_from_file(TINY)
    assert record["tier"] == "flash" and record["mineru_version"] == MINERU_VERSION
    assert record["middle_json"]["schema"] == "docvortex.middle"


def test_keep_output_writes_mineru_zip_package_also_from_the_cache(tiny_run):
    for path in (tiny_run["first_zip"], tiny_run["second_zip"]):
        with zipfile.ZipFile(path) as zf:
            names = set(zf.namelist())
            assert {"markdown.md", "middle_json.json", "structured_content.json"} <= names
            assert "1.1 Blood pressure targets" in zf.read("markdown.md").decode("utf-8")


def test_read_mineru_on_a_pdf_uses_parse_pdf_and_the_env_cache(tiny_run, monkeypatch, runs):
    from structaware_readers.mineru import read_mineru

    monkeypatch.setenv(mineru_pdf.CACHE_DIR_ENV, str(tiny_run["cache"]))
    monkeypatch.delenv(mineru_pdf.API_URL_ENV, raising=False)
    doc = read_mineru(TINY)
    assert runs.calls == []  # served from the cache the module fixture filled
    assert doc.model_dump() == tiny_run["first"].model_dump()
    assert read_mineru(TINY, name="custom").name == "custom"


@pytest.mark.slow
def test_synthetic_guideline_headings_recommendations_and_continued_table(tmp_path, runs):
    doc = mineru_pdf.parse_pdf(SYNTH_EN, cache_dir=tmp_path, timeout=120)
    assert len(runs.calls) == 1
    assert doc.doc_id == doc_id_from_file(SYNTH_EN) and doc.name == "synthetic_guideline_en"
    assert doc.page_count == 4
    heads = _headings(doc)
    for h in ("1 Introduction", "2 Diagnosis", "2.1 Blood pressure measurement",
              "2.1.1 Confirming the diagnosis", "3 Treatment", "3.1 Drug treatment targets"):  # fmt: skip
        assert h in heads
    assert heads.index("2 Diagnosis") < heads.index("2.1.1 Confirming the diagnosis") < heads.index("3 Treatment")
    body = "\n".join(b.text for b in doc.body_blocks())
    assert "Recommendation 1.1: Measure blood pressure in both arms" in body
    assert "Recommendation 2.1" in body and "Recommendation 3.1" in body
    # the running header is page furniture on every page, never body text
    headers = [b for b in doc.blocks if b.kind is BlockKind.HEADER]
    assert {b.page for b in headers} == {1, 2, 3, 4}
    assert all("Synthetic Guideline on Hypertension v1.0" in b.text for b in headers)
    # the 61-row table starts on page 3 and continues on page 4 (MinerU 4.x: continues_prev)
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    covered = {p for t in tables for p in (t.page, *t.extra_pages)}
    assert {3, 4} <= covered
    first_row = _grid(tables[0])[0]
    assert first_row[:4] == ["Population", "Clinic target", "ABPM target", "Grade"]
    assert sum(len(t.table.body_rows) for t in tables if t.table) >= 60


def test_pdf_without_pdf_suffix_is_recognised_by_its_header(tmp_path, runs):
    odd = tmp_path / "tiny_heading_table.bin"
    odd.write_bytes(TINY.read_bytes())
    doc = mineru_pdf.parse_pdf(odd, use_cache=False, timeout=120)
    assert len(runs.calls) == 1
    assert doc.name == "tiny_heading_table" and doc.doc_id == doc_id_from_file(TINY)
    assert "1.1 Blood pressure targets" in _headings(doc)
    assert not (tmp_path / "mineru").exists()


# ---------------------------------------------------------------------------- errors
def test_missing_file_raises_input_not_found(tmp_path, runs):
    missing = tmp_path / "nope.pdf"
    with pytest.raises(InputNotFoundError) as err:
        mineru_pdf.parse_pdf(missing, cache_dir=tmp_path)
    assert str(missing) in str(err.value)
    assert runs.calls == []


def test_text_file_renamed_pdf_raises_unknown_format_without_running_mineru(tmp_path, runs):
    fake = tmp_path / "notes.pdf"
    fake.write_text("Recommendation 1: this is a text file, not a PDF.\n", encoding="utf-8")
    with pytest.raises(UnknownFormatError) as err:
        mineru_pdf.parse_pdf(fake, cache_dir=tmp_path)
    assert err.value.path == str(fake) and err.value.field == "magic bytes"
    assert "not a PDF" in str(err.value)
    assert runs.calls == []


def test_corrupt_pdf_raises_malformed_input_with_mineru_message(tmp_path, runs):
    with pytest.raises(MalformedInputError) as err:
        mineru_pdf.parse_pdf(CORRUPT, cache_dir=tmp_path, timeout=120)
    assert len(runs.calls) == 1
    assert err.value.path == str(CORRUPT)
    assert "Failed to load document (PDFium: Data format error)" in str(err.value)
    assert not list(tmp_path.rglob("*.json")), "a failed run must not be cached"


@pytest.mark.shared
@pytest.mark.skipif(not SCANNED.is_file(), reason=f"scanned PDF not available at {SCANNED}")
def test_scanned_pdf_under_flash_fails_fast_with_a_clear_message(tmp_path, runs):
    # a generous time-out keeps the test from hanging if MinerU ever retries downloads again
    with pytest.raises(ParserUnavailableError) as err:
        mineru_pdf.parse_pdf(SCANNED, cache_dir=tmp_path, timeout=90)
    message = str(err.value)
    assert err.value.path == str(SCANNED) and err.value.field == "mineru tier=flash"
    assert "not ready" in message and "OCR" in message
    assert "did not finish" not in message  # it failed on its own, not by our time-out


def test_model_tier_without_models_names_the_tier(tmp_path):
    with pytest.raises(ParserUnavailableError) as err:
        mineru_pdf.parse_pdf(TINY, tier="basic", cache_dir=tmp_path, timeout=120)
    assert err.value.field == "mineru tier=basic"
    assert "tier 'basic' needs MinerU's models" in str(err.value)


def test_timeout_stops_mineru_and_raises(tmp_path):
    with pytest.raises(ParserUnavailableError) as err:
        mineru_pdf.parse_pdf(SYNTH_EN, cache_dir=tmp_path, timeout=0.3)
    assert "did not finish within 0.3 s" in str(err.value)
    assert not list(tmp_path.rglob("*.json"))


def test_mineru_not_installed_names_the_package(monkeypatch, tmp_path):
    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(mineru_pdf.metadata, "version", not_installed)
    monkeypatch.delenv(mineru_pdf.API_URL_ENV, raising=False)
    with pytest.raises(ParserUnavailableError) as err:
        mineru_pdf.parse_pdf(TINY, cache_dir=tmp_path)
    assert err.value.field == "mineru"
    assert isinstance(err.value, ImportError)  # MissingExtraError: an ImportError naming the extra
    assert "needs the 'mineru' package: pip install 'structaware[mineru]'" in str(err.value)


def test_all_errors_are_structaware_errors():
    for exc in (InputNotFoundError, UnknownFormatError, MalformedInputError, ParserUnavailableError):
        assert issubclass(exc, StructawareError)


# ---------------------------------------------------------------------------- the cache on its own
@pytest.mark.shared
@pytest.mark.skipif(not MINERU_FIXTURES.is_dir(), reason="../shared/fixtures/mineru is absent")
def test_cache_round_trip_and_keying_on_real_mineru_json(tmp_path):
    middle = json.loads(
        (MINERU_FIXTURES / "mineru-4.0.12_flash-tier_tiny_heading_table" / "middle_json.json").read_text("utf-8")
    )
    cache = mineru_pdf.ParseCache(tmp_path)
    doc_id = doc_id_from_file(TINY)
    entry = cache.store(doc_id, "flash", "4.0.12", middle, pdf=TINY)
    assert entry == tmp_path / "mineru" / doc_id / "flash-4.0.12.json"
    assert cache.load(doc_id, "flash", "4.0.12") == middle
    assert cache.load(doc_id, "basic", "4.0.12") is None  # another tier
    assert cache.load(doc_id, "flash", "4.0.13") is None  # another MinerU version
    assert cache.load("0" * 16, "flash", "4.0.12") is None  # another PDF
    entry.write_text('{"format": 1, "doc_id": "', encoding="utf-8")  # a torn write
    assert cache.load(doc_id, "flash", "4.0.12") is None


def test_cache_dir_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(mineru_pdf.CACHE_DIR_ENV, str(tmp_path / "envcache"))
    assert mineru_pdf.ParseCache().root == tmp_path / "envcache"
    monkeypatch.delenv(mineru_pdf.CACHE_DIR_ENV)
    assert mineru_pdf.default_cache_dir().name == "structaware"
