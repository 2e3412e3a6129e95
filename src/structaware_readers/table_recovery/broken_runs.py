"""A merged cell's line the text layer breaks into several runs, put back together.

PDFium may read one printed line as runs side by side: a figure apart from the word it goes with (``5`` |
``days*``), a bold word apart from the rest. :mod:`.merged_cells` finds a merged cell's lines by their runs'
words; a one-character run is no line of it, and the rest (``days``) is a word many cells say, so the cell is not
found and the row it is printed beside keeps a box stretched over the rows it spans. Runs on one line next to each
other whose words run together are still the cell's words are one line of it. So are the runs of a line printed
sideways, read a word at a time one under the other (``Home`` | ``based``): every word alone is one another
cell says too. Boxes are 0..1 of the displayed page, origin top-left.
"""

from __future__ import annotations

from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["GAP", "joined_runs"]

#: Runs of one line at most this many line heights apart are read side by side (a word space is a third of one).
GAP = 1.0


def joined_runs(runs: list[TextLine], text: str) -> list[TextLine]:
    """The runs of ``runs`` whose words are words of ``text`` (a cell's words run together), each joined with
    the runs next to it on its line (overlapping by half the taller one's height, at most :data:`GAP` line
    heights apart) while their words run together are still in ``text``, and each run printed sideways with the
    runs of its line above or below it (:func:`_under`), its words read top down or bottom up; left to right,
    top to bottom."""
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
                elif _under(line, run) and (said := _said(line.words, run.words, text)):
                    box = (min(line.x0, run.x0), min(line.y0, run.y0), max(line.x1, run.x1), max(line.y1, run.y1))
                    line = TextLine(said, *box)
                else:
                    continue
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


def _under(line: TextLine, run: TextLine) -> bool:
    """``line`` and ``run`` are printed sideways (taller than wide), one above the other on one turned line
    (each overlapping the other across by half the wider one's width), at most :data:`GAP` widths apart."""
    if line.y1 - line.y0 <= line.x1 - line.x0 or run.y1 - run.y0 <= run.x1 - run.x0:
        return False
    width = max(line.x1 - line.x0, run.x1 - run.x0)
    overlap = min(line.x1, run.x1) - max(line.x0, run.x0)
    gap = max(run.y0 - line.y1, line.y0 - run.y1)
    return overlap >= 0.5 * width and -0.5 * width <= gap <= GAP * width


def _said(line: list[str], run: list[str], text: str) -> list[str]:
    """The words of ``line`` and ``run``, one under the other, in the order ``text`` says them (a turned line
    reads top down or bottom up); none when it says neither."""
    for words in (line + run, run + line):
        if "".join(words) in text:
            return words
    return []
