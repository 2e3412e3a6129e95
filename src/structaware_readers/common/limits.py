"""Documented input limits, checked up front so a malformed input ends in one typed error.

Every reader goes through these checks, so no input can make the package crash, hang or use
unbounded memory. The limits sit far above what real parsers write: :data:`MAX_JSON_BYTES` (a
JSON file or zip member), :data:`MAX_ZIP_BYTES` (decompressed JSON of a zip, counted while
reading), :data:`MAX_JSON_DEPTH`, :data:`MAX_INT_DIGITS` (also no ``NaN``/``Infinity``),
:data:`MAX_PAGES`, :data:`MAX_TABLE_CELLS` (after span expansion); :data:`MAX_RENDER_PIXELS` lowers
a page's render resolution instead of refusing it (:func:`render_scale`).

JSON may start with a byte-order mark and whitespace; lone UTF-16 surrogate escapes become U+FFFD.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, BinaryIO

from structaware_readers.errors import MalformedInputError, UnknownFormatError

__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_PAGES",
    "MAX_RENDER_PIXELS",
    "MAX_TABLE_CELLS",
    "MAX_ZIP_BYTES",
    "clean_text",
    "json_start",
    "load_json",
    "page_number",
    "read_capped",
    "render_scale",
]

#: Largest JSON document read (bytes; a file or one zip member).
MAX_JSON_BYTES = 256 * 1024 * 1024
#: Largest total of decompressed bytes read from one zip.
MAX_ZIP_BYTES = 256 * 1024 * 1024
#: Deepest JSON nesting accepted (real MinerU/Unstructured output stays below 20).
MAX_JSON_DEPTH = 100
#: Integers must fit in a signed 64-bit integer (the longest has 19 digits).
MAX_INT_DIGITS = 19
_MAX_INT = 2**63 - 1
#: Largest 1-based page number (and page count) accepted.
MAX_PAGES = 100_000
#: Largest number of cells one table may expand to (rows x columns after spans).
MAX_TABLE_CELLS = 250_000
#: Most pixels one rendered page image holds (an A3 page at 200 dpi holds 7.8 million; this is
#: 6,000 x 6,000 pixels: ~140 MB as PDFium's 4-byte bitmap).
MAX_RENDER_PIXELS = 36_000_000

_LONE_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_WS = b" \t\r\n"
_BOM = b"\xef\xbb\xbf"


class _NumberOutOfRange(ValueError):
    def __init__(self, literal: str):
        self.literal = literal
        super().__init__(literal)


def _parse_int(s: str) -> int:
    digits = len(s) - (s[0] == "-")
    if digits > MAX_INT_DIGITS or abs(int(s)) > _MAX_INT:
        raise _NumberOutOfRange(s)
    return int(s)


def _parse_float(s: str) -> float:
    v = float(s)
    if not math.isfinite(v):
        raise _NumberOutOfRange(s)
    return v


def _parse_constant(s: str) -> float:
    raise _NumberOutOfRange(s)


def clean_text(text: str) -> str:
    """``text`` with lone UTF-16 surrogates (``\\ud800``; also from undecodable command-line bytes)
    replaced by U+FFFD, so it encodes as UTF-8. Other text is returned unchanged."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _key_before(text: str, literal: str) -> str | None:
    """The JSON key whose value is ``literal`` (first occurrence), for error messages."""
    m = re.search(r'"([^"\\]{1,80})"\s*:\s*\[?\s*' + re.escape(literal[:40]), text)
    return m.group(1) if m else None


