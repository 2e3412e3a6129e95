"""Client for a ``mineru-api`` server (MinerU 4.x V1 API), over httpx; MinerU need not be installed."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from structaware_readers.errors import MalformedInputError, ParserUnavailableError
from structaware_readers.mineru.failures import INPUT_ERROR_CODES, mineru_failure

#: Seconds a whole parse may take (HTTP read time-out and job wait budget).
DEFAULT_TIMEOUT = 600.0
#: Seconds between two polls of a running job.
DEFAULT_POLL_INTERVAL = 1.0
#: Output formats the V1 API can inline or package.
OUTPUT_FORMATS = frozenset({"middle_json", "markdown", "structured_content", "zip"})
#: Job states after which nothing changes any more.
TERMINAL_STATUSES = frozenset({"completed", "partial", "failed", "canceled"})
_MAX_WAIT_TIMEOUT = 3600  # the server's upper bound for ``wait_timeout`` (seconds)


@dataclass
class FileParseResult:
    """One file's result from the V1 API."""

    name: str
    status: str
    parser_version: str = ""
    middle_json: dict[str, Any] | None = None
    markdown: str | None = None
    structured_content: dict[str, Any] | list[Any] | None = None
    output_files: dict[str, Any] = field(default_factory=dict)
    task_id: str = ""


