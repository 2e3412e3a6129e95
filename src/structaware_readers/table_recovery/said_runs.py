"""A run of words several rows hold, kept from a row that has already been given every copy of it its cells say.

Stage 8 places a run several rows hold (``For adults over sixty years``, the start of two pieces of advice one under
the other) with the row whose runs reach over it or are clearly nearer. The first row's own copy of the words lies
in its lines; the second row's copy, its first line, lies nearer the first row's last line than the second row's
next line (which its words share too), so it went to the first row, whose box grew over it, and the second row's
box missed its first line. A row's cells say a run's words a number of times; a row already given that many runs
saying them takes no more, and a run only one holder can still take is that row's when it lies where that row
comes in the rows' order: below every earlier row's runs and above every later row's. Boxes are 0..1 of the
displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["only_taker", "reached_first", "still_owed"]


def reached_first(
    shared: list[tuple[TextLine, list[int]]], spans: dict[int, tuple[float, float]]
) -> list[tuple[TextLine, list[int]]]:
    """``shared`` (runs several rows hold, with those rows) with the runs one of whose holders' runs (``spans``: top
    and bottom of each row's runs) reach over their middle first, each part in its order: a row's copy of words
    printed in its lines is counted before a copy printed elsewhere is placed."""

    def reached(run: TextLine, holders: list[int]) -> bool:
        middle = (run.y0 + run.y1) / 2
        return any(spans[r][0] <= middle <= spans[r][1] for r in holders if r in spans)

    return sorted(shared, key=lambda pair: not reached(*pair))


def still_owed(run: TextLine, holders: list[int], found: dict[int, list[TextLine]], own: dict[int, str]) -> list[int]:
    """The rows among ``holders`` (rows whose words, ``own``: each row's words run together, hold ``run``) not yet
    given (``found``: each row's runs so far) as many runs saying ``run``'s words as their cells say; ``holders``
    when every one of them has been."""
    text = "".join(run.words)
    owed = [r for r in holders if _copies(found.get(r, []), text) < own[r].count(text)]
    return owed or holders


def only_taker(run: TextLine, owed: list[int], spans: dict[int, tuple[float, float]]) -> int | None:
    """The one row of ``owed`` when ``run`` lies below every earlier row's runs and above every later row's
    (``spans``: top and bottom of each row's runs); ``None`` otherwise or when several rows are owed it."""
    if len(owed) != 1:
        return None
    row, middle = owed[0], (run.y0 + run.y1) / 2
    if all(bottom < middle for r, (_, bottom) in spans.items() if r < row) and all(
        top > middle for r, (top, _) in spans.items() if r > row
    ):
        return row
    return None


def _copies(runs: list[TextLine], text: str) -> int:
    """How many times ``runs`` say ``text`` (each run's words run together)."""
    return sum("".join(x.words).count(text) for x in runs)
