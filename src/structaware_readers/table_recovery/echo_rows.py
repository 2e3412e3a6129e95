"""Ruled rows that only echo the row their box holds, outlined by their own runs.

A table rebuilt from the text layer (:mod:`.pdf_text_layer`) can split one printed row in several when the
ruling is drawn double: a thin band above or below the row becomes a row of its own that repeats some of the
printed row's cells (the same answer boxes, the same merged cell) or takes some of them, and says nothing else. Its box then reaches
over the printed row's box, and outlines the printed row's other cells (its label) too. Ruled rows do not lie
inside each other: a row whose box holds the middle of a later row's box on its page, and whose every non-empty
cell says what that row's cell in the same column says (or stands where that row's is empty), is boxed around the runs inside its box made of its own
words only, when those runs hold every word of its cells the old box held. Boxes are 0..1 of the displayed page,
origin top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.merged_cells import centre_in
from structaware_readers.table_recovery.nested_rows import reaches_over
from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["box_echo_rows"]


def box_echo_rows(
    grid: TableGrid,
    pages: list[int],
    boxes: list[BBox | None],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
) -> list[BBox | None]:
    """``boxes`` (one per body row, on ``pages``) with each row that only echoes a later row its box holds
    boxed around its own runs inside that box (module docstring)."""
    out = list(boxes)
    for r, box in enumerate(boxes):
        if box is None or not _echoes(grid, r, pages, boxes):
            continue
        own = {w for cell in grid.body_rows[r] for w in words(cell)}
        inside = [ln for ln in page_lines(pages[r]) if centre_in(ln, box)]
        held = {w for ln in inside for w in ln.words if w in own}
        mine = [ln for ln in inside if ln.words and all(w in own for w in ln.words)]
        if not mine or held - {w for ln in mine for w in ln.words}:
            continue
        out[r] = (
            min(ln.x0 for ln in mine),
            min(ln.y0 for ln in mine),
            max(ln.x1 for ln in mine),
            max(ln.y1 for ln in mine),
        )
    return out


def _echoes(grid: TableGrid, r: int, pages: list[int], boxes: list[BBox | None]) -> bool:
    """Row ``r``'s box holds a later row's box on its page whose cells say what ``r``'s say, or are empty where
    ``r``'s are not (the ruling split the printed row's cells between the two)."""
    box = boxes[r]
    row = [" ".join(c.split()) for c in grid.body_rows[r]]
    for x in range(r + 1, len(boxes)):
        other = boxes[x]
        if pages[x] != pages[r] or not reaches_over(box, other, whole=True):  # type: ignore[arg-type]
            continue
        cells = [" ".join(c.split()) for c in grid.body_rows[x]]
        if len(cells) != len(row) or cells == row:
            continue
        if any(row) and all(not c or c == cells[i] or not cells[i] for i, c in enumerate(row)):
            return True
    return False
