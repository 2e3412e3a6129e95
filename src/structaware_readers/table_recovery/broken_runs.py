"""A merged cell's line the text layer breaks into several runs, put back together.

PDFium may read one printed line as runs side by side: a figure apart from the word it goes with (``5`` |
``days*``), a bold word apart from the rest. :mod:`.merged_cells` finds a merged cell's lines by their runs'
words; a one-character run is no line of it, and the rest (``days``) is a word many cells say, so the cell is not
found and the row it is printed beside keeps a box stretched over the rows it spans. Runs on one line next to each
other whose words run together are still the cell's words are one line of it. Boxes are 0..1 of the displayed
page, origin top-left.
"""

from __future__ import annotations

from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["GAP", "joined_runs"]

#: Runs of one line at most this many line heights apart are read side by side (a word space is a third of one).
GAP = 1.0


def joined_runs(runs: list[TextLine], text: str) -> list[TextLine]:
    """The runs of ``runs`` whose words are words of ``text`` (a cell's words run together), each joined with
    the runs next to it on its line (overlapping by half the taller one's height, at most :data:`GAP` line
    heights apart) while their words run together are still in ``text``; left to right, top to bottom."""
    parts = sorted((r for r in runs if r.words and "".join(r.words) in text), key=lambda r: r.x0)
    out: list[TextLine] = []
    while parts:
        line = parts.pop(0)
        grown = True
        while grown:
            grown = False
            for k, run in enumerate(parts):
                if _next_to(line, run) and "".join(line.words + run.words) in text:
                    line = TextLine(line.words + run.words, line.x0, min(line.y0, run.y0), run.x1, max(line.y1, run.y1))
                    parts.pop(k)
                    grown = True
                    break
        out.append(line)
    return sorted(out, key=lambda ln: (ln.y0, ln.x0))


def _next_to(left: TextLine, run: TextLine) -> bool:
    """``run`` stands right of ``left`` on its line (each overlapping the other by half its height: a run printed
    sideways beside lines printed across is on none of them), at most :data:`GAP` line heights from it."""
    height = max(left.y1 - left.y0, run.y1 - run.y0)
    overlap = min(left.y1, run.y1) - max(left.y0, run.y0)
    return overlap >= 0.5 * height and -0.5 * height <= run.x0 - left.x1 <= GAP * height
