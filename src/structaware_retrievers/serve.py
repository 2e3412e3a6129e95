"""``structaware serve``: a long-lived local HTTP endpoint over one index, for agents and scripts.

A ``structaware query`` process pays for Python, the model session and the shard on every call
(about a second); a server pays once and answers in milliseconds. Standard library only
(``http.server``), JSON in and out, bound to ``127.0.0.1`` by default (no authentication: do not
expose it to a network you do not trust).

Endpoints:

* ``GET /health`` -> ``{"status": "ok", "index": <location>, "units": <count>}``
* ``GET /documents`` -> ``{"documents": [{"doc_id", "doc_name", "source", "units"}, ...]}``
* ``POST /query`` with a JSON body ``{"text": str, "k": int = 5, "mode": "hybrid"|"dense"|"sparse",
  "fusion": "rrf"|"dbsf", "rrf_k": int = 2, "prefetch_limit": int = 50, "weights": [dense, bm25],
  "budget_chars": int, "expand": bool = false, "group_size": int = 3, "filter": {...}}`` (the arguments of
  :meth:`StructureIndex.query <structaware_retrievers.index.StructureIndex.query>`), where
  ``filter`` holds :class:`~structaware_retrievers.filters.SearchFilter` fields (``doc_ids``,
  ``doc_names``, ``page_from``, ``page_to``, ``unit_types``, ``grades``); or ``GET /query?text=...&k=5``
  with the scalar fields as URL parameters (``weights=0.5,1``, ``expand=true``). Answer:
  ``{"hits": [record, ...]}``, one :meth:`SearchHit.to_record <structaware_retrievers.index.SearchHit.to_record>`
  per hit, best first (the fields of ``structaware query --json``; a hit with table-group rows holds
  them: :func:`~structaware_retrievers.evidence.hit_unit`); with ``expand``, also
  ``"evidence"``: every unit handed over, each hit's unit then its neighbours, each unit once, as
  ``structaware query --expand --json`` prints them (a record plus ``expanded_from``: ``null``, or
  the unit id of the hit it neighbours).

Errors are JSON ``{"error": <class>, "message": ..., "field": ..., "detail": <one line>}``: 400 for a
bad request (:class:`~structaware_readers.errors.MalformedInputError`, bad JSON, unknown parameter),
404 for an unknown path or a missing/empty index, 500 otherwise. The index is opened once (one
process may hold an embedded index folder: stop the server before ingesting into the same folder).
``structaware serve`` advertises itself beside an index folder, so ``structaware query`` on that
folder asks it (:mod:`structaware_retrievers.serve_client`).
"""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from structaware_readers.errors import IndexNotFoundError, MalformedInputError, StructawareError
from structaware_readers.limits import clean_text
from structaware_retrievers.evidence import evidence_units
from structaware_retrievers.filters import SearchFilter
from structaware_retrievers.index import StructureIndex

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
}


class _BadRequest(Exception):
    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def _query_args(raw: dict[str, Any]) -> dict[str, Any]:
    """Check and convert the fields of a query request into :meth:`StructureIndex.query` arguments."""
    unknown = sorted(set(raw) - set(_QUERY_FIELDS) - {"filter"})
    if unknown:
        raise _BadRequest(f"unknown field(s) {unknown}; expected {sorted([*_QUERY_FIELDS, 'filter'])}", unknown[0])
    args: dict[str, Any] = {"k": 5}
    for name, kind in _QUERY_FIELDS.items():
        if name not in raw:
            continue
        value = raw[name]
        if isinstance(value, str) and kind is not str:  # a URL parameter
            value = _from_text(name, kind, value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise _BadRequest(f"expected {kind.__name__}, got {type(value).__name__}", name)
        if name == "weights":
            if len(value) != 2 or not all(isinstance(w, (int, float)) and not isinstance(w, bool) for w in value):
                raise _BadRequest(f"expected two numbers [dense, bm25], got {value!r}", name)
            value = (float(value[0]), float(value[1]))
        args[name] = value
    if "text" not in args:
        raise _BadRequest("missing the query text", "text")
    args["text"] = clean_text(args["text"])  # a JSON "\ud800" escape gives a lone surrogate: U+FFFD
    flt = raw.get("filter")
    if flt is not None:
        if not isinstance(flt, dict):
            raise _BadRequest("expected an object of SearchFilter fields", "filter")
        args["filter"] = SearchFilter(**flt)
    return args


def _from_text(name: str, kind: type, value: str) -> Any:
    try:
        if kind is int:
            return int(value)
        if kind is bool and value.lower() in ("true", "1", "false", "0"):
            return value.lower() in ("true", "1")
        if kind is list:
            return [float(x) for x in value.split(",")]
    except ValueError:
        pass
    raise _BadRequest(f"expected {kind.__name__}, got {value!r}", name)


class QueryServer(ThreadingHTTPServer):
    """A threading HTTP server answering queries over one open :class:`StructureIndex`."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], index: StructureIndex) -> None:
        self.index = index
        self.lock = threading.Lock()  # one search at a time: the store and the model are shared
        super().__init__(address, _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


class _Handler(BaseHTTPRequestHandler):
    server: QueryServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass  # quiet: a request log line per query is noise for an agent's tool

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8", errors="replace")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, exc: BaseException, field: str | None = None) -> None:
        message = exc.message if isinstance(exc, StructawareError) else str(exc)
        field = field or getattr(exc, "field", None)
        detail = str(exc) if isinstance(exc, StructawareError) else f"{field}: {message}" if field else message
        self._send(status, {"error": type(exc).__name__, "message": message, "field": field, "detail": detail})

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
                args = _query_args(params)
                with self.server.lock:
                    hits = index.query(args.pop("text"), **args)
                body: dict[str, Any] = {"hits": [h.to_record() for h in hits]}
                if args.get("expand"):
                    body["evidence"] = [{**h.to_record(u), "expanded_from": via} for h, u, via in evidence_units(hits)]
                self._send(HTTPStatus.OK, body)
            else:
                self._send(HTTPStatus.NOT_FOUND, {"error": "NotFound", "message": f"no endpoint {route}", "field": None})
        except _BadRequest as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc, exc.field)
        except IndexNotFoundError as exc:
            self._error(HTTPStatus.NOT_FOUND, exc)
        except MalformedInputError as exc:
            self._error(HTTPStatus.BAD_REQUEST, exc)
        except Exception as exc:  # noqa: BLE001 - answered as 500, the server stays up
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, exc)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self._dispatch(parts.path.rstrip("/") or "/", params)

    def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
        route = urlsplit(self.path).path.rstrip("/")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_BODY:
            self.close_connection = True
            self._error(HTTPStatus.BAD_REQUEST, _BadRequest(f"body must be 0..{_MAX_BODY} bytes"), "Content-Length")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as exc:
            self._error(HTTPStatus.BAD_REQUEST, _BadRequest(f"invalid JSON: {exc}"), "body")
            return
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, _BadRequest("expected a JSON object"), "body")
            return
        self._dispatch(route, body)


def make_server(index: StructureIndex, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> QueryServer:
    """Bind a :class:`QueryServer` (``port=0`` picks a free port; see ``server.url``).

    The dense model is loaded before this returns when the index holds units, so the first query
    is as fast as the others. Serve with ``server.serve_forever()``; stop with ``server.shutdown()``
    from another thread, then ``server.server_close()``.

    Raises:
        OSError: the address is in use or cannot be bound.
    """
    server = QueryServer((host, port), index)
    if index.count():
        index.dense.embed_query("warm up")
    return server
