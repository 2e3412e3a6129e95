"""Ruled rows of a narrower table printed beside a taller row: the taller row's box cut beside them.

A page may print two ruled tables side by side whose rulings differ (a code legend of several small tables, one
column of it ruled in short rows, the rest in tall ones); rebuilt from the text layer (:mod:`.pdf_text_layer`) as
one grid, a tall row spans the whole width while the short rows of the narrow table lie at its height, at one
side of it. The tall row's cells in the narrow table's columns are empty (the page prints the short rows' text
there), yet its box, as wide as the grid, outlines their lines as the row's. A row whose box holds another row's
box over :data:`HEIGHT_SHARE` of that row's height, at its left or right edge, where every cell of that row unlike
its own lies in a column its own cell leaves empty, is cut beside that row's box. Boxes are 0..1 of the displayed
page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from structaware_readers.models import BBox, TableGrid

__all__ = ["EDGE", "HEIGHT_SHARE", "cut_beside_rows"]

#: Share of a row's height that must lie within the taller row's box.
HEIGHT_SHARE = 0.9
#: How near (share of the page's width) a row's box must come to the taller row's edge to stand at that side.
EDGE = 0.01
#: The taller row's box must keep at least this width (share of the page's width).
MIN_WIDTH = 0.05


def cut_beside_rows(grid: TableGrid, pages: list[int], boxes: list[BBox | None]) -> list[BBox | None]:
    """``boxes`` (one per body row, on ``pages``) with each box cut beside the rows of a narrower table printed at
    its height at one of its sides (module docstring)."""
    out = list(boxes)
    rows = grid.body_rows
    for r, box in enumerate(boxes):
        if box is None:
            continue
        left, right = box[0], box[2]
        for x, other in enumerate(boxes):
            if x == r or other is None or pages[x] != pages[r] or not _beside(rows[r], rows[x]):
                continue
            if not _within_height(box, other) or other[2] - other[0] >= box[2] - box[0] - EDGE:
                continue
            if abs(other[0] - box[0]) <= EDGE:
                left = max(left, other[2])
            elif abs(other[2] - box[2]) <= EDGE:
                right = min(right, other[0])
        if (left, right) != (box[0], box[2]) and right - left >= MIN_WIDTH:
            out[r] = (left, box[1], right, box[3])
    return out


def _within_height(box: BBox, other: BBox) -> bool:
    height = other[3] - other[1]
    return height > 0 and min(box[3], other[3]) - max(box[1], other[1]) >= HEIGHT_SHARE * height


def _beside(row: list[str], other: list[str]) -> bool:
    """Every cell of ``other`` unlike ``row``'s cell of its column lies where ``row``'s cell is empty, and there is
    at least one such cell: ``other`` prints its own text where ``row`` prints none."""
    own = [
        c
        for c, text in enumerate(other)
        if text.strip() and " ".join(text.split()) != " ".join((row[c] if c < len(row) else "").split())
    ]
    return bool(own) and all(c >= len(row) or not row[c].strip() for c in own)