def load_json(raw: bytes | str, *, path: str | Path | None) -> Any:
    """Parse JSON text within the limits of this module.

    Args:
        raw: UTF-8 bytes (a byte-order mark is allowed) or text; leading whitespace of any length
            is allowed.
        path: the file (or ``zip!member``) it came from, for error messages.

    Returns:
        The parsed value; strings hold no lone surrogates (replaced by U+FFFD).

    Raises:
        UnknownFormatError: not UTF-8, or does not start with ``{``/``[`` (field ``content``).
        MalformedInputError: invalid JSON (field ``json``, with line and column); larger than
            :data:`MAX_JSON_BYTES`, nested deeper than :data:`MAX_JSON_DEPTH`, or a number out of
            range (field: the JSON key holding it when it can be found, else ``json``).
    """
    if len(raw) > MAX_JSON_BYTES:
        raise MalformedInputError(f"JSON larger than {MAX_JSON_BYTES} bytes", path=path, field="json")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UnknownFormatError(
                f"not UTF-8 JSON ({exc.reason} at byte {exc.start})", path=path, field="content"
            ) from exc
    else:
        text = raw.removeprefix("\ufeff")
    text = text.lstrip(" \t\r\n")
    if not text.startswith(("{", "[")):
        raise UnknownFormatError("not JSON (does not start with '{' or '[')", path=path, field="content")
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except _NumberOutOfRange as exc:
        lit = exc.literal
        shown = lit if len(lit) <= 30 else f"{lit[:12]}...({len(lit)} characters)"
        raise MalformedInputError(
            f"number out of range: {shown} (integers must fit in 64 bits, numbers must be finite)",
            path=path,
            field=_key_before(text, lit) or "json",
        ) from None
    except RecursionError:
        raise MalformedInputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", path=path, field="json") from None
    except json.JSONDecodeError as exc:
        raise MalformedInputError(
            f"invalid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", path=path, field="json"
        ) from exc
    _check_depth(data, path)
    if _LONE_SURROGATE_ESCAPE.search(text):
        data = _clean_strings(data)
    return data


def _check_depth(data: Any, path: str | Path | None) -> None:
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise MalformedInputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", path=path, field="json")
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, (dict, list)))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, (dict, list)))


def _clean_strings(value: Any) -> Any:
    """A copy of a parsed JSON value with :func:`clean_text` applied to every string (keys too).
    Recursion is safe: depth was checked first."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [_clean_strings(v) for v in value]
    if isinstance(value, dict):
        return {clean_text(k): _clean_strings(v) for k, v in value.items()}
    return value


def json_start(fh: BinaryIO, *, chunk: int = 65536, limit: int = MAX_JSON_BYTES) -> bytes:
    """The first non-whitespace bytes of a file (after a UTF-8 byte-order mark), up to ``chunk`` of
    them, skipping any amount of leading whitespace (within ``limit`` bytes). ``b""`` for a blank file."""
    first = fh.read(chunk)
    first = first.removeprefix(_BOM)
    seen = 0
    head = first.lstrip(_JSON_WS)
    while not head and first and seen < limit:
        seen += len(first)
        first = fh.read(chunk)
        head = first.lstrip(_JSON_WS)
    if head and len(head) < chunk // 2:
        head += fh.read(chunk - len(head))
    return head


def read_capped(fh: BinaryIO, limit: int, *, path: str | Path | None, what: str = "JSON") -> bytes:
    """Read at most ``limit`` bytes from ``fh``.

    Raises:
        MalformedInputError: the stream holds more than ``limit`` bytes (field ``size``).
    """
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise MalformedInputError(f"{what} larger than {limit} bytes", path=path, field="size")
    return data


def page_number(value: Any, *, path: str | Path | None, field: str, base: int = 0) -> int:
    """A validated 1-based page number from a parser's page field.

    Args:
        value: the field's value (``page_idx``: 0-based, ``base=0``; ``page_number``: 1-based, ``base=1``).
        path, field: where it came from, for error messages.
        base: the first page's value in the parser's numbering (0 or 1).

    Raises:
        MalformedInputError: not an integer, below ``base``, or beyond :data:`MAX_PAGES` pages.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < base:
        kind = "non-negative" if base == 0 else "positive"
        name = field.rsplit(".", 1)[-1]
        raise MalformedInputError(f"{name} must be a {kind} integer, got {value!r}"[:200], path=path, field=field)
    page = value - base + 1
    if page > MAX_PAGES:
        raise MalformedInputError(
            f"page {page} is beyond the limit of {MAX_PAGES} pages per document", path=path, field=field
        )
    return page


def render_scale(width: float, height: float, scale: float, *, max_pixels: int | None = None) -> float:
    """The scale (pixels per PDF point) to render a page of ``width`` x ``height`` points at: ``scale``, or
    less when the image would hold more than ``max_pixels`` pixels (default :data:`MAX_RENDER_PIXELS`),
    the aspect ratio kept."""
    budget = MAX_RENDER_PIXELS if max_pixels is None else max_pixels
    area = max(float(width), 1.0) * max(float(height), 1.0) * scale * scale
    return scale if area <= budget else scale * math.sqrt(budget / area)
