"""Page furniture found by repetition and position, whether or not the parser typed it.

Parsers do not always type running heads and feet; left as body text they become units of their
own or split a paragraph across a page break. :func:`mark_furniture` retypes such text-like blocks
(only ``kind`` changes) as HEADER/FOOTER (a line repeated in the top or bottom band, bbox 0..1 of
the page, on at least 2 pages and 10% of them), PAGE_NUMBER (a page-number text in a band, or a
number running with the page index), or ASIDE (rotated text in a side margin). A parser HEADER that
is one of the document's own headings becomes a HEADING again.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict

from structaware_readers.models import Block, BlockKind, ParsedDocument

__all__ = ["furniture_key", "is_page_number", "mark_furniture"]

TOP_BAND = 0.08  # y1 at most this: the top band of a page
BOTTOM_BAND = 0.92  # y0 at least this: the bottom band
NARROW_TOP = 0.05  # headings count as furniture only in these narrower bands
NARROW_BOTTOM = 0.95
SIDE_MARGIN = 0.07  # x1 at most this, or x0 at least 1 - this: the outer side margin
VERTICAL = 1.5  # a margin block this many times taller than wide is rotated text (a stamp)
MIN_ROTATED_CHARS = 4  # a lone digit or bullet is taller than wide too: not a stamp
MIN_PAGES = 2  # a running head repeats on at least this many pages
MIN_SHARE = 0.1  # and on this share of the document's pages (table headers repeat on a few)
MAX_CHARS = 200  # longer blocks are body text wherever they lie
_NO_BOX_MIN_PAGES = 3
_NO_BOX_MIN_SHARE = 0.3

_CANDIDATES = {
    BlockKind.PARAGRAPH,
    BlockKind.HEADING,
    BlockKind.CAPTION,
    BlockKind.FOOTNOTE,
    BlockKind.REFERENCE,
}
_PAGE_NUMBER = re.compile(
    r"^[\s\-–—|·•.()\[\]]*(?:page|p\.|pg\.?|第)?\s*"
    r"(?:\d{1,4}|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))"
    r"(?:\s*(?:/|of|von|de|sur|页|頁|共)\s*\d{1,4}\s*(?:页|頁)?)?"
    r"\s*(?:页|頁)?[\s\-–—|·•.()\[\]]*$",
    re.IGNORECASE,
)
_ARABIC_PAGE_NUMBER = re.compile(
    r"^[\s\-–—|·•.()\[\]]*(?:page|p\.|pg\.?)?\s*(\d{1,4})[\s\-–—|·•.()\[\]]*$", re.IGNORECASE
)
_SEQUENCE_MIN_PAGES = 3
_SEQUENCE_MIN_SHARE = 0.1  # and on 10% of the pages: numbers in tables match an offset by chance
_NON_WORD = re.compile(r"[\W\d_]+", re.UNICODE)


def furniture_key(text: str) -> str:
    """The comparison key of a furniture line: NFKC, case folded, digits and punctuation
    removed, words sorted (``"ESC Guidelines 3917"`` and ``"3918 ESC Guidelines"`` give
    ``"esc guidelines"``). ``""`` for a line of digits and punctuation only."""
    words = _NON_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).split()
    return " ".join(sorted(words))


def is_page_number(text: str) -> bool:
    """Whether ``text`` is only a page number (``14``, ``- 3 -``, ``Page 3 of 10``, ``iv``, ``第3页``)."""
    return bool(text.strip()) and _PAGE_NUMBER.match(text.strip()) is not None


def mark_furniture(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with untyped page furniture retyped (see the module docstring).

    Returns ``doc`` itself when nothing changes, else a copy whose retyped blocks are copies;
    block order, ids and text are unchanged.
    """
    new_kind: dict[int, BlockKind] = {}
    bands: dict[tuple[str, str], set[int]] = defaultdict(set)  # (band, key) -> pages
    for b in doc.blocks:
        if b.kind in _CANDIDATES and b.bbox is not None and (band := _band(b, narrow=False)):
            key = furniture_key(b.text)
            if key:
                bands[(band, key)].add(b.page)
    for i, b in enumerate(doc.blocks):
        if b.kind not in _CANDIDATES or b.bbox is None or len(b.text) > MAX_CHARS or not b.text.strip():
            continue
        x0, y0, x1, y1 = b.bbox
        rotated = y1 - y0 >= VERTICAL * (x1 - x0) and len(b.text.strip()) >= MIN_ROTATED_CHARS
        if (x1 <= SIDE_MARGIN or x0 >= 1 - SIDE_MARGIN) and rotated:
            new_kind[i] = BlockKind.ASIDE
            continue
        band = _band(b, narrow=b.kind is BlockKind.HEADING)
        if not band:
            continue
        if is_page_number(b.text):
            new_kind[i] = BlockKind.PAGE_NUMBER
        elif len(bands.get((band, furniture_key(b.text)), ())) >= max(MIN_PAGES, MIN_SHARE * doc.page_count):
            new_kind[i] = BlockKind.HEADER if band == "top" else BlockKind.FOOTER
    new_kind.update(_numbered_in_sequence(doc, new_kind))
    new_kind.update(_without_boxes(doc))
    restored = _headings_typed_as_heads(doc)
    if not new_kind and not restored:
        return doc
    blocks = [
        b.model_copy(update={"kind": BlockKind.HEADING, "level": restored[i]}) if i in restored
        else b.model_copy(update={"kind": new_kind[i]}) if i in new_kind
        else b
        for i, b in enumerate(doc.blocks)
    ]  # fmt: skip
    return doc.model_copy(update={"blocks": blocks})


