"""How wide a ruled table's row is: its own cells and the merged cells above it printed on its line.

pdfplumber gives each row of a ruled table the cells that start on it; a cell merged down from a row above
(a form's mark box spanning an entry's two lines, filled in on the second) belongs to both rows' text but to the first
row's box only, so the second row's box would miss what it says. Boxes are PDF points, origin top-left.
"""

from __future__ import annotations

from typing import Any

Box = tuple[float, float, float, float]

__all__ = ["row_width"]


def row_width(row: Any, above: list[tuple[Box, list[dict[str, Any]]]]) -> tuple[float, float]:
    """Left and right of a pdfplumber ``row`` with the cells of the rows ``above`` (each with its glyphs) that
    reach down over it and print their text within its height, side by side with its own cells: a merged cell
    printed on the row's line is the row's cell too (the grid repeats its text in the row), though the row's own
    cells may be a few columns. A cell whose text is printed above the row, or beyond a column held by another
    row's cells, stays out (blank glyphs print nothing)."""
    own = [c for c in row.cells if c is not None]
    top, bottom = float(row.bbox[1]), float(row.bbox[3])
    band = min(float(c[3]) for c in own)

    def on_row(chars: list[dict[str, Any]]) -> bool:
        return all(top <= (float(ch["top"]) + float(ch["bottom"])) / 2 <= bottom for ch in chars if ch["text"].strip())

    over = [c for c, chars in above if float(c[1]) < top - 1.0 and float(c[3]) >= band - 1.0 and on_row(chars)]
    left, right = min(float(c[0]) for c in own), max(float(c[2]) for c in own)
    grown = True
    while grown:
        grown = False
        for c in over:
            x0, x1 = float(c[0]), float(c[2])
            if (x0 < left and x1 >= left - 1.0) or (x1 > right and x0 <= right + 1.0):
                left, right, grown = min(left, x0), max(right, x1), True
    return left, right
