"""Unstructured elements -> :class:`Record` s: validated, ``orig_elements`` expanded, pages and
boxes normalised (pages 1-based, bbox 0..1 with a top-left origin)."""

from __future__ import annotations

import base64
import warnings
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from structaware_readers.common.limits import load_json, page_number
from structaware_readers.errors import InputWarning, MalformedInputError, StructawareError
from structaware_readers.models import BBox

__all__ = ["ORIG_ELEMENTS_MAX_BYTES", "Record", "decode_orig_elements", "expand_records", "normalised_box"]

_OUT_OF_PAGE = 0.05  # coordinates this far outside the page are an error, closer ones are clamped
#: Cap on the inflated size of one ``orig_elements`` value (bytes of JSON), against zip bombs;
#: a larger value is treated as a damaged one (warning, the chunk's own text is used).
ORIG_ELEMENTS_MAX_BYTES = 64 * 1024 * 1024


@dataclass
class Record:
    """One Unstructured element, validated, with its page, position and normalised box."""

    type: str
    text: str
    md: dict[str, Any]
    element_id: str
    page: int
    j: int
    bbox: BBox | None
    page_size: tuple[float, float] | None
    where: str  # "[i]" / "[i].orig_elements[k]", for error messages


def expand_records(dicts: list[Any], source: str) -> list[Record]:
    """Validate the elements, expand ``orig_elements`` (an element listed by several chunks is kept once), and number
    each element on its page (``Record.j``) in output order. Raises ``MalformedInputError``.
    """
    flat: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()
    bad_orig: list[str] = []

    def visit(d: Any, where: str) -> None:
        if not isinstance(d, Mapping):
            raise MalformedInputError("element is not an object", path=source, field=where)
        etype = d.get("type")
        if not isinstance(etype, str) or not etype:
            raise MalformedInputError("missing element type", path=source, field=f"{where}.type")
        md = d.get("metadata") or {}
        if not isinstance(md, Mapping):
            raise MalformedInputError("metadata is not an object", path=source, field=f"{where}.metadata")
        orig = md.get("orig_elements")
        if orig and etype in ("CompositeElement", "TableChunk", "Table"):
            try:
                children = decode_orig_elements(orig, source, f"{where}.metadata.orig_elements")
            except MalformedInputError as exc:
                bad_orig.append(exc.field or where)
                flat.append((dict(d), where))  # the chunk's own text and page_number
                return
            for k, child in enumerate(children):
                eid = child.get("element_id") if isinstance(child, Mapping) else None
                if isinstance(eid, str) and eid in seen:
                    continue  # an element split over several chunks is listed by each of them
                if isinstance(eid, str):
                    seen.add(eid)
                visit(child, f"{where}.orig_elements[{k}]")
            return
        flat.append((dict(d), where))

    for i, d in enumerate(dicts):
        visit(d, f"[{i}]")
    if bad_orig:
        warnings.warn(
            InputWarning(
                f"{len(bad_orig)} orig_elements cannot be decoded (corrupt, truncated or over "
                f"{ORIG_ELEMENTS_MAX_BYTES} bytes): the chunk's own text is used",
                path=source,
                field=", ".join(bad_orig[:5]) + (", ..." if len(bad_orig) > 5 else ""),
            ),
            stacklevel=3,
        )

    records: list[Record] = []
    per_page: dict[int, int] = {}
    bad_parents: list[str] = []
    for d, where in flat:
        md = dict(d.get("metadata") or {})
        if md.get("parent_id") is not None and not isinstance(md["parent_id"], str):
            del md["parent_id"]  # an id is a string: a list or number links nothing (hierarchy.py)
            bad_parents.append(f"{where}.metadata.parent_id")
        page = md.get("page_number", 1)
        if page is None:
            page = 1
        page = page_number(page, path=source, field=f"{where}.metadata.page_number", base=1)
        j = per_page.get(page, 0)
        per_page[page] = j + 1
        bbox, size = normalised_box(md.get("coordinates"), source, f"{where}.metadata.coordinates")
        text = d.get("text")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise MalformedInputError("text is not a string", path=source, field=f"{where}.text")
        eid = d.get("element_id")
        records.append(
            Record(
                type=d["type"],
                text=text,
                md=md,
                element_id=eid if isinstance(eid, str) else "",
                page=page,
                j=j,
                bbox=bbox,
                page_size=size,
                where=where,
            )
        )
    if bad_parents:
        warnings.warn(
            InputWarning(
                f"{len(bad_parents)} parent_id values are not strings: ignored (heading levels come from"
                " title order there)",
                path=source,
                field=", ".join(bad_parents[:5]) + (", ..." if len(bad_parents) > 5 else ""),
            ),
            stacklevel=3,
        )
    return records


