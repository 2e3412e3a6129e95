"""Run MinerU on a PDF (locally, or on a ``mineru-api`` server) and read the result, with a cache."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

from structaware_readers.common.user_cache import CACHE_DIR_ENV, write_replace
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MissingExtraError,
    ParserUnavailableError,
    UnknownFormatError,
)
from structaware_readers.ids import doc_id_from_file
from structaware_readers.mineru import in_process
from structaware_readers.mineru.api_client import MinerUApiClient, parse_pdf_via_api
from structaware_readers.mineru.failures import mineru_failure
from structaware_readers.mineru.parse_cache import ParseCache, default_cache_dir
from structaware_readers.models import ParsedDocument

#: Seconds one MinerU run (local or remote) may take before it is stopped.
DEFAULT_TIMEOUT = 900.0
#: Env var naming a ``mineru-api`` server to use instead of a local MinerU.
API_URL_ENV = "STRUCTAWARE_MINERU_API"
#: Env var with the Bearer key for that server.
API_KEY_ENV = "STRUCTAWARE_MINERU_API_KEY"
#: The PyPI distribution (and import package) that provides MinerU.
MINERU_PACKAGE = "mineru"
_KIT_SCRIPT = "mineru-kit"
_PDF_MAGIC = b"%PDF-"
_MAGIC_WINDOW = 1024  # the PDF header may follow a little junk (PDF 1.7, 7.5.2 implementation note)
_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d")


# ---------------------------------------------------------------------------- public entry point
def parse_pdf(
    path: str | Path,
    *,
    tier: str = "flash",
    cache_dir: str | Path | None = None,
    api_url: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    keep_output: str | Path | None = None,
    use_cache: bool = True,
    allow_model_download: bool = False,
) -> ParsedDocument:
    """Parse a PDF with MinerU and return it as a :class:`ParsedDocument` (1-based pages, bboxes 0..1, top-left).

    ``tier`` ``"flash"`` (default) needs no models; others need MinerU's models. ``api_url`` / ``api_key`` (env
    ``STRUCTAWARE_MINERU_API``, ``STRUCTAWARE_MINERU_API_KEY``) parse on a ``mineru-api`` server; ``timeout`` in
    seconds kills the run; ``keep_output`` also saves MinerU's output zip; ``doc_id`` hashes the PDF's bytes.
    Raises ``InputNotFoundError``, ``UnknownFormatError``, ``ParserUnavailableError`` (MinerU missing, server
    unreachable, models missing, timeout), ``MalformedInputError``, ``EmptyDocumentError``.
    """
    pdf = check_pdf(path)
    doc_id = doc_id_from_file(pdf)
    url = api_url or os.environ.get(API_URL_ENV) or None
    key = api_key or os.environ.get(API_KEY_ENV) or None
    cache = ParseCache(cache_dir) if use_cache else None
    zip_target = _zip_target(keep_output, pdf) if keep_output is not None else None

    client: MinerUApiClient | None = None
    try:
        if url:
            client = MinerUApiClient(url, api_key=key, timeout=timeout, tier=tier)
            version = client.version  # one /v1/health call: the cache key needs the server's version
        else:
            version = mineru_version()
        middle = cache.load(doc_id, tier, version) if cache else None
        if middle is not None and zip_target is not None:
            assert cache is not None
            if not cache.copy_zip(doc_id, tier, version, zip_target):
                middle = None  # the package is wanted but was not kept last time: run again
        if middle is None:
            package: bytes | None
            if client is not None:
                middle, doc_version, package = parse_pdf_via_api(
                    pdf, base_url=client.base_url, tier=tier, timeout=timeout,
                    want_zip=zip_target is not None, client=client,
                )  # fmt: skip
            elif in_process.enabled() and zip_target is None:  # a parse worker: MinerU already imported here
                middle, package = (
                    in_process.parse_in_process(pdf, tier=tier, allow_model_download=allow_model_download),
                    None,
                )
                doc_version = version
            else:
                middle, package = run_local(
                    pdf, tier=tier, timeout=timeout, want_zip=zip_target is not None,
                    allow_model_download=allow_model_download,
                )  # fmt: skip
                doc_version = version
            if cache:
                cache.store(doc_id, tier, version, middle, package=package, pdf=pdf, route="api" if url else "local")
            if zip_target is not None and package is not None:
                write_replace(zip_target, package)
            version = doc_version
    finally:
        if client is not None:
            client.close()

    return _to_document(middle, pdf=pdf, source=str(path), doc_id=doc_id, version=version, tier=tier)


# ---------------------------------------------------------------------------- checks and versions
def check_pdf(path: str | Path) -> Path:
    """Return ``path`` as a :class:`Path` after checking it is an existing PDF file. Raises ``InputNotFoundError``,
    ``UnknownFormatError``.
    """
    pdf = Path(path)
    if not pdf.is_file():
        what = "is a directory, not a PDF file" if pdf.is_dir() else "no such file"
        raise InputNotFoundError(what, path=path)
    with pdf.open("rb") as fh:
        head = fh.read(_MAGIC_WINDOW)
    if _PDF_MAGIC not in head:
        raise UnknownFormatError(
            f"not a PDF: no '%PDF-' header in the first {_MAGIC_WINDOW} bytes (starts with {head[:16]!r})",
            path=path,
            field="magic bytes",
        )
    return pdf


def mineru_version() -> str:
    """Version of the locally installed MinerU distribution (e.g. ``"4.0.12"``).

    Raises:
        MissingExtraError: the ``mineru`` package is not installed (``structaware[mineru]``).
    """
    try:
        return metadata.version(MINERU_PACKAGE)
    except metadata.PackageNotFoundError:
        raise MissingExtraError(
            MINERU_PACKAGE,
            "mineru",
            f"parsing a PDF locally (or pass api_url= / set {API_URL_ENV} to use a mineru-api server)",
        ) from None


def mineru_kit_command() -> list[str]:
    """Command prefix that runs MinerU's ``mineru-kit`` CLI with this interpreter.

    The entry point is read from the installed distribution's metadata, so it follows MinerU if
    it moves the CLI module. Raises :class:`ParserUnavailableError` when MinerU is missing.
    """
    mineru_version()
    eps = metadata.entry_points(group="console_scripts", name=_KIT_SCRIPT)
    ep = next(iter(eps), None)
    if ep is None or ":" not in ep.value:
        raise ParserUnavailableError(
            f"the installed '{MINERU_PACKAGE}' has no '{_KIT_SCRIPT}' command (MinerU 4.x is needed)",
            field=MINERU_PACKAGE,
        )
    module, _, attr = ep.value.partition(":")
    code = f"import sys; from {module} import {attr.strip()} as main; sys.exit(main())"
    return [sys.executable, "-c", code]


# ---------------------------------------------------------------------------- local run
def run_local(
    pdf: Path,
    *,
    tier: str = "flash",
    timeout: float = DEFAULT_TIMEOUT,
    want_zip: bool = False,
    allow_model_download: bool = False,
) -> tuple[dict[str, Any], bytes | None]:
    """Run MinerU locally on ``pdf``; return ``(middle_json, zip_bytes_or_None)``.

    With ``want_zip`` MinerU writes its full package and the middle JSON is read from it.
    Errors as in :func:`parse_pdf`.
    """
    with tempfile.TemporaryDirectory(prefix="structaware-mineru-") as tmp:
        work = Path(tmp)
        source = pdf
        if pdf.suffix.lower() != ".pdf":  # MinerU routes by file extension
            source = work / "input.pdf"
            shutil.copyfile(pdf, source)
        out = work / ("output.zip" if want_zip else "output.json")
        run_mineru_kit(
            source, out, tier=tier, output_format="zip" if want_zip else "middle_json",
            timeout=timeout, allow_model_download=allow_model_download, display_path=pdf,
        )  # fmt: skip
        if not out.is_file():
            raise ParserUnavailableError(
                "MinerU exited without error but wrote no output", path=pdf, field=f"mineru tier={tier}"
            )
        if want_zip:
            package = out.read_bytes()
            try:
                with zipfile.ZipFile(out) as zf:
                    raw = zf.read("middle_json.json")
            except (zipfile.BadZipFile, KeyError) as exc:
                raise ParserUnavailableError(
                    f"MinerU's zip package has no middle_json.json: {exc}", path=pdf, field="middle_json.json"
                ) from exc
        else:
            package, raw = None, out.read_bytes()
    try:
        middle = json.loads(raw)
    except ValueError as exc:
        raise ParserUnavailableError(f"MinerU wrote invalid JSON: {exc}", path=pdf, field="middle_json") from exc
    if not isinstance(middle, dict):
        raise ParserUnavailableError("MinerU's middle JSON is not an object", path=pdf, field="middle_json")
    return middle, package


def run_mineru_kit(
    pdf: Path,
    output: Path,
    *,
    tier: str,
    output_format: str = "middle_json",
    timeout: float = DEFAULT_TIMEOUT,
    allow_model_download: bool = False,
    display_path: Path | None = None,
) -> None:
    """``mineru-kit parse <pdf> -o <output> -f <output_format> --tier <tier>`` in a subprocess."""
    name = display_path or pdf
    cmd = [*mineru_kit_command(), "parse", str(pdf), "-o", str(output), "-f", output_format, "--tier", tier]
    env = dict(os.environ)
    env.update({"COLUMNS": "1000", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})  # one error line, plain
    if not allow_model_download:
        env["MINERU_MODEL_SOURCE"] = "local"
    popen_kw: dict[str, Any] = {"start_new_session": True}  # own process group: killed as a whole
    if os.name != "posix":
        popen_kw = {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, env=env, **popen_kw
        )
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_tree(proc)
            raise ParserUnavailableError(
                f"MinerU did not finish within {timeout:g} s and was stopped (raise timeout= for long PDFs)",
                path=name,
                field=f"mineru tier={tier}",
            ) from None
        except BaseException:
            _kill_tree(proc)
            raise
        if rc == 0:
            return
        err.seek(0)
        stderr = err.read().decode("utf-8", errors="replace")
    raise mineru_failure(_first_error_line(stderr, pdf) or f"mineru-kit exited with code {rc}", path=name, tier=tier)


def _kill_tree(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        proc.kill()
    proc.wait()


def _first_error_line(stderr: str, pdf: Path) -> str:
    """MinerU's message from ``mineru-kit`` stderr: the ``Error:`` line, else the last non-log line."""
    lines = [ln.rstrip() for ln in stderr.splitlines()]
    for i, line in enumerate(lines):
        if line.startswith("Error:"):
            parts = [line[len("Error:") :].strip()]
            for nxt in lines[i + 1 :]:  # a narrow terminal may still wrap it
                if not nxt.strip() or _LOG_LINE.match(nxt) or nxt.startswith("Error:"):
                    break
                parts.append(nxt.strip())
            message = " ".join(parts)
            prefix = f"Failed to parse {pdf}:"
            return message[len(prefix) :].strip() if message.startswith(prefix) else message
    rest = [ln.strip() for ln in lines if ln.strip() and not _LOG_LINE.match(ln)]
    return rest[-1] if rest else ""


