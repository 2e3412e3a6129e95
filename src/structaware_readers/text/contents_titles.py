"""Contents lines given back the titles a parser set apart as headings (from the PDF's text layer).

A parser may read a table of contents as a list whose lines keep an entry's number and page number
(``Item 4. 18``) and take the entry's title out as a heading of its own, inside the list's box
(``Mine Safety Disclosures``). The line then reads as one number with a space (``4. 18``), and the
heading opens a section that is not one. A list line is given a title when the page prints, as one
line, the list line with that heading's text set before its last run (``Item 4. Mine Safety
Disclosures 18``); the heading is dropped, its text is now the line's. Nothing else changes: a
line the page does not print so, and a heading whose centre lies outside the list's box, stay.
"""

from __future__ import annotations

import re

from structaware_readers.models import Block, BlockKind
from structaware_readers.text.layer import PdfTextLayer, normal

__all__ = ["give_contents_titles"]

#: A list line as its last run (a page number) and what stands before it.
_LAST_RUN = re.compile(r"(.*\S)\s+(\S+)")


def _plain(text: str) -> str:
    return " ".join(normal(text).split())


def _inside(inner: Block, outer: Block) -> bool:
    """The centre of ``inner``'s box lies in ``outer``'s box (same page)."""
    if inner.page != outer.page or inner.bbox is None or outer.bbox is None:
        return False
    x0, y0, x1, y1 = outer.bbox
    cx, cy = (inner.bbox[0] + inner.bbox[2]) / 2, (inner.bbox[1] + inner.bbox[3]) / 2
    return x0 <= cx <= x1 and y0 <= cy <= y1


def _titled(items: list[str], titles: dict[int, str], printed: set[str]) -> tuple[list[str], set[int]]:
    """``items`` with the titles (heading index -> text) the page prints inside them, and the headings used."""
    out, used = [], set()
    for item in items:
        m = _LAST_RUN.fullmatch(item.strip())
        found = None
        if m is not None:
            for i, title in titles.items():
                line = f"{m.group(1)} {title.strip()} {m.group(2)}"
                if i not in used and _plain(line) in printed:
                    found = (i, line)
                    break
        if found is None:
            out.append(item)
            continue
        used.add(found[0])
        out.append(found[1])
    return out, used


def _mended_text(text: str, old: list[str], new: list[str]) -> str:
    """The list's text with each mended line replaced where the text holds it as a line of its own."""
    lines = text.split("\n")
    for before, after in zip(old, new):
        if before != after:
            at = next((j for j, line in enumerate(lines) if line.strip() == before.strip()), None)
            if at is not None:
                lines[at] = after
    return "\n".join(lines)


def give_contents_titles(blocks: list[Block], layer: PdfTextLayer) -> list[Block]:
    """``blocks`` with list lines given the titles the parser took out of them (module docstring);
    ``blocks`` itself when none is."""
    headings: dict[int, list[int]] = {}  # page -> indices of its headings
    for i, h in enumerate(blocks):
        if h.kind is BlockKind.HEADING and h.text.strip():
            headings.setdefault(h.page, []).append(i)
    dropped: set[int] = set()
    changed: dict[int, Block] = {}
    for k, b in enumerate(blocks):
        if b.kind is not BlockKind.LIST or not b.items or b.bbox is None:
            continue
        titles = {i: blocks[i].text for i in headings.get(b.page, []) if i not in dropped and _inside(blocks[i], b)}
        if not titles:
            continue
        page = layer.page(b.page)
        if page is None:
            continue
        printed = {_plain(line) for line in page.text.splitlines()}
        items, used = _titled(b.items, titles, printed)
        if not used:
            continue
        changed[k] = b.model_copy(update={"items": items, "text": _mended_text(b.text, b.items, items)})
        dropped |= used
    if not changed:
        return blocks
    return [changed.get(k, b) for k, b in enumerate(blocks) if k not in dropped]
