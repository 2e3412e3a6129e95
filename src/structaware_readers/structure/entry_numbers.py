"""A numbered entry whose first line a parser set apart from its number, put back together.

A parser may cut a numbered entry (a reference, a list item) where its first line meets its number:

* the first line becomes a block of its own (often a heading), and the number is left at the start of
  the rest: the page prints ``5. Survey of Adult Health. Rates of ... in adults aged`` /
  ``18 and over ...``, the parser gives a heading ``Survey of Adult Health ... aged`` and a
  paragraph ``5. 18 and over ...``, which reads as another number (``5. 18``) and puts every later
  entry under a section that is no section;
* the number becomes a block of its own (``1.``, often typed page furniture), and the entry starts
  without it.

:func:`join_entry_numbers` puts each entry back as the page prints it: its number, its first line, the
rest. A block is another's first line when the two start on one line of the page (their tops at most
:data:`SAME_LINE` of the page apart), it starts right of the block's left edge by at most
:data:`MAX_INDENT` of the page (the indent of the entry's text after its number) and left of its right
edge, and it is no taller than the block. A lone number is the entry's when it starts on that line
at most :data:`MAX_INDENT` left of the entry and ends before it starts. The joined block keeps the
entry block's id, kind and place, and its box holds both.
"""

from __future__ import annotations

import re

from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

__all__ = ["MAX_INDENT", "SAME_LINE", "join_entry_numbers"]

#: Two blocks whose tops lie at most this far apart (share of the page height) start on one line.
SAME_LINE = 0.004
#: Farthest (share of the page width) an entry's text starts right of its number.
MAX_INDENT = 0.08
_NUMBERED = re.compile(r"^(\d{1,4}[.)])\s+(\S.*)$", re.DOTALL)
_NUMBER = re.compile(r"^\d{1,4}[.)]$")
_ENTRIES = {BlockKind.PARAGRAPH, BlockKind.REFERENCE}
_FIRST_LINES = {BlockKind.HEADING, BlockKind.PARAGRAPH}


def join_entry_numbers(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with each numbered entry a parser cut at its number joined back (module
    docstring); ``doc`` itself when none is."""
    blocks = doc.blocks
    joined: dict[int, Block] = {}
    dropped: set[int] = set()
    for i, entry in enumerate(blocks):
        if entry.kind not in _ENTRIES or entry.bbox is None or i in dropped:
            continue
        m = _NUMBERED.match(entry.text.strip())
        k = _first_line(blocks, i, dropped) if m else _lone_number(blocks, i, dropped)
        if k is None:
            continue
        part = blocks[k]
        text = f"{m.group(1)} {part.text.strip()} {m.group(2)}" if m else f"{part.text.strip()} {entry.text.strip()}"
        joined[i] = entry.model_copy(
            update={
                "text": text,
                "bbox": _union(entry.bbox, part.bbox),
                "parser_ids": [*part.parser_ids, *entry.parser_ids],
            }
        )
        dropped.add(k)
    if not joined:
        return doc
    return doc.model_copy(update={"blocks": [joined.get(i, b) for i, b in enumerate(blocks) if i not in dropped]})


def _first_line(blocks: list[Block], i: int, dropped: set[int]) -> int | None:
    """The index of the block that is the first line of numbered entry ``blocks[i]``, if any."""
    entry = blocks[i]
    ex0, ey0, ex1, ey1 = entry.bbox  # type: ignore[misc]
    for k, b in enumerate(blocks):
        if k == i or k in dropped or b.page != entry.page or b.kind not in _FIRST_LINES or b.bbox is None:
            continue
        x0, y0, _, y1 = b.bbox
        if (
            abs(y0 - ey0) <= SAME_LINE
            and ex0 < x0 <= ex0 + MAX_INDENT
            and x0 < ex1
            and y1 - y0 <= ey1 - ey0
            and b.text.strip()
            and not _NUMBERED.match(b.text.strip())
        ):
            return k
    return None


def _lone_number(blocks: list[Block], i: int, dropped: set[int]) -> int | None:
    """The index of a block holding only the number of entry ``blocks[i]`` (which starts without one), if any."""
    entry = blocks[i]
    ex0, ey0 = entry.bbox[0], entry.bbox[1]  # type: ignore[index]
    for k, b in enumerate(blocks):
        if k == i or k in dropped or b.page != entry.page or b.bbox is None or not _NUMBER.match(b.text.strip()):
            continue
        x0, y0, x1, _ = b.bbox
        if abs(y0 - ey0) <= SAME_LINE and ex0 - MAX_INDENT <= x0 and x1 <= ex0:
            return k
    return None


def _union(a: BBox, b: BBox | None) -> BBox:
    if b is None:
        return a
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
