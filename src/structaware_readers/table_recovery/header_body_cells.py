"""Merged cells shared by the body rows and the header rows read as body rows above them.

An overlong header's last rows are body rows to the unit builder (:func:`~structaware_readers.tables.header_trim.
rows_to_body`). A merged cell those rows share with the body rows below (a question printed once beside its
answers, the first of them read into the header) is printed beside all of them; outlined from the body rows alone,
its lines lie above their boxes, so no row gets it. :func:`row_cell_boxes` outlines the merged cells of the rows
as the unit builder reads them and gives each header row its share. Boxes are 0..1 of the displayed page, origin
top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.merged_cells import cell_boxes
from structaware_readers.table_recovery.text_lines import TextLine
from structaware_readers.tables.header_trim import rows_to_body

__all__ = ["row_cell_boxes"]


def row_cell_boxes(
    grid: TableGrid,
    pages: list[int],
    boxes: list[BBox | None],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
    regions: dict[int, BBox] | None = None,
) -> dict[str, Any]:
    """The grid fields to update for body rows boxed by ``boxes`` on ``pages``: their boxes (cut by
    :func:`~.merged_cells.cell_boxes`) and merged cells' boxes, and those of the header rows read as body rows when
    their boxes are known (on the first body row's page); a header's merged cells only when it has some. ``regions``
    (page -> the table's region there) bound a merged cell running on below the last rows of a page."""
    moved = rows_to_body(grid)
    keep = len(grid.header_rows) - moved
    known = len(grid.header_row_bboxes) == len(grid.header_rows) and pages
    head: list[BBox | None] = list(grid.header_row_bboxes[keep:]) if moved and known else []
    moved_rows = {
        "header_rows": grid.header_rows[:keep],  # the header rows read as body rows are no column header
        "header_row_bboxes": list(grid.header_row_bboxes[:keep]),
        "body_rows": grid.header_rows[keep:] + grid.body_rows,
    }
    view = grid.model_copy(update=moved_rows) if head else grid
    every = head + boxes
    cells = cell_boxes(view, [pages[0]] * len(head) + pages if head else pages, every, page_lines, words, regions)
    update: dict[str, Any] = {"body_row_bboxes": every[len(head) :], "body_row_pages": pages}
    if any(cells[len(head) :]):
        update["body_row_cell_bboxes"] = cells[len(head) :]
    if any(cells[: len(head)]):
        update["header_row_bboxes"] = list(grid.header_row_bboxes[:keep]) + every[: len(head)]
        update["header_row_cell_bboxes"] = [[] for _ in range(keep)] + cells[: len(head)]
    return update
