"""The printed lines of a merged cell whose words recur in the other cells of the rows it spans.

:mod:`.merged_cells` finds a merged cell's lines by their words: lines holding the cell's words and no other
cell's of the rows it covers. A short cell whose words another cell of those rows also says (a status
``Checked`` printed once beside definitions saying "was checked again") has no such line, so no row got its
box. Its lines are then the lines that say the whole cell and nothing else, one under the other in one column,
when exactly one such group is printed. Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["whole_cell_lines"]


def whole_cell_lines(candidates: list[TextLine], text: str) -> list[TextLine]:
    """The lines among ``candidates`` (each holding words of the cell only) that say ``text`` (the cell's words
    run together) from its first word to its last, top to bottom, each under the one before and overlapping it
    from left to right; empty when no group or more than one does (the cell cannot be told from a line of
    another cell that happens to say it)."""
    lines = sorted(candidates, key=lambda ln: (ln.y0, ln.x0))
    groups = []
    for i, first in enumerate(lines):
        said, group = "".join(first.words), [first]
        for ln in lines[i + 1 :]:
            if said == text or not text.startswith(said):
                break
            last = group[-1]
            beside = min(ln.x1, last.x1) > max(ln.x0, last.x0)
            below = 0 <= ln.y0 - last.y1 <= ln.y1 - ln.y0
            if beside and below and text.startswith(said + "".join(ln.words)):
                said += "".join(ln.words)
                group.append(ln)
        if said == text:
            groups.append(group)
    return groups[0] if len(groups) == 1 else []
