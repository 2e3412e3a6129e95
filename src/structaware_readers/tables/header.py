"""Which leading rows of a table are its title, which its column header, which its body.

A leading row with one distinct text is a title (:attr:`TableGrid.title`, never a column header)
when it spans the full width with no header row under it, or covers under half the columns above a
header-like row. Header rows are the ``<thead>``/``<th>`` rows left; when a table marks none (MinerU
never writes ``<th>``) the first row is the header unless it reads like data (a sentence, a long
cell), extended over a leading ``rowspan`` (two-level headers). A one-row table has no header.
"""

from __future__ import annotations

import re

from structaware_readers.models import TableGrid
from structaware_readers.tables.html_grid import HtmlRow

#: Largest first-row rowspan that still counts as a multi-row header.
MAX_HEADER_SPAN = 3
#: Longest cell (characters) of a row that "looks like a header" after a title row.
MAX_HEADER_CELL = 30
#: A first-row cell longer than this (characters) reads as data, not as a column header.
MAX_HEADER_TEXT = 100
#: A first-row cell of this many words or more that ends with a full stop is a sentence (data).
SENTENCE_WORDS = 6

_YEAR = re.compile(r"(?:19|20)\d\d")
_BARE_NUMBER = re.compile(r"^[\s$€£¥%+\-−–.,()\d]+$")


def grid_from_rows(rows: list[HtmlRow]) -> TableGrid:
    """Split expanded HTML rows into title, header rows and body rows (see the module docstring)."""
    marks_head = any(r.is_head for r in rows)
    titles: list[str] = []
    i = 0
    while i < len(rows) - 1 and (rows[i].is_head or (i == 0 and not marks_head)) and _is_title(rows, i):
        titles.append(next(c for c in rows[i].cells if c.strip()))
        i += 1
    rest = rows[i:]
    declared = 0
    while declared < len(rest) and rest[declared].is_head:
        declared += 1
    if declared:
        n_head = declared
    elif titles:
        n_head = 1 if len(rest) > 1 and looks_like_header(rest[0].cells) else 0
    elif len(rest) > 1 and not reads_like_data(rest[0].cells):
        n_head = 1
        extra = rest[0].covers_below
        if 1 <= extra < MAX_HEADER_SPAN and extra + 1 < len(rest):
            n_head = extra + 1
    else:
        n_head = 0
    return TableGrid(
        header_rows=[r.cells for r in rest[:n_head]],
        body_rows=[r.cells for r in rest[n_head:]],
        title="; ".join(titles),
    )


def _is_title(rows: list[HtmlRow], i: int) -> bool:
    cells = [c.strip() for c in rows[i].cells]
    distinct = {c for c in cells if c}
    if len(cells) < 2 or len(distinct) != 1:
        return False
    if all(cells):  # full width
        return not rows[i + 1].is_head
    covered = sum(1 for c in cells if c)
    return covered < len(cells) / 2 and looks_like_header(rows[i + 1].cells)


def looks_like_header(cells: list[str]) -> bool:
    """Every cell non-empty, short, on one line and not a bare number (``#``, ``Genre``, ``Added``)."""
    return all(c.strip() and len(c) <= MAX_HEADER_CELL and "\n" not in c and not _BARE_NUMBER.match(c) for c in cells)


def reads_like_data(cells: list[str]) -> bool:
    """A row no column header looks like: a cell holds a sentence or a long text, and its other
    cells are not all years (``<caption text glued into the stub> | 2023 | 2022`` is a header)."""
    values = [c.strip() for c in cells[1:] if c.strip()]
    if values and all(_YEAR.fullmatch(v) for v in values):
        return False
    for c in cells:
        c = c.strip()
        if len(c) > MAX_HEADER_TEXT or (len(c.split()) >= SENTENCE_WORDS and c.endswith(".")):
            return True
    return False


__all__ = ["MAX_HEADER_SPAN", "grid_from_rows", "looks_like_header", "reads_like_data"]
