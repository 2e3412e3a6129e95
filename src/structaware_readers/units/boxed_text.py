"""Boxed text (sidebars) as section units of their own, titled by their heading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from structaware_readers.models import Block, BlockKind, TableGrid
from structaware_readers.structure.false_headings import SIDEBAR_LABEL

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext

#: Longest paragraph (characters) read as a box label.
MAX_LABEL_CHARS = 120


def is_box_label(text: str) -> bool:
    """``text`` is only a sidebar's label and title (``Sidebar 5: Initiating Antibiotic Therapy``)."""
    t = " ".join(text.split())
    return len(t) <= MAX_LABEL_CHARS and bool(SIDEBAR_LABEL.match(t)) and not t.endswith((".", "!", "?", ";"))


def _one_text(row: list[str]) -> str | None:
    """The row's one distinct text (``""`` when empty), or None when it holds several."""
    texts = {c.strip() for c in row if c.strip()}
    return texts.pop() if len(texts) == 1 else ("" if not texts else None)


def box_text(block: Block, grid: TableGrid) -> tuple[str, str] | None:
    """``(heading, text)`` of a table that is boxed text: one column (or every row one text spread
    over its columns, a merged cell) under a heading (caption, title row or header cell); None otherwise."""
    header = [_one_text(r) for r in grid.header_rows]
    body = [_one_text(r) for r in grid.body_rows]
    if None in header or None in body:
        return None
    heading = " ".join(dict.fromkeys(p for p in (block.caption.strip(), grid.title.strip(), *header) if p))
    text = "\n".join(t for t in body if t)
    return (heading, text) if heading and text else None


def emit_box(builder: EmitContext, block: Block, heading: str, text: str) -> None:
    """``text`` (from ``block``) as section unit(s) titled ``heading``, one level below the current section."""
    builder.flush_section()
    level = builder.path[-1][0] + 1 if builder.path else 1
    head = block.model_copy(update={"kind": BlockKind.HEADING, "text": heading, "level": level})
    builder.path.append((level, head))
    builder.pending_heading = head
    for line in text.splitlines():
        builder.on_text(block, line)
    builder.flush_section()
    builder.path.pop()


def open_box(builder: EmitContext, block: Block) -> None:
    """A box label paragraph: the heading of the text after it, one level below the current section."""
    builder.flush_section()
    level = builder.path[-1][0] + 1 if builder.path else 1
    head = block.model_copy(update={"kind": BlockKind.HEADING, "level": level})
    builder.path.append((level, head))
    builder.pending_heading = head
    builder.box = head


def close_box(builder: EmitContext, block: Block) -> None:
    """End the open box before ``block`` when it is a heading, table or figure, or on another page."""
    box = builder.box
    if box is None or not (block.page != box.page or block.kind in _BOX_ENDS):
        return
    builder.flush_section()
    if builder.path and builder.path[-1][1] is box:
        builder.path.pop()
    builder.box = None


_BOX_ENDS = frozenset({BlockKind.HEADING, BlockKind.TABLE, BlockKind.FIGURE, BlockKind.FLOWCHART})

__all__ = ["MAX_LABEL_CHARS", "SIDEBAR_LABEL", "box_text", "close_box", "emit_box", "is_box_label", "open_box"]
