"""A page that prints its text twice, the second copy shifted: the glyphs of that second copy.

Some pages are printed twice over, the second copy a few points beside and below the first (a form laid over
itself when the page was made; Uganda's NCD patient card). The text layer holds both copies, so every reading of a
cell or a line mixes the letters of the two (``atient name Pt file #``). A reader that keeps the glyphs
:func:`ghost_glyphs` does not name reads the page once.

Only a page that repeats its lines is looked at further (:func:`repeats_lines`: a second copy of a share of the
page repeats about twice that share). A glyph is a twin of an earlier-drawn glyph when it is the same character
shifted by the page's offset (within :data:`OFFSET_SLACK` points). The page has a second copy only when the twins
make whole stretches of text: each counted twin follows, in drawing order, a glyph that is the twin of the glyph
before its own twin (:data:`MIN_STRETCH` glyphs in a row), and such twins are :data:`MIN_SHARE` of the page's
glyphs. The offset must move along both axes, and down less than :data:`MAX_DROP` of the twins' size, so that each
line of the copy runs across its own original: a page lays out words again on lines of their own, about an em apart
or more (a name signed above and printed below it, list lines that repeat their words), never across the line they
repeat. Positions are PDF points in either origin (the offset only has to be read the way the glyphs are).

:func:`pdfium_ghosts` asks this of a PDFium text page, after a look at its text so that other pages cost no glyph
reads; :func:`blanked` writes a page's characters with those of its second copy as spaces, each still at its index.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["blanked", "ghost_glyphs", "pdfium_ghosts", "repeats_lines"]

#: Largest shift of a second copy looked for, along each axis (points).
MAX_OFFSET = 30.0
#: Smallest shift along each axis (points): closer copies are a bold printed twice, which readers handle.
MIN_OFFSET = 1.0
#: How far a twin may lie from the page's offset (points).
OFFSET_SLACK = 0.5
#: Glyphs in a row, in drawing order, that must all be twins for any of them to count.
MIN_STRETCH = 4
#: Share of the page's glyphs (not blanks) that the counted twins must make.
MIN_SHARE = 0.15
#: The copy moves down (or up) less than this share of its glyphs' size (em): its lines cross the lines it repeats.
MAX_DROP = 0.85
#: Glyphs of a page read before the offset is looked for (a page with fewer has no second copy).
MIN_GLYPHS = 200
#: Glyphs the offset is first looked for among (the rest is read only when these hold it).
SAMPLE = 600
#: Share of a page's text (not blanks) in lines it prints more than once above which its glyphs are read: a second
#: copy of a share of the page repeats about twice that share.
REPEATED_LINES = 2 * MIN_SHARE
#: Lines shorter than this (characters, not blanks) are left out of that share (a ``Total``, a ``Director``).
MIN_LINE = 4
#: Glyphs whose baselines lie this close (points) are on one line.
SAME_LINE = 1.0
_BLANKS = re.compile(r"\s+")

Glyph = tuple[str, float, float, float]


def ghost_glyphs(glyphs: Sequence[Glyph]) -> set[int]:
    """Indices into ``glyphs`` (each ``(char, x, y, size)``: its character, a point of its box and its font size as
    printed, in drawing order) of the second copy of a page printed twice (module docstring), with the blanks
    drawn among them; empty for every other page."""
    marks = [k for k, glyph in enumerate(glyphs) if glyph[0].strip()]
    if len(marks) < MIN_GLYPHS or not _repeats_lines([glyphs[k] for k in marks]):
        return set()
    cells = _cells(glyphs, marks)
    offset = _offset(glyphs, marks[:SAMPLE], cells)
    if offset is None:
        return set()
    twin = _twins(glyphs, marks, offset, cells)
    counted = _stretches(marks, twin)
    if len(counted) < MIN_SHARE * len(marks):
        return set()
    sizes = sorted(glyphs[k][3] for k in counted)
    if abs(offset[1]) >= MAX_DROP * sizes[len(sizes) // 2]:
        return set()
    return counted | _blanks_after(glyphs, counted)


def _blanks_after(glyphs: Sequence[Glyph], ghost: set[int]) -> set[int]:
    """The blanks drawn after a glyph of ``ghost`` before any other glyph: the second copy's own spaces."""
    out: set[int] = set()
    after_ghost = False
    for k, glyph in enumerate(glyphs):
        if glyph[0].strip():
            after_ghost = k in ghost
        elif after_ghost:
            out.add(k)
    return out


