"""The search page of ``structaware serve``: its script and style files, one hit by unit id, page images.

Routes (answered by :mod:`structaware_retrievers.serve.app`; nothing fetched from elsewhere, so the
page works offline): ``GET /`` the search page rendered with its hits, its state in the URL so every
search and hit has a stable link; ``GET /unit?unit=<id>[&with=<ids>]`` one unit as a ``POST /query``
record without rank or score; ``GET /image?unit=<id>[&page=N][&crop=true][&margin=..][&dpi=..]`` the
unit's outlined page as PNG (:func:`~structaware_retrievers.pictures.evidence_image.evidence_picture`).
Errors: an unknown unit id is ``InputNotFoundError`` (404), a PDF not at hand ``PdfNotFoundError``
(404), a bad parameter ``MalformedInputError`` (400).
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from structaware_readers.errors import IndexNotFoundError, InputNotFoundError, MalformedInputError
from structaware_readers.models import Unit

__all__ = [
    "IMAGE_FIELDS", "UNIT_FIELDS", "asset", "error_status", "hit_by_ids", "image_hit", "image_png", "unit_answer", "unit_ids",
]  # fmt: skip

_ASSETS = {
    "/assets/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/assets/app.css": ("app.css", "text/css; charset=utf-8"),
}
UNIT_FIELDS = ("unit", "with")
IMAGE_FIELDS = ("unit", "with", "page", "crop", "margin", "dpi")
#: Most unit ids one request may name (a table group is ``group_size`` rows).
MAX_UNITS = 50


def asset(route: str) -> tuple[bytes, str] | None:
    """``(content, content type)`` of the page's file at ``route``, or ``None`` for another route."""
    found = _ASSETS.get(route)
    if found is None:
        return None
    name, kind = found
    return resources.files("structaware_retrievers.web").joinpath(name).read_bytes(), kind


def error_status(exc: BaseException) -> int:
    """The HTTP status of an error, for the JSON answers and the page alike: 404 for an index or an
    input not found, 400 for a malformed request (a bad filter among them), 500 otherwise."""
    if isinstance(exc, (IndexNotFoundError, InputNotFoundError)):
        return 404
    return 400 if isinstance(exc, MalformedInputError) else 500


def _check(params: dict[str, str], accepted: tuple[str, ...]) -> None:
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise MalformedInputError(f"unknown field(s) {unknown}; expected any of {sorted(accepted)}", field=unknown[0])
    if not params.get("unit"):
        raise MalformedInputError("missing the unit id", field="unit")


def unit_ids(params: dict[str, str]) -> list[str]:
    """``[unit, *with]``: the unit id of ``params`` then its group rows' ids (``with``, comma-separated), each once.

    Raises:
        MalformedInputError: more than :data:`MAX_UNITS` ids (``field="with"``).
    """
    ids = [params["unit"], *(i.strip() for i in params.get("with", "").split(",") if i.strip())]
    if len(ids) > MAX_UNITS:
        raise MalformedInputError(f"at most {MAX_UNITS} unit ids, got {len(ids)}", field="with")
    return list(dict.fromkeys(ids))


def hit_by_ids(index: Any, ids: list[str]) -> Any:
    """A :class:`~structaware_retrievers.index.structure_index.SearchHit` (rank 1, score 0) of the unit ``ids[0]`` whose
    table-group rows are ``ids[1:]``, read from ``index``'s store (``structaware show --unit``, ``GET /unit``).

    Raises:
        MalformedInputError: an id that is not a UUID, or rows of another document (``field="with"``).
        InputNotFoundError: an id the index does not hold.
    """
    from structaware_retrievers.index.structure_index import SearchHit

    head, rest = _units(index, ids)
    return SearchHit(unit=head, score=0.0, rank=1, group=rest)


def _units(index: Any, ids: list[str]) -> tuple[Unit, list[Unit]]:
    """The unit ``ids[0]`` and its group rows ``ids[1:]``, read from the index's store."""
    import uuid

    for i in ids:
        try:
            uuid.UUID(i)
        except ValueError:
            raise MalformedInputError(f"not a unit id (a UUID): {i!r}", field="unit") from None
    found = {r.id: Unit.from_payload(r.payload) for r in index.store.retrieve(ids)} if index.store.exists() else {}
    missing = [i for i in ids if i not in found]
    if missing:
        raise InputNotFoundError(
            f"no unit {missing[0]} in {index.store.location} (re-ingested with other content, or deleted)",
            field="unit" if missing[0] == ids[0] else "with",
        )
    head, rest = found[ids[0]], [found[i] for i in ids[1:]]
    other = [u.unit_id for u in rest if u.doc_id != head.doc_id]
    if other:
        raise MalformedInputError(f"group rows must be of the unit's document; {other[0]} is not", field="with")
    return head, rest


def _hit(index: Any, params: dict[str, str]) -> Any:
    return hit_by_ids(index, unit_ids(params))


def unit_answer(index: Any, params: dict[str, str]) -> dict[str, Any]:
    """``GET /unit``: ``{"hits": [record]}`` (see the module docstring). The caller holds the index lock.

    Raises:
        MalformedInputError: an unknown parameter, a missing or malformed unit id, rows of another document.
        InputNotFoundError: no unit with that id.
    """
    _check(params, UNIT_FIELDS)
    hit = _hit(index, params)
    record = hit.to_record()
    record.update(rank=None, score=None, relevance=None)
    return {"hits": [record]}


def image_hit(index: Any, params: dict[str, str]) -> Any:
    """``GET /image``, first half (under the index lock): the hit to picture."""
    _check(params, IMAGE_FIELDS)
    return _hit(index, params)


def image_png(hit: Any, params: dict[str, str], *, pdf: Any = None, renderer: Any = None) -> bytes:
    """``GET /image``, second half (no index lock needed): the PNG of ``hit``'s picture.

    Raises:
        MalformedInputError: a bad ``page``/``crop``/``margin``/``dpi``, a PDF without the unit's page.
        PdfNotFoundError: the document's PDF is not at hand.
    """
    from structaware_retrievers.pictures.evidence_image import DEFAULT_DPI, DEFAULT_MARGIN, evidence_picture

    options: dict[str, Any] = {
        "crop": _flag(params, "crop"),
        "margin": _number(params, "margin", DEFAULT_MARGIN),
        "dpi": _number(params, "dpi", DEFAULT_DPI),
    }
    if params.get("page"):
        options["pages"] = [int(_number(params, "page", 1))]
    try:
        picture = evidence_picture(hit, pdf=pdf, renderer=renderer, **options)
    except ValueError as exc:
        if isinstance(exc, MalformedInputError):
            raise
        field = "page" if "page" in str(exc) else "dpi" if "dpi" in str(exc) else "margin"
        raise MalformedInputError(str(exc), field=field) from None
    return picture.png()


def _flag(params: dict[str, str], name: str) -> bool:
    value = params.get(name, "false").lower()
    if value not in ("true", "1", "false", "0", ""):
        raise MalformedInputError(f"expected true or false, got {value!r}", field=name)
    return value in ("true", "1")


def _number(params: dict[str, str], name: str, default: float) -> float:
    if not params.get(name):
        return default
    try:
        return float(params[name])
    except ValueError:
        raise MalformedInputError(f"expected a number, got {params[name]!r}", field=name) from None
