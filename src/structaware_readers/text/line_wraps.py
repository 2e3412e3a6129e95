"""A figure and the word printed on a line under it, glued by a parser: set apart as the page prints them.

A table's header cell may print a year on one line and a word under it (``2019`` over ``Recommendation``); a
parser that joins the cell's lines without a space writes ``2019Recommendation``, a word no page prints. The
text layer reads the cell's lines apart, often with other cells' lines between them, so the two are not next to
each other in it and :func:`~structaware_readers.text.layer.split_figures` cannot cut the run. A run that is
figures then a capitalised word (a raised mark after it kept: ``2007Grade^3``) is cut in two when the page
prints neither the run nor the two pieces together, and prints the figures as a run of their own (ending a line,
or beside the next column's year: ``2021 2020`` over ``Sundry fees``) and the word starting a line (a raised mark
printed inline after it allowed: ``Grade3``). No character is added or dropped.
"""

from __future__ import annotations

import re

from structaware_readers.text.layer import PageWords

#: Figures (a group or decimal mark inside), a capitalised word of 3+ letters, an optional raised mark.
_GLUED = re.compile(r"(\d(?:[\d.,]*\d)?)([A-Z][a-z]{2,})(\^[^\s^]+)?")


def split_wrapped(run: str, page: PageWords) -> list[str] | None:
    """``run`` (no white space) cut into its figures and its word when the page prints them on two lines
    (module docstring): ``[figures, word]``, the word keeping its raised mark; ``None`` otherwise."""
    m = _GLUED.fullmatch(run)
    if m is None:
        return None
    figures, word = m.group(1), m.group(2)
    if figures + word in page.text or f"{figures} {word}" in page.text:
        return None  # printed glued, or on one line: not a wrap
    if figures not in page.tokens:
        return None
    starts = {runs[0] for line in page.text.splitlines() if (runs := line.split())}
    if not any(s == word or (s.startswith(word) and not s[len(word)].isalpha()) for s in starts):
        return None
    return [figures, word + (m.group(3) or "")]


__all__ = ["split_wrapped"]
