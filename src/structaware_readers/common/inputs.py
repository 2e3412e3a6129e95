"""What ``structaware ingest`` takes, for every face: paths -> one path per document, and the files skipped.

A file is one document; a MinerU output folder is one document; any other folder is searched
recursively for ``.pdf``, ``.json`` and ``.zip`` files and output folders (a PDF with its MinerU
output in a sibling folder is read once), other files listed as skipped; a missing path passes
through and fails later with ``InputNotFoundError``. :func:`scan_inputs` is what the CLI, the
LangChain loader and the LlamaIndex reader use.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from structaware_readers.errors import InputNotFoundError

__all__ = ["DOCUMENT_SUFFIXES", "InputScan", "existing_path", "expand_inputs", "is_parser_output_dir", "scan_inputs"]

_PARSER_OUTPUT_FILE = re.compile(
    r"(content_list|middle|structured_content|model_output).*\.json$|^layout\.json$", re.IGNORECASE
)
#: File suffixes a folder search takes as documents.
DOCUMENT_SUFFIXES = frozenset({".pdf", ".json", ".zip"})


@dataclass
class InputScan:
    """The documents found (one path each, in a stable order) and the files in searched folders that
    are no document (:data:`DOCUMENT_SUFFIXES`), in the order found."""

    documents: list[Path] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)


def existing_path(path: str | Path, *, missing: str = "no such file or folder") -> Path:
    """``path`` as a ``Path`` when something is there.

    Raises:
        InputNotFoundError: nothing is there (``missing`` says so), or the file system refuses the
            path (a name longer than it allows: ``File name too long``), naming the path.
    """
    p = Path(path)
    try:
        p.stat()
    except OSError as exc:
        gone = exc.errno in (errno.ENOENT, errno.ENOTDIR) or isinstance(exc, FileNotFoundError)
        raise InputNotFoundError(
            missing if gone else f"the file system refuses this path: {exc.strerror}", path=p
        ) from None
    return p


def is_parser_output_dir(folder: Path) -> bool:
    """A MinerU output folder: it directly holds a content_list / middle / layout JSON."""
    try:
        return any(p.is_file() and _PARSER_OUTPUT_FILE.search(p.name) for p in folder.iterdir())
    except OSError:
        return False


def scan_inputs(paths: Iterable[str | Path]) -> InputScan:
    """Expand ``paths`` as the module docstring says; see :class:`InputScan`."""
    scan = InputScan()
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            scan.documents.append(p)

    def walk(folder: Path) -> list[Path]:
        if is_parser_output_dir(folder):
            return [folder]
        children = sorted(c for c in folder.iterdir() if not c.name.startswith("."))
        found: dict[Path, list[Path]] = {c: walk(c) for c in children if c.is_dir()}
        for c in children:
            if not c.is_file():
                continue
            if c.suffix.lower() not in DOCUMENT_SUFFIXES:
                scan.skipped.append(c)
            elif c.suffix.lower() == ".pdf" and found.get(c.with_suffix("")):
                continue  # its parser output was found in the sibling folder
            else:
                found[c] = [c]
        return [p for c in children for p in found.get(c, [])]

    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for q in walk(p):
                add(q)
        else:
            add(p)
    return scan


def expand_inputs(paths: Iterable[str | Path]) -> list[Path]:
    """The documents of :func:`scan_inputs` (one path per document, in a stable order)."""
    return scan_inputs(paths).documents
