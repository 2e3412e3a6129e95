"""Words and cell text of a PDF text layer read in each glyph's own reading direction (pdfplumber).

pdfplumber reads every rotated glyph top to bottom, so a label written bottom-to-top comes out
backwards. Each glyph's direction is read from its text matrix (PDF 32000-1, 9.4.4) and each
direction is read apart. Upright glyphs stacked one per line are one word (vertical CJK); a cell's
words join with a space, except between CJK characters and after a line-end hyphen. Two glyphs of a
line part words where a gap of the given tolerance (points) or of :data:`WORD_GAP_EM` of the glyph's
size lies between them, whichever is less: a table set in 3-point type prints its column headers
2.5 points apart, which a fixed tolerance reads as one word (``DepositsAmounts``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any, Literal

from structaware_readers.table_recovery.crossed_lines import crossing_glyphs
from structaware_readers.table_recovery.overdrawn_glyphs import redrawn_in_order
from structaware_readers.table_recovery.tangled_lines import untangled_lines

Direction = Literal["ltr", "btt", "ttb", "rtl"]

#: pdfplumber settings per direction: (char_dir, line_dir) for the glyphs of that direction.
_SETTINGS: dict[Direction, tuple[str, str]] = {
    "ltr": ("ltr", "ttb"),
    "btt": ("btt", "ltr"),
    "ttb": ("ttb", "rtl"),
    "rtl": ("rtl", "btt"),
}
_ORDER: tuple[Direction, ...] = ("ltr", "btt", "ttb", "rtl")
_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f"
_CJK_CHAR = re.compile(f"[{_CJK}]")
#: A gap of this share of the glyph's size (ems) along a line parts two words, however small the
#: tolerance in points allows (a word space is about a quarter of an em).
WORD_GAP_EM = 0.25


def char_direction(char: dict[str, Any]) -> Direction:
    """The reading direction of one pdfplumber char, from its text matrix (module docstring);
    ``ltr`` when the char has no matrix."""
    matrix = char.get("matrix")
    if not matrix or len(matrix) < 2:
        return "ltr" if char.get("upright", True) else "ttb"
    a, b = float(matrix[0]), float(matrix[1])
    if abs(b) > abs(a):
        return "btt" if b > 0 else "ttb"
    return "ltr" if a >= 0 else "rtl"


def extract_words(chars: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """pdfplumber's ``extract_words`` of ``chars`` with the along-line tolerance capped at
    :data:`WORD_GAP_EM` of the previous glyph's size (module docstring)."""
    from pdfplumber.utils.text import WordExtractor

    class _Extractor(WordExtractor):
        def char_begins_new_word(self, prev_char, curr_char, direction, x_tolerance, y_tolerance):
            em = WORD_GAP_EM * float(prev_char.get("size") or 0)
            if em > 0 and direction in ("ltr", "rtl"):
                x_tolerance = min(x_tolerance, em)
            elif em > 0:  # vertical text: the along-line tolerance is pdfplumber's y_tolerance
                y_tolerance = min(y_tolerance, em)
            return super().char_begins_new_word(prev_char, curr_char, direction, x_tolerance, y_tolerance)

    return _Extractor(**kwargs).extract_words(chars)


def _by_direction(chars: Iterable[dict[str, Any]]) -> dict[Direction, list[dict[str, Any]]]:
    groups: dict[Direction, list[dict[str, Any]]] = {}
    for ch in chars:
        groups.setdefault(char_direction(ch), []).append(ch)
    return groups


def _kwargs(direction: Direction, upright: bool, x_tolerance: float, y_tolerance: float) -> dict[str, Any]:
    char_dir, line_dir = _SETTINGS[direction]
    kw: dict[str, Any] = {"x_tolerance": x_tolerance, "y_tolerance": y_tolerance}
    if upright:  # pdfplumber applies char_dir/line_dir to upright glyphs, the *_rotated ones to the rest
        kw.update(char_dir=char_dir, line_dir=line_dir)
    else:
        kw.update(char_dir_rotated=char_dir, line_dir_rotated=line_dir)
    return kw


