"""The MinerU reader: any MinerU output (or a PDF) -> :class:`ParsedDocument`."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from structaware_readers.common.inputs import existing_path
from structaware_readers.errors import (
    ParserUnavailableError,
    UnknownFormatError,
)
from structaware_readers.ids import doc_id_from_bytes
from structaware_readers.mineru.assemble import assemble
from structaware_readers.mineru.containers import (
    METHOD_DIR_RE,
    Candidate,
    load_json_file,
    scan_folder,
    scan_zip,
)
from structaware_readers.mineru.content_list import parse_content_list
from structaware_readers.mineru.content_list_v2 import parse_content_list_v2
from structaware_readers.mineru.detect import FORMAT_PREFERENCE, detect_format
from structaware_readers.mineru.drafts import Extracted
from structaware_readers.mineru.middle_docvortex import parse_docvortex_middle
from structaware_readers.mineru.middle_pdf_info import parse_pdf_info
from structaware_readers.mineru.structured_content import parse_structured_content
from structaware_readers.models import ParsedDocument

_PARSERS = {
    "docvortex_middle": parse_docvortex_middle,
    "middle_pdf_info": parse_pdf_info,
    "structured_content": parse_structured_content,
    "content_list_v2": parse_content_list_v2,
    "content_list": parse_content_list,
}

#: A PDF header may follow a little junk (PDF 1.7 §7.5.2 implementation note), as in ``mineru.pdf``.
_MAGIC_WINDOW = 1024
_NAME_SUFFIX = re.compile(r"(_content_list_v2|_content_list|_middle|_model|_layout|_span|_origin)$", re.IGNORECASE)
_GENERIC_STEMS = {
    "middle_json",
    "middle",
    "structured_content",
    "content_list",
    "content_list_v2",
    "layout",
    "model_output",
    "model",
    "markdown",
    "full",
    "result",
}
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


def parse_mineru_json(
    data: Any, *, source: str, doc_id: str, name: str, input_format: str | None = None
) -> ParsedDocument:
    """Build a :class:`ParsedDocument` from an in-memory MinerU JSON value of any era.

    ``source`` goes to ``ParsedDocument.source`` and errors; ``doc_id`` is the caller's hash of the file bytes;
    ``input_format`` skips detection. Blocks come in MinerU's reading order with 1-based pages, 0..1 top-left bboxes,
    ids ``p{page}-e{j}``, continued tables merged. Raises ``UnknownFormatError``, ``MalformedInputError`` (names the
    field), ``EmptyDocumentError``.
    """
    if input_format is None:
        input_format = detect_format(data, path=source)
    elif input_format not in _PARSERS:
        raise UnknownFormatError(
            f"unknown input_format {input_format!r}; expected one of {', '.join(FORMAT_PREFERENCE)}",
            path=source,
            field="input_format",
        )
    extracted: Extracted = _PARSERS[input_format](data, path=source)
    return assemble(extracted, doc_id=doc_id, source=source, name=name)


def read_mineru(path: str | Path, *, name: str | None = None) -> ParsedDocument:
    """Read a MinerU output (any era) or run MinerU on a PDF.

    ``path``: a MinerU JSON file, an output folder, a zip, or a PDF (handed to
    :func:`structaware_readers.mineru.pdf.parse_pdf`); the kind is decided by content, not the extension.
    ``doc_id`` hashes the bytes of the JSON file read. Raises ``InputNotFoundError``, ``UnknownFormatError``,
    ``MalformedInputError`` (names file and field), ``EmptyDocumentError``, ``ParserUnavailableError``.
    """
    p = existing_path(path)
    if p.is_dir():
        cand = scan_folder(p)
    elif not p.is_file():  # a named pipe or a device: reading it could block forever
        raise UnknownFormatError("not a regular file (a named pipe, socket or device)", path=p, field="content")
    else:
        with open(p, "rb") as fh:
            head = fh.read(_MAGIC_WINDOW)
        if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
            cand = scan_zip(p)
        elif not head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"[")) and b"%PDF-" in head:
            return _read_pdf(p, name=name)
        else:
            cand = load_json_file(p)
    doc_name = name or default_name(p)
    extracted = _PARSERS[cand.format](cand.data, path=cand.label)
    return assemble(
        extracted, doc_id=doc_id_from_bytes(cand.raw), source=str(path), name=doc_name, error_path=cand.label
    )


def _read_pdf(path: Path, *, name: str | None) -> ParsedDocument:
    try:
        pdf_module = importlib.import_module("structaware_readers.mineru.pdf")
    except ImportError as exc:
        raise ParserUnavailableError(f"the MinerU PDF route cannot be imported: {exc}", path=path, field="pdf") from exc
    doc = pdf_module.parse_pdf(path)
    if name:
        doc = doc.model_copy(update={"name": name})
    return doc


def default_name(path: Path) -> str:
    """Display name for a MinerU input path (see :func:`read_mineru`)."""
    if path.is_dir():
        return _folder_name(path)
    stem = path.stem  # the extension says nothing about the content, but it is not part of the name
    if stem.lower().endswith(".rendered"):
        stem = stem[: -len(".rendered")]
    if path.suffix.lower() == ".zip":
        return stem
    stripped = _NAME_SUFFIX.sub("", stem)
    if not stripped or stripped.lower() in _GENERIC_STEMS or _UUID.match(stripped) or stem.lower() in _GENERIC_STEMS:
        return _folder_name(path.resolve().parent)
    return stripped


def _folder_name(folder: Path) -> str:
    if METHOD_DIR_RE.match(folder.name) and folder.parent.name:
        return folder.parent.name
    return folder.name


__all__ = ["Candidate", "default_name", "parse_mineru_json", "read_mineru"]
