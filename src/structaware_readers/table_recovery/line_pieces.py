"""A run of a merged cell's letters that is a piece of a longer printed line: that line's, not the cell's.

:mod:`.merged_cells` takes as a merged cell's lines the runs whose words run together are part of the cell's
words, and, of those that other cells say too, the ones lying across the column of its sure lines. A short word
of another cell's line, read by PDFium as a run of its own (``on`` of ``-- on waiting list``, printed in the same
column just above the cell), is part of the cell's words (``on`` in ``balloon``): the cell's box grew up over
the other cell's lines, and every row outlined with it showed them. Such a run is a piece of its printed line
when a run beside it on that line (overlapping it by half the taller one's height, at most :data:`GAP` line
heights apart) holds words that are no part of the cell's. Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["GAP", "piece_of_other_line"]

#: Runs of one line at most this many line heights apart are read side by side (a word space is a third of one).
GAP = 1.0


def piece_of_other_line(run: TextLine, lines: list[TextLine], text: str) -> bool:
    """``run`` stands on one printed line beside a run of ``lines`` whose words, run together, are not part of
    ``text`` (the cell's words run together)."""
    return any(
        other is not run and other.words and "".join(other.words) not in text and _side_by_side(run, other)
        for other in lines
    )


def _side_by_side(a: TextLine, b: TextLine) -> bool:
    height = max(a.y1 - a.y0, b.y1 - b.y0)
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    gap = max(b.x0 - a.x1, a.x0 - b.x1)
    return overlap >= 0.5 * height and gap <= GAP * height
