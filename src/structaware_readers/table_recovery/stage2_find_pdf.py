"""Stage 2: the PDF a parser output was made from, found and opened for the later stages.

The first of: the input itself when it is a PDF; MinerU's ``*_origin.pdf`` (else the only PDF)
inside an output folder (3 levels down) or zip; ``<name>.pdf`` or ``<name>_origin.pdf`` beside the
input. Nothing is downloaded or guessed. :func:`open_pdf` opens it with pdfplumber (extra ``pdf``;
:func:`text_layer_reader` says whether it is installed).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from structaware_readers.errors import InputNotFoundError, MalformedInputError, MissingExtraError
from structaware_readers.table_recovery.record import PdfSource

__all__ = ["MAX_ZIP_PDF_BYTES", "find_pdf", "open_pdf", "pdf_label", "text_layer_reader"]

#: Largest PDF read out of a zip (bytes); larger members are skipped.
MAX_ZIP_PDF_BYTES = 1 << 30
_MAX_DEPTH = 3


def find_pdf(path: str | Path, *, name: str) -> PdfSource | None:
    """The PDF behind the parser output at ``path`` (see module docstring), or ``None``."""
    p = Path(path)
    if p.is_file() and _is_pdf_file(p):
        return p
    if p.is_dir():
        found = _pick([q for q in _walk(p) if _is_pdf_file(q)])
        if found is not None:
            return found
    elif p.is_file() and zipfile.is_zipfile(p):
        data = _pdf_in_zip(p)
        if data is not None:
            return data
    folder = p.parent
    for candidate in (folder / f"{name}.pdf", folder / f"{name}_origin.pdf"):
        if candidate != p and _is_pdf_file(candidate):  # a name too long for the file system is just absent
            return candidate
    return None


def _walk(root: Path) -> list[Path]:
    out: list[Path] = []
    level = [root]
    for _ in range(_MAX_DEPTH + 1):
        nxt: list[Path] = []
        for folder in level:
            for child in sorted(folder.iterdir()):
                if child.is_dir() and child.name != "images":
                    nxt.append(child)
                elif child.suffix.lower() == ".pdf":
                    out.append(child)
        level = nxt
    return out


def _pick(paths: list[Path]) -> Path | None:
    origin = [q for q in paths if q.stem.lower().endswith("_origin")]
    if len(origin) == 1:
        return origin[0]
    return paths[0] if len(paths) == 1 else None


def _pdf_in_zip(path: Path) -> bytes | None:
    with zipfile.ZipFile(path) as zf:
        members = [
            i
            for i in zf.infolist()
            if PurePosixPath(i.filename).suffix.lower() == ".pdf" and 0 < i.file_size <= MAX_ZIP_PDF_BYTES
        ]
        origin = [i for i in members if PurePosixPath(i.filename).stem.lower().endswith("_origin")]
        chosen = origin[0] if len(origin) == 1 else (members[0] if len(members) == 1 else None)
        if chosen is None:
            return None
        data = zf.read(chosen)
    return data if b"%PDF-" in data[:1024] else None


def _is_pdf_file(p: Path) -> bool:
    """A readable file starting like a PDF; ``False`` for anything else, a folder, or a path the file
    system refuses (``ENAMETOOLONG`` for a derived name of a ~250-character file name)."""
    try:
        with open(p, "rb") as fh:
            return b"%PDF-" in fh.read(1024)
    except OSError:
        return False


def text_layer_reader() -> str | None:
    """The version of pdfplumber, the PDF text-layer reader, when it can be imported (grids are then
    rebuilt from a PDF given or found), else ``None`` (extra ``structaware[pdf]`` missing). Cheap: the
    module is found, not imported. Part of the ingest ledger's key (an install re-reads inputs)."""
    import importlib.util
    from importlib import metadata

    try:
        if importlib.util.find_spec("pdfplumber") is None:
            return None
    except (ImportError, ValueError):  # a broken or half-imported module
        return None
    try:
        return metadata.version("pdfplumber")
    except metadata.PackageNotFoundError:  # importable without distribution metadata (a source tree)
        return "unknown"


def pdf_label(pdf: PdfSource) -> str:
    """How messages name ``pdf``: its path, or ``the PDF`` for bytes."""
    return "the PDF" if isinstance(pdf, bytes) else str(pdf)


@contextmanager
def open_pdf(pdf: PdfSource) -> Iterator[Any]:
    """``pdf`` opened with pdfplumber (a ``pdfplumber.PDF``), closed on exit. Raises ``InputNotFoundError``,
    ``MalformedInputError``, ``MissingExtraError``.
    """
    try:
        import pdfplumber
    except ImportError as exc:
        raise MissingExtraError(
            "pdfplumber", "pdf", "Rebuilding table grids from the PDF", path=pdf_label(pdf)
        ) from exc

    if not isinstance(pdf, bytes):
        path = Path(pdf)
        if not path.is_file():
            raise InputNotFoundError("no such PDF file", path=path, field="pdf")
    try:
        handle = pdfplumber.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf)
    except Exception as exc:
        raise MalformedInputError(f"not a readable PDF: {exc}", path=pdf_label(pdf), field="pdf") from exc
    try:
        yield handle
    finally:
        handle.close()
