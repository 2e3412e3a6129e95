"""Every row of a parser's grid found again in a grid rebuilt from the text layer, in order.

Stage 6 replaces a parser grid that cuts printed words with the text layer's grid of the same region. When
the rebuilt grid has fewer body rows, the difference must be explained by rows that hold the same printed
content: a label the parser wrapped over two or three rows (``Buildings held under`` / ``long-term
leases``) read as one, a line of the column header the parser took for a body row (its figures years or
dates only: a data row the rebuild took for a header line is a row lost), or the text above the table read
as a header. :func:`keeps_rows` says so when each non-empty parser row is found in one rebuilt
row, or a few consecutive ones (a row the parser glued from two printed rows), taken in order: its letters,
run together, inside the letters of the rebuilt rows (a word the parser cut at a column boundary is found
whole), and its figures among theirs, each rebuilt figure used once (a figure run that is two printed runs
glued, ``4,215612``, may be read as them). A parser header row that holds figures is found by its figures
only, and a parser body row above every row found in the rebuilt body may be a line of the rebuilt header
(its words and figures there: a header's lines are often cut apart and interleaved), and one that glues the
header's lines and the first rows below them, read column by column, is found by its letters in any order in
the rest of the header and up to :data:`MAX_ROWS_GLUED` rows below it. Two parser rows with
figures in a value column never share a rebuilt row: a rebuilt grid that merges two data rows into one
loses a row.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable

from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.grid_rules import is_data_row_cells

__all__ = ["MAX_ROWS_GLUED", "figure_runs", "glued_figures", "keeps_rows"]

#: The most rebuilt rows one parser row may stand for (printed rows the parser glued into one).
MAX_ROWS_GLUED = 3

_FIGURE = re.compile(r"\d[\d,.]*")
_GROUP = re.compile(r"\d{3}(?![\d])")
_WORDS = re.compile(r"[^\W\d_]+")
_YEAR = re.compile(r"(?:19|20)\d\d")
_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?", re.IGNORECASE)


class _Row:
    """A rebuilt row's letters (lower case, run together; also with a cell repeated side by side read
    once, as a cell spanning columns is) and its figures still free to be claimed."""

    def __init__(self, cells: list[str]) -> None:
        kept: list[str] = []
        for cell in cells:  # a cell spanning columns is repeated in each: its words read once
            if cell.strip() and (not kept or cell != kept[-1]):
                kept.append(cell)
        self.letters = _letters(" ".join(cells))
        self.spanned = _letters(" ".join(kept))
        self.figures = Counter(figure_runs(cells))  # equal figures side by side are figures of their own
        self.has_data = False


def keeps_rows(grid: TableGrid, rebuilt: TableGrid) -> bool:
    """Each row of ``grid`` holding text (its body rows and any header row that holds data) is found in
    ``rebuilt``'s rows (header rows first, then body rows) in order (module docstring)."""
    targets = [_Row(row) for row in [*rebuilt.header_rows, *rebuilt.body_rows]]
    heads = len(rebuilt.header_rows)
    header = [row for row in grid.header_rows if is_data_row_cells(row)]
    at = 0
    for k, row in enumerate([*header, *grid.body_rows]):
        letters = _letters(" ".join(row)) if k >= len(header) else ""  # a header's lines: its figures only
        figures = figure_runs(row)
        if not letters and not figures:
            continue
        data = bool(figure_runs(row[1:]))
        first = 0 if k < len(header) or _header_line(row) else heads  # a data row is not the rebuilt header
        span = _find(targets, max(at, first), letters, figures, data)
        if span is None and max(at, first) < heads and _in_header(row, figures, targets[at:heads]):
            span = (at, heads)  # a line of the header the parser put in the body (its cells cut apart)
            data = False
        if span is None and at < heads and letters:
            span = _with_header(targets, at, heads, letters, figures, data)
        if span is None:
            return False
        start, end = span
        _claim(targets[start:end], figures)
        if data:
            for target in targets[start:end]:
                target.has_data = True
        at = end - 1  # the next parser row may continue the same rebuilt row (a wrapped label)
    return True