def _zip_target(keep_output: str | Path, pdf: Path) -> Path:
    target = Path(keep_output).expanduser()
    return target / f"{pdf.stem}.mineru.zip" if target.is_dir() else target


# ---------------------------------------------------------------------------- conversion
def _to_document(
    middle: dict[str, Any], *, pdf: Path, source: str, doc_id: str, version: str, tier: str
) -> ParsedDocument:
    from structaware_readers.mineru import (
        parse_mineru_json,  # the package's reader; imported here: it imports this module lazily
    )

    hint = (
        f"MinerU (tier {tier}) found no text in this PDF; a scanned PDF needs OCR:"
        " pip install 'structaware[ocr]' (or MinerU's OCR tier and its models)"
    )
    try:
        doc = parse_mineru_json(middle, source=source, doc_id=doc_id, name=pdf.stem)
    except EmptyDocumentError as exc:
        raise EmptyDocumentError(f"{exc.message}: {hint}", path=pdf, field=exc.field or "blocks") from exc
    if doc.parser_version != version:
        doc = doc.model_copy(update={"parser_version": version})
    if not any(b.text.strip() or b.table is not None for b in doc.body_blocks()):
        raise EmptyDocumentError(hint, path=pdf, field="blocks")
    return doc


__all__ = [
    "API_KEY_ENV",
    "API_URL_ENV",
    "CACHE_DIR_ENV",
    "DEFAULT_TIMEOUT",
    "ParseCache",
    "check_pdf",
    "default_cache_dir",
    "mineru_kit_command",
    "mineru_version",
    "parse_pdf",
    "run_local",
    "run_mineru_kit",
]
