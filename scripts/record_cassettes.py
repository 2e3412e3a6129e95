"""Record the vcrpy cassettes of tests/test_mineru_api_client.py against a REAL local mineru-api.

Usage (from the repository root, in the dev environment where MinerU 4.x is installed):

    HF_HUB_OFFLINE=1 python scripts/record_cassettes.py

What it does:

1. starts ``mineru-api --host 127.0.0.1 --port 18765 --tier flash --api-key <test key>`` in its own
   process group, with ``MINERU_MODEL_SOURCE=local`` so that nothing is downloaded (the server
   runs offline; a scanned PDF then fails fast with MinerU's "model not ready" error);
2. waits for ``GET /v1/health``;
3. drives :class:`structaware_readers.mineru.api_client.MinerUApiClient` and
   :func:`structaware_readers.mineru.pdf.parse_pdf` against it inside ``vcr.use_cassette`` blocks,
   writing ``tests/cassettes/mineru_api/*.yaml`` (old cassettes are replaced);
4. stops the server.

Request bodies (the uploaded PDF bytes) are replaced by a short ``<N bytes, sha256 ...>`` note
before they are written, and the ``Authorization`` header is dropped; responses are kept as the
server sent them. The test key is a made-up value for this throw-away local server.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import vcr

from structaware_readers.errors import StructawareError
from structaware_readers.mineru.api_client import MinerUApiClient
from structaware_readers.mineru.pdf import parse_pdf

REPO = Path(__file__).resolve().parents[1]
CASSETTES = REPO / "tests" / "cassettes" / "mineru_api"
PDFS = REPO / "tests" / "fixtures" / "pdf"
SCANNED = REPO.parent / "shared" / "fixtures" / "pdf" / "zh_drainage_facility_maintenance_standard_draft.pdf"
TEST_API_KEY = "structaware-local-test-key"
DEFAULT_PORT = 18765


def strip_upload(request: vcr.request.Request) -> vcr.request.Request:
    """Replace an uploaded file's bytes by a note with its size and SHA-256."""
    body = request.body
    if body:
        raw = body if isinstance(body, bytes) else str(body).encode("utf-8")
        digest = hashlib.sha256(raw).hexdigest()
        request.body = f"<{len(raw)} bytes omitted by scripts/record_cassettes.py, sha256 {digest}>".encode()
    return request


def recorder() -> vcr.VCR:
    return vcr.VCR(
        cassette_library_dir=str(CASSETTES),
        record_mode="all",
        match_on=("method", "path", "query"),
        filter_headers=["authorization"],
        before_record_request=strip_upload,
        decode_compressed_response=True,
    )


def find_mineru_api() -> str:
    here = shutil.which("mineru-api", path=str(Path(sys.executable).parent)) or shutil.which("mineru-api")
    if not here:
        sys.exit("mineru-api not found: install MinerU 4.x (`pip install mineru`) in this environment")
    return here


def start_server(port: int, workdir: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, MINERU_MODEL_SOURCE="local", HF_HUB_OFFLINE="1")
    cmd = [
        find_mineru_api(), "--host", "127.0.0.1", "--port", str(port), "--tier", "flash",
        "--upload-dir", str(workdir / "uploads"), "--api-key", TEST_API_KEY,
    ]  # fmt: skip
    log = (workdir / "server.log").open("wb")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"mineru-api exited with {proc.returncode}; see {workdir / 'server.log'}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    sys.exit("mineru-api did not become healthy within 120 s")


def stop_server(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def record(name: str, action: Callable[[], object], *, expect: type[Exception] | None = None) -> None:
    path = CASSETTES / f"{name}.yaml"
    path.unlink(missing_ok=True)
    with recorder().use_cassette(path.name):
        try:
            action()
        except StructawareError as exc:
            if expect is None or not isinstance(exc, expect):
                raise
            print(f"  expected {type(exc).__name__}: {exc}")
        else:
            if expect is not None:
                raise SystemExit(f"{name}: expected {expect.__name__}, got success")
    print(f"recorded {path.relative_to(REPO)} ({path.stat().st_size} bytes)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    args = parser.parse_args()
    base = f"http://127.0.0.1:{args.port}"
    CASSETTES.mkdir(parents=True, exist_ok=True)
    tiny, corrupt = PDFS / "tiny_heading_table.pdf", PDFS / "corrupt_truncated.pdf"

    from structaware_readers.errors import MalformedInputError, ParserUnavailableError

    with tempfile.TemporaryDirectory(prefix="structaware-record-") as tmp:
        work = Path(tmp)
        server = start_server(args.port, work)
        try:
            client = MinerUApiClient(base, api_key=TEST_API_KEY, poll_interval=0.5)
            record("health", client.health)
            record(
                "file_parse_tiny",
                lambda: client.parse_file_result(tiny, output_formats=("middle_json", "markdown")),
            )
            record("task_tiny", lambda: client.parse_file_result(tiny, mode="job"))
            record("file_parse_corrupt", lambda: client.parse_file(corrupt), expect=MalformedInputError)
            if SCANNED.is_file():
                record("file_parse_scanned", lambda: client.parse_file(SCANNED), expect=ParserUnavailableError)
            else:
                print(f"skipped file_parse_scanned: {SCANNED} is absent")
            wrong = MinerUApiClient(base, api_key="not-the-key")
            record("bad_api_key", lambda: wrong.parse_file(tiny), expect=ParserUnavailableError)
            record(
                "parse_pdf_tiny",
                lambda: parse_pdf(tiny, api_url=base, api_key=TEST_API_KEY, cache_dir=work / "cache1"),
            )
            record(
                "parse_pdf_tiny_zip",
                lambda: parse_pdf(
                    tiny,
                    api_url=base,
                    api_key=TEST_API_KEY,
                    cache_dir=work / "cache2",
                    keep_output=work / "tiny.zip",
                ),
            )
            client.close()
            wrong.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
