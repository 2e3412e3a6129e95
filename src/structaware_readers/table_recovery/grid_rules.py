"""Positioned phrases of a table region -> grid rows: the rules shared by every text source.

A source (:mod:`.pdf_text_layer`, :mod:`.parser_text`) gives :class:`Line` objects of
:class:`Phrase` objects; :func:`build_grid` takes columns from the data rows' phrases (a phrase is
never cut), spreads other phrases over every column they overlap (a spanning header), joins ``$``
and ``%`` columns to their values, reads header rows above the first data row and a long first
label-only row as the title, joins wrapped labels, and gives no grid unless at least two rows hold
data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

Box = tuple[float, float, float, float]

_DIGIT = re.compile(r"\d")
_YEARISH = re.compile(r"^\(?(?:19|20)\d\d\)?$|^(?:Q[1-4]|[A-Z][a-z]{2,8}\.? \d{1,2},?)(?: (?:19|20)\d\d)?$")
FIGURE = re.compile(r"^(?:[$€£¥(]*[\d][\d.,]*\)?%?|[—–-]|NA|NM|N/A|n/a)$")
LEFT_SYMBOLS = {"$", "€", "£", "¥", "US$"}
#: A phrase starting in this left share of the first column's width is a label (see :func:`_cells`).
LABEL_START = 0.3
RIGHT_SYMBOLS = {"%", ")", "%)", "bps", "x"}


@dataclass
class Phrase:
    """Text with its extent: ``x0 < x1`` across, ``top < bottom`` down (points or characters)."""

    text: str
    x0: float
    x1: float
    top: float
    bottom: float


@dataclass
class Line:
    """One text line (a row band) of the region and the phrases on it."""

    top: float
    bottom: float
    phrases: list[Phrase] = field(default_factory=list)


def starts_new_cell(before: str, word: str) -> bool:
    """Two figures side by side are two cells (``948,642 $ 960,506``, ``NA NA``, ``12.5 % $``), however close."""
    tokens = before.rsplit(" ", 2)
    last = tokens[-1]
    if last in RIGHT_SYMBOLS and len(tokens) > 1 and FIGURE.match(tokens[-2]):
        last = tokens[-2] + last  # a figure and its sign set apart (``12.5 %``)
    return (
        (FIGURE.match(last) is not None or last in LEFT_SYMBOLS)
        and (FIGURE.match(word) is not None or word in LEFT_SYMBOLS)
        and not (last in LEFT_SYMBOLS and FIGURE.match(word) and not word.startswith(tuple(LEFT_SYMBOLS)))
    )


def _is_data_row(row: Line) -> bool:
    return len(row.phrases) > 1 and any(is_value(p.text) for p in row.phrases[1:])


def _columns(rows: list[Line]) -> list[tuple[float, float]]:
    """Column extents ``(x0, x1)``: the merged x-ranges of the phrases of the data rows."""
    for row in rows:
        row.phrases.sort(key=lambda p: p.x0)
    basis = [r for r in rows if _is_data_row(r)]
    if len(basis) < 2:
        basis = [r for r in rows if len(r.phrases) > 1]
    spans = sorted((p.x0, p.x1) for r in basis for p in r.phrases)
    merged: list[list[float]] = []
    for x0, x1 in spans:
        if merged and x0 <= merged[-1][1] + 1.0:
            merged[-1][1] = max(merged[-1][1], x1)
        else:
            merged.append([x0, x1])
    return [(x0, x1) for x0, x1 in merged]


def _cells(row: Line, columns: list[tuple[float, float]]) -> list[str]:
    """The row's text per column (see :func:`_columns`)."""
    cells: list[list[str]] = [[] for _ in columns]
    first_x0, first_x1 = columns[0]
    for ph in row.phrases:
        if ph.x0 <= first_x0 + LABEL_START * (first_x1 - first_x0):
            targets = [0]
        else:
            targets = [
                c
                for c, (x0, x1) in enumerate(columns)
                if c > 0 and min(ph.x1, x1) - max(ph.x0, x0) >= min(3.0, (x1 - x0) / 3)
            ]
            if not targets:
                mid = (ph.x0 + ph.x1) / 2
                targets = [min(range(1, len(columns)), key=lambda c: abs(mid - (columns[c][0] + columns[c][1]) / 2))]
        for c, text in zip(targets, _repeats(ph.text, len(targets))):
            cells[c].append(text)
    return [" ".join(parts) for parts in cells]