def _is_stacked(chars: list[dict[str, Any]]) -> bool:
    """Upright glyphs one per line in one column: at least 2 letters (no figures), each overlapping
    the others across and none beside another on its line."""
    if len(chars) < 2 or not all(ch.get("text", "").isalpha() for ch in chars):
        return False
    x0 = max(float(ch["x0"]) for ch in chars)
    x1 = min(float(ch["x1"]) for ch in chars)
    if x1 <= x0:  # no common column
        return False
    tops = sorted(float(ch["top"]) for ch in chars)
    heights = sorted(float(ch["bottom"]) - float(ch["top"]) for ch in chars)
    return all(b - a >= 0.5 * heights[0] for a, b in zip(tops, tops[1:]))


#: A blank glyph lying this share of its width or more on a printed glyph of its line separates nothing.
COVERED_BLANK = 0.5


def printed_chars(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chars`` (in the order the page draws them) without the blank glyphs that part no two glyphs
    as the page draws them: a blank starting on a printed glyph of its line and lying on it for
    :data:`COVERED_BLANK` of its width, drawn before or after both glyphs that pdfplumber's reading
    by left edge would set it between (a space drawn last over a number's first figure: pdfplumber
    reads ``3 1.4``, the page prints ``31.4``). A blank drawn between them stays (``(0.16)`` blank
    ``%`` with the blank on the ``%``: the page prints ``(0.16) %``), as do all other blanks."""
    blanks = [i for i, ch in enumerate(chars) if not ch.get("text", "").strip()]
    if not blanks:
        return chars
    ink = sorted((i for i, ch in enumerate(chars) if ch.get("text", "").strip()), key=lambda i: float(chars[i]["x0"]))
    starts = [float(chars[i]["x0"]) for i in ink]
    widest = max((float(chars[i]["x1"]) - float(chars[i]["x0"]) for i in ink), default=0.0)
    drop: set[int] = set()
    for b in blanks:
        x0, x1, top, bottom = (float(chars[b][k]) for k in ("x0", "x1", "top", "bottom"))
        need = COVERED_BLANK * max(x1 - x0, 0.0)
        for k in range(bisect_left(starts, x0 - widest), bisect_left(starts, x1)):
            g = chars[ink[k]]
            across = min(x1, float(g["x1"])) - max(x0, float(g["x0"]))
            down = min(bottom, float(g["bottom"])) - max(top, float(g["top"]))
            if not (
                float(g["x0"]) <= x0 < float(g["x1"]) and need > 0 and across >= need and down > 0.5 * (bottom - top)
            ):
                continue
            after = x0 > float(g["x0"]) or b > ink[k]  # pdfplumber reads the blank after the glyph it lies on
            pair = _line_neighbour(chars, ink, k, +1 if after else -1)
            if pair is not None and not min(ink[k], pair) < b < max(ink[k], pair):
                drop.add(b)
            break
    return [ch for i, ch in enumerate(chars) if i not in drop] if drop else chars


def _line_neighbour(chars: list[dict[str, Any]], ink: list[int], k: int, step: int) -> int | None:
    """The index (into ``chars``) of the nearest printed glyph of the same line as ``chars[ink[k]]``
    after it (``step`` +1) or before it (-1) in left-edge order; ``None`` when it has none."""
    g = chars[ink[k]]
    top, bottom = float(g["top"]), float(g["bottom"])
    j = k + step
    while 0 <= j < len(ink):
        other = chars[ink[j]]
        if min(bottom, float(other["bottom"])) - max(top, float(other["top"])) > 0.5 * (bottom - top):
            return ink[j]
        j += step
    return None


def reading_words(
    chars: list[dict[str, Any]], *, x_tolerance: float = 3, y_tolerance: float = 3, extra_attrs: list[str] | None = None
) -> list[dict[str, Any]]:
    """pdfplumber words (``text``, ``x0``, ``x1``, ``top``, ``bottom`` in PDF points, origin top-left,
    ``direction``) of ``chars`` (:func:`printed_chars`; a glyph drawn over the figures of its line after
    them read where the page draws it in order, :func:`~.overdrawn_glyphs.redrawn_in_order`), each read in
    its glyphs' direction (module docstring). Upright words come first in pdfplumber's order, then each rotated direction's."""
    chars = redrawn_in_order(printed_chars(chars))
    words: list[dict[str, Any]] = []
    for direction, group in sorted(_by_direction(chars).items(), key=lambda kv: _ORDER.index(kv[0])):
        upright = [ch for ch in group if ch.get("upright", True)]
        rotated = [ch for ch in group if not ch.get("upright", True)]
        for part, is_upright in ((upright, True), (rotated, False)):
            if part:
                kw = _kwargs(direction, is_upright, x_tolerance, y_tolerance)
                words += extract_words(part, extra_attrs=extra_attrs, **kw)
    return words


def region_words(crop: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """:func:`reading_words` of a pdfplumber page or crop (its ``chars``)."""
    return reading_words(list(crop.chars), **kwargs)


def reading_text(chars: list[dict[str, Any]], *, x_tolerance: float = 3, y_tolerance: float = 3) -> str:
    """The text of ``chars`` (one table cell) as a reader reads it: each direction's words in their
    reading order (upright first), stacked letters as one word, small raised or lowered glyphs read
    in their word's line (:func:`mark_superscripts`: ``Strength^a`` as
    :mod:`structaware_readers.tables.cell_text` writes ``<sup>a</sup>``, ``CO2``), words joined by
    :func:`join_words`."""
    chars = printed_chars(chars)
    lines: list[list[str]] = []
    for direction, group in sorted(_by_direction(chars).items(), key=lambda kv: _ORDER.index(kv[0])):
        upright = [ch for ch in group if ch.get("upright", True)]
        rotated = [ch for ch in group if not ch.get("upright", True)]
        if direction == "ltr" and upright and _is_stacked(upright):
            lines.append(["".join(ch["text"] for ch in sorted(upright, key=lambda c: float(c["top"])))])
            upright = []
        elif direction == "ltr" and upright:
            upright = mark_superscripts(upright)
        for part, is_upright in ((upright, True), (rotated, False)):
            if part:
                kw = _kwargs(direction, is_upright, x_tolerance, y_tolerance)
                lines += _lines_of(_untangled_words(part, direction, is_upright, kw), direction, y_tolerance)
    return join_words(lines)


def _untangled_words(
    chars: list[dict[str, Any]], direction: Direction, upright: bool, kw: dict[str, Any]
) -> list[dict[str, Any]]:
    """pdfplumber's words of ``chars``, upright left-to-right lines printed across each other read apart
    (:func:`~structaware_readers.table_recovery.tangled_lines.untangled_lines`)."""
    from pdfplumber.utils import extract_words

    if direction != "ltr" or not upright:
        return extract_words(chars, **kw)
    return [w for line in untangled_lines(chars, kw["y_tolerance"]) for w in extract_words(line, **kw)]


#: A glyph at most this share of the size of the glyph before it, and raised (lowered) by this share
#: of that size from its baseline, is a superscript (a subscript).
SUP_SIZE = 0.8
SUP_RAISE = 0.2
#: Two glyphs are on one line when their vertical extents overlap by more than this share of the
#: glyph looked at (a raised or lowered mark).
LINE_OVERLAP = 0.2


def mark_superscripts(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Upright ``chars`` with their small raised or lowered runs set on the line of the full-size glyph
    just left of them (within that glyph's size across): pdfplumber then reads them in that line, not
    as a line of their own (``CO2 before``, never ``CO before ... 2``). The first glyph of a raised
    run is written ``^x`` (``Strength^a``, where pdfplumber read ``Strengtha``); a lowered run
    (subscript) is glued as it is (``CO2``). Small glyphs printed across a line of bigger ones are a line
    of their own (:func:`~structaware_readers.table_recovery.crossed_lines.crossing_glyphs`), no scripts.
    A raised run of figures that a slash and a small figure follow is the numerator of a fraction set
    small (:func:`_is_numerator`), no superscript: it has no caret and stands a space apart from a figure
    before it (``1 2/3¢``, ``$2.33 1/3``, never ``1^2/3`` read as one squared). Other glyphs unchanged."""
    sizes = [float(ch.get("size") or 0) for ch in chars]
    if not sizes or min(sizes) > SUP_SIZE * max(sizes):
        return chars
    crossing = crossing_glyphs(chars, small=SUP_SIZE, overlap=LINE_OVERLAP)
    order = sorted(range(len(chars)), key=lambda i: float(chars[i]["x0"]))
    out = list(chars)
    host_of: dict[int, dict[str, Any]] = {}  # index of a script glyph -> the full-size glyph it follows
    for pos, i in enumerate(order):
        ch = chars[i]
        left = None if i in crossing else _left_neighbour(chars, order[:pos], ch)
        if left is None:
            continue
        j = next(k for k in order[:pos] if chars[k] is left)
        host = host_of.get(j, left)
        hsize = float(host.get("size") or 0)
        if float(ch.get("size") or 0) > SUP_SIZE * hsize or float(ch["x0"]) - float(left["x1"]) > hsize:
            continue
        raised = float(ch["bottom"]) <= float(host["bottom"]) - SUP_RAISE * hsize
        lowered = float(ch["top"]) >= float(host["top"]) + SUP_RAISE * hsize
        if not (raised or lowered):
            continue
        host_of[i] = host
        first = j not in host_of
        label = ch["text"]
        if raised and first:
            fraction = _is_numerator([chars[k] for k in order[pos:]], host)
            label = (" " if fraction and host["text"].isdigit() else "" if fraction else "^") + label
        out[i] = {**ch, "text": label, "top": host["top"], "bottom": host["bottom"]}
    return out


#: The slashes of a fraction: the solidus and the fraction slash.
_SLASHES = "/\u2044"


def _is_numerator(run: list[dict[str, Any]], host: dict[str, Any]) -> bool:
    """True when ``run`` (glyphs left to right, from a small raised one after the full-size glyph
    ``host``), read on ``host``'s line (glyphs whose height overlaps it, each within ``host``'s size
    of the one before), is figures, a slash and a small figure (at most :data:`SUP_SIZE` of
    ``host``'s size): the numerator, slash and denominator of a fraction set small, raised or
    stacked (``2/3`` after ``1``)."""
    size = float(host.get("size") or 0)
    top, bottom = float(host["top"]), float(host["bottom"])
    line = [ch for ch in run if min(bottom, float(ch["bottom"])) > max(top, float(ch["top"]))]
    k = 0
    while k < len(line) and line[k]["text"].isdigit():
        k += 1
    return (
        0 < k < len(line) - 1
        and line[k]["text"] in _SLASHES
        and line[k + 1]["text"].isdigit()
        and float(line[k + 1].get("size") or 0) <= SUP_SIZE * size
        and all(float(b["x0"]) - float(a["x1"]) <= size for a, b in zip(line, line[1 : k + 2]))
    )


def _left_neighbour(chars: list[dict[str, Any]], left_of: list[int], ch: dict[str, Any]) -> dict[str, Any] | None:
    """The glyph nearest left of ``ch`` on its line: their vertical extents overlap by more than
    :data:`LINE_OVERLAP` of ``ch``'s height. A glyph of the line above whose bottom merely touches the
    top of a raised mark (a hundredth of a point) is not on its line: the mark of a wrapped name's
    second line (``Metoprolol`` / ``tartrate^b``) stays there, never inside the word above (``Metoprob lol``)."""
    top, bottom = float(ch["top"]), float(ch["bottom"])
    least = LINE_OVERLAP * max(bottom - top, 0.0)
    for j in reversed(left_of):
        other = chars[j]
        if min(bottom, float(other["bottom"])) - max(top, float(other["top"])) > least and not other["text"].isspace():
            return other
    return None


def table_cell_chars(table: Any) -> list[list[list[dict[str, Any]] | None]]:
    """The glyphs of each cell of a pdfplumber ``Table``, row by row, as
    :meth:`pdfplumber.table.Table.extract` assigns them (a glyph belongs to the cell holding its
    centre); ``None`` for a cell covered by a merged one."""
    chars = list(table.page.chars)

    def inside(ch: dict[str, Any], box: tuple[float, float, float, float]) -> bool:
        h, v = (float(ch["x0"]) + float(ch["x1"])) / 2, (float(ch["top"]) + float(ch["bottom"])) / 2
        return box[0] <= h < box[2] and box[1] <= v < box[3]

    out: list[list[list[dict[str, Any]] | None]] = []
    for row in table.rows:
        row_chars = [ch for ch in chars if inside(ch, row.bbox)]
        out.append([None if cell is None else [ch for ch in row_chars if inside(ch, cell)] for cell in row.cells])
    return out


def table_text(table: Any) -> list[list[str | None]]:
    """The cells of a pdfplumber ``Table`` as :meth:`pdfplumber.table.Table.extract` gives them
    (``None`` for a covered cell), each read by :func:`reading_text`."""
    return [[None if c is None else reading_text(c) for c in row] for row in table_cell_chars(table)]


def cell_lines(
    chars: list[dict[str, Any]], *, x_tolerance: float = 3, y_tolerance: float = 3
) -> list[tuple[float, str]]:
    """The text lines of one cell's upright, left-to-right glyphs, top to bottom: ``(top, text)``,
    ``top`` in PDF points from the page top; ``[]`` when the cell holds rotated or stacked text."""
    chars = printed_chars(chars)
    groups = _by_direction(chars)
    if set(groups) - {"ltr"} or any(not ch.get("upright", True) for ch in chars) or not chars or _is_stacked(chars):
        return []
    kw = {"x_tolerance": x_tolerance, "y_tolerance": y_tolerance}
    words = _untangled_words(mark_superscripts(chars), "ltr", True, kw)
    lines: list[tuple[float, list[str]]] = []
    for w in words:
        if lines and abs(float(w["top"]) - lines[-1][0]) <= y_tolerance:
            lines[-1][1].append(w["text"])
        else:
            lines.append((float(w["top"]), [w["text"]]))
    return [(top, join_words([ws])) for top, ws in lines]


_HYPHEN_END = re.compile(r"[A-Za-z0-9]-$")


def join_words(lines: list[list[str]]) -> str:
    """The lines of one cell (each a list of words) joined as a reader reads them: words by a space, except between two
    CJK characters (``慢性阻塞性`` + ``肺疾病`` -> ``慢性阻塞性肺疾病``) and across a line break after a hyphen set against a letter
    or figure, before a word or a figure (``Sub-`` / ``topic`` -> ``Sub-topic``, ``Angiotensin-`` / ``Converting``
    -> ``Angiotensin-Converting``, ``12.5-`` / ``25 mg`` -> ``12.5-25 mg``; the hyphen is kept).
    """
    out = ""
    for line in lines:
        for k, w in enumerate(x for word in line for x in word.split()):
            glue = out and (
                (_CJK_CHAR.match(out[-1]) and _CJK_CHAR.match(w[0]))
                or (k == 0 and _HYPHEN_END.search(out) and w[0].isalnum())
            )
            out += w if glue else (" " + w if out else w)
    return out


def _lines_of(words: list[dict[str, Any]], direction: Direction, tolerance: float) -> list[list[str]]:
    """pdfplumber's words (in its reading order) cut into lines: a word whose position across the
    reading direction (``top`` for horizontal text, ``x0`` for vertical) moves by more than
    ``tolerance`` starts a line."""
    key = "top" if direction in ("ltr", "rtl") else "x0"
    lines: list[list[str]] = []
    last: float | None = None
    for w in words:
        pos = float(w[key])
        if last is None or abs(pos - last) > tolerance:
            lines.append([])
        lines[-1].append(w["text"])
        last = pos
    return lines


__all__ = [
    "Direction",
    "cell_lines",
    "char_direction",
    "join_words",
    "printed_chars",
    "reading_text",
    "reading_words",
    "region_words",
    "table_cell_chars",
    "table_text",
]
