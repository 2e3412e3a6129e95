"""Numbered section titles a parser typed as paragraphs, found by the numbering around them.

A parser that misses a title (one set in bold spans, or with a ligature in a span of its own)
types it as a paragraph, and every unit after it takes the previous section's path. A paragraph
that reads as a decimal-numbered title (``4.2.3 Managing the drivers``: two numbers or more, a
short single line that is no sentence, the title opening with a capital or a CJK character) is a
heading when the numbering says so: with the numbered headings and the paragraphs opening with
two numbers or more in reading order, it lies in a run of such paragraphs between two headings
where each number is the one that comes next in an outline (``4.2`` -> ``4.2.1`` a first child,
``4.2.1`` -> ``4.2.2`` a sibling, ``4.2.2`` -> ``4.3`` or ``5`` back up a level). A title run on
into its section's first paragraph counts in the run but stays a paragraph. Numbered sentences,
and numbered lines with no heading on both sides, stay paragraphs. Block text is never changed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.heading_evidence import not_a_heading
from structaware_readers.structure.headings import numbering_style

__all__ = ["promote_numbered_titles"]

#: Longest title (characters after the number) of a paragraph promoted to a heading.
MAX_TITLE_CHARS = 150

_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,3})*)\.?(?=\s|$)")
_TITLE_START = re.compile(r"^\s*(?:[A-Z]|[\u3400-\u9fff])")
_CLAUSE_END = re.compile(r"[.。:：;；,，]\s*$")


def promote_numbered_titles(blocks: list[Block], skip: Collection[int] = ()) -> bool:
    """Title paragraphs (module docstring) between numbered headings become headings, in place
    (``level`` None: the caller places levels). ``skip``: indices of blocks left out (headings
    already judged to be none). Returns whether any block changed."""
    seq: list[tuple[int, tuple[int, ...]]] = []  # (block index, number) in reading order
    for i, b in enumerate(blocks):
        if i in skip or b.is_furniture or b.kind not in (BlockKind.HEADING, BlockKind.PARAGRAPH):
            continue
        number = _number(b.text)
        if number is not None and (b.kind is BlockKind.HEADING or len(number) >= 2):
            seq.append((i, number))
    changed = False
    k = 0
    while k < len(seq):
        if blocks[seq[k][0]].kind is BlockKind.HEADING:
            k += 1
            continue
        end = k
        while end < len(seq) and blocks[seq[end][0]].kind is BlockKind.PARAGRAPH:
            end += 1
        if k > 0 and end < len(seq) and all(_follows(seq[j][1], seq[j + 1][1]) for j in range(k - 1, end)):
            for i, number in seq[k:end]:
                if _title_like(blocks[i].text, number):
                    blocks[i] = blocks[i].model_copy(update={"kind": BlockKind.HEADING, "level": None})
                    changed = True
        k = end
    return changed


def _number(text: str) -> tuple[int, ...] | None:
    """The decimal numbering that opens ``text`` as numbers (``"1.4.3 Foo"`` -> ``(1, 4, 3)``), else None."""
    style = numbering_style(text)
    if style is None or not style[0].startswith("decimal"):
        return None
    m = _NUMBER.match(unicodedata.normalize("NFKC", text).lstrip().lstrip("#").lstrip())
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


def _title_like(text: str, number: tuple[int, ...]) -> bool:
    """A paragraph that reads as a title: two numbers or more, then one short line with no sentence end."""
    if len(number) < 2:
        return False
    t = unicodedata.normalize("NFKC", text).strip()
    title = _NUMBER.sub("", t, count=1).strip()
    if not title or "\n" in title or len(title) > MAX_TITLE_CHARS:
        return False
    return bool(_TITLE_START.match(title)) and not _CLAUSE_END.search(title) and not not_a_heading(t)


def _follows(before: tuple[int, ...], after: tuple[int, ...]) -> bool:
    """``after`` is the number that comes next after ``before`` in an outline: its first child, its
    next sibling, or the next sibling of one of its ancestors."""
    if len(after) == len(before) + 1:
        return after[:-1] == before and after[-1] == 1
    n = len(after)
    return n <= len(before) and after[:-1] == before[: n - 1] and after[-1] == before[n - 1] + 1
