"""A phrase the page prints whole, cut into pieces by a grid's column borders, given back whole to its cells.

A header printed across two columns (``Three months ended June 30,`` over ``2022`` and ``2021``) crosses the
border between them; a parser that splits the line at that border cuts its words and may deal the letters and
figures of the cut out unevenly (``Three month3`` | ``s ended June0,``). :func:`mend_cut_phrases` finds, in each
row, a run of 2 to :data:`MAX_CELLS` neighbouring cells (a cell repeated side by side, as a spanning cell is, read
once) that each hold letters and are each no words the region prints, and whose characters (white space aside)
are together exactly those of a printed phrase beginning with the first cell's first word (whole or cut): those
cells then all hold the phrase, as the cells a spanning cell covers do. A printed phrase is a run of words of one
line with no column gap between them (:data:`GAP`), or the end of such a run followed by the start of one on the
next line below it (a header wrapped in its column). Characters are only moved back to where the page prints
them, never added or dropped, so no figure is changed; a cell the page prints as it is never changes. Boxes are
0..1 of the page, origin top-left.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from typing import NamedTuple

from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.pdfium_text import TextRun

__all__ = ["GAP", "MAX_CELLS", "Phrase", "Word", "mend_cut_phrases", "printed_lines"]

#: The most neighbouring cells (distinct texts) one printed phrase may have been cut into.
MAX_CELLS = 4
#: Two words of a line farther apart than this many character widths stand in different columns.
GAP = 2.0


class Word(NamedTuple):
    """A printed word and its horizontal extent (0..1 of the page)."""

    text: str
    x0: float
    x1: float


#: The words of a line with no column gap between them, left to right.
Phrase = list[Word]


def printed_lines(runs: list[TextRun]) -> list[list[Phrase]]:
    """The phrases of ``runs`` line by line, top to bottom (runs whose vertical middles lie within each other's
    height, left to right; a line cut at gaps wider than :data:`GAP` character widths), each word with its share
    of its run's width: the printed lines of a region."""
    lines: list[list[TextRun]] = []
    for run in sorted(runs, key=lambda r: (r.y0 + r.y1) / 2):
        mid = (run.y0 + run.y1) / 2
        for line in lines:
            first = line[0]
            if first.y0 <= mid <= first.y1 or run.y0 <= (first.y0 + first.y1) / 2 <= run.y1:
                line.append(run)
                break
        else:
            lines.append([run])
    out = []
    for line in lines:
        phrases: list[Phrase] = []
        for word in (w for run in sorted(line, key=lambda r: r.x0) for w in _words(run)):
            if phrases and word.x0 - phrases[-1][-1].x1 <= GAP * _char_width(phrases[-1][-1], word):
                phrases[-1].append(word)
            else:
                phrases.append([word])
        out.append(phrases)
    return out


def mend_cut_phrases(grid: TableGrid, lines: list[list[Phrase]]) -> TableGrid | None:
    """``grid`` with each row's cut phrases given back whole (module docstring), or ``None`` when it has none.
    ``lines``: the printed phrases of the region, line by line (:func:`printed_lines`)."""
    printed = _printed(lines)
    if not printed:
        return None
    header = [_mended(row, printed) for row in grid.header_rows]
    body = [_mended(row, printed) for row in grid.body_rows]
    if header == grid.header_rows and body == grid.body_rows:
        return None
    return grid.model_copy(update={"header_rows": header, "body_rows": body})


def _printed(lines: list[list[Phrase]]) -> dict[tuple[str, ...], Counter[str]]:
    """Every word sequence the region prints as one phrase (module docstring), with its characters."""
    out: dict[tuple[str, ...], Counter[str]] = {}
    for i, line in enumerate(lines):
        for phrase in line:
            words = [w.text for w in phrase]
            for start in range(len(words)):
                for end in range(start + 1, len(words) + 1):
                    out.setdefault(tuple(words[start:end]), Counter())
            if i + 1 == len(lines):
                continue
            for below in lines[i + 1]:
                for a in range(len(phrase)):  # the end of this phrase, then the start of one below it
                    tail = phrase[a:]
                    for b in range(1, len(below) + 1):
                        head = below[:b]
                        if head[0].x0 < tail[-1].x1 and head[-1].x1 > tail[0].x0:
                            out.setdefault(tuple(w.text for w in (*tail, *head)), Counter())
    for words, chars in out.items():
        chars.update("".join(words))
    return out


def _mended(row: list[str], printed: dict[tuple[str, ...], Counter[str]]) -> list[str]:
    """``row`` with its cut phrases mended (the first, shortest run of cells first)."""
    out = list(row)
    groups = _groups(out)
    g = 0
    while g < len(groups):
        for n in range(2, MAX_CELLS + 1):
            window = groups[g : g + n]
            if len(window) < n or not all(_cut(text, printed) for text, _, _ in window):
                break
            chars = Counter(c for text, _, _ in window for c in _chars(text))
            phrase = _printed_as(chars, _norm(window[0][0]).split()[0], printed)
            if phrase is not None:
                for col in range(window[0][1], window[-1][2]):
                    out[col] = phrase
                g += n - 1
                break
        g += 1
    return out


def _groups(row: list[str]) -> list[tuple[str, int, int]]:
    """The row's cells as ``(text, first column, end column)``, equal neighbouring cells (a span) as one."""
    out: list[tuple[str, int, int]] = []
    for col, cell in enumerate(row):
        if out and cell == out[-1][0]:
            out[-1] = (cell, out[-1][1], col + 1)
        else:
            out.append((cell, col, col + 1))
    return out


def _cut(text: str, printed: dict[tuple[str, ...], Counter[str]]) -> bool:
    """``text`` holds letters and is no phrase the region prints."""
    words = tuple(_norm(text).split())
    return bool(words) and any(c.isalpha() for c in text) and words not in printed


def _printed_as(chars: Counter[str], first: str, printed: dict[tuple[str, ...], Counter[str]]) -> str | None:
    """The printed phrase whose characters are exactly ``chars`` and whose first word begins with ``first``."""
    for words, got in printed.items():
        if words[0].startswith(first) and got == chars:
            return " ".join(words)
    return None


def _words(run: TextRun) -> list[Word]:
    """The words of ``run``, each with the share of the run's width its characters take."""
    text = _norm(run.text)
    width = (run.x1 - run.x0) / max(len(text), 1)
    out, at = [], 0
    for word in text.split():
        at = text.index(word, at)
        out.append(Word(word, run.x0 + at * width, run.x0 + (at + len(word)) * width))
        at += len(word)
    return out


def _char_width(left: Word, right: Word) -> float:
    return (left.x1 - left.x0 + right.x1 - right.x0) / max(len(left.text) + len(right.text), 1)


def _chars(text: str) -> str:
    return "".join(_norm(text).split())


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("\ufffe", "").replace("\x02", "-")
