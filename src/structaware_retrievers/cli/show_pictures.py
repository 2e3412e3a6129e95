"""``structaware show``: the pictures of the hits of a question, or of units by id, as PNG files or
shown inline in a terminal that can (:mod:`structaware_retrievers.cli.terminal_image`).

``--out FILE.png`` (several: ``FILE-1.png`` ... by rank) or ``--out FOLDER``; without it, files
named ``<doc>-p<page>-<unit id prefix>.png`` in the current folder, or inline in such a terminal.
Each PNG carries the unit id and every outline's pixel box in a ``structaware`` text chunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from structaware_readers.errors import InputNotFoundError, StructawareError

__all__ = ["ShownPicture", "hits_by_id", "picture_paths", "show_hits"]


@dataclass(frozen=True)
class ShownPicture:
    """One picture made by :func:`show_hits`: the hit, where it went (a path, or ``None`` when shown
    inline) and the picture's warnings."""

    hit: Any
    path: Path | None
    warnings: list[str]


def hits_by_id(index: Any, ids: Sequence[str]) -> list[Any]:
    """One :class:`~structaware_retrievers.index.structure_index.SearchHit` of the unit ``ids[0]`` whose table-group rows
    are ``ids[1:]`` (all of one document), read from ``index``.

    Raises:
        MalformedInputError: an id that is not a UUID, rows of another document.
        InputNotFoundError: an id the index does not hold.
    """
    from structaware_retrievers.serve.pages import hit_by_ids

    return [hit_by_ids(index, list(ids))]


def _name(hit: Any) -> str:
    unit = hit.unit
    doc = re.sub(r"[^\w.-]+", "_", unit.doc_name or unit.doc_id)[:80]
    return f"{doc}-p{unit.pages[0] if unit.pages else 0}-{unit.unit_id[:8]}.png"


def picture_paths(hits: Sequence[Any], out: Path | None) -> list[Path]:
    """Where each hit's PNG goes (see the module docstring)."""
    if out is None:
        return [Path(_name(h)) for h in hits]
    if out.is_dir() or out.suffix.lower() != ".png":
        return [out / _name(h) for h in hits]
    if len(hits) == 1:
        return [out]
    return [out.with_name(f"{out.stem}-{h.rank}{out.suffix or '.png'}") for h in hits]


def show_hits(
    hits: Sequence[Any],
    *,
    out: Path | None,
    inline: str | None,
    stream: IO[str],
    options: dict[str, Any],
    on_error: Callable[[Any, Exception], None],
) -> list[ShownPicture]:
    """Render each hit (``options``: :func:`~structaware_retrievers.pictures.evidence_image.evidence_picture`
    arguments) and write it to its file, or show it inline on ``stream`` with protocol ``inline``
    (:func:`~structaware_retrievers.cli.terminal_image.inline_protocol`) when ``out`` is ``None``.

    A hit that cannot be pictured (its PDF is not at hand) is handed to ``on_error`` and skipped.
    """
    from structaware_retrievers.cli.terminal_image import write_inline
    from structaware_retrievers.pictures.evidence_image import evidence_picture

    shown: list[ShownPicture] = []
    paths = picture_paths(hits, out)
    for hit, path in zip(hits, paths):
        try:
            picture = evidence_picture(hit, **options)
        except (StructawareError, ValueError) as exc:
            on_error(hit, exc)
            continue
        png = picture.png()
        if inline is not None and out is None:
            write_inline(png, stream, inline)
            shown.append(ShownPicture(hit, None, picture.warnings))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.write_bytes(png)
        except OSError as exc:
            raise InputNotFoundError(
                f"cannot write the picture: {exc.strerror or exc}", path=path, field="--out"
            ) from None
        shown.append(ShownPicture(hit, path, picture.warnings))
    return shown
