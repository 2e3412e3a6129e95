"""Panels of one table: the column header printed again inside the body for another date.

Financial statements print panels of the same columns one below the other, each under its own
header; read as one region, the second header comes out as body rows without figures.
:func:`split_panels` finds such a repeated header (matching the last header rows in
:data:`MIN_SAME_CELLS` filled cells) and puts a band row naming each panel before it; the header
keeps only what the panels share.
"""

from __future__ import annotations

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.grid_rules import is_value

#: Share of the filled cells a body row must have equal to its header row to be that header repeated.
MIN_SAME_CELLS = 0.5


def split_panels(grid: TableGrid) -> TableGrid:
    """``grid`` with each panel under a band row (module docstring); ``grid`` itself when its body
    repeats no header."""
    header = grid.header_rows
    if not header:
        return grid
    body = grid.body_rows
    runs = _runs(body)
    repeats = [(start, end) for start, end in runs if _is_repeat(header, body[start:end])]
    if not repeats:
        return grid
    n = grid.n_cols
    start0, end0 = repeats[0]
    aligned = header[len(header) - (end0 - start0) :]
    first_label = _label(aligned, body[start0:end0])
    new_header = _shared(header, body[start0:end0])
    pages = list(grid.body_row_pages) if len(grid.body_row_pages) == len(body) else []
    boxes: list[BBox | None] = list(grid.body_row_bboxes) if len(grid.body_row_bboxes) == len(body) else []
    out_rows: list[list[str]] = [[first_label] * n]
    out_pages = [pages[0]] if pages else []
    out_boxes: list[BBox | None] = [None] if boxes else []  # the first panel's band is in the header
    cut = {i: (s, e) for s, e in repeats for i in [s]}
    i = 0
    while i < len(body):
        if i in cut:
            s, e = cut[i]
            out_rows.append([_label(body[s:e], header[len(header) - (e - s) :])] * n)
            if pages:
                out_pages.append(pages[s])
            if boxes:
                out_boxes.append(boxes[s])
            i = e
            continue
        out_rows.append(body[i])
        if pages:
            out_pages.append(pages[i])
        if boxes:
            out_boxes.append(boxes[i])
        i += 1
    return grid.model_copy(
        update={
            "header_rows": new_header,
            "header_row_bboxes": [],
            "body_rows": out_rows,
            "body_row_pages": out_pages,
            "body_row_bboxes": out_boxes,
        }
    )


def _runs(body: list[list[str]]) -> list[tuple[int, int]]:
    """Runs ``[start, end)`` of body rows without figures and with text outside the label column."""
    out: list[tuple[int, int]] = []
    start = None
    for i, row in enumerate([*body, None]):
        header_like = row is not None and any(c.strip() for c in row[1:]) and not any(is_value(c) for c in row[1:])
        if header_like and start is None:
            start = i
        elif not header_like and start is not None:
            out.append((start, i))
            start = None
    return out


def _has_digit(word: str) -> bool:
    return any(ch.isdigit() for ch in word)


def _norm(cell: str) -> str:
    return " ".join(cell.split()).casefold()


def _is_repeat(header: list[list[str]], run: list[list[str]]) -> bool:
    if len(run) > len(header):
        return False
    same = filled = 0
    differ = False
    for h, r in zip(header[len(header) - len(run) :], run):
        for a, b in zip(h, r):
            if not (a.strip() or b.strip()):
                continue
            filled += 1
            if _norm(a) == _norm(b):
                same += 1
            else:
                differ = True
    return differ and filled > 0 and same >= MIN_SAME_CELLS * filled


def _label(rows: list[list[str]], other: list[list[str]]) -> str:
    """The panel's name: for each of its rows that differs from the other panel's, the label cell
    and the words of the differing cells the other panel lacks."""
    parts: list[str] = []
    for row, o in zip(rows, other):
        if [_norm(c) for c in row] == [_norm(c) for c in o]:
            continue
        if row[0].strip():
            parts.append(row[0].strip())
        for a, b in zip(row[1:], o[1:]):
            if _norm(a) != _norm(b):
                theirs = set(_norm(b).split())
                parts.extend(w for w in a.split() if w.casefold() not in theirs or _has_digit(w))
    return " ".join(parts)


def _shared(header: list[list[str]], run: list[list[str]]) -> list[list[str]]:
    """The header rows with only what both panels print: a differing label cell is emptied, a
    differing cell keeps the words both have; rows left empty are dropped."""
    k = len(header) - len(run)
    out = [list(r) for r in header[:k]]
    for h, r in zip(header[k:], run):
        row = []
        for c, (a, b) in enumerate(zip(h, r)):
            if _norm(a) == _norm(b):
                row.append(a)
            elif c == 0:
                row.append("")
            else:
                theirs = set(_norm(b).split())
                row.append(" ".join(w for w in a.split() if w.casefold() in theirs and not _has_digit(w)))
        out.append(row)
    return [r for r in out if any(c.strip() for c in r)]


__all__ = ["MIN_SAME_CELLS", "split_panels"]
