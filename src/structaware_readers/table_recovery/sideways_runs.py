"""Text runs printed sideways beside a table's rows, left out when stage 8 reads the rows' lines.

A key question stands on its side down the first column of a search-strategy table, beside the rows it covers.
Its run is as tall as those rows: grouped into lines with the runs printed across, it joins all their lines into
one, and its words, which every row it covers repeats, stretch one row's box over the others. Such a cell is a
merged cell (:mod:`.merged_cells` outlines it with each row it covers), no row's own line. Boxes are 0..1 of the
displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["SIDEWAYS", "across"]

#: A run taller than wide and over this many times the median run's height is printed sideways.
SIDEWAYS = 2.0


def across(runs: list[TextLine], rows: list[str]) -> list[TextLine]:
    """``runs`` without those printed sideways (taller than wide and over :data:`SIDEWAYS` times the median
    run's height) beside two or more lines of runs printed across, whose words two or more of ``rows`` hold
    (each row's words run together): a merged cell's. A column header printed sideways stays (one row's
    words: a header row read as a body row), and so does a table printed wholly sideways (its median run is
    as tall)."""
    if not runs:
        return runs
    heights = sorted(r.y1 - r.y0 for r in runs)
    median = heights[len(heights) // 2]
    tall = [r for r in runs if r.y1 - r.y0 > r.x1 - r.x0 and r.y1 - r.y0 > SIDEWAYS * median]
    middles = sorted((r.y0 + r.y1) / 2 for r in runs if r not in tall)

    def lines_beside(run: TextLine) -> int:
        inside = [m for m in middles if run.y0 < m < run.y1]
        return sum(1 for a, b in zip([float("-inf"), *inside], inside) if b - a > median / 2)

    return [
        r for r in runs if r not in tall or lines_beside(r) < 2 or sum(1 for t in rows if "".join(r.words) in t) < 2
    ]
