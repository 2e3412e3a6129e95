"""A table the parser read a quarter turn round: its rows are the printed table's columns.

A table-recognition model may read a table with vertical text as if the page were turned 90
degrees, so the printed header becomes the last column and a row holds the row numbers falling
left to right (``19. | 18. | ... | #``). :func:`turn_back` turns a grid of at least 3 x 4 back when
one row has :data:`MIN_NUMBERED` or more numbers falling by one, ending in a non-number, and every
row's last cell is a short label (:data:`MAX_LABEL`). The result is marked ``TableGrid.turned`` so
the text layer is tried for it.
"""

from __future__ import annotations

import re

from structaware_readers.tables.html_grid import HtmlRow

#: Fewest falling row numbers in one row that mark a turned table.
MIN_NUMBERED = 3
#: Longest last cell (characters) that reads as a header label of the printed table.
MAX_LABEL = 40

_ROW_NUMBER = re.compile(r"^\s*(\d{1,4})\s*[.)]?\s*$")


def _falling_numbers(cells: list[str]) -> bool:
    *numbers, last = cells
    if len(numbers) < MIN_NUMBERED or _ROW_NUMBER.match(last) or not last.strip():
        return False
    values = [int(m.group(1)) if (m := _ROW_NUMBER.match(c)) else None for c in numbers]
    return None not in values and all(a - b == 1 for a, b in zip(values, values[1:]))  # type: ignore[operator]


def turn_back(rows: list[HtmlRow]) -> list[HtmlRow] | None:
    """The rows of the printed table when ``rows`` are a table read a quarter turn round (module
    docstring), else ``None``. Rows must be padded to one width (as :func:`read_html_rows` returns them)."""
    if len(rows) < 3 or len(rows[0].cells) < 4:
        return None
    if not all(r.cells[-1].strip() and len(r.cells[-1].strip()) <= MAX_LABEL for r in rows):
        return None
    if not any(_falling_numbers(r.cells) for r in rows):
        return None
    n_cols = len(rows[0].cells)
    return [HtmlRow(cells=[r.cells[j] for r in rows], is_head=False, covers_below=0) for j in range(n_cols - 1, -1, -1)]


__all__ = ["MAX_LABEL", "MIN_NUMBERED", "turn_back"]
