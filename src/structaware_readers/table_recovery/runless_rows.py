"""The lines of a row none of whose runs is its own, taken from between the rows around it.

Stage 8 anchors a row by the runs of words only its cells hold, then places the runs several rows hold next to
the rows already anchored. A row every word of which other rows say too (a search step ``5 | Join | steps 2 and 4``
whose words a later step repeats, a person listed under two teams) has no anchor: its runs, lying between the
rows above and below it, went to the nearest of those by the words of a merged cell printed beside them, or to
none, and the row got no box. Such a row's runs are the runs it holds that no other row between the anchored rows
around it holds, neither those rows themselves, printed between their lines: below the last line of the anchored
row above and above the first line of the anchored row below (anywhere above or below where there is no such row).
Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["runless_rows"]


def runless_rows(
    found: dict[int, list[TextLine]], shared: list[tuple[TextLine, list[int]]]
) -> tuple[dict[int, list[TextLine]], list[tuple[TextLine, list[int]]]]:
    """``found`` (each row's own runs, rows in order top to bottom) and ``shared`` (runs several rows hold, with
    those rows) with each row of ``found`` that has no run given the shared runs it holds that lie between the
    anchored rows around it (module docstring) and that no other row from one of those rows to the other holds.
    The rows without runs between two anchored rows take theirs only when each of them finds some and they follow
    the rows' order top to bottom: where one finds none (rows saying the same but for a number too short to be
    read), the runs stay shared; unchanged when no row takes any."""
    rows = sorted(found)
    gaps: dict[tuple[int | None, int | None], dict[int, list[TextLine]]] = {}
    for i, r in enumerate(rows):
        if found[r]:
            continue
        above = next((k for k in reversed(rows[:i]) if found[k]), None)
        below = next((k for k in rows[i + 1 :] if found[k]), None)
        low = max(x.y1 for x in found[above]) if above is not None else float("-inf")
        high = min(x.y0 for x in found[below]) if below is not None else float("inf")
        span = [k for k in rows if (above is None or k >= above) and (below is None or k <= below)]
        gaps.setdefault((above, below), {})[r] = [
            run
            for run, holders in shared
            if low < (run.y0 + run.y1) / 2 < high and [h for h in holders if h in span] == [r]
        ]
    taken = {r: got for gap in gaps.values() if all(gap.values()) and _in_order(gap) for r, got in gap.items()}
    if not taken:
        return found, shared
    placed = {id(run) for got in taken.values() for run in got}
    out = {r: got + taken.get(r, []) for r, got in found.items()}
    return out, [(run, holders) for run, holders in shared if id(run) not in placed]


def _in_order(taken: dict[int, list[TextLine]]) -> bool:
    """Each row's runs in ``taken`` lie below every earlier row's (their middles)."""
    rows = sorted(taken)
    for a, b in zip(rows, rows[1:]):
        if max((x.y0 + x.y1) / 2 for x in taken[a]) >= min((x.y0 + x.y1) / 2 for x in taken[b]):
            return False
    return True
