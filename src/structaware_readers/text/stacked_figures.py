"""Figures a parser glued from cells printed one above the other, cut where the page prints them apart.

A parser that reads a column of a table as one cell may drop the line breaks between its figures
(``14.521.2(12.4)``: ``14.5``, ``21.2`` and ``(12.4)`` on three lines of the page). Such a run is cut into
pieces that the page's text layer prints as runs of their own, each on a later line than the one before
(:func:`split_stacked`), two of figures at least; only when exactly one such cut exists, so no figure is changed:
a space is put between the pieces, nothing else. A cut never parts the figures of one number (``333-`` /
``181075``) nor two figures unless both pieces are numbers with a point, a comma or a slash inside (``14.5`` /
``21.2``): ``$471`` is never ``$ 47 1``, though the page prints ``47`` and ``1`` on later lines. Each piece is an
amount of two figures or more (no letters): footnote marks (``(1)(2)``) and citations (``1(i)(5)``) stay whole.
"""

from __future__ import annotations

import re
from functools import lru_cache

from structaware_readers.text.layer import PageWords

#: Longest run cut (characters).
MAX_RUN = 60
#: Punctuation around a run that is not part of it (``(95%``, ``0.71;``), as the page's runs are read.
_EDGE = "()[]{};:,."
#: A currency sign standing alone between two figures (``(8.9)$``): a piece of its own, found on no line.
_SIGNS = frozenset("$€£¥")
_FIGURE = re.compile(r"\d")
#: Characters that join the figures of one number (``333-181075``, ``12/4``, ``0.71``): no piece ends or starts so.
_JOINERS = ".,-\u2010\u2011\u2013/"
#: A piece of figures: an amount, in brackets or not (``(12.4)``, ``2,010``, ``7/3/2031``, ``12.5%``), no letters.
_AMOUNT = re.compile(r"\(?\d[\d.,/]*\)?%?")
#: A number with a decimal point, a thousands comma or a slash between figures.
_SHAPED = re.compile(r"\d[.,/]\d")
_CJK = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


@lru_cache(maxsize=8)
def _lines_of_runs(text: str) -> dict[str, tuple[int, ...]]:
    """The lines (0-based, in order) on which ``text`` prints each run holding a figure (punctuation at its
    ends stripped)."""
    out: dict[str, list[int]] = {}
    for i, line in enumerate(text.splitlines()):
        for run in line.split():
            core = run.strip(_EDGE)
            if core and _FIGURE.search(core):
                out.setdefault(core, []).append(i)
    return {k: tuple(v) for k, v in out.items()}


def _piece_ok(piece: str) -> bool:
    """A piece may be a number in brackets, never part of one (``.1``, ``3.``, ``333-`` of ``333-181075``) or
    half a bracket pair."""
    return piece[0] not in _JOINERS and piece[-1] not in _JOINERS and piece.count("(") == piece.count(")")


def _amount(piece: str) -> bool:
    """An amount of two figures or more: a footnote mark (``(1)``) or a citation's part (``1(i)``) is none."""
    return _AMOUNT.fullmatch(piece) is not None and sum(ch.isdigit() for ch in piece) >= 2


def _kind(piece: str) -> int:
    """How a piece ends, for the next: 0 not in a figure, 1 a figure of a number with a decimal point, a thousands
    comma or a slash inside (``14.5``, ``7/3/2031``), 2 a figure of another (``47``)."""
    if not piece[-1].isdigit():
        return 0
    return 1 if _SHAPED.search(piece) else 2


def _follows(kind: int, piece: str) -> bool:
    """``piece`` may follow a piece of ``kind`` (:func:`_kind`): where a figure meets a figure, both are numbers
    with a point, a comma or a slash inside (``14.5`` / ``21.2``); ``47`` / ``1`` may be ``471``."""
    if kind == 0 or not piece[0].isdigit():
        return True
    return kind == 1 and _SHAPED.search(piece) is not None


def split_stacked(run: str, page: PageWords) -> list[str] | None:
    """``run`` (without white space) cut into 2+ runs of figures ``page`` prints on successive lines (module
    docstring), a currency sign next to them a piece of its own; ``None`` when the page prints ``run`` itself,
    or no cut or more than one fits (``2022$`` is one figure and a sign: left as it is)."""
    if len(run) > MAX_RUN or run in page.tokens or not _FIGURE.search(run) or _CJK.search(run):
        return None
    lines = _lines_of_runs(page.text)
    memo: dict[tuple[int, int, int], list[list[str]]] = {}

    def cuts(at: int, after: int, kind: int) -> list[list[str]]:
        """Up to two cuts of ``run[at:]`` whose first piece the page prints below line ``after`` and may follow
        a piece of ``kind`` (:func:`_kind`)."""
        if at == len(run):
            return [[]]
        if (at, after, kind) not in memo:
            out: list[list[str]] = []
            for end in range(at + 1, len(run) + 1):
                piece = run[at:end]
                if piece in _SIGNS:
                    line: int | None = after
                elif _amount(piece) and _piece_ok(piece) and _follows(kind, piece):
                    line = next((n for n in lines.get(piece.strip(_EDGE), ()) if n > after), None)
                else:
                    line = None
                if line is not None:
                    out.extend([piece, *rest] for rest in cuts(end, line, _kind(piece)))
                if len(out) > 1:
                    break
            memo[(at, after, kind)] = out[:2]
        return memo[(at, after, kind)]

    found = [c for c in cuts(0, -1, 0) if sum(1 for piece in c if piece not in _SIGNS) >= 2]
    return found[0] if len(found) == 1 else None


__all__ = ["split_stacked"]
