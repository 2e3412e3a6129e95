"""Boxes of a table's rows when the parser read the table turned a quarter: each of its rows is a column on the
page (a table whose first column is printed sideways can come out this way, its cells' order reversed).

Stage 8 boxes a row across the table's width, from the top of its lines to their bottom; a row that is a printed
column would get a box over the whole table. Here the rows' own text runs decide: when, taken in the grid's order,
each found row lies wholly to the right of the one before and beside it (their runs overlap from top to bottom),
the rows are columns, and each gets the box of the runs printed in its own column. A row's column is where its runs
printed the way most of its characters are lie (a label printed sideways beside the rows, whose words a
concept's cells say too, is not that concept's column). A row none of whose runs was
found (cells of one character, ``#1``) gets the runs between the columns of the rows found before and after it.
Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from statistics import median

from structaware_readers.models import BBox
from structaware_readers.table_recovery.merged_cells import TextLine

__all__ = ["MIN_BESIDE", "column_boxes"]

#: Share of the shorter of two neighbouring rows' runs (top to bottom) the other's must overlap for the two to
#: stand beside each other, as columns do.
MIN_BESIDE = 0.5
#: Share of a row's characters, at each side, whose runs may lie outside its column.
STRAY_SHARE = 0.1


def column_boxes(
    rows: list[int], own: dict[int, str], found: dict[int, list[TextLine]], runs: list[TextLine], region: BBox
) -> dict[int, BBox]:
    """The box of each of ``rows`` (body row indices, in order, all on one page) as a printed column, given each
    row's words run together (``own``) and the runs found as its own (``found``) among the region's ``runs``; empty
    when the rows are not columns: fewer than two found, or two found neighbours not side by side, left to right.
    A row's box holds the runs of its words in its column (a turned line of the column beside reaching into a
    gap between columns is not the row's)."""
    order = [r for r in rows if found.get(r)]
    if len(order) < 2:
        return {}
    spans = {r: _core(_one_way(found[r])) for r in order}
    for a, b in zip(order, order[1:]):
        (_, ay0, ax1, ay1), (bx0, by0, _, by1) = spans[a], spans[b]
        beside = min(ay1, by1) - max(ay0, by0)
        if ax1 > bx0 or beside < MIN_BESIDE * min(ay1 - ay0, by1 - by0):
            return {}
    bands: dict[int, tuple[float, float]] = {}
    for r in rows:
        if r in spans:
            bands[r] = (spans[r][0], spans[r][2])
        else:
            left = [spans[k][2] for k in order if k < r]
            right = [spans[k][0] for k in order if k > r]
            bands[r] = (left[-1] if left else region[0], right[0] if right else region[2])
    out: dict[int, BBox] = {}
    for r, (x0, x1) in bands.items():
        inside = [x for x in runs if x0 <= (x.x0 + x.x1) / 2 <= x1 and "".join(x.words) in own[r]]
        if not inside:
            continue
        pad = 0.5 * median(min(x.y1 - x.y0, x.x1 - x.x0) for x in inside)
        left, top, right, bottom = _span(inside)
        out[r] = (
            max(left - pad, region[0]),
            max(top - pad, region[1]),
            min(right + pad, region[2]),
            min(bottom + pad, region[3]),
        )
    return out


def _one_way(runs: list[TextLine]) -> list[TextLine]:
    """The runs of ``runs`` printed the way most of their characters are, across or sideways: a printed column's
    cells read one way, and a label printed sideways beside them whose words its cells say too (``focused
    psychotherapies`` beside the concept ``Addiction focused psychotherapies``) is another column's."""
    turned = [x for x in runs if x.y1 - x.y0 > x.x1 - x.x0]
    across = [x for x in runs if x.y1 - x.y0 <= x.x1 - x.x0]
    size = [sum(len("".join(x.words)) for x in part) for part in (turned, across)]
    return turned if size[0] > size[1] else across


def _core(runs: list[TextLine]) -> BBox:
    """The span of ``runs`` without the outermost :data:`STRAY_SHARE` of their characters on each side: a short
    word of the row's (``or``) printed in another column leaves its own column's box."""
    weights = [len("".join(x.words)) for x in runs]
    cut = STRAY_SHARE * sum(weights)

    def inner(ends: list[float], reverse: bool) -> float:
        seen = 0
        for end, weight in sorted(zip(ends, weights), reverse=reverse):
            seen += weight
            if seen > cut:
                return end
        return ends[0]

    return (
        inner([x.x0 for x in runs], False),
        inner([x.y0 for x in runs], False),
        inner([x.x1 for x in runs], True),
        inner([x.y1 for x in runs], True),
    )


def _span(runs: list[TextLine]) -> BBox:
    return (min(x.x0 for x in runs), min(x.y0 for x in runs), max(x.x1 for x in runs), max(x.y1 for x in runs))
