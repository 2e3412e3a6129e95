"""Header lines printed again inside a table's body with other text: a new block of columns.

Filings stack tables of one shape under one grid: a "Three months ended June 30," block, then a
"Six months ended June 30," block; or a segment table continued with other segment names. Between
the blocks the body holds a header line again, different from the first, with no figure in it: its
label cell is a period phrase (or, with a year line below, the label column's header), or it is
empty and the line puts a period phrase over columns where the header has another; its other cells
are header texts of their own column, years or period phrases, or, with a year line below (the
header's year line printed again), any names without figures. Read as a row it would be a unit
``Three months ended June 30,: Six months ended June 30,; ...`` and the rows below it would keep the
first block's header, so a six-month figure would read as a three-month one.

:func:`header_restarts` finds such lines and gives, per restart, the header of the rows below it
(until the next restart). All-text rows of guideline tables are no restarts: besides that evidence,
the first row below with more than a label (header lines printed again aside) must hold figures, and
one text over the full width stays a group label.
"""

from __future__ import annotations

import re

#: A period a column block of a filing covers: "Six months ended June 30,", "Year ended December 31,",
#: "As of June 30, 2022", "Fiscal 2022", "Quarter ended".
PERIOD = re.compile(
    r"(?i)^(?:for the\s+)?(?:(?:three|six|nine|twelve|\d{1,2})\s+months|(?:fiscal\s+)?years?|quarters?|"
    r"(?:\d{1,2}|thirteen|twelve|twenty-four|fifty-two|fifty-three)\s+weeks|periods?)\s+ended\b"
    r"|^(?:as\s+(?:of|at)|at)\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d"
    r"|^fiscal\s+(?:year\s+)?(?:19|20)\d\d\b"
)

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
#: A year or a date: a column name in a filing's header ("2022", "June 30, 2022", "December 31,", "FY2022").
DATE = re.compile(rf"(?i)^(?:fy\s?)?(?:19|20)\d\d[a-z]?$|^{_MONTH}\s+\d{{1,2}},?(?:\s+(?:19|20)\d\d)?$")

_DIGIT = re.compile(r"\d")

#: Rows looked at below a restart for its first data row (header lines printed again, band labels).
_MAX_LINES = 6


def _norm(cell: str) -> str:
    return " ".join(cell.split()).casefold()


def _said(cells: list[str]) -> list[tuple[int, str]]:
    return [(j, _norm(c)) for j, c in enumerate(cells) if j and c.strip()]


def _in_column(j: int, cell: str, header_rows: list[list[str]]) -> bool:
    """``cell`` (normalised) is one of column ``j``'s header texts."""
    return any(j < len(h) and _norm(h[j]) == cell for h in header_rows)


def _is_year_line(cells: list[str], header_rows: list[list[str]]) -> bool:
    """A line of column years (or of the header's own texts in their columns), two or more cells."""
    said = _said(cells)
    if len(said) < 2 or not any(DATE.match(c) for _, c in said):
        return False
    return all(DATE.match(c) or _in_column(j, c, header_rows) for j, c in said)


def _label_ok(cells: list[str], header_rows: list[list[str]], years: bool) -> bool:
    """The label cell of a header line: a period phrase; with a year line below, also one of the label
    column's header texts; empty when the line puts a period phrase over columns where the header has
    another (``Six months ended June 30,`` over the columns of ``Three months ended June 30,``)."""
    label = _norm(cells[0])
    if not label:
        return any(_period_swap(j, c, header_rows) for j, c in _said(cells))
    return bool(PERIOD.match(label)) or (years and any(h and _norm(h[0]) == label for h in header_rows))


def _period_swap(j: int, cell: str, header_rows: list[list[str]]) -> bool:
    """``cell`` (column ``j``) is a period phrase where a header line has another period phrase."""
    return bool(PERIOD.match(cell)) and any(
        j < len(h) and PERIOD.match(_norm(h[j])) and _norm(h[j]) != cell for h in header_rows
    )


def _names_only(cells: list[str], header_rows: list[list[str]], loose: bool) -> bool:
    """Every non-label cell is column-name-like: a header text of its own column or a year/date;
    ``loose`` (a year line follows) also takes any text without digits (other segment names)."""
    said = _said(cells)
    if len(said) < 2:
        return False
    for j, c in said:
        if DATE.match(c) or PERIOD.match(c) or _in_column(j, c, header_rows):
            continue
        if loose and not _DIGIT.search(c):
            continue
        return False
    return True


