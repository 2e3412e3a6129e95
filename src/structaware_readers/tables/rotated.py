"""A table the parser read a quarter turn round: its rows are the printed table's columns.

A table printed with a column of text written bottom-to-top (the merged ``Topic`` cells of the
VA/DoD recommendation tables) can be read by a table-recognition model as if the page were turned
90 degrees clockwise so that this text runs left to right (MinerU 4 does so on the continuation
pages of those tables). Its HTML then holds the printed table turned: the printed first column is
the first row, the printed header row is the *last column*, and the printed body rows are the
columns from right to left, so a numbered column reads ``19. | 18. | ... | 11. | #`` in one row and
one row holds every recommendation's strength (``Weak for | Neither for nor against | ...``).

Rule (:func:`turn_back`): a grid of at least 3 rows and 4 columns is turned when one of its rows
has, in every cell but the last, a row number (``11.``, ``12)``, ``3``), at least
:data:`MIN_NUMBERED` of them, falling by one from left to right, and a last cell that is no number
(the header ``#``), and every row's last cell is a short label (at most :data:`MAX_LABEL`
characters: the printed header). No table is printed with its row numbers falling from left to
right under a label at the end, so a plain transposed table (``Year | 2021 | 2022``) is left alone.
The grid is turned back: printed row ``r`` (the header first) is column ``n - 1 - r``, read top to
bottom; spans stay expanded (a ``colspan`` over five numbers is a merged ``Topic`` cell of five
printed rows). The rows carry no header mark: :mod:`.header` decides the header as for any table.
The grid is marked ``TableGrid.turned``: with the PDF at hand its text layer is tried for it
(vertical text read from a turned image comes out spaced, ``Treatm e nt``).
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
    return [
        HtmlRow(cells=[r.cells[j] for r in rows], is_head=False, covers_below=0) for j in range(n_cols - 1, -1, -1)
    ]


__all__ = ["MAX_LABEL", "MIN_NUMBERED", "turn_back"]