def _cells(glyphs: Sequence[Glyph], marks: Sequence[int]) -> dict[tuple[str, int, int], list[int]]:
    cells: dict[tuple[str, int, int], list[int]] = defaultdict(list)
    for k in marks:
        ch, x, y, _ = glyphs[k]
        cells[(ch, int(x // MAX_OFFSET), int(y // MAX_OFFSET))].append(k)
    return cells


def _offset(
    glyphs: Sequence[Glyph], sample: Sequence[int], cells: dict[tuple[str, int, int], list[int]]
) -> tuple[float, float] | None:
    """The shift (points, from the earlier-drawn glyph to the later) most glyphs of ``sample`` have a twin at,
    drawn before or after them: the mean of the shifts in the whole-point bin most of them fall in and its
    neighbours; ``None`` unless it moves along both axes and at least a :data:`MIN_SHARE` of them have one."""
    seen: dict[tuple[int, int], list[tuple[float, float]]] = defaultdict(list)
    for k in sample:
        ch, x, y, _ = glyphs[k]
        shifts: dict[tuple[int, int], tuple[float, float]] = {}
        for j in _near(cells, ch, x, y):
            if j != k:
                dx, dy = (x - glyphs[j][1], y - glyphs[j][2]) if j < k else (glyphs[j][1] - x, glyphs[j][2] - y)
                if MIN_OFFSET <= abs(dx) <= MAX_OFFSET and MIN_OFFSET <= abs(dy) <= MAX_OFFSET:
                    shifts[(round(dx), round(dy))] = (dx, dy)
        for key, shift in shifts.items():
            seen[key].append(shift)
    if not seen:
        return None
    key = max(seen, key=lambda b: (len(seen[b]), b))
    if len(seen[key]) < MIN_SHARE * len(sample):
        return None
    near = [s for b, found in seen.items() if abs(b[0] - key[0]) <= 1 and abs(b[1] - key[1]) <= 1 for s in found]
    return sum(dx for dx, _ in near) / len(near), sum(dy for _, dy in near) / len(near)


def _near(cells: dict[tuple[str, int, int], list[int]], ch: str, x: float, y: float) -> list[int]:
    gx, gy = int(x // MAX_OFFSET), int(y // MAX_OFFSET)
    return [j for ax in (-1, 0, 1) for ay in (-1, 0, 1) for j in cells.get((ch, gx + ax, gy + ay), ())]


def _twins(
    glyphs: Sequence[Glyph],
    marks: Sequence[int],
    offset: tuple[float, float],
    cells: dict[tuple[str, int, int], list[int]],
) -> dict[int, int]:
    """Each glyph of ``marks`` with an earlier glyph of the same character at ``offset`` (within
    :data:`OFFSET_SLACK` points along each axis): the nearest such earlier glyph."""
    twin: dict[int, int] = {}
    for k in marks:
        ch, x, y, _ = glyphs[k]
        best, gap = None, OFFSET_SLACK
        for j in _near(cells, ch, x - offset[0], y - offset[1]):
            if j < k:
                miss = max(abs(x - glyphs[j][1] - offset[0]), abs(y - glyphs[j][2] - offset[1]))
                if miss <= gap:
                    best, gap = j, miss
        if best is not None:
            twin[k] = best
    return twin


def _stretches(marks: Sequence[int], twin: dict[int, int]) -> set[int]:
    """The twins in runs of at least :data:`MIN_STRETCH` glyphs (consecutive in ``marks``) whose twins are
    consecutive too, in the same order."""
    counted: set[int] = set()
    run: list[int] = []
    for a, b in zip([None, *marks], marks):
        follows = a is not None and a in twin and b in twin and twin[a] < twin[b] <= twin[a] + 3
        if b in twin and (not run or follows):
            run.append(b)
            continue
        if len(run) >= MIN_STRETCH:
            counted.update(run)
        run = [b] if b in twin else []
    if len(run) >= MIN_STRETCH:
        counted.update(run)
    return counted


def repeats_lines(text: str) -> bool:
    """True when at least :data:`REPEATED_LINES` of ``text`` (a page's, line by line; characters other than
    blanks, lines of :data:`MIN_LINE` or more) lies in lines printed more than once."""
    return _repeated(_BLANKS.sub("", raw) for raw in text.splitlines())


def _repeats_lines(marks: Sequence[Glyph]) -> bool:
    """:func:`repeats_lines` of glyphs other than blanks, in drawing order: a line runs while each glyph stands
    right of the one before on its baseline (within :data:`SAME_LINE`)."""
    lines, line, last = [], [], None
    for ch, x, y, _ in marks:
        if last is not None and (abs(y - last[1]) > SAME_LINE or x < last[0]):
            lines.append("".join(line))
            line = []
        line.append(ch)
        last = (x, y)
    lines.append("".join(line))
    return _repeated(lines)


def _repeated(lines: Iterable[str]) -> bool:
    lines = [line for line in lines if len(line) >= MIN_LINE]
    total = sum(len(line) for line in lines)
    if total < MIN_GLYPHS:
        return False
    seen = Counter(lines)
    return sum(len(line) for line in lines if seen[line] > 1) >= REPEATED_LINES * total


def pdfium_ghosts(textpage: Any, text: str | None = None) -> set[int]:
    """:func:`ghost_glyphs` of a ``pypdfium2.PdfTextPage`` (indices of its characters), read only when its text
    (``text``, its ``get_text_range()`` when given) :func:`repeats_lines`."""
    if not repeats_lines(textpage.get_text_range() if text is None else text):
        return set()
    return ghost_glyphs(pdfium_glyphs(textpage))


def pdfium_glyphs(textpage: Any) -> list[Glyph]:
    """Each character of a PDFium text page as ``(char, x, y, size)``: the middle of its loose box (the font's)
    across, its baseline, and its font size as printed (the font size scaled by the character's matrix), PDF
    points, origin bottom-left; ``("", 0, 0, 0)`` for one PDFium gives no position."""
    import pypdfium2.raw as pdfium_c

    x, y, rect, matrix = ctypes.c_double(), ctypes.c_double(), pdfium_c.FS_RECTF(), pdfium_c.FS_MATRIX()
    glyphs = []
    for k in range(textpage.count_chars()):
        char = chr(pdfium_c.FPDFText_GetUnicode(textpage, k))
        if (
            pdfium_c.FPDFText_GetCharOrigin(textpage, k, ctypes.byref(x), ctypes.byref(y))
            and pdfium_c.FPDFText_GetLooseCharBox(textpage, k, ctypes.byref(rect))
            and pdfium_c.FPDFText_GetMatrix(textpage, k, ctypes.byref(matrix))
        ):
            size = pdfium_c.FPDFText_GetFontSize(textpage, k) * math.hypot(matrix.b, matrix.d)
            glyphs.append((char, (rect.left + rect.right) / 2, y.value, size))
        else:
            glyphs.append(("", 0.0, 0.0, 0.0))
    return glyphs


def blanked(chars: str, ghost: set[int]) -> str:
    """``chars`` (a page's characters, one per index) with those at the indices ``ghost`` written as spaces;
    ``chars`` itself when ``ghost`` is empty."""
    if not ghost:
        return chars
    return "".join(" " if k in ghost else ch for k, ch in enumerate(chars))