def _find(targets: list[_Row], at: int, letters: str, figures: list[str], data: bool) -> tuple[int, int] | None:
    """The first span ``targets[start:end]`` (``start >= at``, up to :data:`MAX_ROWS_GLUED` rows) holding
    ``letters`` and ``figures``, none of them holding another data row when this row holds data."""
    for start in range(at, len(targets)):
        for end in range(start + 1, min(start + MAX_ROWS_GLUED, len(targets)) + 1):
            span = targets[start:end]
            if data and any(t.has_data for t in span):
                break
            found = letters in "".join(t.letters for t in span) or letters in "".join(t.spanned for t in span)
            if found and _fits(figures, span):
                return start, end
    return None


def _with_header(
    targets: list[_Row], at: int, heads: int, letters: str, figures: list[str], data: bool
) -> tuple[int, int] | None:
    """The span from ``targets[at]`` through the rest of the rebuilt header and up to :data:`MAX_ROWS_GLUED` body
    rows holding exactly ``letters`` (in any order: the parser read the cells of the header's lines and of the
    rows below them column by column) and each of ``figures``, none of its body rows holding another data row
    when this row holds data: the header's lines and the first rows glued into one parser row."""
    need = Counter(letters)
    for end in range(heads + 1, min(heads + MAX_ROWS_GLUED, len(targets)) + 1):
        span = targets[at:end]
        if data and any(t.has_data for t in targets[heads:end]):
            return None
        if need == Counter("".join(t.letters for t in span)) and _fits(figures, span):
            return at, end
    return None


def _header_line(row: list[str]) -> bool:
    """``row`` may be a line of a column header: each figure of its value cells is a year or part of a date
    (``2022``, ``June 30, 2022``), not a measurement (``2.5 mg``, ``1,208``)."""
    for cell in row[1:]:
        dated = _MONTH.search(cell) is not None
        if any(not dated and not _YEAR.fullmatch(f) for f in figure_runs([cell])):
            return False
    return True


def _in_header(row: list[str], figures: list[str], header: list[_Row]) -> bool:
    """Each word of ``row`` is in the letters of the rebuilt ``header`` rows and each figure a free one of theirs."""
    letters = "".join(t.letters for t in header)
    return all(_letters(w) in letters for w in _WORDS.findall(" ".join(row))) and _fits(figures, header)


def _fits(figures: list[str], span: list[_Row]) -> bool:
    """Each of ``figures`` is a free figure of ``span`` (each used once) or 2+ of its figures glued."""
    free = Counter()
    for t in span:
        free.update(t.figures)
    printed = set(free)
    for f in figures:
        if free[f] > 0:
            free[f] -= 1
        elif not glued_figures(f, printed):
            return False
    return True


def _claim(span: list[_Row], figures: list[str]) -> None:
    """Use up ``figures`` in ``span``'s rows, first row first."""
    for f in figures:
        for t in span:
            if t.figures[f] > 0:
                t.figures[f] -= 1
                break


def glued_figures(run: str, figures: Collection[str]) -> bool:
    """``run`` is 2 or more of ``figures`` written one after another (the fewest pieces); a piece may keep the
    comma printed after it (``30,2022`` for ``30,`` and ``2022``) where no thousands group follows the comma."""
    best: list[int | None] = [0] + [None] * len(run)  # fewest printed pieces making up run[:k]
    for end in range(1, len(run) + 1):
        for start in range(end):
            piece = run[start:end]
            if best[start] is None:
                continue
            if piece in figures or (
                piece.endswith(",") and piece[:-1] in figures and end < len(run) and not _GROUP.match(run, end)
            ):
                n = best[start] + 1  # type: ignore[operator]
                if best[end] is None or n < best[end]:  # type: ignore[operator]
                    best[end] = n
    return best[-1] is not None and best[-1] >= 2


def _letters(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalpha())


def figure_runs(texts: Iterable[str]) -> list[str]:
    """The figure runs of ``texts`` in order (``1,208``, ``2.5``, ``2022``), a trailing ``.`` or ``,`` dropped."""
    return [run.rstrip(".,") for text in texts for run in _FIGURE.findall(text)]
