"""Small glyphs printed across a line of bigger glyphs: a line of their own, never that line's scripts.

A page may print a line of small text over or against a line of bigger text: a form printed twice a few
points apart, a note squeezed into the line above it. Glyph by glyph, each small glyph then stands just
right of a big one, lower or higher than it, as a subscript or a superscript does; read as scripts
(:func:`~structaware_readers.table_recovery.reading_direction.mark_superscripts`), the small glyphs are set
on the big line and the two lines come out interleaved letter by letter (``Dnaotte`` for ``Date``
over ``not``). A script is a few glyphs set between two glyphs of its line;
a run of small glyphs on one baseline (glyphs closer than :data:`RUN_GAP` of their size) with at least
:data:`MIN_RUN` glyphs whose span holds the middle of a bigger glyph of a line it overlaps is printed
across that line: :func:`crossing_glyphs` names its glyphs, which are then read as their own line.
Positions are pdfplumber's (PDF points, origin top-left).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

__all__ = ["MIN_RUN", "RUN_GAP", "crossing_glyphs"]

#: Glyphs of one baseline and size closer than this share of their size are one run (a word space is
#: about a quarter of it; a full-size glyph set between two scripts is wider than this).
RUN_GAP = 0.6
#: Fewest glyphs of a run printed across a line (a footnote mark of one or two glyphs is never one).
MIN_RUN = 3
#: Two glyphs share a baseline when their bottoms lie at most this share of their size apart.
SAME_BASELINE = 0.1


def crossing_glyphs(chars: list[dict[str, Any]], *, small: float, overlap: float) -> set[int]:
    """Indexes into ``chars`` (upright, left to right) of the glyphs of runs printed across a line of
    bigger glyphs (module docstring). A glyph is bigger than a run when the run's size is at most
    ``small`` of its own; it lies on the run's line when their vertical extents overlap by more than
    ``overlap`` of the run's height."""
    sizes = [float(ch.get("size") or 0) for ch in chars]
    sized = [i for i in range(len(chars)) if sizes[i] > 0]
    ink = [i for i in sized if chars[i].get("text", "").strip()]
    if not ink or min(sizes[i] for i in ink) > small * max(sizes[i] for i in ink):
        return set()
    by_middle = sorted(ink, key=lambda i: _middle(chars[i]))
    middles = [_middle(chars[i]) for i in by_middle]
    out: set[int] = set()
    for run in _runs(chars, sizes, sized):  # a run's blanks go with it: the spaces of its line
        if sum(1 for i in run if chars[i].get("text", "").strip()) < MIN_RUN:
            continue
        size = sizes[run[0]]
        x0, x1 = float(chars[run[0]]["x0"]), float(chars[run[-1]]["x1"])
        top = min(float(chars[i]["top"]) for i in run)
        bottom = max(float(chars[i]["bottom"]) for i in run)
        least = overlap * (bottom - top)
        for k in range(bisect_right(middles, x0), bisect_left(middles, x1)):
            g = chars[by_middle[k]]
            if size > small * sizes[by_middle[k]]:
                continue
            if min(bottom, float(g["bottom"])) - max(top, float(g["top"])) > least:
                out.update(run)
                break
    return out


def _middle(ch: dict[str, Any]) -> float:
    return (float(ch["x0"]) + float(ch["x1"])) / 2


def _runs(chars: list[dict[str, Any]], sizes: list[float], glyphs: list[int]) -> list[list[int]]:
    """The runs of ``glyphs``: one size and baseline, left to right, each glyph within :data:`RUN_GAP`
    of its size of the one before."""
    lines: list[list[int]] = []
    for i in sorted(glyphs, key=lambda i: (sizes[i], float(chars[i]["bottom"]))):
        if lines:
            first = lines[-1][0]
            same_size = abs(sizes[i] - sizes[first]) <= SAME_BASELINE * sizes[first]
            same_base = abs(float(chars[i]["bottom"]) - float(chars[first]["bottom"])) <= SAME_BASELINE * sizes[first]
            if same_size and same_base:
                lines[-1].append(i)
                continue
        lines.append([i])
    runs: list[list[int]] = []
    for line in lines:
        line.sort(key=lambda i: float(chars[i]["x0"]))
        gap = RUN_GAP * sizes[line[0]]
        runs.append([line[0]])
        for prev, i in zip(line, line[1:]):
            if float(chars[i]["x0"]) - float(chars[prev]["x1"]) > gap:
                runs.append([])
            runs[-1].append(i)
    return runs
