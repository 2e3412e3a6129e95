"""A run of words several rows hold, placed by the cell line it continues.

Stage 8 places such a shared run with the row whose lines reach over it or are clearly nearer. A wrapped cell's
first line that two rows both say (``Inhale contents of one vial twice`` in two dosing cells one under the other,
the second row's lines centred lower than its cell's first line) lies as near to the row above as to its own, so
no row got it and the row's box missed it. The run belongs to the row whose cell it continues: the run printed
just above or below it in its column is that row's and, read on from it, says that row's cell, and no other
row's. Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["NEXT_LINE", "continued_row"]

#: A run is next to another in its column when their middles lie at most this many of the taller's heights apart
#: (a line's pitch, a list item's spacing; not two lines' pitch).
NEXT_LINE = 2.0


def continued_row(
    run: TextLine, holders: list[int], found: dict[int, list[TextLine]], cells: dict[int, list[str]]
) -> int | None:
    """The one row among ``holders`` (the rows whose words hold ``run``) with a run among ``found`` (each row's
    runs so far) printed next to ``run`` in its column (their widths overlapping, a line's pitch apart) that, read
    with ``run`` top to bottom, is part of one of ``cells`` (each row's cells, words run together) that no other
    holder's cells repeat (a merged cell printed once is every covered row's); ``None`` when no row or more than
    one does."""
    text = "".join(run.words)
    placed = [(r, x) for r, got in found.items() for x in got]
    column = [(r, x) for r, x in placed if min(x.x1, run.x1) > max(x.x0, run.x0)]
    above = [(r, x) for r, x in column if x.y1 <= (run.y0 + run.y1) / 2]
    below = [(r, x) for r, x in column if x.y0 >= (run.y0 + run.y1) / 2]
    neighbours = []
    if above:
        neighbours.append((*max(above, key=lambda p: p[1].y1), True))
    if below:
        neighbours.append((*min(below, key=lambda p: p[1].y0), False))
    rows = set()
    for r, x, over in neighbours:
        if abs((run.y0 + run.y1) - (x.y0 + x.y1)) / 2 > NEXT_LINE * max(run.y1 - run.y0, x.y1 - x.y0):
            continue
        said = "".join(x.words) + text if over else text + "".join(x.words)
        others = {cell for o in holders if o != r for cell in cells.get(o, [])}
        if any(said in cell and cell not in others for cell in cells.get(r, [])):  # not a merged cell's
            rows.add(r)
    return next(iter(rows)) if len(rows) == 1 and rows <= set(holders) else None