def _repeats(text: str, n: int) -> list[str]:
    """``text`` for each of ``n`` columns a phrase spreads over: one repeat each when it is one label printed
    once over each column, set so close that it reads as one phrase (``Inland Region Inland Region``
    over ``Retail`` and ``Wholesale``), else the whole text in each (a spanning header)."""
    words = text.split()
    if n > 1 and len(words) % n == 0:
        k = len(words) // n
        parts = [words[i * k : (i + 1) * k] for i in range(n)]
        if all(p == parts[0] for p in parts):
            return [" ".join(parts[0])] * n
    return [text] * n


def _tidy(rows: list[list[str]], src: list[Line]) -> tuple[list[list[str]], list[Box]]:
    """Drop empty columns, join symbol columns to their values; returns rows and each row's box."""
    boxes = [
        line_box(r, src[i - 1] if i else None, src[i + 1] if i + 1 < len(src) else None) for i, r in enumerate(src)
    ]
    n = max((len(r) for r in rows), default=0)
    cols = [[r[c] if c < len(r) else "" for r in rows] for c in range(n)]
    cols = [col for col in cols if any(v.strip() for v in col)]
    c = 0
    while c < len(cols):
        # cells equal to a neighbour's are a spanning header repeated, not the column's own values
        right = (
            {v.strip() for v, n in zip(cols[c], cols[c + 1]) if v.strip() and v != n} if c + 1 < len(cols) else set()
        )
        left = {v.strip() for v, n in zip(cols[c], cols[c - 1]) if v.strip() and v != n} if c > 0 else set()
        if right and right <= LEFT_SYMBOLS:
            cols[c + 1] = [_join(a, b) for a, b in zip(cols[c], cols[c + 1])]
            del cols[c]
            continue
        if left and left <= RIGHT_SYMBOLS:
            cols[c - 1] = [_join(a, b, space=False) for a, b in zip(cols[c - 1], cols[c])]
            del cols[c]
            continue
        c += 1
    out = [[col[i] for col in cols] for i in range(len(rows))]
    return out, boxes


def line_box(line: Line, before: Line | None = None, after: Line | None = None) -> Box:
    """The box of ``line``'s phrases: a phrase joins a line when its middle lies in the line's band, so a cell
    printed a little lower than the line's first phrase (items of one column spaced wider than another's)
    reaches below that band; the row's box holds all of it, up to the line ``after``'s top (down to the line
    ``before``'s bottom), never over lines printed close together."""
    phrases = line.phrases
    top = min(line.top, max(min(p.top for p in phrases), before.bottom if before else float("-inf")))
    bottom = max(line.bottom, min(max(p.bottom for p in phrases), after.top if after else float("inf")))
    return (min(p.x0 for p in phrases), top, max(p.x1 for p in phrases), bottom)


def _join(a: str, b: str, *, space: bool = False) -> str:
    a, b = a.strip(), b.strip()
    if not a or not b or a == b:
        return a or b
    return f"{a} {b}" if space else f"{a}{b}"


def is_value(cell: str) -> bool:
    """A figure cell (``$ 948,642``, ``(0.02) %``, ``22 %``), not a bare year or a date header."""
    tokens = cell.split()
    return (
        bool(_DIGIT.search(cell))
        and not _YEARISH.match(cell.strip())
        and all(FIGURE.match(t) or t in LEFT_SYMBOLS or t in RIGHT_SYMBOLS for t in tokens)
    )


def header_count(rows: list[list[str]]) -> int:
    """Leading rows above the first data row that hold text outside the label column."""
    first_data = next(
        (i for i, r in enumerate(rows) if r[0].strip() and any(is_value(c) for c in r[1:])),
        None,
    )
    if first_data is None:
        # no labelled numeric row: a text table; the first row is its header (as for parser HTML)
        return 1 if len(rows) > 1 else 0
    n = 0
    for i in range(first_data):
        if any(c.strip() for c in rows[i][1:]):
            n = i + 1
    return n


def _continues(prev_label: str, label: str) -> bool:
    return bool(label) and (label[:1].islower() or label[:1] == "(" or prev_label.endswith(("-", "/", ",")))


