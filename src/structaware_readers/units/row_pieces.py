"""A table row's own box without the columns its unit does not say.

A long cell spanning several rows is said once, in a unit of its own (:mod:`.spanning_cells`); the row's
unit leaves it out. Printed once beside the rows it spans, its lines run through the row's box (a box as
wide as the table), so the outline would show text the unit does not hold. The row's box is cut into the
pieces left and right of where such a cell is printed (its box from the table's merged cells). Boxes are
0..1 of the displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from structaware_readers.models import BBox, TableGrid

__all__ = ["MIN_PIECE", "own_pieces", "unsaid_cell_boxes"]

#: A piece of a row's box narrower than this (share of the page's width) holds no text: dropped.
MIN_PIECE = 0.01


def unsaid_cell_boxes(grid: TableGrid, i: int, cells: list[str], page: int) -> list[BBox]:
    """The printed boxes on ``page`` of the merged cells of body row ``i`` that ``cells`` (the unit's cells)
    leave empty and do not say in another column (a cell spanning columns as well as rows is repeated in each):
    each such cell's box as any row it spans carries it (the row printing the cell does not)."""
    rows = grid.body_rows
    if len(grid.body_row_cell_bboxes) != len(rows):
        return []
    row = rows[i]
    said = {" ".join(c.split()) for c in cells if c.strip()}  # a cell spanning columns too may be said in another
    unsaid = {
        c
        for c, text in enumerate(row)
        if text.strip() and not (c < len(cells) and cells[c].strip()) and " ".join(text.split()) not in said
    }
    out: list[BBox] = []
    for c in sorted(unsaid):
        first = last = i
        while first > 0 and _same(rows[first - 1], row, c):
            first -= 1
        while last + 1 < len(rows) and _same(rows[last + 1], row, c):
            last += 1
        for j in range(first, last + 1):
            out.extend(box for col, p, box in grid.body_row_cell_bboxes[j] if col == c and p == page and box not in out)
    return out


def own_pieces(box: BBox, unsaid: list[BBox]) -> list[BBox]:
    """``box`` without the columns of the ``unsaid`` boxes that reach into it (its full height kept): the pieces
    left, between and right of them, at least :data:`MIN_PIECE` wide; ``[box]`` when nothing is cut or nothing
    would be left."""
    x0, y0, x1, y1 = box
    spans = sorted(
        (max(x0, b[0]), min(x1, b[2])) for b in unsaid if b[1] < y1 and b[3] > y0 and b[0] < x1 and b[2] > x0
    )
    if not spans:
        return [box]
    pieces: list[BBox] = []
    left = x0
    for a, b in spans:
        if a - left >= MIN_PIECE:
            pieces.append((left, y0, a, y1))
        left = max(left, b)
    if x1 - left >= MIN_PIECE:
        pieces.append((left, y0, x1, y1))
    return pieces or [box]


def _same(a: list[str], b: list[str], c: int) -> bool:
    return c < len(a) and c < len(b) and " ".join(a[c].split()) == " ".join(b[c].split())
