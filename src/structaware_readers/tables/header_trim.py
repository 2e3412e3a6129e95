"""Where a grid's column header ends, as units read it: leading body rows that continue the header join it
(:func:`repair_header`), and header rows that cannot be column headers go back to the body (:func:`trim_header`).

Row boxes travel with their rows (``header_row_bboxes`` / ``body_row_bboxes``, 0..1 of the page, origin
top-left), so a header row read as a body row still points at its own lines. Stage 8 of table recovery asks
:func:`rows_to_body` which header rows those are, to find their boxes on the page.
"""

from __future__ import annotations

import re

from structaware_readers.models import BBox, TableGrid

__all__ = ["MAX_HEADER_CELL", "MAX_HEADER_ROWS", "repair_header", "rows_to_body", "trim_header"]

_NUMBER = re.compile(r"\d")
_YEAR = re.compile(r"(?:19|20)\d\d")

#: Most header rows a grid keeps; a column header cell longer than this (characters) is body text.
MAX_HEADER_ROWS, MAX_HEADER_CELL = 4, 120


def repair_header(grid: TableGrid) -> TableGrid:
    """Move leading body rows that continue the column header into the header (never a data row).

    In a mostly numeric table, a number-free leading row joins the header only when it fills empty
    or spanning header cells above it, or its stub cell is empty, or its values are bare years.
    """
    body = grid.body_rows
    numeric = sum(1 for row in body if any(_NUMBER.search(c) for c in row[1:]))
    if not grid.header_rows or len(body) < 3 or numeric < len(body) / 2:
        return grid
    header = list(grid.header_rows)
    k = 0
    while k < len(body) - 1:
        row = body[k]
        if not _year_line(row):
            distinct = {c.strip() for c in row if c.strip()}
            if any(_NUMBER.search(c) for c in row) or len(distinct) < 2:
                break  # a data row, a group label row or an empty row
            if row[0].strip() and not _fills_header(header[-1], row):
                break  # a data row under a complete header
        header.append(row)
        k += 1
    if k == 0:
        return grid
    header_boxes: list[BBox | None] = []
    if _aligned(grid.header_row_bboxes, grid.header_rows) and _aligned(grid.body_row_bboxes, body):
        header_boxes = [*grid.header_row_bboxes, *grid.body_row_bboxes[:k]]
    cells = _cells(grid.header_row_cell_bboxes, grid.header_rows) + _cells(grid.body_row_cell_bboxes, body)[:k]
    return grid.model_copy(
        update={
            "header_rows": header,
            "header_row_bboxes": header_boxes,
            "header_row_cell_bboxes": cells if any(cells) else [],
            "body_rows": body[k:],
            "body_row_pages": grid.body_row_pages[k:],
            "body_row_bboxes": grid.body_row_bboxes[k:],
            "body_row_cell_bboxes": grid.body_row_cell_bboxes[k:],
        }
    )


def rows_to_body(grid: TableGrid) -> int:
    """How many header rows (the last ones) :func:`trim_header` moves to the body."""
    header = grid.header_rows
    if len(header) <= MAX_HEADER_ROWS and all(len(c) <= MAX_HEADER_CELL for r in header for c in r):
        return 0
    keep = 1
    while (
        keep < min(len(header), MAX_HEADER_ROWS)
        and (_year_line(header[keep]) or not any(_NUMBER.search(c) for c in header[keep][1:]))
        and all(len(c) <= MAX_HEADER_CELL for c in header[keep])
    ):
        keep += 1
    return len(header) - keep


def trim_header(grid: TableGrid) -> TableGrid:
    """Move header rows that cannot be column headers into the body, each with its box when known."""
    n = rows_to_body(grid)
    if n == 0:
        return grid
    header = grid.header_rows
    keep = len(header) - n
    moved = header[keep:]
    page = grid.body_row_pages[0] if grid.body_row_pages else None
    known = _aligned(grid.header_row_bboxes, header)
    moved_boxes: list[BBox | None] = list(grid.header_row_bboxes[keep:]) if known else [None] * len(moved)
    cells = _cells(grid.header_row_cell_bboxes, header)  # a merged cell shared with the rows below: its box
    return grid.model_copy(
        update={
            "header_rows": header[:keep],
            "header_row_bboxes": grid.header_row_bboxes[:keep] if known else [],
            "body_rows": moved + grid.body_rows,
            "body_row_pages": ([page] * len(moved) + grid.body_row_pages) if page is not None else grid.body_row_pages,
            "body_row_bboxes": (moved_boxes + grid.body_row_bboxes) if grid.body_row_bboxes else grid.body_row_bboxes,
            "header_row_cell_bboxes": cells[:keep] if any(cells[:keep]) else [],
            "body_row_cell_bboxes": cells[keep:] + _cells(grid.body_row_cell_bboxes, grid.body_rows)
            if any(cells[keep:]) or grid.body_row_cell_bboxes
            else [],
        }
    )


def _cells(cells: list[list[tuple[int, int, BBox]]], rows: list[list[str]]) -> list[list[tuple[int, int, BBox]]]:
    """The merged cells' boxes of each of ``rows`` (none each when unknown)."""
    return list(cells) if len(cells) == len(rows) else [[] for _ in rows]


def _aligned(boxes: list[BBox | None], rows: list[list[str]]) -> bool:
    return len(boxes) == len(rows) and bool(rows)


def _year_line(row: list[str]) -> bool:
    """A column-header line of years: every value cell (not the stub) that has text is a bare year
    (``(in millions) | 2021 | 2020``), and at least half of them have text."""
    values = [c.strip() for c in row[1:]]
    filled = [c for c in values if c]
    return bool(filled) and 2 * len(filled) >= len(values) and all(_YEAR.fullmatch(c) for c in filled)


def _fills_header(above: list[str], row: list[str]) -> bool:
    """``row`` has text in a value column whose header cell above is empty or spans several columns."""
    for c in range(1, min(len(row), len(above))):
        if not row[c].strip():
            continue
        cell = above[c].strip()
        spans = (c > 1 and above[c - 1].strip() == cell) or (c + 1 < len(above) and above[c + 1].strip() == cell)
        if not cell or spans:
            return True
    return False
