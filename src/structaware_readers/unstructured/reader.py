"""The Unstructured reader: elements (in memory, JSON, or a raw file) -> :class:`ParsedDocument`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.models import ParsedDocument
from structaware_readers.unstructured.blocks import build_blocks
from structaware_readers.unstructured.load import JSON_SUFFIXES, load_elements
from structaware_readers.unstructured.records import Record, expand_records

__all__ = ["read_unstructured"]


def read_unstructured(
    src: str | Path | Iterable[Any],
    *,
    name: str | None = None,
    partition_kwargs: Mapping[str, Any] | None = None,
) -> ParsedDocument:
    """Read Unstructured elements into a :class:`ParsedDocument` (blocks in the parser's order).

    ``src``: ``Element`` objects or element dicts, an elements JSON / NDJSON file, or a raw document for
    ``unstructured.partition.auto.partition`` (with ``partition_kwargs``). Pages are 1-based, bboxes 0..1 with a
    top-left origin, ``page_sizes`` in points for ``PointSpace`` coordinates. Raises ``InputNotFoundError``,
    ``UnknownFormatError``, ``MalformedInputError`` (names element index and field), ``ParserUnavailableError``,
    ``EmptyDocumentError``.
    """
    dicts, source, doc_id, version = load_elements(src, partition_kwargs)
    records = expand_records(dicts, source)
    warnings: list[str] = []
    blocks = build_blocks(records, source, warnings)
    body = [b for b in blocks if not b.is_furniture and (b.text.strip() or b.table is not None)]
    if not body:
        raise EmptyDocumentError("no body element with text", path=source, field="elements")
    pages = max(r.page for r in records)
    sizes: list[tuple[float, float] | None] = [None] * pages
    for r in records:
        if r.page_size is not None and sizes[r.page - 1] is None:
            sizes[r.page - 1] = r.page_size
    filetype = next((r.md.get("filetype") for r in records if isinstance(r.md.get("filetype"), str)), None)
    return ParsedDocument(
        doc_id=doc_id,
        source=source,
        name=name or _default_name(src, records),
        parser="unstructured",
        parser_version=version,
        input_format=filetype or "elements",
        page_count=pages,
        page_sizes=sizes,
        blocks=blocks,
        warnings=warnings,
    )


def _default_name(src: Any, records: list[Record]) -> str:
    filename = next((r.md["filename"] for r in records if isinstance(r.md.get("filename"), str)), None)
    if filename:
        return Path(filename).stem
    if isinstance(src, (str, Path)):
        p = Path(src)
        stem = p.name[: -len(p.suffix)] if p.suffix.lower() in JSON_SUFFIXES else p.stem
        inner = Path(stem)
        return inner.stem if inner.suffix and len(inner.suffix) <= 6 else stem
    return "document"
