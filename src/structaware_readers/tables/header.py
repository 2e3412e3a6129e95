"""Which leading rows of a table are its title, which its column header, which its body.

Rules (each a kind seen in real parser output; ``../shared/cases`` 03, 04, 08, 29):

* **Title rows**: a leading row with one distinct text, in a table of two or more columns, is a
  title (it goes to :attr:`TableGrid.title`, i.e. the caption side, never into the column
  headers) when either

  - it spans the full width (every cell holds the same text, e.g. a ``colspan`` over all columns or
    a merged cell a converter repeated in every cell) and no further ``<th>``/``<thead>`` row
    follows it (``Dose`` spanning ``Adults | Children`` header cells is the top of a two-row header,
    not a title); or
  - it covers fewer than half of the columns and the next row looks like a header row (see below):
    an XLSX section label absorbed above the real header.

  A title row must be in the header zone: a ``<th>``/``<thead>`` row, or the first row of a table
  that marks no header rows at all. ``<th>`` vs ``<td>`` alone is no evidence.
* **Header rows**: the leading ``<thead>`` rows (or rows made only of ``<th>``) left after the
  titles. When all of them were titles, the next row is the header only if it *looks like one*:
  every cell non-empty, at most :data:`MAX_HEADER_CELL` characters on one line, none a bare number.
  When the table marks no header rows (MinerU never writes ``<th>``), the first row is the header
  unless it reads like data (a cell holding a sentence: :data:`SENTENCE_WORDS` or more words ending
  in ``.``, or more than :data:`MAX_HEADER_TEXT` characters, while its other cells are not all years):
  a two-row table of two facts is two body rows. If a cell of that first row has a ``rowspan`` of ``r`` (2..:data:`MAX_HEADER_SPAN`) and
  rows remain below, the header is extended to ``r`` rows (two-level headers such as
  ``Profile QA / ROUGE-1``).
* A one-row table has no header row.
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
    return all(
        c.strip() and len(c) <= MAX_HEADER_CELL and "\n" not in c and not _BARE_NUMBER.match(c) for c in cells
    )


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
