"""``figure`` units (our addition to the paper's unit types): a captioned or text-bearing figure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from structaware_readers.models import Block, UnitType
from structaware_readers.units.common import title

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext


def emit_figure(builder: EmitContext, block: Block) -> None:
    """One ``figure`` unit: the caption plus any text the parser read inside the figure."""
    if not builder.options.figure_units:
        return
    caption = block.caption.strip()
    body = block.text.strip()
    if not caption and not body:
        return
    builder.flush_section()
    head = f"Figure: {title(caption)}" if caption else "Figure"
    context = " | ".join(s for s in (head, builder.section_context()) if s)
    builder.emit(UnitType.FIGURE, "\n".join(t for t in (caption, body) if t), context, [block])