def _repeats_line(row: list[str], header_rows: list[list[str]]) -> bool:
    """``row`` is a header line printed again, as near as a parser reads it: no figures, and most of its
    texts (two or more) one of their own column's header texts."""
    said = [(j, _norm(c)) for j, c in enumerate(row) if c.strip()]
    same = sum(_in_column(j, c, header_rows) for j, c in said)
    return len(said) >= 2 and 2 * same > len(said) and not _has_figures([c.strip() for c in row])


def _has_figures(cells: list[str]) -> bool:
    """A data row: a non-label cell with a digit that is not a year, a date or a period phrase."""
    return any(_DIGIT.search(c) and not DATE.match(c) and not PERIOD.match(c) for _, c in _said(cells))


def _new_header(header_rows: list[list[str]], line: list[str], years: list[str] | None) -> list[list[str]]:
    """The header with ``line`` in place of the header line it matches best (the one sharing its label
    cell, else the most cells, else the first) and ``years`` in place of the line below that one."""
    k = max(range(len(header_rows)), key=lambda r: _likeness(header_rows[r], line)) if header_rows else 0
    new = [list(h) for h in header_rows] or [[""] * len(line)]
    new[k] = _spread(line, years) if years is not None else list(line)
    if years is not None:
        if k + 1 < len(new):
            new[k + 1] = list(years)
        else:
            new.append(list(years))
    return new


def _likeness(header: list[str], line: list[str]) -> tuple[bool, int]:
    """How well ``line`` matches a header line: the same label cell, then the columns where both print a period
    phrase or the same text."""
    periods = sum(bool(PERIOD.match(_norm(a)) and PERIOD.match(_norm(b))) for a, b in zip(header[1:], line[1:]))
    return header[:1] == line[:1], periods + sum(a.strip() == b.strip() != "" for a, b in zip(header, line))


def _spread(line: list[str], years: list[str]) -> list[str]:
    """``line`` with each name spread over the columns it heads, read from the year line's repeat
    (``2022 2021 Change 2022 2021 Change``: blocks of three columns): a block with one name takes it in all
    its columns, as a name printed once over them means."""
    values = [_norm(c) for c in years[1:]]
    n = len(values)
    for p in range(2, n // 2 + 1):
        if n % p == 0 and all(values[k] == values[k % p] for k in range(n)):
            out = list(line)
            for start in range(1, n + 1, p):
                names = {line[j] for j in range(start, start + p) if line[j].strip()}
                if len(names) == 1:
                    out[start : start + p] = [names.pop()] * p
            return out
    return list(line)


def header_restarts(rows: list[list[str]], header_rows: list[list[str]]) -> dict[int, tuple[int, list[list[str]]]]:
    """Header lines printed again in the body with other text (module docstring): per first body row
    of such a line, ``(number of body rows it takes: 1, or 2 with a year line, new header rows)``."""
    found: dict[int, tuple[int, list[list[str]]]] = {}
    if not header_rows or not rows:
        return found
    current = header_rows
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row]
        known = header_rows + current  # the first header's texts and the block's own
        if not cells or _has_figures(cells) or len({_norm(c) for c in cells}) < 2:
            continue  # a figure: a data row; one text (over the full width): a group label
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        years = [c.strip() for c in nxt] if nxt is not None and _is_year_line(nxt, known) else None
        if not _label_ok(cells, known, years is not None):
            continue
        if not _names_only(cells, known, loose=years is not None):
            continue
        after = rows[i + (2 if years is not None else 1) :]
        # the first row below with more than a label (band labels, "Revenue:", may come first) that is no
        # header line printed again
        first = next(
            (r for r in after[:_MAX_LINES] if any(c.strip() for c in r[1:]) and not _repeats_line(r, known)),
            None,
        )
        if first is None or not _has_figures([c.strip() for c in first]):
            continue
        if years is None and all(_in_column(j, c, current) for j, c in _said(cells)):
            if any(_norm(h[0]) == _norm(cells[0]) for h in current if h) or not cells[0]:
                continue  # the same header line printed again: the rows below keep their header
        current = _new_header(current, cells, years)
        found[i] = (2 if years is not None else 1, current)
    return found
