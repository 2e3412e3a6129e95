"""``FigureCaption`` elements attached to the figure or table they belong to."""

from __future__ import annotations

import re

from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.reading_order import caption_target

__all__ = ["TABLE_PREFIX", "attach_captions"]

_CAPTION_KINDS = (BlockKind.TABLE, BlockKind.FIGURE, BlockKind.FLOWCHART)
TABLE_PREFIX = re.compile(r"^\s*(?:table|tab\.|表)", re.IGNORECASE)
_FIGURE_PREFIX = re.compile(r"^\s*(?:figure|fig\.?|图|圖)", re.IGNORECASE)
_STRAY_TEXT_CHARS = 20  # short text between a figure and its caption (axis labels) is skipped


def attach_captions(blocks: list[Block], caption_indexes: set[int]) -> list[Block]:
    """Move the text of each CAPTION block (``caption_indexes``: their positions in ``blocks``) into the ``caption`` of
    its figure/table and drop it; a caption with no target stays.
    """
    drop: set[int] = set()
    for ci in sorted(caption_indexes):
        cap = blocks[ci]
        target = _target(blocks, ci, cap)
        if target is None:
            continue
        target.caption = f"{target.caption}\n{cap.text}" if target.caption else cap.text
        drop.add(ci)
    return [b for k, b in enumerate(blocks) if k not in drop]


def _target(blocks: list[Block], ci: int, cap: Block) -> Block | None:
    page = [b for b in blocks if b.page == cap.page]
    if cap.bbox is not None:
        candidates = [b for b in page if b.kind in _CAPTION_KINDS]
        return caption_target(cap, candidates, page)
    neighbours = [b for b in (_neighbour(blocks, ci, -1), _neighbour(blocks, ci, +1)) if b is not None]
    if not neighbours:
        return None
    for prefix, kind in ((TABLE_PREFIX, BlockKind.TABLE), (_FIGURE_PREFIX, BlockKind.FIGURE)):
        if prefix.match(cap.text):
            return next((b for b in neighbours if b.kind is kind), None)
    return neighbours[0]


def _neighbour(blocks: list[Block], ci: int, step: int) -> Block | None:
    """The figure/table next to block ``ci`` in parser order on its page (no bbox), looking
    past short stray text (axis labels OCR'd next to a chart, at most 20 characters)."""
    k = ci + step
    while 0 <= k < len(blocks) and blocks[k].page == blocks[ci].page:
        b = blocks[k]
        if b.kind in _CAPTION_KINDS:
            return b if b.bbox is None else None
        if b.kind is not BlockKind.PARAGRAPH or len(b.text) > _STRAY_TEXT_CHARS:
            return None
        k += step
    return None
