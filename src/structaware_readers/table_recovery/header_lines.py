"""A line of a column header printed above a table's first row, left out of a later row's runs.

:mod:`.header_words` leaves out of the rows the short pieces (a word or two) of a header cell printed on several
lines. A longer piece (a header cell's last line naming a drug and its dose, said again by the one row about that
drug) held by a row below the first was that row's only run up there: the row's box reached from the header down
to its own line, over every row between. A run that is part of a header cell, printed above the first row's lines
(of the first row with runs), is no later row's, whatever its length; the first row keeps its own (a header row
read as a body row says its header's words). Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["above_first_row"]


def above_first_row(anchored: dict[int, list[TextLine]], header: list[str]) -> dict[int, list[TextLine]]:
    """``anchored`` (each row's runs, rows in order top to bottom) without the runs of rows after the first row
    with runs that are part of one of ``header`` (the column header's cells, words run together) and lie above
    that row's top (their middles); unchanged when no row has runs."""
    first = next((r for r, got in sorted(anchored.items()) if got), None)
    if first is None:
        return anchored
    top = min(x.y0 for x in anchored[first])

    def piece(run: TextLine) -> bool:
        text = "".join(run.words)
        return (run.y0 + run.y1) / 2 < top and any(text in cell for cell in header)

    return {r: [x for x in got if r <= first or not piece(x)] for r, got in anchored.items()}
