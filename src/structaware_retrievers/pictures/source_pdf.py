"""Where is the PDF of an indexed unit? The explicit lookup behind every page picture.

The index keeps no copy of a PDF, only each unit's ``source`` path, ``doc_name`` and ``doc_id``.
:func:`source_pdf` takes the first of: the caller's ``pdf`` (a file, bytes, a folder holding
``<doc_name>.pdf``, or a mapping by ``doc_id``/``doc_name``); the unit's ``source`` when it is a PDF
whose SHA-256 still gives the ``doc_id``; the PDF inside or beside the parser output at ``source``
(:func:`structaware_readers.table_recovery.stage2_find_pdf.find_pdf`). Otherwise
:class:`~structaware_readers.errors.PdfNotFoundError` names the file needed; nothing is downloaded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from structaware_readers.errors import PdfNotFoundError
from structaware_readers.ids import doc_id_from_file
from structaware_readers.models import Unit

__all__ = ["PdfArg", "PdfSource", "source_pdf"]

#: A PDF: its path or its bytes.
PdfSource = str | Path | bytes
#: What a caller may hand over: a PDF, a folder of PDFs named by document, or a mapping by document.
PdfArg = PdfSource | Mapping[str, PdfSource] | None

# (resolved path, size, mtime_ns) -> doc id of the file's bytes: one hash per file and process
_HASHED: dict[tuple[str, int, int], str] = {}


def source_pdf(unit: Unit, pdf: PdfArg = None) -> PdfSource:
    """The PDF that ``unit``'s document was made from (see the module docstring for the order). Raises
    ``PdfNotFoundError``.
    """
    label = f"{unit.doc_name or unit.doc_id} (doc_id {unit.doc_id})"
    if pdf is not None:
        return _given(unit, pdf, label)
    source = unit.source
    if not source:
        raise PdfNotFoundError(
            f"{label} has no source path in the index (added from memory, not from a file): pass the PDF"
            " it was made from (pdf=, --pdf)",
            field="source",
        )
    path = Path(source)
    if not path.exists():
        raise PdfNotFoundError(
            f"{label} was indexed from {source}, which is not here (moved, deleted, or indexed on another"
            f" machine): put it back, or pass the PDF it was made from (pdf=, --pdf)",
            path=source,
            field="source",
        )
    from structaware_readers.table_recovery import find_pdf

    found = find_pdf(path, name=unit.doc_name or path.stem)
    if found is None:
        wanted = f"{unit.doc_name}.pdf" if unit.doc_name else "the PDF"
        raise PdfNotFoundError(
            f"{label} was indexed from parser output without its PDF; its page pictures need the PDF it was"
            f" made from: put {wanted} beside it ({path.parent}) or inside it, or pass it (pdf=, --pdf)",
            path=source,
            field="pdf",
        )
    if isinstance(found, Path) and found.resolve() == path.resolve():  # the input was this PDF
        now = _file_doc_id(found)
        if now != unit.doc_id:
            raise PdfNotFoundError(
                f"{label}: the PDF changed since it was indexed (its content now gives doc_id {now}), so"
                " the boxes would land on another version: ingest it again, or pass the indexed version (pdf=, --pdf)",
                path=source,
                field="doc_id",
            )
    return found


def _given(unit: Unit, pdf: PdfSource | Mapping[str, PdfSource], label: str) -> PdfSource:
    if isinstance(pdf, Mapping):
        for key in (unit.doc_id, unit.doc_name):
            if key and key in pdf:
                return _given(unit, pdf[key], label)
        raise PdfNotFoundError(
            f"{label}: the PDFs given (pdf=) name neither its doc_id nor its doc_name; they name {sorted(pdf)[:10]}",
            field="pdf",
        )
    if isinstance(pdf, (bytes, bytearray, memoryview)):
        return bytes(pdf)
    path = Path(os.fspath(pdf))
    if path.is_dir():
        for name in (f"{unit.doc_name}.pdf", f"{unit.doc_name}_origin.pdf"):
            if unit.doc_name and (path / name).is_file():
                return path / name
        raise PdfNotFoundError(
            f"{label}: no {unit.doc_name}.pdf in the folder given (pdf=, --pdf)", path=path, field="pdf"
        )
    if not path.is_file():
        raise PdfNotFoundError(f"{label}: the PDF given (pdf=, --pdf) does not exist", path=path, field="pdf")
    return path


def _file_doc_id(path: Path) -> str:
    st = path.stat()
    key = (os.fspath(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASHED:
        _HASHED[key] = doc_id_from_file(path)
    return _HASHED[key]
