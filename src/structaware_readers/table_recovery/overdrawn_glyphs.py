"""A glyph drawn over the figures of its line after them: read where the page's text puts it.

A filing may draw a column's ``$`` after the figure left of it, on that figure's last digits
(``4,271`` drawn, then a space, then ``$`` over the ``71``). Read by left edge, as pdfplumber reads
a line, the sign lands inside the figure (``4,27$1``), a number the page does not print; the text
layer reads the glyphs in the order they are drawn (``4,271 $``). A printed glyph lying on another
printed glyph of its line for :data:`COVERED` of its width or more, drawn after both glyphs that a
reading by left edge would set it between and not right after either (an accent drawn after its
letter is), is moved to just after the glyph drawn before it, when that one is on its line. Positions
are pdfplumber's (PDF points, origin top-left).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

__all__ = ["COVERED", "redrawn_in_order"]

#: A glyph lying this share of its width or more on another glyph of its line is drawn over it.
COVERED = 0.5


def redrawn_in_order(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``chars`` (in the order the page draws them, upright left-to-right text) with each glyph drawn
    over the figures of its line after them (module docstring) moved to just after the glyph drawn
    before it: a copy of that glyph with new ``x0`` / ``x1``; ``chars`` itself when none is."""
    ink = sorted((i for i, ch in enumerate(chars) if _is_ink(ch)), key=lambda i: float(chars[i]["x0"]))
    if len(ink) < 3:
        return chars
    starts = [float(chars[i]["x0"]) for i in ink]
    widest = max(float(chars[i]["x1"]) - float(chars[i]["x0"]) for i in ink)
    moved: dict[int, dict[str, Any]] = {}
    for k, g in enumerate(ink):
        ch = chars[g]
        x0, x1 = float(ch["x0"]), float(ch["x1"])
        if x1 <= x0 or g == 0 or not ch.get("upright", True):
            continue
        under = [
            h
            for h in ink[bisect_left(starts, x0 - widest) : bisect_left(starts, x1)]
            if h != g and _same_line(ch, chars[h]) and _across(ch, chars[h]) >= COVERED * (x1 - x0)
        ]
        if not under or any(chars[h].get("text") == ch.get("text") for h in under):
            continue  # on nothing, or a glyph drawn twice (faked bold)
        left = _neighbour(chars, ink, k, -1)
        right = _neighbour(chars, ink, k, +1)
        if left is None or right is None or not (left < g and right < g) or g - 1 in (left, right):
            continue
        before = chars[g - 1]
        if not _same_line(ch, before) or float(before["x1"]) <= x1:
            continue
        start = float(before["x1"])
        moved[g] = {**ch, "x0": start, "x1": start + (x1 - x0)}
    if not moved:
        return chars
    return [moved.get(i, ch) for i, ch in enumerate(chars)]


def _is_ink(ch: dict[str, Any]) -> bool:
    return bool(ch.get("text", "").strip())


def _same_line(a: dict[str, Any], b: dict[str, Any]) -> bool:
    top, bottom = float(a["top"]), float(a["bottom"])
    return min(bottom, float(b["bottom"])) - max(top, float(b["top"])) > 0.5 * (bottom - top)


def _across(a: dict[str, Any], b: dict[str, Any]) -> float:
    return min(float(a["x1"]), float(b["x1"])) - max(float(a["x0"]), float(b["x0"]))


def _neighbour(chars: list[dict[str, Any]], ink: list[int], k: int, step: int) -> int | None:
    """The index (into ``chars``) of the nearest printed glyph of the same line as ``chars[ink[k]]`` before
    (``step`` -1) or after (+1) it in left-edge order; ``None`` when it has none."""
    j = k + step
    while 0 <= j < len(ink):
        if _same_line(chars[ink[k]], chars[ink[j]]):
            return ink[j]
        j += step
    return None
