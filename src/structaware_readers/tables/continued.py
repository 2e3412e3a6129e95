"""A table continued on the next page: which table continues which, and the rows it adds.

Used on the parser's own grids (:func:`structaware_readers.mineru.assemble.merge_tables`) and after
grid recovery, so a table is one table whichever way its grid was read. :func:`continues`: the
parser says so, or the table opens page N+1 with the column count of the table ending page N and
no new caption. :func:`append_rows` appends its body rows, drops a repeated header, and keeps
``body_row_pages``/``body_row_bboxes`` aligned.
"""

from __future__ import annotations

import re

from structaware_readers.models import BBox, TableGrid

CONTINUED = re.compile(r"continu|\bcont(?:'d|d|\.)|续", re.IGNORECASE)


def continues(
    first: TableGrid | None,
    second: TableGrid | None,
    *,
    flagged: bool,
    by_position: bool,
    caption: str,
    own_header_starts_a_table: bool = False,
) -> bool:
    """True when the table with grid ``second`` continues the one with grid ``first`` (``None`` grids never merge):
    flagged by the parser, or ``second`` opens its page right after ``first``; with ``own_header_starts_a_table``, a
    ``second`` by position whose header rows differ is a new table.
    """
    if first is None or second is None:
        return False
    if flagged:
        return True
    if not by_position or first.n_cols != second.n_cols:
        return False
    if caption:
        return CONTINUED.search(caption) is not None
    if own_header_starts_a_table and second.header_rows:
        return [_norm_row(r) for r in second.header_rows] == [_norm_row(r) for r in first.header_rows]
    return True


def append_rows(first: TableGrid, first_page: int, second: TableGrid, second_page: int) -> TableGrid:
    """``first`` with the rows of its continuation ``second`` (on ``second_page``) appended (module
    docstring); ``first_page`` is the page of ``first``'s rows when it has no ``body_row_pages``."""
    rows = [*second.header_rows, *second.body_rows]
    boxes: list[BBox | None] = [None] * len(second.header_rows) + _boxes(second)
    second_pages = [second_page] * len(second.header_rows) + _pages(second, second_page)
    k = len(first.header_rows)
    if k and [_norm_row(r) for r in rows[:k]] == [_norm_row(r) for r in first.header_rows]:
        rows, boxes, second_pages = rows[k:], boxes[k:], second_pages[k:]  # the header repeated on the next page
    pages = _pages(first, first_page) + second_pages
    first_boxes = _boxes(first)
    n_cols = max(first.n_cols, second.n_cols)
    pad = lambda rs: [r + [""] * (n_cols - len(r)) for r in rs]
    known = any(b is not None for b in [*first_boxes, *boxes])
    return first.model_copy(
        update={
            "header_rows": pad(first.header_rows),
            "body_rows": pad([*first.body_rows, *rows]),
            "body_row_pages": pages,
            "body_row_bboxes": [*first_boxes, *boxes] if known else [],
            "body_row_cell_bboxes": [*_cells(first), *[[]] * (len(rows) - len(second.body_rows)), *_cells(second)]
            if first.body_row_cell_bboxes or second.body_row_cell_bboxes
            else [],
            "title": first.title or second.title,
            "turned": first.turned or second.turned,
        }
    )


def _pages(grid: TableGrid, page: int) -> list[int]:
    """One page per body row (``page`` when the grid does not say)."""
    n = len(grid.body_rows)
    return list(grid.body_row_pages) if len(grid.body_row_pages) == n else [page] * n


def _boxes(grid: TableGrid) -> list[BBox | None]:
    """One box (or ``None``) per body row."""
    n = len(grid.body_rows)
    return list(grid.body_row_bboxes[:n]) + [None] * (n - len(grid.body_row_bboxes[:n]))


def _cells(grid: TableGrid) -> list[list[tuple[int, int, BBox]]]:
    """The merged cells' boxes of each body row (none when unknown)."""
    n = len(grid.body_rows)
    return list(grid.body_row_cell_bboxes) if len(grid.body_row_cell_bboxes) == n else [[] for _ in range(n)]


def _norm_row(row: list[str]) -> list[str]:
    return [" ".join(c.split()).casefold() for c in row]


__all__ = ["CONTINUED", "append_rows", "continues"]
