"""Rebuilt rows outside the parser's region: the line under a table or the row above it that only the
padding of a text-layer rebuild reaches (:mod:`.stage6_markup_check`). Boxes are 0..1 of the page, origin
top-left.
"""

from __future__ import annotations

import re
from collections import Counter

from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.row_accounting import figure_runs

__all__ = ["without_rows_above", "without_rows_below"]

_YEAR = re.compile(r"(?:19|20)\d\d")


def without_rows_below(rebuilt: TableGrid, bbox: tuple[float, float, float, float]) -> TableGrid:
    """``rebuilt`` without its last body rows that lie wholly below the parser's region ``bbox`` (0..1 of the
    page, origin top-left): the top of the line under the table (a footnote) that only the region's padding
    reaches, its glyphs cut at the region's side (``sto`` of ``stock``). The parser's markup, read
    from the region itself, holds no such row either."""
    boxes = rebuilt.body_row_bboxes
    if len(boxes) != len(rebuilt.body_rows):
        return rebuilt
    n = len(boxes)
    while n > 1 and boxes[n - 1] is not None and boxes[n - 1][1] >= bbox[3]:
        n -= 1
    if n == len(boxes):
        return rebuilt
    pages = rebuilt.body_row_pages[:n] if len(rebuilt.body_row_pages) == len(boxes) else rebuilt.body_row_pages
    return rebuilt.model_copy(
        update={"body_rows": rebuilt.body_rows[:n], "body_row_bboxes": boxes[:n], "body_row_pages": pages}
    )


def without_rows_above(
    rebuilt: TableGrid,
    bbox: tuple[float, float, float, float],
    others: list[tuple[tuple[float, float, float, float], str]],
) -> TableGrid:
    """``rebuilt`` without its first body rows that lie wholly above the parser's region ``bbox`` (0..1 of the
    page, origin top-left): the last row of the table or text above, which only the region's padding reaches
    and which the parser read as a block of its own: a row holding amounts (:func:`_holds_amounts`) whose box's
    centre lies in the region of one of ``others`` (the page's other blocks: region, text) whose text holds
    each of the row's figures. A row no other block holds is a row of this table the parser's region cut
    off (or one only a block without text covers), and stays. Header rows
    stay, and so do rows of years and notes (a column header may lie in the padding, read as a body row)."""
    boxes = rebuilt.body_row_bboxes
    if len(boxes) != len(rebuilt.body_rows):
        return rebuilt
    k = 0
    while (
        k < len(boxes) - 1
        and boxes[k] is not None
        and boxes[k][3] <= bbox[1]
        and _holds_amounts(rebuilt.body_rows[k])
        and _held_by(rebuilt.body_rows[k], boxes[k], others)
    ):
        k += 1
    if k == 0:
        return rebuilt
    pages = rebuilt.body_row_pages[k:] if len(rebuilt.body_row_pages) == len(boxes) else rebuilt.body_row_pages
    return rebuilt.model_copy(
        update={"body_rows": rebuilt.body_rows[k:], "body_row_bboxes": boxes[k:], "body_row_pages": pages}
    )


def _held_by(
    row: list[str],
    box: tuple[float, float, float, float],
    others: list[tuple[tuple[float, float, float, float], str]],
) -> bool:
    """The centre of ``box`` lies in the region of one of ``others`` (0..1 of the page, top-left) whose text
    holds each figure run of ``row``'s value cells."""
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    figures = Counter(figure_runs(row[1:]))
    for r, text in others:
        if r[0] <= x <= r[2] and r[1] <= y <= r[3]:
            held = Counter(figure_runs([text]))
            if all(held[f] >= n for f, n in figures.items()):
                return True
    return False


def _holds_amounts(row: list[str]) -> bool:
    """A value cell of ``row`` holds a figure run of 2+ digits that is no year (``$(3,656)``, ``840``; not
    ``FISCAL 2031`` or a note mark ``(1)``)."""
    return any(not _YEAR.fullmatch(f) and sum(c.isdigit() for c in f) >= 2 for f in figure_runs(row[1:]))
