"""The lines of a row whose words other rows all say, between the lines of the rows found round it.

A row may hold no word of its own: every line of it is said by the row below too (``Severe`` | two
treatments, over ``Very severe`` | the same two and more). Stage 8 then finds its lines by the line holding
its key words and takes the lines that follow while they are the row's words; a row whose cells repeat its
own reads on into the row below, and a row whose key cell is printed centred down it starts below its first
lines. Its lines are those from its key line down to the first lying within another row's lines found (their
top to bottom), with the lines just above its key line that lie within none, are its words (a share of
:data:`MIN_SHARE` of their words) and are not the key line of a row above that prints the same words as its own
key line, numbers aside (``3 | willow bark | 10 ml`` over ``4 | willow bark | 10 ml``). Boxes are 0..1 of the
displayed page, origin top-left.
"""

from __future__ import annotations

from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["MIN_SHARE", "free_lines"]

#: Share of a line's words that must be the row's own for a line above its key line to be the row's.
MIN_SHARE = 0.6


def free_lines(
    lines: list[TextLine],
    row_lines: list[TextLine],
    spans: list[tuple[float, float]],
    own: str,
    keys: list[TextLine] | None = None,
) -> list[TextLine]:
    """The row's lines: the first of ``row_lines`` (a run of ``lines``, top to bottom, from the row's key line)
    lying within none of ``spans`` (top and bottom of each other row's lines), and the lines of ``lines`` just
    above them lying within none whose words are ``own`` (the row's words run together) and none of ``keys``
    (the key lines of the rows above) printing the words of the row's key line, numbers aside; none when the
    key line lies within a span (it is that row's)."""
    kept: list[TextLine] = []
    for line in row_lines:
        if _within(line, spans):
            break
        kept.append(line)
    if not kept:
        return []
    start = k = next(i for i, line in enumerate(lines) if line is kept[0])
    while k > 0 and not _within(lines[k - 1], spans) and _share(lines[k - 1].words, own) >= MIN_SHARE:
        above = lines[k - 1]
        if any(key is above and _bare(above.words) == _bare(kept[0].words) for key in keys or ()):
            break
        k -= 1
    return lines[k:start] + kept


def _bare(words: list[str]) -> list[str]:
    return [w for w in words if not w.isdigit()]


def _within(line: TextLine, spans: list[tuple[float, float]]) -> bool:
    middle = (line.y0 + line.y1) / 2
    return any(top <= middle <= bottom for top, bottom in spans)


def _share(words: list[str], own: str) -> float:
    return sum(1 for w in words if w in own) / len(words) if words else 0.0