def _headings_typed_as_heads(doc: ParsedDocument) -> dict[int, int | None]:
    """Parser-typed running heads that are the document's own headings: index -> heading level."""
    levels: dict[str, Counter[int | None]] = defaultdict(Counter)
    head_pages: dict[str, set[int]] = defaultdict(set)
    for b in doc.blocks:
        if b.kind is BlockKind.HEADING:
            levels[_heading_key(b.text)][b.level] += 1
        elif b.kind is BlockKind.HEADER:
            head_pages[_heading_key(b.text)].add(b.page)
    running = max(MIN_PAGES, MIN_SHARE * doc.page_count)
    out: dict[int, int | None] = {}
    for i, b in enumerate(doc.blocks):
        if b.kind is not BlockKind.HEADER or len(b.text) > MAX_CHARS or not (key := _heading_key(b.text)):
            continue
        n = sum(levels[key].values()) if key in levels else 0
        if n >= 2 and n > len(head_pages[key]) and len(head_pages[key]) < running:
            out[i] = levels[key].most_common(1)[0][0]
    return out


def _heading_key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _band(b: Block, *, narrow: bool) -> str:
    assert b.bbox is not None
    _, y0, _, y1 = b.bbox
    if y1 <= (NARROW_TOP if narrow else TOP_BAND):
        return "top"
    if y0 >= (NARROW_BOTTOM if narrow else BOTTOM_BAND):
        return "bottom"
    return ""


def _numbered_in_sequence(doc: ParsedDocument, known: dict[int, BlockKind]) -> dict[int, BlockKind]:
    """Number-only blocks whose value runs with the page index (one offset on >= 3 pages)."""
    by_offset: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(doc.blocks):
        if i in known or b.kind not in _CANDIDATES or not (m := _ARABIC_PAGE_NUMBER.match(b.text.strip())):
            continue
        by_offset[int(m.group(1)) - b.page].append(i)
    out: dict[int, BlockKind] = {}
    for idx in by_offset.values():
        if len({doc.blocks[i].page for i in idx}) >= max(_SEQUENCE_MIN_PAGES, _SEQUENCE_MIN_SHARE * doc.page_count):
            out.update((i, BlockKind.PAGE_NUMBER) for i in idx)
    return out


def _without_boxes(doc: ParsedDocument) -> dict[int, BlockKind]:
    """First/last body blocks without bbox whose key repeats in that place across pages."""
    by_page: dict[int, list[int]] = defaultdict(list)
    for i, b in enumerate(doc.blocks):
        if not b.is_furniture:
            by_page[b.page].append(i)
    if len(by_page) < _NO_BOX_MIN_PAGES:
        return {}
    places: dict[tuple[str, str], list[int]] = defaultdict(list)
    for idx in by_page.values():
        for place, i in (("top", idx[0]), ("bottom", idx[-1])):
            b = doc.blocks[i]
            if b.bbox is None and b.kind in _CANDIDATES and len(b.text) <= MAX_CHARS and (key := furniture_key(b.text)):
                places[(place, key)].append(i)
    need = max(_NO_BOX_MIN_PAGES, _NO_BOX_MIN_SHARE * len(by_page))
    out: dict[int, BlockKind] = {}
    for (place, _), idx in places.items():
        if len({doc.blocks[i].page for i in idx}) >= need:
            for i in idx:
                out[i] = BlockKind.HEADER if place == "top" else BlockKind.FOOTER
    return out
