"""The lines of a row whose words other rows all say, up to where another row's lines start.

A row may hold no word of its own: every line of it is said by the row below too (``Severe`` | two
treatments, over ``Very severe`` | the same two and more). Stage 8 then finds its lines by its first
line's key words and takes the lines that follow while they are the row's words; a row whose cells
repeat its own reads on into the row below. Its lines are those before the first line lying within
another row's lines found (their top to bottom): the rest are that row's. Boxes are 0..1 of the
displayed page, origin top-left.
"""

from __future__ import annotations

from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["free_lines"]


def free_lines(lines: list[TextLine], spans: list[tuple[float, float]]) -> list[TextLine]:
    """The first of ``lines`` (top to bottom) whose middles lie within none of ``spans`` (top and bottom of
    each other row's lines); none when the first line lies within one (it is that row's)."""
    out: list[TextLine] = []
    for line in lines:
        middle = (line.y0 + line.y1) / 2
        if any(top <= middle <= bottom for top, bottom in spans):
            break
        out.append(line)
    return out
