"""Equal cells one under the other that the page prints in each row: no merged cell.

A grid says a merged cell's text in every row it spans, so :mod:`.merged_cells` reads equal cells in consecutive
rows as one cell printed once. A column may as well print the same words in each of several rows (``None`` in
three rows, one under the other): each row then prints its own copy, which is the row's own cell, not a shared
one outlined apart (read as shared, a row's box is cut to its other cells' lines and loses its copy). The copies
are counted on the page: runs of the cell's words stacked in one column (a line read as several runs put
together, :mod:`.broken_runs`) that say the whole cell from its first word to its last. When every row the cell
spans has a copy of its own, the cell is printed once per row; a cell printed once, across its rows or on one of
them, has fewer copies than rows. Boxes are 0..1 of the displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from structaware_readers.models import BBox
from structaware_readers.table_recovery.broken_runs import joined_runs
from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["printed_per_row"]

#: A copy's next line starts at most this many line heights below the end of its line above.
LINE_GAP = 1.0


@dataclass
class _Copy:
    """Lines one under the other saying the start of a cell's text (``said``)."""

    said: str
    lines: list[TextLine] = field(default_factory=list)

    @property
    def middle(self) -> float:
        return (min(ln.y0 for ln in self.lines) + max(ln.y1 for ln in self.lines)) / 2


def printed_per_row(
    rows: list[int],
    pages: list[int],
    boxes: list[BBox | None],
    page_lines: Callable[[int], list[TextLine]],
    text: str,
) -> bool:
    """Each of ``rows`` (on ``pages``, boxed by ``boxes``) holds a copy of its own of the cell whose words run
    together are ``text``: a copy (:func:`_copies`, among the lines between the top and bottom of the rows' boxes
    on its page) whose middle lies in the row's box, nearer its middle than any other of the rows' boxes holding it.
    ``False`` when a row is unboxed or the cell's lines are printed sideways (one turned line spans rows)."""
    if len(rows) < 2 or any(boxes[r] is None for r in rows):
        return False
    owners: set[int] = set()
    for page in {pages[r] for r in rows}:
        here = [r for r in rows if pages[r] == page]
        top, bottom = min(boxes[r][1] for r in here), max(boxes[r][3] for r in here)  # type: ignore[index]
        band = [ln for ln in page_lines(page) if top <= (ln.y0 + ln.y1) / 2 <= bottom]
        lines = joined_runs(band, text)
        if any(ln.y1 - ln.y0 > ln.x1 - ln.x0 for ln in lines):
            return False
        for copy in _copies(lines, text):
            holders = [r for r in here if boxes[r][1] <= copy.middle <= boxes[r][3]]  # type: ignore[index]
            if holders:
                owners.add(min(holders, key=lambda r: abs((boxes[r][1] + boxes[r][3]) / 2 - copy.middle)))  # type: ignore[index]
    return owners == set(rows)


def _copies(lines: list[TextLine], text: str) -> list[_Copy]:
    """The whole copies of ``text`` the lines print: top to bottom, each line goes on the copy it continues
    (``text`` goes on with its words; it starts at most :data:`LINE_GAP` line heights under the copy's last line
    and overlaps it across), the nearest, else starts a copy when ``text`` starts with its words."""
    open_: list[_Copy] = []
    done: list[_Copy] = []
    for ln in sorted(lines, key=lambda ln: (ln.y0, ln.x0)):
        said = "".join(ln.words)
        height = ln.y1 - ln.y0
        follows = [
            c
            for c in open_
            if text.startswith(c.said + said)
            and 0 <= ln.y0 - c.lines[-1].y1 + 0.5 * height <= (LINE_GAP + 0.5) * height
            and min(ln.x1, c.lines[-1].x1) > max(ln.x0, c.lines[-1].x0)
        ]
        if follows:
            copy = min(follows, key=lambda c: ln.y0 - c.lines[-1].y1)
            copy.said += said
            copy.lines.append(ln)
        elif text.startswith(said):
            copy = _Copy(said, [ln])
            open_.append(copy)
        else:
            continue
        if copy.said == text:
            open_.remove(copy)
            done.append(copy)
    return done
