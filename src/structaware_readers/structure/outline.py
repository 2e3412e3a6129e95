"""A PDF's outline (bookmarks) read and matched to the document's heading blocks.

An outline made from the source's heading styles is the real section tree; a parser's heading
typing is a guess. :func:`read_outline` gives the entries (title, depth from 1, 1-based page),
leaving out lists of figures, bullets and entries pointing back. :func:`match_outline` finds the
block each entry names on its page or a neighbour, comparing letters and digits only: equal, equal
without the numbering label, or one a long enough prefix of the other.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.heading_evidence import CAPTION

__all__ = ["OutlineEntry", "match_outline", "printed_prefix", "read_outline", "text_key"]

#: Entries read at most (a PDF with a bookmark per paragraph is no outline of sections).
MAX_ENTRIES = 2000
#: Shortest common prefix (letters and digits) that matches a title cut short, without a shared label.
MIN_PREFIX = 12
#: Shortest common prefix under the same numbering label (``a. Screening``).
MIN_LABELLED_PREFIX = 4
#: A paragraph named by an entry is at most this many times the entry's length (plus a few characters).
PARAGRAPH_STRETCH = 1.5

_CN_NUM = "一二三四五六七八九十"
_LABEL = re.compile(
    rf"""^\s*(?P<label>
        (?:(?:appendix|annex|chapter|part|section|supplement)\s+[A-Z0-9]{{1,3}}(?:\.\d{{1,3}})*\b
         |\d{{1,3}}(?:[.．]\d{{1,3}})*(?![\d%])
         |[A-Za-z](?=[.)])
         |[IVXLivxl]{{1,6}}(?=[.)])
         |[{_CN_NUM}]+(?=[、.．])
         |第[{_CN_NUM}\d]+[章节部篇]
         |[（(][{_CN_NUM}\d]+[)）]
        ))
        [.．、:：)）]?\s*""",
    re.VERBOSE | re.IGNORECASE,
)


@dataclass(frozen=True)
class OutlineEntry:
    """One outline entry: its title as the PDF stores it, its depth (1 = top) and its 1-based page
    (``0`` when the entry points at no page of the document)."""

    title: str
    level: int
    page: int


def read_outline(pdf: str | Path | bytes) -> list[OutlineEntry]:
    """The outline of ``pdf`` (a path or the PDF's bytes) in document order; ``[]`` when it has none
    or cannot be read (an unreadable PDF is not an error here: the outline is only a hint)."""
    try:
        import pypdfium2

        doc = pypdfium2.PdfDocument(pdf if isinstance(pdf, bytes) else str(pdf))
    except Exception:  # noqa: BLE001 - pypdfium2 raises PdfiumError (a RuntimeError), OSError, ValueError
        return []
    try:
        raw: list[tuple[str, int, int]] = []
        for item in doc.get_toc(max_depth=16):
            title, page = _title_and_page(item)
            if title.strip():
                raw.append((" ".join(title.split()), int(item.level), page))
            if len(raw) >= MAX_ENTRIES:
                break
    except Exception:  # noqa: BLE001 - a broken outline tree (cycles, bad destinations)
        return []
    finally:
        doc.close()
    return _normalise_levels(raw)


def _title_and_page(item: object) -> tuple[str, int]:
    """Title and 1-based page (0: none) of a pypdfium2 outline item (4.x named tuple or 5.x bookmark)."""
    if hasattr(item, "get_title"):  # pypdfium2 5.x
        dest = item.get_dest()  # type: ignore[attr-defined]
        index = dest.get_index() if dest is not None else None
        title = item.get_title()  # type: ignore[attr-defined]
        return str(title or ""), (index + 1 if isinstance(index, int) and index >= 0 else 0)
    index = getattr(item, "page_index", None)
    return str(getattr(item, "title", "") or ""), (index + 1 if isinstance(index, int) and index >= 0 else 0)


def _normalise_levels(raw: list[tuple[str, int, int]]) -> list[OutlineEntry]:
    """Depths from 1; a lone first entry above every other (the document's title) is level 1 with its
    children; entries that are captions (a list of figures and tables) left out; a numbered title
    put under the same title with another number (``Recommendation 2`` under ``Recommendation 1``)
    made its sibling."""
    raw = _section_titles(raw)
    if not raw:
        return []
    raw = _numbered_siblings(raw)
    top = min(level for _, level, _ in raw)
    title_only = len(raw) > 1 and raw[0][1] == top and all(level > top for _, level, _ in raw[1:])
    base = min(level for _, level, _ in raw[1:]) if title_only else top
    out = [OutlineEntry(t, max(1, level - base + 1), page) for t, level, page in raw]
    if title_only:
        out[0] = OutlineEntry(raw[0][0], 1, raw[0][2])
    return out


_BULLETS = "•▪◦●○■□◆◇➢➤✓✔-–—*·"
_SENTENCE_END = re.compile(r"[:;,?。：；，？]\s*$")


def _section_titles(raw: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Entries that can be section titles: not a caption, not a bullet or a question or lead-in (one
    ending with ``:``, ``?``, ``;`` or ``,`` and without a numbering label: bookmarks set on a
    flowchart's boxes), not pointing back before a page already reached (bookmarks added out of order)."""
    out: list[tuple[str, int, int]] = []
    reached = 0
    for title, level, page in raw:
        t = unicodedata.normalize("NFKC", title).strip()
        if not text_key(t) or unicodedata.category(t[0]) == "Co" or t[0] in _BULLETS or CAPTION.match(t):
            continue
        if _SENTENCE_END.search(t) and not _LABEL.match(t):
            continue
        if 0 < page < reached:
            continue
        reached = max(reached, page)
        out.append((title, level, page))
    return out


_NUMBERED_TITLE = re.compile(r"^(\D+?)\s*\d{1,3}(?:\.\d{1,3})*\s*$")


def _numbered_siblings(raw: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for title, level, page in raw:
        m = _NUMBERED_TITLE.match(title.strip())
        parent = next((o for o in reversed(out) if o[1] < level), None)
        if m and parent is not None:
            pm = _NUMBERED_TITLE.match(parent[0].strip())
            if pm and pm.group(1).casefold() == m.group(1).casefold():
                level = parent[1]
        out.append((title, level, page))
    return out


def text_key(text: str) -> str:
    """Letters and digits of ``text``, case-folded after NFKC (``Non- pharmacological`` -> ``nonpharmacological``)."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _label_and_body(text: str) -> tuple[str, str]:
    """``(numbering label key, key of the rest)``: ``"2.1 Scope"`` -> ``("21", "scope")``."""
    t = unicodedata.normalize("NFKC", text)
    m = _LABEL.match(t)
    if m is None or not t[m.end() :].strip():
        return "", text_key(t)
    return text_key(m.group("label")), text_key(t[m.end() :])


def names(entry_title: str, block_text: str, *, paragraph: bool = False) -> bool:
    """Does the outline title name the block's text (module docstring)? ``paragraph``: the block is
    not typed heading, so it may not run much longer than the title."""
    ke, kb = text_key(entry_title), text_key(block_text)
    if not ke or not kb:
        return False
    if paragraph and len(kb) > PARAGRAPH_STRETCH * len(ke) + 6:
        return False
    if ke == kb:
        return True
    le, be = _label_and_body(entry_title)
    lb, bb = _label_and_body(block_text)
    if not be or not bb:
        return False
    if be == bb and (le == lb or not le or not lb):
        return True
    if not (bb.startswith(be) or be.startswith(bb)):
        return False
    shorter = min(len(be), len(bb))
    if le and le == lb:
        return shorter >= MIN_LABELLED_PREFIX
    return shorter >= MIN_PREFIX and (not le or not lb) and not (paragraph and bb.startswith(be) and len(bb) > len(be))


_CANDIDATES = (BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.CAPTION)


def match_outline(blocks: Sequence[Block], entries: Sequence[OutlineEntry]) -> dict[int, OutlineEntry]:
    """Block index -> the outline entry naming it (module docstring). Each block is named at most
    once; an entry is looked for among the not yet named heading, paragraph and caption blocks of
    its page, the page after and the page before (a destination set at the previous page's end),
    headings first, in reading order."""
    by_page: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        if b.kind in _CANDIDATES and b.text.strip():
            by_page.setdefault(b.page, []).append(i)
    found: dict[int, OutlineEntry] = {}
    for entry in entries:
        if entry.page <= 0:
            continue
        for page in (entry.page, entry.page + 1, entry.page - 1):
            pool = by_page.get(page, [])
            hit = next(
                (
                    i
                    for i in pool
                    if i not in found and blocks[i].kind is BlockKind.HEADING and names(entry.title, blocks[i].text)
                ),
                None,
            )
            if hit is None:
                hit = next(
                    (
                        i
                        for i in pool
                        if i not in found
                        and blocks[i].kind is not BlockKind.HEADING
                        and names(entry.title, blocks[i].text, paragraph=True)
                    ),
                    None,
                )
            if hit is not None:
                found[hit] = entry
                break
    return found


def printed_prefix(text: str, key: str) -> str | None:
    """The start of ``text`` as printed whose letters and digits are ``key`` (:func:`text_key`), or
    None when ``text`` does not start with them: ``("Appendix J: Terms A. Syntax", "appendixjterms")``
    -> ``"Appendix J: Terms"``."""
    if not key:
        return None
    got = 0
    for pos, ch in enumerate(text):
        folded = text_key(ch)
        if not folded:
            continue
        if not key.startswith(folded, got):
            return None
        got += len(folded)
        if got == len(key):
            return text[: pos + 1]
    return None
