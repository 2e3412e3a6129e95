"""Ruled rows whose box reaches down over the rows below it, cut where the first of those rows starts.

A table rebuilt from the text layer boxes each row over the ruled cells that start on it (:mod:`.pdf_text_layer`).
A cell reaching down over the rows below (a length or an image spanning several drug rows, a dash) stretches the
first row's box over theirs, and the row is outlined with their lines. Ruled rows do not lie inside each other: a
row's box holding the middle of a later row's box on its page (not a row saying the same in every cell: the ruling
split one row in two) is cut at the top of the first such box, when the box so cut still holds :data:`HOLDS_OWN`
of the characters of the row's cells that differ from those rows' (a merged cell's lines are outlined by
:mod:`.merged_cells`; a cell spanning columns, copied by the row into each of them, is one cell: said by a row
below in any of those columns, none of its copies is the row's own). Boxes are 0..1 of the displayed page, origin
top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.merged_cells import centre_in
from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["HOLDS_OWN", "cut_nested_rows", "reaches_over"]

#: Share of a row's own characters (its cells unlike the rows below it reaches over) its cut box must hold.
HOLDS_OWN = 0.9


def cut_nested_rows(
    grid: TableGrid,
    pages: list[int],
    boxes: list[BBox | None],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
) -> list[BBox | None]:
    """``boxes`` (one per body row, on ``pages``) with each box holding the middle of a later row's box on its
    page cut at the top of the first such box, when it still holds the row's own lines (module docstring)."""
    out = list(boxes)
    for r, box in enumerate(boxes):
        if box is None:
            continue
        under = [
            x
            for x in range(r + 1, len(boxes))
            if pages[x] == pages[r] and reaches_over(box, boxes[x]) and not _same_row(grid, r, x)
        ]
        if not under:
            continue
        cut = (box[0], box[1], box[2], min(boxes[x][1] for x in under))  # type: ignore[index]
        own = _own_words(grid, r, under, words)
        held = "".join(w for ln in page_lines(pages[r]) if centre_in(ln, cut) for w in ln.words)
        total = sum(len(w) for w in own)
        if total and sum(len(w) for w in own if w in held) >= HOLDS_OWN * total:
            out[r] = cut
    return out


def reaches_over(box: BBox, other: BBox | None, *, whole: bool = False) -> bool:
    """``box`` holds the middle of ``other``, which starts below its top and whose middle (``whole``: its
    bottom too) lies above ``box``'s bottom."""
    if other is None or other[1] <= box[1]:
        return False
    below = other[3] <= box[3] if whole else (other[1] + other[3]) / 2 < box[3]
    return box[0] <= (other[0] + other[2]) / 2 <= box[2] and below


def _same_row(grid: TableGrid, r: int, x: int) -> bool:
    """Rows ``r`` and ``x`` say the same in every cell: one row the ruling split in two (a cell of another column
    ruled in two parts beside it), no row of its own."""
    return [" ".join(c.split()) for c in grid.body_rows[r]] == [" ".join(c.split()) for c in grid.body_rows[x]]


def _own_words(grid: TableGrid, r: int, under: list[int], words: Callable[[str], list[str]]) -> list[str]:
    """The words of row ``r``'s cells that differ from the cell of every row of ``under`` in the same column, or in
    any column of the cell's copies side by side (a cell spanning columns, repeated in each of them by row ``r``,
    said in fewer by a row below it spans down to)."""
    rows = grid.body_rows
    row = [" ".join(c.split()) for c in rows[r]]

    def span(c: int) -> range:
        first, last = c, c
        while first > 0 and row[first - 1] == row[c]:
            first -= 1
        while last + 1 < len(row) and row[last + 1] == row[c]:
            last += 1
        return range(first, last + 1)

    def same(c: int, x: int, spans: bool) -> bool:
        cols = span(c) if spans else (c,)
        return any(k < len(rows[x]) and " ".join(rows[x][k].split()) == row[c] for k in cols)

    def own(spans: bool) -> list[str]:
        return [w for c, cell in enumerate(rows[r]) if not any(same(c, x, spans) for x in under) for w in words(cell)]

    # a row that is nothing but one cell spanning its columns (a units line over each part of a table) keeps its
    # copies as its own: counted once, it would have no words left to be cut to
    return own(True) or own(False)