class MinerUApiClient:
    """A small synchronous client for MinerU's V1 parse API (``mineru-api``); ``timeout`` in seconds for one parse,
    ``api_key`` sent as a Bearer token. Every method raises ``ParserUnavailableError`` (unreachable, HTTP error,
    engine failure, time-out) or ``MalformedInputError``, naming the file or URL and the server's message.
    """

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        tier: str = "flash",
        poll_interval: float = DEFAULT_POLL_INTERVAL,
    ) -> None:
        root = base_url.strip().rstrip("/")
        if root.endswith("/v1"):
            root = root[: -len("/v1")]
        if not root.startswith(("http://", "https://")):
            raise ParserUnavailableError(
                "MinerU API URL must start with http:// or https://", path=base_url, field="api_url"
            )
        self.base_url = root
        self.tier = tier
        self.timeout = float(timeout)
        self.poll_interval = float(poll_interval)
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            base_url=root,
            headers=headers,
            timeout=httpx.Timeout(self.timeout, connect=min(10.0, self.timeout)),
        )
        self._version: str | None = None

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the underlying HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> MinerUApiClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ endpoints
    def health(self) -> dict[str, Any]:
        """``GET /v1/health``: ``{"status": "ok", "version": str, "features": {...}}``. Raises
        ``ParserUnavailableError``.
        """
        data = self._json(self._request("GET", "/v1/health"), path=None)
        if data.get("status") != "ok" or not isinstance(data.get("version"), str):
            raise ParserUnavailableError(
                f"MinerU API is not healthy: {data!r:.200}", path=self.base_url, field="/v1/health"
            )
        self._version = data["version"]
        return data

    @property
    def version(self) -> str:
        """MinerU version the server reports (one ``/v1/health`` call, then cached)."""
        if self._version is None:
            self.health()
        assert self._version is not None
        return self._version

    def parse_file(
        self,
        path: str | Path,
        *,
        output_formats: Iterable[str] = ("middle_json",),
        page_range: str | None = None,
        mode: Literal["sync", "job"] = "sync",
    ) -> dict[str, Any]:
        """Parse one file on the server and return its MinerU 4.x middle JSON (``docvortex.middle``)."""
        formats = ("middle_json", *[f for f in output_formats if f != "middle_json"])
        result = self.parse_file_result(path, output_formats=formats, page_range=page_range, mode=mode)
        assert result.middle_json is not None
        return result.middle_json

    def parse_file_result(
        self,
        path: str | Path,
        *,
        output_formats: Iterable[str] = ("middle_json",),
        page_range: str | None = None,
        mode: Literal["sync", "job"] = "sync",
    ) -> FileParseResult:
        """Parse one file and return every requested output (see :class:`FileParseResult`). Raises
        ``ParserUnavailableError``.
        """
        p = Path(path)
        formats = list(dict.fromkeys(output_formats))
        unknown = [f for f in formats if f not in OUTPUT_FORMATS]
        if unknown or not formats:
            raise ParserUnavailableError(
                f"unsupported output formats {unknown or formats}; use {sorted(OUTPUT_FORMATS)}",
                path=p,
                field="output_formats",
            )
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise ParserUnavailableError(f"cannot read the file to upload: {exc}", path=p, field="file") from exc
        deadline = time.monotonic() + self.timeout
        params: list[tuple[str, str | int]] = [("tier", self.tier), ("filename", p.name)]
        params += [("output_formats", f) for f in formats]
        if page_range:
            params.append(("page_range", page_range))
        if mode == "sync":
            params.append(("wait_timeout", max(1, min(_MAX_WAIT_TIMEOUT, math.ceil(self.timeout)))))
            url = "/v1/file_parse"
        elif mode == "job":
            url = "/v1/tasks"
        else:
            raise ValueError(f"mode must be 'sync' or 'job', not {mode!r}")
        response = self._request(
            "POST", url, path=p, params=params, content=data,
            headers={"Content-Type": "application/octet-stream"},
        )  # fmt: skip
        payload = self._task_payload(response, path=p)
        if response.status_code == 202 or payload.get("status") not in TERMINAL_STATUSES:
            payload = self.wait_task(str(payload.get("task_id", "")), path=p, deadline=deadline)
        return self._file_result(payload, path=p, formats=formats)

    def submit_task(self, path: str | Path, *, output_formats: Iterable[str] = ("middle_json",)) -> str:
        """Job API: upload one file to ``POST /v1/tasks`` and return the server's ``task_id``."""
        p = Path(path)
        params: list[tuple[str, str | int]] = [("tier", self.tier), ("filename", p.name)]
        params += [("output_formats", f) for f in dict.fromkeys(output_formats)]
        response = self._request(
            "POST", "/v1/tasks", path=p, params=params, content=p.read_bytes(),
            headers={"Content-Type": "application/octet-stream"},
        )  # fmt: skip
        task_id = self._task_payload(response, path=p).get("task_id")
        if not isinstance(task_id, str) or not task_id:
            raise ParserUnavailableError("MinerU API returned no task_id", path=p, field="/v1/tasks")
        return task_id

    def wait_task(
        self, task_id: str, *, path: str | Path | None = None, deadline: float | None = None
    ) -> dict[str, Any]:
        """Job API: poll ``GET /v1/tasks/{task_id}/result`` until the task is finished."""
        if not task_id:
            raise ParserUnavailableError("MinerU API returned no task_id", path=path, field="task")
        end = deadline if deadline is not None else time.monotonic() + self.timeout
        while True:
            response = self._request("GET", f"/v1/tasks/{task_id}/result", path=path)
            payload = self._task_payload(response, path=path)
            if response.status_code != 202 and payload.get("status") in TERMINAL_STATUSES:
                return payload
            if time.monotonic() >= end:
                raise ParserUnavailableError(
                    f"MinerU task {task_id} did not finish within {self.timeout:g} s "
                    f"(status {payload.get('status')!r})",
                    path=path,
                    field=f"mineru tier={self.tier}",
                )
            time.sleep(self.poll_interval)

    def download_output(self, file_id: str, *, path: str | Path | None = None) -> bytes:
        """``GET /v1/files/{file_id}/content``: the bytes of one output file (e.g. the zip package)."""
        return self._request("GET", f"/v1/files/{file_id}/content", path=path).content

    # ------------------------------------------------------------------ internals
    def _request(self, method: str, url: str, *, path: str | Path | None = None, **kwargs: Any) -> httpx.Response:
        """Send one request; transport errors and HTTP errors (except 202/409) become typed errors."""
        where = path if path is not None else self.base_url
        try:
            response = self._http.request(method, url, **kwargs)
        except httpx.TimeoutException as exc:
            raise ParserUnavailableError(
                f"MinerU API at {self.base_url} did not answer {method} {url} within {self.timeout:g} s",
                path=where,
                field="mineru-api",
            ) from exc
        except httpx.HTTPError as exc:
            raise ParserUnavailableError(
                f"cannot reach MinerU API at {self.base_url}: {exc}", path=where, field="mineru-api"
            ) from exc
        if response.status_code in (200, 202, 409):
            return response
        code, message = _error_message(response)
        if code in INPUT_ERROR_CODES:
            raise MalformedInputError(
                f"MinerU API rejected the document (HTTP {response.status_code} {code}): {message}",
                path=where,
                field=url,
            )
        raise ParserUnavailableError(
            f"MinerU API error HTTP {response.status_code}{f' {code}' if code else ''}: {message}",
            path=where,
            field=url,
        )

    def _json(self, response: httpx.Response, *, path: str | Path | None) -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError as exc:
            raise ParserUnavailableError(
                f"MinerU API returned non-JSON (HTTP {response.status_code}): {response.text[:200]!r}",
                path=path if path is not None else self.base_url,
                field=str(response.request.url.path),
            ) from exc
        if not isinstance(data, dict):
            raise ParserUnavailableError(
                f"MinerU API returned {type(data).__name__}, expected an object",
                path=path if path is not None else self.base_url,
                field=str(response.request.url.path),
            )
        return data

    def _task_payload(self, response: httpx.Response, *, path: Path | str | None) -> dict[str, Any]:
        payload = self._json(response, path=path)
        if "error" in payload and "files" not in payload:  # a plain error body with 409
            code, message = _error_message(response)
            raise ParserUnavailableError(f"MinerU API error {code}: {message}", path=path, field="task")
        return payload

    def _file_result(self, payload: Mapping[str, Any], *, path: Path, formats: list[str]) -> FileParseResult:
        files = payload.get("files")
        if not isinstance(files, list) or not files or not isinstance(files[0], dict):
            raise ParserUnavailableError(
                f"MinerU API task {payload.get('task_id')} returned no files (status {payload.get('status')!r})",
                path=path,
                field="files",
            )
        entry = files[0]
        error = entry.get("error")
        if entry.get("status") != "completed" or error:
            err = error if isinstance(error, dict) else {}
            message = str(err.get("message") or f"file status {entry.get('status')!r}, task {payload.get('status')!r}")
            raise mineru_failure(message, path=path, tier=self.tier, code=err.get("code"))
        content = entry.get("content") or {}
        parse_info = entry.get("parse") or {}
        result = FileParseResult(
            name=str(entry.get("name", path.name)),
            status="completed",
            parser_version=str(parse_info.get("parser_version") or ""),
            middle_json=content.get("middle_json"),
            markdown=content.get("markdown"),
            structured_content=content.get("structured_content"),
            output_files={k: v for k, v in (entry.get("output_files") or {}).items() if v},
            task_id=str(payload.get("task_id", "")),
        )
        if "middle_json" in formats and not isinstance(result.middle_json, dict):
            raise ParserUnavailableError(
                "MinerU API result has no content.middle_json object", path=path, field="content.middle_json"
            )
        return result


