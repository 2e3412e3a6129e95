"""Which documents the paths given to ``ingest`` hold: :func:`expand_inputs` turns files and folders
into one path per document, in a stable order (``StructureIndex.ingest``, ``structaware ingest``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

__all__ = ["expand_inputs"]

_PARSER_OUTPUT_FILE = re.compile(r"(content_list|middle|structured_content|model_output).*\.json$|^layout\.json$", re.IGNORECASE)
_DOC_SUFFIXES = {".pdf", ".json", ".zip"}


def _is_parser_output_dir(folder: Path) -> bool:
    """A MinerU output folder: it directly holds a content_list / middle / layout JSON."""
    try:
        return any(p.is_file() and _PARSER_OUTPUT_FILE.search(p.name) for p in folder.iterdir())
    except OSError:
        return False


def expand_inputs(paths: Iterable[str | Path]) -> list[Path]:
    """Turn the paths given to ``ingest`` into one path per document, in a stable order.

    * A file is one document (the loader decides what it is by content).
    * A MinerU output folder (it directly holds a ``*content_list*.json``, ``*middle*.json``,
      ``layout.json``, ``structured_content.json`` or ``model_output.json``) is one document.
    * Any other folder is searched recursively (sorted, hidden entries skipped) for ``.pdf``,
      ``.json`` and ``.zip`` files and MinerU output folders. A PDF ``x.pdf`` is skipped when a
      MinerU output for it was found under a sibling folder ``x/`` (MinerU's own layout
      ``x/auto/...``), so a document is not indexed twice.
    * A path that does not exist is passed through; reading it fails with ``InputNotFoundError``
      and is reported as a failure of that input.
    """
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)

    def walk(folder: Path) -> list[Path]:
        if _is_parser_output_dir(folder):
            return [folder]
        children = sorted(c for c in folder.iterdir() if not c.name.startswith("."))
        found: dict[Path, list[Path]] = {c: walk(c) for c in children if c.is_dir()}
        for c in children:
            if c.is_file() and c.suffix.lower() in _DOC_SUFFIXES:
                if c.suffix.lower() == ".pdf" and found.get(c.with_suffix("")):
                    continue  # its parser output was found in the sibling folder
                found[c] = [c]
        return [p for c in children for p in found.get(c, [])]

    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for q in walk(p):
                add(q)
        else:
            add(p)
    return out
