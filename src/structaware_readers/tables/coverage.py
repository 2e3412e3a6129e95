"""Does a table's markup hold all of the parser's own text of the table?"""

from __future__ import annotations

import re

from structaware_readers.models import TableGrid

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: Words shorter than this are ignored (OCR noise, units, stray letters).
MIN_WORD = 3


def missing_words(grid: TableGrid, text: str) -> list[str]:
    """Words of ``text`` (at least :data:`MIN_WORD` characters, case-folded, in order, no repeats)
    that appear in no cell, header or title of ``grid``."""
    held = set()
    for row in [*grid.header_rows, *grid.body_rows, [grid.title]]:
        for cell in row:
            held.update(w.casefold() for w in _WORD.findall(cell))
    out: list[str] = []
    for w in _WORD.findall(text):
        key = w.casefold()
        if len(key) >= MIN_WORD and key not in held and key not in out:
            out.append(key)
    return out


__all__ = ["MIN_WORD", "missing_words"]