def decode_orig_elements(value: Any, source: str, where: str) -> list[Any]:
    """``orig_elements``: base64 of zlib-compressed JSON (``elements_to_base64_gzipped_json``; "gzipped" by name only:
    the bytes start ``78 9c``), inflated to at most :data:`ORIG_ELEMENTS_MAX_BYTES`. Raises ``MalformedInputError``.
    """
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise MalformedInputError("orig_elements is not a string", path=source, field=where)
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(base64.b64decode(value, validate=False), ORIG_ELEMENTS_MAX_BYTES)
        if inflater.unconsumed_tail:
            raise MalformedInputError(
                f"orig_elements inflates to more than {ORIG_ELEMENTS_MAX_BYTES} bytes", path=source, field=where
            )
        if not inflater.eof:
            raise MalformedInputError("orig_elements is a truncated zlib stream", path=source, field=where)
        data = load_json(raw, path=source)
    except (ValueError, zlib.error) as exc:
        message = exc.message if isinstance(exc, StructawareError) else str(exc)
        raise MalformedInputError(f"orig_elements cannot be decoded: {message}", path=source, field=where) from exc
    if not isinstance(data, list):
        raise MalformedInputError("orig_elements does not hold a list", path=source, field=where)
    return data


def normalised_box(coords: Any, source: str, where: str) -> tuple[BBox | None, tuple[float, float] | None]:
    """Normalised top-left bbox (and the page size in points for PointSpace) from ``coordinates``."""
    if coords is None:
        return None, None
    if not isinstance(coords, Mapping):
        raise MalformedInputError("coordinates is not an object", path=source, field=where)
    points = coords.get("points")
    if not points:
        return None, None
    system = coords.get("system") or "PixelSpace"
    if system == "RelativeCoordinateSystem":
        width = height = 1.0
    else:
        width, height = coords.get("layout_width"), coords.get("layout_height")
    try:
        width, height = float(width), float(height)  # type: ignore[arg-type]
        xs = [float(p[0]) for p in points]
        ys = [float(p[1]) for p in points]
    except (TypeError, ValueError, IndexError) as exc:
        raise MalformedInputError(f"bad points or layout size: {exc}", path=source, field=where) from exc
    if not (width > 0 and height > 0):
        raise MalformedInputError("layout_width/layout_height must be > 0", path=source, field=where)
    if system == "PixelSpace":
        y_top = [y / height for y in ys]
    elif system in ("PointSpace", "RelativeCoordinateSystem"):
        y_top = [1.0 - y / height for y in ys]  # bottom-left origin: flip
    else:
        raise MalformedInputError(f"unknown coordinate system {system!r}", path=source, field=f"{where}.system")
    x_rel = [x / width for x in xs]
    box = (min(x_rel), min(y_top), max(x_rel), max(y_top))
    if any(c < -_OUT_OF_PAGE or c > 1 + _OUT_OF_PAGE for c in box):
        raise MalformedInputError(f"box {box} lies outside the page", path=source, field=f"{where}.points")
    clamp = lambda c: min(1.0, max(0.0, c))
    size = (width, height) if system == "PointSpace" else None
    return (clamp(box[0]), clamp(box[1]), clamp(box[2]), clamp(box[3])), size
