"""Rows stacked inside one ruled row: one row per item, as the page aligns them.

Dose tables draw one ruled row per drug class and stack its drugs inside it, each drug's dose on
the drug's own line in the next column (the VA/DoD hypertension guideline's Table F-1: ``Thiazide-type
Diuretics`` | ``Chlorthalidone`` / ``HCTZ`` / ``Indapamide`` | ``12.5-25 mg daily`` / ``25-50 mg daily``
/ ``IR: 2.5 mg daily`` | bullets of comments for the class). Read cell by cell, that is one row
holding three drugs and three doses (``Drug: Chlorthalidone^b HCTZ^b Indapamide; Usual Dose Range:
12.5-25 mg daily 25-50 mg daily^c ...``): a question about one drug's dose finds a row of three.

:func:`split_stacked` cuts such a row into one row per item. The **key** cell is the leftmost cell of
two or more lines that are each an item, with an aligned cell (a short line, at most :data:`MAX_KEY_WORDS` words, starting
with a capital letter or a figure, the line before it not ending in ``,``/``;``/``:``/``-``/``/`` or
a joining word); an **aligned** cell has a line starting on the top of every key line (within
:data:`TOLERANCE` points) and no bulleted line; at least one aligned cell must hold a figure on every
item (doses, not prose). Each item's row takes, from the key and aligned cells, the lines from its
top to the next item's top (a dose wrapped over two lines stays whole); every other cell (the class,
a bulleted list of comments for all of them) is repeated in each item's row, as a merged cell is.
A wrapped sentence is no key (its lines continue each other), so a recommendation row with a
two-line category (``Reviewed,`` / ``New-added``) is never cut.

:func:`may_hold_stacked_rows` tells, from a parser's grid alone, whether a row may be such a row (a
cell listing two or more capitalised names beside a cell with two or more figures), so the PDF is
read only for those tables.
"""

from __future__ import annotations

import re

from structaware_readers.table_recovery.reading_direction import join_words

#: Points within which a line of another cell starts on a key line's top.
TOLERANCE = 2.0
#: A key line (one item) has at most this many words.
MAX_KEY_WORDS = 6
_BULLET = re.compile(r"^[•▪◦·‣∙○●■□\-–—*]\s")
_CONTINUES = re.compile(r"(?:[,;:/\-]|\b(?:and|or|of|to|the|with|for|in|a|an|by|per|nor))$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
_FIGURES = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[^\W\d_][\w\-/]*")

Lines = list[tuple[float, str]]


def split_stacked(cells: list[Lines | None]) -> list[list[str | None]] | None:
    """One ruled row's cells (each its text lines ``(top, text)``, top to bottom; ``None`` for a cell
    covered by a merged one) cut into one row per stacked item (module docstring), or ``None`` when
    the row holds no stacked items. Covered cells stay ``None`` in every item's row."""
    for key, key_lines in enumerate(cells):
        if not key_lines or not _is_key(key_lines):
            continue
        tops = [top for top, _ in key_lines]
        aligned = [c for c, lines in enumerate(cells) if c != key and lines and _aligned(lines, tops)]
        if aligned and any(_figure_each(cells[c], tops) for c in aligned):  # type: ignore[arg-type]
            return _items(cells, key, aligned, tops)
    return None


def _items(cells: list[Lines | None], key: int, aligned: list[int], tops: list[float]) -> list[list[str | None]]:
    rows: list[list[str | None]] = []
    for i, top in enumerate(tops):
        end = tops[i + 1] - TOLERANCE if i + 1 < len(tops) else float("inf")
        row: list[str | None] = []
        for c, lines in enumerate(cells):
            if lines is None:
                row.append(None)
            elif c == key or c in aligned:
                row.append(join_words([[t] for y, t in lines if top - TOLERANCE <= y < end]))
            else:
                row.append(join_words([[t] for _, t in lines]))
        rows.append(row)
    return rows


def _is_key(lines: Lines) -> bool:
    if len(lines) < 2:
        return False
    for i, (_, text) in enumerate(lines):
        words = text.split()
        if not words or len(words) > MAX_KEY_WORDS or _BULLET.match(text):
            return False
        if not (text[0].isupper() or text[0].isdigit()):
            return False
        if i and _CONTINUES.search(lines[i - 1][1].rstrip()):
            return False
    return True


def _aligned(lines: Lines, tops: list[float]) -> bool:
    if len(lines) < len(tops) or any(_BULLET.match(t) for _, t in lines):
        return False
    starts = [y for y, _ in lines]
    return starts[0] >= tops[0] - TOLERANCE and all(any(abs(y - top) <= TOLERANCE for y in starts) for top in tops)


def _figure_each(lines: Lines, tops: list[float]) -> bool:
    for i, top in enumerate(tops):
        end = tops[i + 1] - TOLERANCE if i + 1 < len(tops) else float("inf")
        if not any(_DIGIT.search(t) for y, t in lines if top - TOLERANCE <= y < end):
            return False
    return True


def may_hold_stacked_rows(body_rows: list[list[str]]) -> bool:
    """A parser grid's body row has a cell listing two or more capitalised names and nothing else
    (``Chlorthalidone^b HCTZ^b Indapamide``) beside a cell with two or more figures."""
    for row in body_rows:
        names = any(_names_only(c) for c in row)
        figures = any(len(_FIGURES.findall(c)) >= 2 for c in row)
        if names and figures:
            return True
    return False


def splits_names(parser_rows: list[list[str]], rebuilt_rows: list[list[str]]) -> bool:
    """The rebuilt grid cuts a parser cell listing names (:func:`may_hold_stacked_rows`) into rows of
    their own: two or more rebuilt cells, each a strict part of that cell in a row with a figure
    (``Chlorthalidone^b`` beside ``12.5-25 mg daily``, ``HCTZ^b`` beside ``25-50 mg daily``). A rebuilt
    grid with more rows for any other reason (a wrapped label read as two lines) does not."""
    # cells of rebuilt rows that hold a figure in another cell (an item's row: a drug and its dose)
    rebuilt_cells = {
        " ".join(c.split())
        for row in rebuilt_rows
        for k, c in enumerate(row)
        if c.strip() and any(_DIGIT.search(o) for j, o in enumerate(row) if j != k)
    }
    for row in parser_rows:
        if not any(len(_FIGURES.findall(c)) >= 2 for c in row):
            continue
        for cell in row:
            whole = " ".join(cell.split())
            if _names_only(whole):
                parts = [c for c in rebuilt_cells if c != whole and f" {c} " in f" {whole} "]
                if len(parts) >= 2:
                    return True
    return False


def _names_only(cell: str) -> bool:
    text = re.sub(r"\^\S+", "", cell)
    if "," in text or ";" in text:
        return False
    words = _WORD.findall(text)
    return (
        len(words) >= 2
        and all(w[0].isupper() and len(w) >= 3 for w in words)  # names, not grade letters ("I A")
        and len(text.split()) == len(words)
    )


__all__ = ["MAX_KEY_WORDS", "TOLERANCE", "may_hold_stacked_rows", "split_stacked", "splits_names"]
