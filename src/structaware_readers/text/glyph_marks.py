"""What a PDF page's glyph boxes tell that its text does not: a dash the font names not, raised figures.

:func:`with_dashes`: an unnamed glyph between two figures whose box is a flat bar at mid height
(:data:`DASH_RATIO`) is a dash, written :data:`UNNAMED_DASH`. :func:`raised_runs`: runs whose figures
stand above the baseline, written with a caret before them (``2019.^12``). :func:`raised_letters`: a
small raised mark of letters set right after a word (a trademark ``TM``, a service mark ``SM``), which
PDFium may print far from the word (glyphs come in the order drawn). :func:`small_fractions`: fractions
set small after a number, written a space apart from it (``2.33 1/3``). Used by
:class:`~structaware_readers.text.layer.PdfTextLayer`; boxes in PDF points.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Callable

from structaware_readers.text.ghost_copy import blanked, pdfium_ghosts
from structaware_readers.text.glyph_lines import joined_lines

#: Control characters a font maps a glyph to (not the line-end hyphen ``U+0002``, nor tab / line breaks).
UNNAMED = "\x00\x01\x03-\x08\x0b\x0c\x0e-\x1f"
_UNNAMED_BETWEEN_FIGURES = re.compile(rf"(?<=\d)[{UNNAMED}](?=\d)")
_UNNAMED_RE = re.compile(f"[{UNNAMED}]")
_UNNAMED_CHARS = frozenset(chr(c) for c in (0, 1, *range(3, 9), 11, 12, *range(14, 32)))
#: An unnamed glyph at least this many times as wide as high is a bar (a dash).
DASH_RATIO = 3.0
#: How the page text writes an unnamed dash.
UNNAMED_DASH = "\u2013"
_FIGURE = re.compile(r"\d")
#: Punctuation around a run that is not part of it (as :mod:`structaware_readers.text.layer` strips it).
_EDGE = "()[]{};:,."
#: Longest run :func:`raised_runs` reads (characters).
MAX_RUN = 60


def normal(text: str) -> str:
    """``text`` in NFKC, as pages are compared."""
    return unicodedata.normalize("NFKC", text)


Box = tuple[float, float, float, float]  # left, bottom, right, top (PDF points)


def _is_dash(box: Box, figure: Box) -> bool:
    """True when a glyph drawn in ``box`` is a flat bar (:data:`DASH_RATIO`) whose middle lies within
    the middle of the height of the ``figure`` before it."""
    left, bottom, right, top = box
    fig_bottom, fig_top = figure[1], figure[3]
    width, height, fig_height = right - left, top - bottom, fig_top - fig_bottom
    middle = (top + bottom) / 2
    return (
        width > 0 and fig_height > 0 and width >= DASH_RATIO * height
        and fig_bottom + 0.15 * fig_height <= middle <= fig_top - 0.15 * fig_height
    )  # fmt: skip


def with_dashes(text: str, chars: str, box: Callable[[int], Box]) -> tuple[str, dict[str, str]]:
    """``text`` (a page's text) with its unnamed dashes between figures written ``–``, and its
    ``dashless`` map (module docstring); ``text`` and ``{}`` when it has none. ``chars`` are the
    page's characters one by one (PDFium's character API: ``text`` may hold a few more or fewer, so
    the glyphs between figures are matched in order) and ``box(i)`` the box of character ``i``."""
    marks = list(_UNNAMED_BETWEEN_FIGURES.finditer(text))
    if not marks:
        return text, {}
    flags = [
        _is_dash(box(i), box(i - 1))
        for i in range(1, len(chars) - 1)
        if chars[i] in _UNNAMED_CHARS and chars[i - 1].isdigit() and chars[i + 1].isdigit()
    ]  # one per unnamed glyph between two figures, in the order of the page's characters
    if len(marks) != len(flags) or not any(flags):
        return text, {}
    out = list(text)
    for m, dash in zip(marks, flags):
        if dash:
            out[m.start()] = UNNAMED_DASH
    new = "".join(out)
    dashless: dict[str, str] = {}
    for run in re.finditer(r"\S+", text):
        if any(dash and run.start() <= m.start() < run.end() for m, dash in zip(marks, flags)):
            raw = text[run.start() : run.end()].strip(_EDGE)
            dashless[_UNNAMED_RE.sub("", raw)] = new[run.start() : run.end()].strip(_EDGE)
    return new, dashless


#: A figure whose bottom stands this share of its run's tallest glyph above the run's baseline is raised.
RAISE = 0.25
_RAISED_JOINERS = ",\u2013-"
_DESCENDERS = frozenset("gjpqyJQ")
#: The letters and figures that are not raised stand within this share of the tallest on one baseline.
_SEATED = 0.1
#: A raised figure is at most this share of the run's tallest glyph high.
_SMALLER = 0.85


def raised_runs(chars: str, box: Callable[[int], Box]) -> dict[str, str]:
    """The runs of a page (white space apart, NFKC, punctuation at their ends stripped) that print figures above their
    baseline, each mapped to the run with a caret before each raised stretch (figures, and commas or dashes between
    them): ``{"2019.12": "2019.^12"}``.
    """
    out: dict[str, str] = {}
    for m in re.finditer(r"\S+", chars):
        run = m.group(0)
        if not _FIGURE.search(run) or len(run) > MAX_RUN or not any(ch.isalnum() for ch in run):
            continue
        boxes = [box(i) for i in range(m.start(), m.end())]
        if any(b[0] < a[0] for a, b in zip(boxes, boxes[1:])):
            continue  # not set left to right on a line (rotated, or a line the text layer joined)
        solid = [b for ch, b in zip(run, boxes) if ch.isalnum() and b[3] > b[1]]
        seated = [b for ch, b in zip(run, boxes) if ch.isalnum() and ch not in _DESCENDERS and b[3] > b[1]]
        if not seated:
            continue
        base = min(b[1] for b in seated)
        tall = max(b[3] - b[1] for b in solid)
        up = [ch.isdigit() and b[1] - base >= RAISE * tall for ch, b in zip(run, boxes)]
        for i in range(1, len(run) - 1):  # a comma or dash between raised figures is raised
            if run[i] in _RAISED_JOINERS and up[i - 1] and up[i + 1]:
                up[i] = True
        rest = [b for ch, b, u in zip(run, boxes, up) if ch.isalnum() and ch not in _DESCENDERS and not u]
        if not any(up) or not rest:
            continue
        if any(b[1] - base > _SEATED * tall for b in rest):
            continue  # the letters and figures left do not stand on one baseline
        top = max(b[3] for b in rest)
        if any(
            u and ch.isdigit() and (b[3] - b[1] > _SMALLER * tall or b[3] <= top) for ch, b, u in zip(run, boxes, up)
        ):
            continue  # a raised figure is smaller than the run's tallest glyph and stands above the rest
        first = len(run) - len(run.lstrip(_EDGE))
        last = len(run.rstrip(_EDGE))
        marked = "".join(
            ("^" if up[i] and (i == first or not up[i - 1]) else "") + run[i] for i in range(first, last)
        )  # fmt: skip
        key = normal(run[first:last])
        if key and len(key) == last - first:
            out[key] = normal(marked)
    return out


#: A raised mark of letters has at most this many letters.
MARK_LETTERS = 3
#: A mark stands at most this share of its word's tallest glyph right of the word's last glyph.
MARK_GAP = 0.5
_LETTERS = re.compile(r"[^\W\d_]+")


def _extent(boxes: list[Box]) -> tuple[float, float, float]:
    """``(baseline, top, tallest)`` of glyph boxes: the lowest bottom of letters without descenders."""
    return min(b[1] for b in boxes), max(b[3] for b in boxes), max(b[3] - b[1] for b in boxes)


def raised_letters(chars: str, box: Callable[[int], Box]) -> dict[str, int]:
    """Words of a page with a raised mark of letters set right after them (module docstring), each word
    and its mark glued (NFKC, lower case) mapped to the mark's length: ``{"lanterntm": 2}`` where ``Lantern`` is
    followed by a ``TM`` smaller than the word's tallest glyph (:data:`_SMALLER`), whose bottom stands
    :data:`RAISE` of it above the word's baseline and below the word's top, and whose top stands above
    it, at most :data:`MARK_GAP` of it to the right (``chars`` and ``box``: as for :func:`raised_runs`)."""
    runs = [m for m in _LETTERS.finditer(chars) if m.end() - m.start() <= MAX_RUN]
    hosts: list[tuple[float, int, float, float, float]] = []  # right edge, run, baseline, top, tallest
    for k, m in enumerate(runs):
        boxes = [box(i) for i in range(m.start(), m.end())]
        seated = [b for ch, b in zip(m.group(0), boxes) if ch not in _DESCENDERS and b[3] > b[1]]
        if seated and all(a[0] <= b[0] for a, b in zip(boxes, boxes[1:])):
            base, top, tall = _extent(seated)
            hosts.append((boxes[-1][2], k, base, top, tall))
    hosts.sort()
    rights = [h[0] for h in hosts]
    out: dict[str, int] = {}
    for k, m in enumerate(runs):
        if m.end() - m.start() > MARK_LETTERS:
            continue
        boxes = [box(i) for i in range(m.start(), m.end())]
        if any(b[3] <= b[1] for b in boxes):
            continue
        left, (bottom, top, tall) = boxes[0][0], _extent(boxes)
        end = bisect_left(rights, left + 0.1 * tall)  # the nearest word ending left of the mark first
        for right, h, base, host_top, host_tall in reversed(hosts[bisect_left(rights, left - 10 * tall) : end]):
            if (
                h != k and left - right <= MARK_GAP * host_tall and tall <= _SMALLER * host_tall
                and bottom - base >= RAISE * host_tall and bottom < host_top < top
            ):  # fmt: skip
                out[normal(runs[h].group(0) + m.group(0)).lower()] = len(normal(m.group(0)))
                break
    return out


#: A fraction's figures are at most this share of the height of the figure before them.
_FRACTION_SIZE = 0.85
_SLASHES = "/\u2044"


def small_fractions(chars: str, box: Callable[[int], Box]) -> dict[str, str]:
    """Fractions a page sets in small figures after a number (``1.66`` and a raised ``2/3``), which PDFium
    reads apart from it (often at the page's end), each mapped from the run a parser writes when it glues
    the two to the run written as printed, a space between: ``{"2.331/3": "2.33 1/3"}`` (also with the
    number's run whole: ``$2.331/3``). A fraction is figures, a slash and figures, in order among the
    page's characters, each at most :data:`_FRACTION_SIZE` of the height of the figure just left of it on
    its line (their heights overlap; no more than that figure's height between them).
    """
    out: dict[str, str] = {}
    figures: dict[int, Box] = {}
    for m in re.finditer(rf"\d+[{_SLASHES}]\d+", chars):
        start, end = m.start(), m.end()
        boxes = [box(i) for i in range(start, end)]
        if any(b[0] < a[0] for a, b in zip(boxes, boxes[1:])):
            continue
        if not figures:
            figures = {i: box(i) for i, ch in enumerate(chars) if ch.isdigit()}
        height = max(b[3] - b[1] for b in boxes)
        left = _figure_left_of(figures, boxes[0], height, range(start, end))
        if left is None:
            continue
        first = left
        while first > 0 and not chars[first - 1].isspace():
            first -= 1
        number = normal(chars[first : left + 1])
        fraction = normal(m.group(0))
        for lead in {number, number[len(number) - len(number.lstrip("$€£¥(")) :]}:
            if lead and lead[0] not in _SLASHES:
                out[lead + fraction] = f"{lead} {fraction}"
    return out


def _figure_left_of(figures: dict[int, Box], first: Box, height: float, skip: range) -> int | None:
    """The index of the figure (of ``figures``, by index) just left of a glyph in box ``first`` on its line,
    taller than ``height`` by :data:`_FRACTION_SIZE`, with at most its own height between them; ``None``
    when there is none."""
    best, best_right = None, 0.0
    for i, b in figures.items():
        tall = b[3] - b[1]
        if i in skip or tall <= 0 or height > _FRACTION_SIZE * tall or min(b[3], first[3]) <= max(b[1], first[1]):
            continue
        if b[2] <= first[0] + 0.1 * tall and first[0] - b[2] <= tall and (best is None or b[2] > best_right):
            best, best_right = i, b[2]
    return best


def page_text(textpage: object) -> tuple[str, dict[str, str]]:
    """A ``pypdfium2.PdfTextPage``'s text (NFKC) with its unnamed dashes, and its ``dashless`` map; without the
    line breaks PDFium writes between glyphs set side by side (:func:`~structaware_readers.text.glyph_lines.joined_lines`),
    and on a page printed twice over without its second copy (:func:`~structaware_readers.text.ghost_copy.pdfium_ghosts`)."""
    raw = textpage.get_text_range()  # type: ignore[attr-defined]
    ghost = pdfium_ghosts(textpage, raw)
    chars = blanked(page_chars(textpage), ghost) if ghost else None  # one per index, the second copy's as spaces
    text = normal(joined_lines(textpage, raw if chars is None else chars))
    if not _UNNAMED_BETWEEN_FIGURES.search(text):
        return text, {}
    return with_dashes(text, page_chars(textpage) if chars is None else chars, textpage.get_charbox)  # type: ignore[attr-defined]


def page_chars(textpage: object) -> str:
    """The page's characters, one per index (PDFium's character API)."""
    import pypdfium2.raw as pdfium_c

    count = textpage.count_chars()  # type: ignore[attr-defined]
    return "".join(chr(pdfium_c.FPDFText_GetUnicode(textpage, i)) for i in range(count))


__all__ = [
    "DASH_RATIO",
    "RAISE",
    "UNNAMED",
    "UNNAMED_DASH",
    "page_chars",
    "page_text",
    "raised_letters",
    "raised_runs",
    "small_fractions",
    "with_dashes",
]
