"""Figures that yield no unit are named in the document's warnings, never a silent gap.

:func:`note_unread_figures` adds one warning per unread algorithm image (a text-less figure under a
heading naming an algorithm or module), naming its page, element and title, and one warning listing
the pages of every other figure without text. Figures made into flowchart blocks are not named.
"""

from __future__ import annotations

import re

from structaware_readers.algorithms.described import figure_titles
from structaware_readers.models import Block, BlockKind, ParsedDocument

__all__ = ["is_algorithm_title", "note_unread_figures"]

#: A heading that titles an algorithm (English and Chinese wording).
_ALGORITHM_TITLE = re.compile(
    r"\b(?:algorithms?|module\s+[A-Z0-9]{1,2}\b|flow\s*charts?|pathways?)|流程图|路径图|诊疗流程", re.I
)


def is_algorithm_title(text: str) -> bool:
    """A title that names an algorithm: ``Module A: ...``, ``Algorithm``, ``Flowchart``, ``流程图``."""
    return _ALGORITHM_TITLE.search(text) is not None


def _unread(block: Block) -> bool:
    return block.kind is BlockKind.FIGURE and not block.caption.strip() and not block.text.strip()


def note_unread_figures(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with a warning for each algorithm image and one for the other figures that
    hold no text (module docstring); ``doc`` itself when every figure has text."""
    algorithms: list[str] = []
    pages: list[int] = []
    titles = figure_titles(doc.blocks)
    for b in doc.blocks:
        if not _unread(b):
            continue
        title = titles.get(b.block_id, "")
        if title and is_algorithm_title(title):
            algorithms.append(
                f"p.{b.page}: the algorithm image '{title}' ({b.block_id}) has no text the parser read and no"
                " text description in the document: it gives no flow_path unit"
            )
        else:
            pages.append(b.page)
    if not algorithms and not pages:
        return doc
    warnings = [*doc.warnings, *algorithms]
    if pages:
        listed = ", ".join(str(p) for p in dict.fromkeys(pages))
        warnings.append(f"{len(pages)} figures hold no text the parser read and give no unit: pages {listed}")
    return doc.model_copy(update={"warnings": warnings})
