"""Words of a column header printed above a table's first row, left out of that row's lines.

Stage 8 reads a table's region, column header included, and gives each run of words to the rows whose cells hold
it. A header cell printed on several lines (``Cardiac`` / ``Conduction`` / ``Effects``) is several runs, no one of
them the whole cell; a first row whose long comment happens to say ``conduction effects`` took the header's runs
and its box grew over the header. A run of a few words that is part of a header cell, printed above every line of
the first row that is no header's, is the header's. Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["HEADER_WORDS", "under_header"]

#: A run of at most this many words can be a piece of a header cell printed on several lines.
HEADER_WORDS = 2


def under_header(
    anchored: dict[int, list[TextLine]], shared: list[tuple[TextLine, list[int]]], header: list[str]
) -> tuple[dict[int, list[TextLine]], list[tuple[TextLine, list[int]]]]:
    """``anchored`` (each row's runs, rows in order top to bottom) and ``shared`` (runs several rows hold, with
    those rows) without the runs of at most :data:`HEADER_WORDS` words that are part of one of ``header`` (the
    column header's cells, words run together) whose middle lies above the first row's lines that are no header's
    (the first row holding such lines), but those of a row before it (a header row read as a body row). Unchanged
    when no row has such lines."""

    def piece(run: TextLine) -> bool:
        text = "".join(run.words)
        return len(run.words) <= HEADER_WORDS and any(text in cell for cell in header)

    first = next((r for r, got in sorted(anchored.items()) if any(not piece(x) for x in got)), None)
    if first is None:
        return anchored, shared
    top = min(x.y0 for x in anchored[first] if not piece(x))

    def kept(run: TextLine, rows: list[int]) -> bool:  # a row before the first (the header repeated) keeps its own
        return not (piece(run) and (run.y0 + run.y1) / 2 < top and min(rows) >= first)

    return {r: [x for x in got if kept(x, [r])] for r, got in anchored.items()}, [
        (x, h) for x, h in shared if kept(x, h)
    ]
