# Cassettes in tests/cassettes/mineru_api/ were recorded against a REAL local mineru-api server
# (MinerU 4.0.12, --tier flash, offline) with:
#
#     HF_HUB_OFFLINE=1 python scripts/record_cassettes.py
#
# The script starts the server, drives MinerUApiClient / parse_pdf through vcrpy, and stops it.
# Uploaded PDF bytes are replaced in the cassettes by a "<N bytes ..., sha256 ...>" note.
"""The mineru-api client and parse_pdf's remote route, replayed offline from recorded cassettes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
import vcr

from structaware_readers.errors import MalformedInputError, ParserUnavailableError
from structaware_readers.ids import doc_id_from_file
from structaware_readers.mineru import parse_mineru_json
from structaware_readers.mineru import pdf as mineru_pdf
from structaware_readers.mineru.api_client import MinerUApiClient, mineru_failure
from structaware_readers.models import BlockKind, ParsedDocument

REPO = Path(__file__).resolve().parents[1]
CASSETTES = REPO / "tests" / "cassettes" / "mineru_api"
PDFS = REPO / "tests" / "fixtures" / "pdf"
TINY = PDFS / "tiny_heading_table.pdf"
CORRUPT = PDFS / "corrupt_truncated.pdf"
SCANNED = REPO.parent / "shared" / "fixtures" / "pdf" / "zh_drainage_facility_maintenance_standard_draft.pdf"
BASE_URL = "http://127.0.0.1:18765"  # where the recording server listened (host/port are not matched)
API_KEY = "structaware-local-test-key"  # the recording server's made-up key (not stored in cassettes)

replay = vcr.VCR(
    cassette_library_dir=str(CASSETTES),
    record_mode="none",  # never touch the network: an unrecorded request fails the test
    match_on=("method", "path", "query"),
)


def cassette(name: str, **kwargs):
    path = CASSETTES / f"{name}.yaml"
    assert path.is_file(), f"missing cassette {path}: run `python scripts/record_cassettes.py`"
    return replay.use_cassette(path.name, **kwargs)


@pytest.fixture
def client():
    with MinerUApiClient(BASE_URL, api_key=API_KEY, poll_interval=0) as c:
        yield c


def _assert_tiny_document(doc: ParsedDocument) -> None:
    heads = [b.text for b in doc.blocks if b.kind is BlockKind.HEADING]
    assert {"1 Management of Hypertension", "1.1 Blood pressure targets"} <= set(heads)
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1 and tables[0].table is not None
    grid = tables[0].table.header_rows + tables[0].table.body_rows
    assert grid == [
        ["Population", "Clinic BP target", "Grade"],
        ["Age < 80", "< 140/90 mmHg", "A"],
        ["Age >= 80", "< 150/90 mmHg", "B"],
    ]
    assert all(b.page == 1 and b.bbox is not None for b in doc.blocks)


# ---------------------------------------------------------------------------- client, replayed
def test_health_reports_the_server_version(client):
    with cassette("health") as cas:
        data = client.health()
        assert client.version == "4.0.12"  # cached: no second request
    assert data["status"] == "ok"
    assert "middle_json" in data["features"]["output_formats"]
    assert cas.play_count == 1


def test_sync_file_parse_returns_middle_json_and_markdown(client):
    with cassette("file_parse_tiny") as cas:
        result = client.parse_file_result(TINY, output_formats=("middle_json", "markdown"))
    assert cas.all_played
    assert result.status == "completed" and result.name == "tiny_heading_table.pdf"
    assert result.parser_version == "4.0.12"
    assert result.middle_json is not None and result.middle_json["schema"] == "docvortex.middle"
    assert result.markdown is not None and "1.1 Blood pressure targets" in result.markdown
    doc = parse_mineru_json(result.middle_json, source=str(TINY), doc_id=doc_id_from_file(TINY), name=TINY.stem)
    _assert_tiny_document(doc)


def test_job_api_polls_until_completed_and_matches_the_sync_result(client):
    with cassette("task_tiny") as cas:
        middle = client.parse_file(TINY, mode="job")
    assert cas.all_played  # submit, a 202 "running" poll, then the finished result
    assert [r.uri.rsplit("/", 1)[-1].split("?")[0] for r in cas.requests] == ["tasks", "result", "result"]
    with cassette("file_parse_tiny"):
        sync_middle = client.parse_file(TINY, output_formats=("markdown",))
    assert middle["pages"] == sync_middle["pages"]


def test_corrupt_pdf_becomes_malformed_input_with_server_message(client):
    with cassette("file_parse_corrupt"), pytest.raises(MalformedInputError) as err:
        client.parse_file(CORRUPT)
    assert err.value.path == str(CORRUPT)
    assert err.value.field == "mineru tier=flash"
    assert "Failed to load document (PDFium: Data format error)" in str(err.value)


@pytest.mark.shared
@pytest.mark.skipif(not SCANNED.is_file(), reason=f"scanned PDF not available at {SCANNED}")
def test_scanned_pdf_on_flash_server_becomes_parser_unavailable(client):
    with cassette("file_parse_scanned"), pytest.raises(ParserUnavailableError) as err:
        client.parse_file(SCANNED)
    assert err.value.path == str(SCANNED)
    assert "Model repo MinerU-4_models_onnx is not ready" in str(err.value)
    assert "no text layer (scanned)" in str(err.value)


def test_wrong_api_key_is_reported_with_the_server_message():
    with (
        MinerUApiClient(BASE_URL, api_key="not-the-key") as wrong,
        cassette("bad_api_key"),
        pytest.raises(ParserUnavailableError) as err,
    ):
        wrong.parse_file(TINY)
    assert "HTTP 401 invalid_api_key: Invalid or missing API key" in str(err.value)
    assert err.value.path == str(TINY) and err.value.field == "/v1/file_parse"


# ---------------------------------------------------------------------------- parse_pdf, remote route
def test_parse_pdf_via_api_builds_the_document_and_caches_it(tmp_path, monkeypatch):
    calls: list[Path] = []
    real = mineru_pdf.parse_pdf_via_api

    def counting(path, **kwargs):
        calls.append(Path(path))
        return real(path, **kwargs)

    monkeypatch.setattr(mineru_pdf, "parse_pdf_via_api", counting)
    with cassette("parse_pdf_tiny", allow_playback_repeats=True):
        doc = mineru_pdf.parse_pdf(TINY, api_url=BASE_URL, api_key=API_KEY, cache_dir=tmp_path)
        again = mineru_pdf.parse_pdf(TINY, api_url=BASE_URL, api_key=API_KEY, cache_dir=tmp_path)
    assert len(calls) == 1, "the second parse must come from the cache"
    assert again.model_dump() == doc.model_dump()
    assert doc.doc_id == doc_id_from_file(TINY)
    assert doc.source == str(TINY) and doc.name == "tiny_heading_table"
    assert doc.parser_version == "4.0.12"
    _assert_tiny_document(doc)
    assert (tmp_path / "mineru" / doc.doc_id / "flash-4.0.12.json").is_file()


def test_parse_pdf_takes_the_api_url_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(mineru_pdf.API_URL_ENV, BASE_URL)
    monkeypatch.setenv(mineru_pdf.API_KEY_ENV, API_KEY)
    monkeypatch.setattr(mineru_pdf, "run_mineru_kit", _must_not_run)
    with cassette("parse_pdf_tiny") as cas:
        doc = mineru_pdf.parse_pdf(TINY, cache_dir=tmp_path)
    assert cas.all_played
    _assert_tiny_document(doc)


def test_parse_pdf_via_api_keeps_the_zip_package(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    with cassette("parse_pdf_tiny_zip") as cas:
        doc = mineru_pdf.parse_pdf(TINY, api_url=BASE_URL, api_key=API_KEY, cache_dir=tmp_path, keep_output=target)
    assert cas.all_played
    _assert_tiny_document(doc)
    with zipfile.ZipFile(target / "tiny_heading_table.mineru.zip") as zf:
        assert {"markdown.md", "middle_json.json"} <= set(zf.namelist())
        assert "Management of Hypertension" in zf.read("markdown.md").decode("utf-8")


# ---------------------------------------------------------------------------- no cassette needed
def test_unreachable_server_is_parser_unavailable():
    with (
        MinerUApiClient("http://127.0.0.1:9", timeout=5) as dead,  # the discard port: refused
        pytest.raises(ParserUnavailableError) as err,
    ):
        dead.health()
    assert "cannot reach MinerU API at http://127.0.0.1:9" in str(err.value)


def test_bad_url_and_unknown_output_format_are_rejected_before_any_request():
    with pytest.raises(ParserUnavailableError) as err:
        MinerUApiClient("127.0.0.1:8000")
    assert err.value.field == "api_url"
    with MinerUApiClient(BASE_URL) as c, pytest.raises(ParserUnavailableError) as err2:
        c.parse_file_result(TINY, output_formats=("docx",))
    assert err2.value.field == "output_formats"


def test_failure_messages_map_to_typed_errors():
    corrupt = mineru_failure("Failed to load document (PDFium: Data format error).", path="x.pdf", tier="flash")
    assert isinstance(corrupt, MalformedInputError)
    coded = mineru_failure("bad bytes", path="x.pdf", code="file_encrypted")
    assert isinstance(coded, MalformedInputError)
    models = mineru_failure("Model repo M is not ready under /m; missing: a.onnx", path="x.pdf", tier="standard")
    assert isinstance(models, ParserUnavailableError) and "tier 'standard' needs MinerU's models" in str(models)
    other = mineru_failure("Unsupported tier 'x'", path="x.pdf", tier="x")
    assert isinstance(other, ParserUnavailableError) and str(other).startswith("x.pdf: mineru tier=x: MinerU failed")


def _must_not_run(*args, **kwargs):
    raise AssertionError("the local MinerU must not run when an API URL is configured")
