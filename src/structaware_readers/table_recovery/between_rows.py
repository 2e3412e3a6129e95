"""A run of words several rows hold, placed by the rows printed above and below it.

Stage 8 places such a shared run with the row whose lines reach over it or are clearly nearer. A row none of
whose runs is its own alone (each of its lines said again by another row: ``first choice`` beside ``second
choice`` one row down, a line of a merged cell beside it) is never found that way, and the rows around it get no
box between them. Rows are printed in order: a run lying below the runs of one row and above those of a later
row, no row's runs reaching over it, belongs to a row from the one to the other. When one row lies between them
and it alone of the three holds the run's words, the run is that row's (with several rows between, a row placed
so would draw the lines of the others, found by their lines later, towards it). Boxes are 0..1 of the displayed
page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["row_between"]


def row_between(run: TextLine, holders: list[int], spans: dict[int, tuple[float, float]]) -> int | None:
    """The row between the last row whose runs (``spans``: top and bottom of each row's runs so far) lie wholly
    above ``run``'s middle and the first later row whose runs lie wholly below it, when it is the only row between
    them and the only one of the three among ``holders`` (the rows whose words hold ``run``, row indices top to
    bottom); ``None`` when a row's runs reach over the middle, no row lies above or below it, or else."""
    middle = (run.y0 + run.y1) / 2
    if any(top <= middle <= bottom for top, bottom in spans.values()):
        return None
    above = max((r for r, (_, bottom) in spans.items() if bottom < middle), default=None)
    if above is None:
        return None
    below = min((r for r, (top, _) in spans.items() if top > middle and r > above), default=None)
    if below is None:
        return None
    if below != above + 2:  # several rows between: which of them prints the run is not known
        return None
    inside = [r for r in holders if above <= r <= below]
    return inside[0] if inside == [above + 1] else None