def _error_message(response: httpx.Response) -> tuple[str, str]:
    """``(code, message)`` from a V1 error body, a FastAPI ``detail`` body, or the raw text."""
    try:
        body = response.json()
    except ValueError:
        return "", response.text.strip()[:300] or response.reason_phrase
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict):
            return str(err.get("code") or err.get("type") or ""), str(err.get("message") or "")
        if "detail" in body:
            return "", str(body["detail"])[:300]
    return "", str(body)[:300]


def parse_pdf_via_api(
    path: str | Path,
    *,
    base_url: str,
    api_key: str | None = None,
    tier: str = "flash",
    timeout: float = DEFAULT_TIMEOUT,
    want_zip: bool = False,
    client: MinerUApiClient | None = None,
) -> tuple[dict[str, Any], str, bytes | None]:
    """The remote route of :func:`structaware_readers.mineru.pdf.parse_pdf`.

    Returns ``(middle_json, parser_version, zip_bytes_or_None)``; the zip package (markdown,
    middle JSON, structured content, images) is fetched only when ``want_zip``.
    """
    own = client is None
    api = client or MinerUApiClient(base_url, api_key=api_key, timeout=timeout, tier=tier)
    try:
        formats = ["middle_json", "zip"] if want_zip else ["middle_json"]
        result = api.parse_file_result(path, output_formats=formats)
        package = None
        if want_zip:
            ref = result.output_files.get("zip") or {}
            if not ref.get("file_id"):
                raise ParserUnavailableError("MinerU API listed no zip output", path=path, field="output_files.zip")
            package = api.download_output(str(ref["file_id"]), path=path)
        assert result.middle_json is not None
        return result.middle_json, result.parser_version or api.version, package
    finally:
        if own:
            api.close()
