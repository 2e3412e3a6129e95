"""Lines printed across each other, which pdfplumber chains into one line, read apart.

pdfplumber groups glyphs into lines by their tops, chaining tops that lie within its tolerance of the
next: a line of 9 pt glyphs with tops at 108.4 and one of 7 pt glyphs at 111.7 become one line through a
stray glyph at 111.0, and reading it left to right interleaves their letters (``dLaotsee`` for
``dose`` over ``Late``). :func:`untangled_lines` cuts each such chain into parts whose tops lie
within the tolerance of the part's first top, and reads apart two parts whose glyphs take turns left to
right (:data:`MIN_SWITCHES` times or more, each with :data:`MIN_GLYPHS` glyphs or more): they are printed
across each other. Parts side by side (two cells' texts on slightly offset lines) or a few marks set
between the words of a line stay one line, as pdfplumber reads them. Positions are pdfplumber's (PDF
points, origin top-left); glyphs upright, read left to right.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

__all__ = ["MIN_GLYPHS", "MIN_SWITCHES", "untangled_lines"]

#: Fewest passes from one part's glyphs to the other's, left to right, of two parts printed across
#: each other (two marks set between the words of a line make four: they need :data:`MIN_GLYPHS`).
MIN_SWITCHES = 4
#: Fewest printed glyphs of each of two parts read apart.
MIN_GLYPHS = 3


def untangled_lines(chars: list[dict[str, Any]], tolerance: float) -> list[list[dict[str, Any]]]:
    """``chars`` as pdfplumber's lines (its clustering of tops within ``tolerance``), top to bottom, each
    line printed across another cut into its own lines (module docstring)."""
    from pdfplumber.utils.clustering import cluster_objects

    out: list[list[dict[str, Any]]] = []
    for line in cluster_objects(chars, itemgetter("top"), tolerance):
        parts = _parts(line, tolerance)
        groups: list[list[list[dict[str, Any]]]] = []
        for part in parts:
            home = next((g for g in groups if not any(_across(part, other) for other in g)), None)
            if home is None:
                groups.append([part])
            else:
                home.append(part)
        out.extend([line] if len(groups) == 1 else [[ch for part in g for ch in part] for g in groups])
    return out


def _parts(line: list[dict[str, Any]], tolerance: float) -> list[list[dict[str, Any]]]:
    """The glyphs of ``line`` by top: each part's tops within ``tolerance`` of its first (no chaining)."""
    parts: list[list[dict[str, Any]]] = []
    for ch in sorted(line, key=lambda c: float(c["top"])):
        if parts and float(ch["top"]) - float(parts[-1][0]["top"]) <= tolerance:
            parts[-1].append(ch)
        else:
            parts.append([ch])
    return parts


def _across(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """The printed glyphs of ``a`` and ``b`` take turns left to right :data:`MIN_SWITCHES` times or more."""
    ink_a = [float(ch["x0"]) for ch in a if ch.get("text", "").strip()]
    ink_b = [float(ch["x0"]) for ch in b if ch.get("text", "").strip()]
    if len(ink_a) < MIN_GLYPHS or len(ink_b) < MIN_GLYPHS:
        return False
    order = sorted([(x, 0) for x in ink_a] + [(x, 1) for x in ink_b])
    return sum(1 for (_, p), (_, q) in zip(order, order[1:]) if p != q) >= MIN_SWITCHES
