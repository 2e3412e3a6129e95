"""``structaware serve``: a long-lived local HTTP endpoint over one index, for agents and scripts.

A server pays once for Python, the model and the shard that each ``structaware query`` process pays
per call. Standard library only (``http.server``), JSON in and out, bound to ``127.0.0.1`` by
default (no authentication: do not expose it to a network you do not trust).

Endpoints:

* ``GET /?q=...``: the search page (:mod:`~structaware_retrievers.serve.render`; other pages:
  :mod:`~structaware_retrievers.serve.pages`).
* ``GET /health``: ``{"status": "ok", "index": <location>, "units": <count>}``.
* ``GET /documents``: ``{"documents": [{"doc_id", "doc_name", "source", "units"}, ...]}``.
* ``POST /query`` with ``{"text": str, ...}``, the other keys the fields of
  :class:`~structaware_retrievers.search.options.SearchOptions` (``k`` defaults to 5; ``filter`` a
  filter object of :mod:`~structaware_retrievers.query.filters`), or ``GET /query?text=...&k=5`` with
  scalar fields as URL parameters. Answer: ``{"hits": [record, ...]}`` (``SearchHit.to_record``, as
  ``structaware query --json``), plus ``"evidence"`` with ``expand`` (each unit handed over once,
  with ``expanded_from``).

Errors are JSON ``{"error": <class>, "message", "field", "detail"}``, every key present: 400
``MalformedInputError`` (bad value, JSON or field; ``UnsupportedFilterError``/``UnknownFilterError``
with ``field`` ``filter.<key>``), 404 ``IndexNotFoundError``/``InputNotFoundError``, 500 otherwise.
The index is opened once; an ingest from another process works meanwhile and the next request
sees it (:mod:`~structaware_retrievers.store.edge_shard`). The server advertises itself beside the
index folder so ``structaware query`` asks it (:mod:`~structaware_retrievers.serve.client`).
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from structaware_readers.common.limits import clean_text
from structaware_readers.errors import InputNotFoundError, MalformedInputError, StructawareError
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.pictures.source_pdf import PdfArg
from structaware_retrievers.query.filters import to_point_filter
from structaware_retrievers.search.evidence import evidence_units
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.serve import pages as serve_pages
from structaware_retrievers.serve import render as serve_render

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "QueryServer", "make_server"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_MAX_BODY = 1 << 20  # bytes of a request body
_QUERY_FIELDS = {
    "text": str,
    "k": int,
    "mode": str,
    "fusion": str,
    "rrf_k": int,
    "prefetch_limit": int,
    "budget_chars": int,
    "expand": bool,
    "weights": list,
    "group_size": int,
    "rerank": bool,
    "min_score": float,
    "grade_focus": float,
}


def _reject_unknown(given: Any, accepted: list[str], note: str = "") -> None:
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise MalformedInputError(f"unknown field(s) {unknown}; expected any of {accepted}{note}", field=unknown[0])


def _query_args(raw: dict[str, Any], from_url: bool = False) -> tuple[str, SearchOptions]:
    """The question and the search options of a query request (``k`` 5 when not given).

    Raises:
        MalformedInputError: an unknown field (of the request or of its ``filter``; ``field`` names
            it, ``filter.<name>`` for a filter's), a missing ``text``, a value of the wrong type.
    """
    if from_url:  # URL parameters carry the scalar fields only
        _reject_unknown(raw, sorted(_QUERY_FIELDS), " (a filter needs POST /query)")
    else:
        _reject_unknown(raw, sorted([*_QUERY_FIELDS, "filter"]))
    args: dict[str, Any] = {"k": 5}  # the served default
    for name, kind in _QUERY_FIELDS.items():
        if name not in raw:
            continue
        value = raw[name]
        if isinstance(value, str) and kind is not str:  # a URL parameter
            value = _from_text(name, kind, value)
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # JSON 0 or 1
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise MalformedInputError(f"expected {kind.__name__}, got {type(value).__name__}", field=name)
        if name == "weights":
            if len(value) != 2 or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in value):
                raise MalformedInputError(f"expected two numbers [dense, bm25], got {value!r}", field=name)
            value = (float(value[0]), float(value[1]))
        args[name] = value
    if "text" not in args:
        raise MalformedInputError("missing the query text", field="text")
    text = clean_text(args.pop("text"))  # a JSON "\ud800" escape gives a lone surrogate: U+FFFD
    flt = raw.get("filter")
    if flt is not None:
        if not isinstance(flt, dict):
            raise MalformedInputError("expected a filter object (structaware_retrievers.query.filters)", field="filter")
        to_point_filter(flt)  # checked here: a bad filter is a 400 naming filter.<key>
        args["filter"] = flt
    return text, SearchOptions(**args)


def _from_text(name: str, kind: type, value: str) -> Any:
    try:
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
        if kind is bool and value.lower() in ("true", "1", "false", "0"):
            return value.lower() in ("true", "1")
        if kind is list:
            return [float(x) for x in value.split(",")]
    except ValueError:
        pass
    raise MalformedInputError(f"expected {kind.__name__}, got {value!r}", field=name)


class QueryServer(ThreadingHTTPServer):
    """A threading HTTP server answering queries over one open :class:`StructureIndex`."""

    daemon_threads = True
    #: Connections the kernel queues before they are accepted (``listen`` backlog; the standard
    #: library's 5 made a burst of clients connecting at once get connection resets).
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], index: StructureIndex, pdf: PdfArg = None) -> None:
        from structaware_retrievers.pictures.page_render import PageRenderer

        self.index = index
        self.pdf = pdf  # what /image hands to source_pdf: None = where the index says each document came from
        self.renderer = PageRenderer()  # the server's own page cache
        self.lock = threading.Lock()  # one search at a time: the store and the model are shared
        self._documents: tuple[int, list[dict[str, Any]]] | None = None  # (unit count, documents)
        super().__init__(address, _Handler)

    def documents(self) -> list[dict[str, Any]]:
        """:meth:`StructureIndex.documents` for the search page, listed again only when the index's unit
        count changed: the list reads every unit's payload, too much for every search of a large index.
        The caller holds :attr:`lock`."""
        count = self.index.count()
        if self._documents is None or self._documents[0] != count:
            self._documents = (count, self.index.documents())
        return self._documents[1]

    def server_close(self) -> None:
        super().server_close()
        self.renderer.close()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: QueryServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # the stdlib's parameter name
        pass  # quiet: a request log line per query is noise for an agent's tool

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8", errors="replace")
        self._send_bytes(status, data, "application/json; charset=utf-8")

    def _send_bytes(self, status: int, data: bytes, content_type: str, cache: str = "no-store") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, exc: BaseException) -> None:
        """Answer ``{"error", "message", "field", "detail"}``: ``error`` is the class name of a typed
        error (:mod:`structaware_readers.errors`), or ``InternalError`` for anything unexpected."""
        if isinstance(exc, StructawareError):
            name, message, field, detail = type(exc).__name__, exc.message, exc.field, str(exc)
        else:
            name, message, field, detail = "InternalError", str(exc), None, f"{type(exc).__name__}: {exc}"
        self._send(status, {"error": name, "message": message, "field": field, "detail": detail})

    def _dispatch(self, route: str, params: dict[str, Any] | None) -> None:
        index = self.server.index
        try:
            if route == "/health":
                with self.server.lock:
                    self._send(HTTPStatus.OK, {"status": "ok", "index": index.store.location, "units": index.count()})
            elif route == "/documents":
                with self.server.lock:
                    self._send(HTTPStatus.OK, {"documents": index.documents()})
            elif route == "/query" and params is not None:
                text, options = _query_args(params, from_url=self.command == "GET")
                with self.server.lock:
                    hits = index.query(text, options)
                body: dict[str, Any] = {"hits": [h.to_record() for h in hits]}
                if options.expand:
                    body["evidence"] = [{**h.to_record(u), "expanded_from": via} for h, u, via in evidence_units(hits)]
                self._send(HTTPStatus.OK, body)
            elif self.command == "GET" and params is not None and self._page(route, params):
                pass
            else:
                endpoints = (
                    "GET /health, GET /documents, GET or POST /query, GET / (the search page), GET /unit, GET /image"
                )
                raise InputNotFoundError(f"no endpoint {route!r}; expected {endpoints}", field="path")
        except Exception as exc:  # noqa: BLE001 - answered as 404, 400 or 500, the server stays up
            self._error(serve_pages.error_status(exc), exc)

    def _page(self, route: str, params: dict[str, Any]) -> bool:
        """The search page's routes (:mod:`structaware_retrievers.serve.pages`); ``False`` for another route."""
        found = serve_pages.asset(route)
        if route in ("/", "/index.html"):
            with self.server.lock:
                status, html = serve_render.render_page(self.server.index, params, documents=self.server.documents)
            self._send_bytes(status, html, "text/html; charset=utf-8")
        elif found is not None:
            self._send_bytes(HTTPStatus.OK, found[0], found[1], cache="no-cache")
        elif route == "/unit":
            with self.server.lock:
                self._send(HTTPStatus.OK, serve_pages.unit_answer(self.server.index, params))
        elif route == "/image":
            with self.server.lock:
                hit = serve_pages.image_hit(self.server.index, params)
            png = serve_pages.image_png(hit, params, pdf=self.server.pdf, renderer=self.server.renderer)
            self._send_bytes(HTTPStatus.OK, png, "image/png", cache="private, max-age=300")
        else:
            return False
        return True

    def do_GET(self) -> None:  # the stdlib's method name
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self._dispatch(parts.path.rstrip("/") or "/", params)

    def do_POST(self) -> None:  # the stdlib's method name
        route = urlsplit(self.path).path.rstrip("/")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_BODY:
            self.close_connection = True
            self._error(
                HTTPStatus.BAD_REQUEST,
                MalformedInputError(f"body must be 0..{_MAX_BODY} bytes", field="Content-Length"),
            )
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as exc:
            self._error(HTTPStatus.BAD_REQUEST, MalformedInputError(f"invalid JSON: {exc}", field="body"))
            return
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, MalformedInputError("expected a JSON object", field="body"))
            return
        self._dispatch(route, body)


def make_server(
    index: StructureIndex, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *, pdf: PdfArg = None
) -> QueryServer:
    """Bind a :class:`QueryServer` (``port=0`` picks a free port; see ``server.url``).

    ``pdf``: where ``GET /image`` finds the documents' PDFs when the index's record of each source is
    not enough (an index built from parser output): a PDF, a folder of ``<doc_name>.pdf`` files, or a
    mapping by ``doc_id``/``doc_name`` (:func:`~structaware_retrievers.pictures.source_pdf.source_pdf`).

    The dense model is loaded before this returns when the index holds units, so the first query
    is as fast as the others. Serve with ``server.serve_forever()``; stop with ``server.shutdown()``
    from another thread, then ``server.server_close()``.

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    server = QueryServer((host, port), index, pdf)
    if index.count():
        index.dense.embed_query("warm up")
    return server
