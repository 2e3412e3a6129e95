"""Where a merged cell beside a page's last rows may run on to: the foot of the table's region on that page.

A long cell spanning the last rows a page prints of a table (a column of notes beside a few short rows) often runs
on well below the last of them: each row's box ends where its own short cells end, so the cell's lower lines lie
below every box and :func:`~.merged_cells.cell_boxes`, which looks for a cell's lines between the top and bottom of
the boxes of the rows it covers, would leave them out. When no other row of the table is boxed below the covered
rows on that page, nothing but the cell can print there, and its lines are sought down to the bottom of the
table's region on the page. A cell covering rows with another row boxed below them keeps to its rows' boxes (the
lines below are that row's). Boxes are 0..1 of the displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from structaware_readers.models import BBox

__all__ = ["foot_band"]


def foot_band(
    rows: list[int], pages: list[int], boxes: list[BBox | None], page: int, region: BBox | None
) -> list[BBox]:
    """A box from the bottom of the boxes of ``rows`` (covered by one merged cell, on ``page``) to the bottom of
    ``region`` (the table's region on ``page``), across the region, when the last row boxed on ``page`` is one
    of ``rows`` and the region reaches below their boxes; else nothing."""
    here = [r for r, b in enumerate(boxes) if b is not None and pages[r] == page]
    mine = [boxes[r] for r in rows if boxes[r] is not None and pages[r] == page]
    if region is None or not here or not mine or max(here) not in rows:
        return []
    bottom = max(b[3] for b in mine)  # type: ignore[index]
    if any(boxes[r][3] > bottom for r in here if r not in rows):  # type: ignore[index]
        return []  # another row printed lower on the page
    if region[3] <= bottom:
        return []
    return [(region[0], bottom, region[2], region[3])]