def _join_wrapped_labels(rows: list[list[str]], boxes: list[Box]) -> tuple[list[list[str]], list[Box]]:
    out: list[list[str]] = []
    out_boxes: list[Box] = []
    pending: tuple[list[str], Box] | None = None
    for row, box in zip(rows, boxes):
        label_only = bool(row[0].strip()) and not any(c.strip() for c in row[1:])
        if pending is not None:
            prev, pbox = pending
            if row[0].strip() and _continues(prev[0].strip(), row[0].strip()):
                sep = "" if prev[0].strip().endswith("-") else " "
                row = [f"{prev[0].strip()}{sep}{row[0].strip()}", *row[1:]]
                box = (min(pbox[0], box[0]), pbox[1], max(pbox[2], box[2]), box[3])
                if label_only:
                    pending = (row, box)
                    continue
                pending = None
            else:
                out.append(prev)
                out_boxes.append(pbox)
                pending = None
        if label_only:
            pending = (row, box)
            continue
        out.append(row)
        out_boxes.append(box)
    if pending is not None:
        out.append(pending[0])
        out_boxes.append(pending[1])
    return out, out_boxes


def is_data_row_cells(row: list[str]) -> bool:
    """A grid row with a label in its first cell and a figure in another (``Net income | $8,649``)."""
    return bool(row and row[0].strip()) and not is_value(row[0]) and any(is_value(c) for c in row[1:])


def _attach_symbols(line: Line) -> Line:
    """``$`` before a figure and ``%`` after one join it, keeping the figure's extent (``$`` | ``842`` -> ``$842``).

    A currency sign set apart sits between the label and the figure columns; left alone it would
    join one of them or make a column of its own.
    """
    phrases = sorted(line.phrases, key=lambda p: p.x0)
    out: list[Phrase] = []
    i = 0
    while i < len(phrases):
        ph = phrases[i]
        nxt = phrases[i + 1] if i + 1 < len(phrases) else None
        if ph.text in LEFT_SYMBOLS and nxt is not None and FIGURE.match(nxt.text.split(" ", 1)[0]):
            out.append(Phrase(f"{ph.text}{nxt.text}", nxt.x0, nxt.x1, min(ph.top, nxt.top), max(ph.bottom, nxt.bottom)))
            i += 2
            continue
        if ph.text in RIGHT_SYMBOLS and out and FIGURE.match(out[-1].text.rsplit(" ", 1)[-1]):
            out[-1] = Phrase(f"{out[-1].text} {ph.text}", out[-1].x0, out[-1].x1, out[-1].top, out[-1].bottom)
            i += 1
            continue
        out.append(ph)
        i += 1
    return Line(line.top, line.bottom, out)


#: A label-only first row of this many words or more is the table's title (see the module docstring).
TITLE_MIN_WORDS = 3
_UNIT_NOTE = re.compile(r"(?i)\((?:in|dollars|amounts|unaudited)\b")


def split_title(header: list[list[str]]) -> tuple[str, list[list[str]]]:
    """``(title, header_rows)``: the first header row taken out as the title when it is one (module
    docstring), else ``("", header)``. Never takes the only header row."""
    if len(header) < 2:
        return "", header
    first = header[0]
    text = first[0].strip() if first else ""
    if (
        text
        and not any(c.strip() for c in first[1:])
        and len(text.split()) >= TITLE_MIN_WORDS
        and not _UNIT_NOTE.search(text)
    ):
        return text, header[1:]
    return "", header


def build_grid(lines: list[Line]) -> tuple[list[list[str]], list[list[str]], list[Box], list[Box]] | None:
    """``(header_rows, body_rows, body_boxes, header_boxes)`` of the lines of one table region (module docstring).

    ``body_boxes`` are the union boxes of each body row's phrases (joined wrapped labels included), in
    the lines' own units; ``header_boxes`` those of each header row. ``None`` when the lines give fewer
    than 2 rows or 2 columns, or no body row.
    """
    lines = [_attach_symbols(line) for line in lines if line.phrases]
    columns = _columns(lines)
    if len(columns) < 2:
        return None
    rows, boxes = _tidy([_cells(line, columns) for line in lines], lines)
    if len(rows) < 2 or max((len(r) for r in rows), default=0) < 2:
        return None
    n_head = header_count(rows)
    body, body_boxes = _join_wrapped_labels(rows[n_head:], boxes[n_head:])
    if not _trusted(body):
        return None
    return rows[:n_head], body, body_boxes, boxes[:n_head]


def _trusted(body: list[list[str]]) -> bool:
    """Rows read from text lines are right when the table has figures or no cell wraps."""
    data = sum(1 for row in body if is_data_row_cells(row))
    filled = all(sum(1 for c in row if c.strip()) >= 2 for row in body)
    return data >= 2 or (filled and len(body) >= 2)
