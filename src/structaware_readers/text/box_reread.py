"""A short block whose parser dropped words and glued their neighbours, read again from the text layer in its box.

A parser may drop a piece of a short block and glue the words on either side: ``Weightedexercise price`` for a
cell printed ``Weighted-`` / ``average`` / ``exercise price`` (the second half of a compound broken over a line
gone). No space mends that: the page does not print the two words next to each other. When a word of the block
is still glued after the restore (:mod:`~structaware_readers.text.restore`: it cuts into words of the page only
if these need not stand together) and the text layer inside the block's box prints the block's words in order,
with words the block lacks only inside that glued word and the same figures, the block's text is the box's
(line-end hyphens as the writer meant them, one whose continuation lies outside the box as printed, lines joined
by a space). Blocks over ``MAX_CHARS`` characters, tables, lists and blocks without a box are left as they are.
"""

from __future__ import annotations

import re

from structaware_readers.models import Block, BlockKind
from structaware_readers.text.layer import WORD, PageWords, PdfTextLayer, split_glued, written

__all__ = ["MAX_CHARS", "reread_glued"]

#: Longest block text (characters) read again from its box: a heading, a label, a cell set apart.
MAX_CHARS = 200
#: A glued word is this long at least (letters), as ``scripts/check_fidelity.py`` counts them.
MIN_GLUED = 4
_FIGURES = re.compile(r"\d+")
_KINDS = {BlockKind.PARAGRAPH, BlockKind.HEADING}


def _expected(text: str, page: PageWords) -> list[tuple[str, bool]] | None:
    """The block's words (lower case), each glued word as its pieces; ``True`` on a piece that a dropped word may
    follow (one inside a glued word). ``None`` when no word is glued."""
    out: list[tuple[str, bool]] = []
    glued = False
    for w in WORD.findall(text):
        pieces = split_glued(w, page, adjacent=False) if len(w) >= MIN_GLUED else None
        if not pieces:
            out.append((w.lower(), False))
            continue
        glued = True
        out.extend((p.lower(), k < len(pieces) - 1) for k, p in enumerate(pieces))
    return out if glued else None


def _fits(expected: list[tuple[str, bool]], printed: list[str]) -> bool:
    """``printed`` is ``expected`` with words added only after the pieces that allow it, and some added."""
    i, added = 0, False
    for k, (word, gap) in enumerate(expected):
        if i >= len(printed) or printed[i] != word:
            return False
        i += 1
        if gap:
            nxt = expected[k + 1][0]
            while i < len(printed) and printed[i] != nxt:
                i, added = i + 1, True
    return added and i == len(printed)


def _reread(b: Block, page: PageWords, layer: PdfTextLayer) -> Block:
    if b.kind not in _KINDS or b.bbox is None or not b.text.strip() or len(b.text) > MAX_CHARS:
        return b
    expected = _expected(b.text, page)
    if expected is None:
        return b
    box = " ".join(written(layer.box_text(b.page, b.bbox), layer.doc_words, layer.compounds, page.breaks).split())
    printed = [w.lower() for w in WORD.findall(box)]
    if not _fits(expected, printed) or _FIGURES.findall(box) != _FIGURES.findall(b.text):
        return b
    return b.model_copy(update={"text": box})


def reread_glued(blocks: list[Block], layer: PdfTextLayer) -> list[Block]:
    """``blocks`` with the short blocks whose glued words hide dropped ones read from their boxes (module
    docstring); ``blocks`` itself when none is."""
    out, changed = [], False
    for b in blocks:
        page = layer.page(b.page) if b.kind in _KINDS and not b.extra_pages else None
        new = b if page is None else _reread(b, page, layer)
        changed = changed or new is not b
        out.append(new)
    return out if changed else blocks
