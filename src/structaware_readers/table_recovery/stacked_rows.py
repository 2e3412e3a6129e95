"""Rows stacked inside one ruled row: one row per item, as the page aligns them.

Dose tables draw one ruled row per drug class and stack its drugs in it, each dose on its drug's
line in the next column; read cell by cell that is one row of three drugs and three doses, and a
question about one drug finds a row of three. :func:`split_stacked` cuts such a row into one row
per item: the key cell's items (short capitalised lines, or paragraphs where names wrap) must each
have a line of an aligned cell starting at the same height (within :data:`TOLERANCE` points) and
enough of them a figure; the other cells repeat in every item's row, as a merged cell does. A
wrapped sentence is never a key. :func:`may_hold_stacked_rows` tells from the parser's grid alone
whether the PDF is worth reading for a table.
"""

from __future__ import annotations

import re

from structaware_readers.table_recovery.reading_direction import join_words

#: Points within which a line of another cell starts on a key line's top.
TOLERANCE = 2.0
#: A key line (one item) has at most this many words.
MAX_KEY_WORDS = 6
#: Lines of a cell further apart than this many times the row's line pitch start a new paragraph.
PARAGRAPH_GAP = 1.08
#: Points within which a line of an aligned cell starts on a key paragraph's top.
LOOSE_TOLERANCE = 2.5
#: Share of the items of a paragraph-read key cell that must hold a figure in the aligned cell.
MIN_FIGURE_SHARE = 0.6
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
    found = split_stacked_items(cells)
    return None if found is None else found[0]


def split_stacked_items(cells: list[Lines | None]) -> tuple[list[list[str | None]], list[float]] | None:
    """:func:`split_stacked`'s rows with the top of each item (PDF points from the page top), or ``None``. An
    item read with the sub-labels printed above its name starts at the first of them: its row's box holds them."""
    for key, key_lines in enumerate(cells):
        if not key_lines or not _is_key(key_lines):
            continue
        tops = [top for top, _ in key_lines]
        aligned = [c for c, lines in enumerate(cells) if c != key and lines and _aligned(lines, tops)]
        if aligned and any(_figure_each(cells[c], tops) for c in aligned):  # type: ignore[arg-type]
            return _items(cells, key, aligned, tops), tops
    return _paragraph_items(cells)


def _paragraph_items(cells: list[Lines | None]) -> tuple[list[list[str | None]], list[float]] | None:
    """Items of a key cell read in paragraphs (module docstring), with their tops; ``None`` when none."""
    pitch = _pitch(cells)
    if pitch is None:
        return None
    for key, key_lines in enumerate(cells):
        if not key_lines or len(key_lines) < 2:
            continue
        paragraphs = _paragraphs(key_lines, pitch)
        if len(paragraphs) < 2 or not all(_is_key_paragraph(p) for p in paragraphs):
            continue
        starts = [p[0][0] for p in paragraphs]
        for c, lines in enumerate(cells):
            if c == key or not lines or any(_BULLET.match(t) for _, t in lines):
                continue
            items = [i for i, top in enumerate(starts) if _opens_item(lines, top)]
            if len(items) < 2 or items[-1] != len(paragraphs) - 1:
                continue  # a trailing paragraph that is no item would lose its text
            spans = _spans(starts, items)
            if not _inside(lines, spans):
                continue  # a line of this cell beside a sub-label: no item of its own
            with_figure = sum(1 for a, b in spans if any(_DIGIT.search(t) for y, t in lines if a <= y < b))
            if with_figure < 2 or with_figure < MIN_FIGURE_SHARE * len(items):
                continue
            aligned = [
                o for o, other in enumerate(cells)
                if o != key and other and not any(_BULLET.match(t) for _, t in other)
                and sum(1 for i in items if _starts_on(other, starts[i])) >= 2 and _inside(other, spans)
            ]  # fmt: skip
            firsts = [0, *(i + 1 for i in items[:-1])]  # an item's sub-labels, printed above its name, open it
            return _paragraph_rows(cells, key, aligned, paragraphs, items, spans), [starts[i] for i in firsts]
    return None


def _starts_on(lines: Lines, top: float) -> bool:
    return any(abs(y - top) <= LOOSE_TOLERANCE for y, _ in lines)


def _opens_item(lines: Lines, top: float) -> bool:
    """A line starts on ``top`` and opens no bracket: a bracketed note (``(Max: 3/18 mg/day)``) belongs
    to the text above it, so the name beside it (a brand name under the generic one) is no item."""
    return any(abs(y - top) <= LOOSE_TOLERANCE and not t.startswith(("(", "[")) for y, t in lines)


def _inside(lines: Lines, spans: list[tuple[float, float]]) -> bool:
    return all(any(a <= y < b for a, b in spans) for y, _ in lines)


def _pitch(cells: list[Lines | None]) -> float | None:
    """The smallest step between the tops of two consecutive lines of any cell (a wrapped line's)."""
    steps = [b[0] - a[0] for lines in cells if lines for a, b in zip(lines, lines[1:]) if b[0] - a[0] > TOLERANCE]
    return min(steps, default=None)


def _paragraphs(lines: Lines, pitch: float) -> list[Lines]:
    out: list[Lines] = []
    for i, line in enumerate(lines):
        if i and line[0] - lines[i - 1][0] <= PARAGRAPH_GAP * pitch:
            out[-1].append(line)
        else:
            out.append([line])
    return out


def _is_key_paragraph(lines: Lines) -> bool:
    """Short lines, the first starting with a capital letter or a figure, none bulleted."""
    first = lines[0][1]
    return (
        bool(first)
        and (first[0].isupper() or first[0].isdigit())
        and all(0 < len(t.split()) <= MAX_KEY_WORDS and not _BULLET.match(t) for _, t in lines)
    )


def _spans(starts: list[float], items: list[int]) -> list[tuple[float, float]]:
    """Each item's span of tops: from its own top to the next paragraph's (an item's or a sub-label's)."""
    out = []
    for i in items:
        end = starts[i + 1] - LOOSE_TOLERANCE if i + 1 < len(starts) else float("inf")
        out.append((starts[i] - LOOSE_TOLERANCE, end))
    return out


def _paragraph_rows(
    cells: list[Lines | None],
    key: int,
    aligned: list[int],
    paragraphs: list[Lines],
    items: list[int],
    spans: list[tuple[float, float]],
) -> list[list[str | None]]:
    """One row per item: sub-labels before the item's name, the aligned cells' lines of its span,
    every other cell whole."""
    rows: list[list[str | None]] = []
    done = 0  # the first paragraph not yet placed (sub-labels go before the next item's name)
    for i, (a, b) in zip(items, spans):
        name = [t for p in paragraphs[done : i + 1] for _, t in p]
        done = i + 1
        row: list[str | None] = []
        for c, lines in enumerate(cells):
            if lines is None:
                row.append(None)
            elif c == key:
                row.append(join_words([[t] for t in name]))
            elif c in aligned:
                row.append(join_words([[t] for y, t in lines if a <= y < b]))
            else:
                row.append(join_words([[t] for _, t in lines]))
        rows.append(row)
    return rows


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


__all__ = [
    "LOOSE_TOLERANCE",
    "MAX_KEY_WORDS",
    "MIN_FIGURE_SHARE",
    "PARAGRAPH_GAP",
    "TOLERANCE",
    "may_hold_stacked_rows",
    "split_stacked",
    "split_stacked_items",
    "splits_names",
]
