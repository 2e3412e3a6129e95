"""Which blocks are headings, and at what level: from the PDF's outline, then numbering, then the parser.

:func:`settle_headings` runs before units are built, since a unit's section path is the stack of
headings above it. When the PDF's outline names enough blocks
(:func:`~structaware_readers.structure.outline.match_outline`) they become headings at its depth
(split headings joined, run-on ones cut, new ones with ids ``<block id>-h<k>``). Headings the
outline does not name (or all, without one) that show a sign of being none
(:mod:`~structaware_readers.structure.heading_evidence`) become paragraphs. Without an outline,
numbered Chinese chapter titles typed as paragraphs become headings, and so do decimal-numbered
titles typed as paragraphs between numbered headings whose numbering they continue
(:mod:`~structaware_readers.structure.numbered_titles`); an outline too sparse to use whole still
makes the unnumbered headings and paragraphs its top level names level-1 headings, and the short
title paragraphs its deeper entries name headings below them. Block text is never changed.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.structure.false_headings import SIDEBAR_LABEL
from structaware_readers.structure.heading_evidence import beside_another, not_a_heading
from structaware_readers.structure.headings import heading_levels, numbering_style
from structaware_readers.structure.numbered_titles import promote_numbered_titles
from structaware_readers.structure.outline import OutlineEntry, match_outline, printed_prefix, read_outline, text_key

__all__ = ["settle_headings"]

#: An outline is used when it names at least this many blocks, and at least half its entries.
MIN_NAMED = 4
#: Longest title (characters after the number) of a numbered Chinese chapter promoted from a paragraph.
MAX_CHAPTER_CHARS = 30
#: Longest unnumbered paragraph a deeper entry of a sparse outline makes a heading (``Key information``).
MAX_SUBTITLE_CHARS = 80

_CN_CHAPTER = re.compile(r"^\s*(\d{1,2})\s*[.．、]\s*(?P<title>[\u3400-\u9fff].*)$", re.DOTALL)
_CLAUSE = re.compile(r"[，。；：,;:！？!?]")
_FOLLOWERS = (BlockKind.TABLE,)


def settle_headings(doc: ParsedDocument, pdf: str | Path | bytes | None = None) -> ParsedDocument:
    """Headings and their levels settled (module docstring); ``doc`` itself when nothing changes,
    else a copy. ``pdf``: the PDF the document was read from (a path or its bytes), for its outline."""
    blocks = list(doc.blocks)
    entries = read_outline(pdf) if pdf is not None else []
    named = match_outline(blocks, entries) if entries else {}
    matched = named
    if len(named) < max(MIN_NAMED, len(entries) / 2):
        named = {}
    old_levels = [b.level for b in blocks]
    changed = _demote(blocks, named)
    demoted = {i for i, b in enumerate(blocks) if b.kind is not doc.blocks[i].kind}
    if named:
        blocks, named, old_levels = _split_run_on_titles(blocks, named, entries, old_levels)
        changed = _promote_named(blocks, named) or changed
        dropped = _join_cut_titles(blocks, named)
        _outline_levels(blocks, named, old_levels)
        titles = _titles_atop_tables(blocks, entries, {id(e) for e in named.values()})
        new_blocks = []
        for i, b in enumerate(blocks):
            new_blocks += titles.get(i, [])
            if i not in dropped:
                new_blocks.append(b)
        changed = True
    else:
        changed = _promote_chapters(blocks) or changed
        changed = promote_numbered_titles(blocks, demoted) or changed
        if changed and doc.parser != "unstructured":
            _numbering_levels(blocks)
        changed = _outline_chapters(blocks, matched) or changed
        new_blocks = blocks
    if not changed:
        return doc
    return doc.model_copy(update={"blocks": new_blocks})


def _demote(blocks: list[Block], named: dict[int, OutlineEntry]) -> bool:
    """Step 2: headings the outline does not name that show a sign of being none become paragraphs."""
    by_page: dict[int, list[Block]] = {}
    for b in blocks:
        by_page.setdefault(b.page, []).append(b)
    changed = False
    for i, b in enumerate(blocks):
        if b.kind is not BlockKind.HEADING or i in named:
            continue
        kind = not_a_heading(b.text)
        if kind == "caption" and _next_body(blocks, i) in _FOLLOWERS:
            kind = ""  # the title of the table after it: the unit builder makes it that table's caption
        page = by_page[b.page]
        if kind or beside_another(page, page.index(b)):
            blocks[i] = b.model_copy(update={"kind": BlockKind.PARAGRAPH, "level": None})
            changed = True
    return changed


def _next_body(blocks: list[Block], i: int) -> BlockKind | None:
    for b in blocks[i + 1 :]:
        if not b.is_furniture and b.kind is not BlockKind.FOOTNOTE:
            return b.kind
    return None


def _promote_named(blocks: list[Block], named: dict[int, OutlineEntry]) -> bool:
    changed = False
    for i in named:
        if blocks[i].kind is not BlockKind.HEADING:
            blocks[i] = blocks[i].model_copy(update={"kind": BlockKind.HEADING})
            changed = True
    return changed


def _split_run_on_titles(
    blocks: list[Block], named: dict[int, OutlineEntry], entries: list[OutlineEntry], old_levels: list[int | None]
) -> tuple[list[Block], dict[int, OutlineEntry], list[int | None]]:
    """A named heading that runs on into the titles of the entries after it (``Appendix A: Evidence
    Review Methodology A. Developing the Scope``: two titles the parser read as one line) is cut
    into one heading per title; the first keeps the block's id, the others get ``<id>-h<k>``, all
    the block's page and box. Returns the blocks, the names and the levels before, re-indexed."""
    taken = {id(e) for e in named.values()}
    position = {id(e): k for k, e in enumerate(entries)}
    out: list[Block] = []
    out_named: dict[int, OutlineEntry] = {}
    out_levels: list[int | None] = []
    for i, b in enumerate(blocks):
        entry = named.get(i)
        pieces: list[tuple[Block, OutlineEntry | None]] = [(b, entry)]
        if entry is not None and b.kind is BlockKind.HEADING:
            k = position[id(entry)]
            while k + 1 < len(entries):
                nxt, (last, current) = entries[k + 1], pieces[-1]
                if id(nxt) in taken or abs(nxt.page - b.page) > 1 or current is None:
                    break
                head = printed_prefix(last.text, text_key(current.title))
                rest = last.text[len(head) :].lstrip(" :.-–—") if head is not None else ""
                if head is None or printed_prefix(rest, text_key(nxt.title)) is None:
                    break
                pieces[-1] = (last.model_copy(update={"text": head.strip()}), current)
                update = {"block_id": f"{b.block_id}-h{len(pieces)}", "text": rest.strip()}
                update |= {"extra_pages": [], "extra_bboxes": [], "extra_ids": []}
                pieces.append((b.model_copy(update=update), nxt))
                taken.add(id(nxt))
                k += 1
        for piece, piece_entry in pieces:
            if piece_entry is not None:
                out_named[len(out)] = piece_entry
            out.append(piece)
            out_levels.append(old_levels[i])
    return out, out_named, out_levels


def _join_cut_titles(blocks: list[Block], named: dict[int, OutlineEntry]) -> set[int]:
    """A named heading shorter than its entry's title, followed by the rest of the title in the next
    block (a heading or a paragraph of the same or the next page), takes that block in; returns the
    indices of the blocks taken in."""
    dropped: set[int] = set()
    for i, entry in sorted(named.items()):
        whole = text_key(entry.title)
        head = blocks[i]
        j = i + 1
        while text_key(head.text) != whole and whole.startswith(text_key(head.text)):
            while j < len(blocks) and blocks[j].is_furniture:
                j += 1
            if j >= len(blocks) or j in named or blocks[j].kind not in (BlockKind.HEADING, BlockKind.PARAGRAPH):
                break
            nxt = blocks[j]
            joined = text_key(head.text) + text_key(nxt.text)
            if not nxt.text.strip() or not whole.startswith(joined) or nxt.page - head.page not in (0, 1):
                break
            sep = "" if _cjk_end(head.text) and _cjk_start(nxt.text) else " "
            head = head.model_copy(
                update={
                    "text": head.text.rstrip() + sep + nxt.text.strip(),
                    "extra_pages": [*head.extra_pages, nxt.page],
                    "extra_bboxes": [*head.extra_bboxes, nxt.bbox],
                    "extra_ids": [*head.extra_ids, nxt.block_id],
                    "parser_ids": [*head.parser_ids, *nxt.parser_ids],
                }
            )
            dropped.add(j)
            j += 1
        blocks[i] = head
    return dropped


def _titles_atop_tables(blocks: list[Block], entries: list[OutlineEntry], named: set[int]) -> dict[int, list[Block]]:
    """Headings printed as the first line of a table (an appendix title the parser read into the
    table's title row): for each entry named by no block whose title starts the text of a table on
    its page or the next (after the entries already found there), a heading block at the entry's
    depth placed before the table, with the title as printed, the table's page and box, and the id
    ``<table id>-h<k>``. Returns table index -> its new heading blocks."""
    tables = [i for i, b in enumerate(blocks) if b.kind is BlockKind.TABLE and b.text.strip()]
    consumed: dict[int, str] = {}  # table index -> printed text already taken as titles
    found: dict[int, list[Block]] = {}
    for entry in entries:
        if id(entry) in named or entry.page <= 0 or SIDEBAR_LABEL.match(entry.title):
            continue  # a sidebar's title is the heading the unit builder gives its box
        key = text_key(entry.title)
        for i in tables:
            if blocks[i].page not in (entry.page, entry.page + 1):
                continue
            rest = blocks[i].text[len(consumed.get(i, "")) :]
            printed = printed_prefix(rest, key)
            if printed is None:
                continue
            consumed[i] = consumed.get(i, "") + printed
            k = len(found.setdefault(i, []))
            found[i].append(
                blocks[i].model_copy(
                    update={
                        "block_id": f"{blocks[i].block_id}-h{k + 1}",
                        "kind": BlockKind.HEADING,
                        "text": " ".join(printed.split()),
                        "level": entry.level,
                        "table": None,
                        "caption": "",
                        "footnote": "",
                        "extra_pages": [],
                        "extra_bboxes": [],
                        "extra_ids": [],
                    }
                )
            )
            break
    return found


def _cjk_end(text: str) -> bool:
    t = text.rstrip()
    return bool(t) and "\u3400" <= t[-1] <= "\u9fff"


def _cjk_start(text: str) -> bool:
    t = text.lstrip()
    return bool(t) and "\u3400" <= t[0] <= "\u9fff"


def _outline_levels(blocks: list[Block], named: dict[int, OutlineEntry], old_levels: list[int | None]) -> None:
    """Step 1's levels: a named heading at its entry's depth; another under the last named one,
    as deep below it as it was below it before (at least one level), but an annex, chapter or part
    by its numbering at the top level."""
    anchor: tuple[int, int] | None = None  # (level before, level now) of the last named heading
    for i, b in enumerate(blocks):
        if b.kind is not BlockKind.HEADING:
            continue
        old = old_levels[i]
        if i in named:
            new = named[i].level
            anchor = (old if old is not None else new, new)
        elif anchor is not None and (style := numbering_style(b.text)) is not None and style[1] == 0.0:
            new = 1  # "Annex A", "Chapter 3", "第三章" the outline left out: a top level all the same
        elif anchor is not None:
            before = old if old is not None else anchor[0] + 1
            new = anchor[1] + max(1, before - anchor[0])
        else:
            new = old or 1
        if new != b.level:
            blocks[i] = b.model_copy(update={"level": new})


def _chapter(text: str) -> int | None:
    """The number of a one-level Chinese chapter title (``2.城市道路的风险源``), else None."""
    m = _CN_CHAPTER.match(unicodedata.normalize("NFKC", text).strip())
    if m is None:
        return None
    title = m.group("title").strip()
    if len(title) > MAX_CHAPTER_CHARS or _CLAUSE.search(title) or "\n" in title:
        return None
    return int(m.group(1))


def _promote_chapters(blocks: list[Block]) -> bool:
    """Step 3: numbered Chinese chapter titles typed as paragraphs become headings: a title line
    with no other numbered title line next to it (list lines stand together), and an earlier one
    numbered one less or a later one numbered one more, itself alone too."""
    body = [i for i, b in enumerate(blocks) if not b.is_furniture and b.kind is not BlockKind.FOOTNOTE]
    numbers = {
        k: n
        for k, i in enumerate(body)
        if blocks[i].kind in (BlockKind.HEADING, BlockKind.PARAGRAPH) and (n := _chapter(blocks[i].text)) is not None
    }
    alone = {k: n for k, n in numbers.items() if k - 1 not in numbers and k + 1 not in numbers}
    changed = False
    for k, n in alone.items():
        i = body[k]
        if blocks[i].kind is not BlockKind.PARAGRAPH:
            continue
        if any((m < k and n2 == n - 1) or (m > k and n2 == n + 1) for m, n2 in alone.items()):
            blocks[i] = blocks[i].model_copy(update={"kind": BlockKind.HEADING, "level": None})
            changed = True
    return changed


def _outline_chapters(blocks: list[Block], matched: dict[int, OutlineEntry]) -> bool:
    """Step 3 with an outline too sparse to use whole: an unnumbered heading or paragraph that an
    entry of the outline's top level names is a level-1 heading. The numbering alone places an
    unnumbered heading below the one before it, so a chapter title (``Part two: adults``) over
    numbered sections that do not say their chapter would hold none of them and close none of the
    sections before it. A paragraph that a deeper entry names whole (one short unnumbered title line,
    not the title of a table after it: ``Key information`` over a recommendation's evidence) is a
    heading too, at the level :func:`_subtitle_level` gives."""
    changed = False
    for i, entry in matched.items():
        b = blocks[i]
        if entry.level != 1 or b.kind not in (BlockKind.HEADING, BlockKind.PARAGRAPH) or b.is_furniture:
            continue
        if (b.kind is BlockKind.PARAGRAPH or b.level != 1) and numbering_style(b.text) is None:
            blocks[i] = b.model_copy(update={"kind": BlockKind.HEADING, "level": 1})
            changed = True
    for i, entry in sorted(matched.items()):
        b = blocks[i]
        if entry.level == 1 or b.kind is not BlockKind.PARAGRAPH or b.is_furniture or not _title_line(b.text):
            continue
        if _next_body(blocks, i) in _FOLLOWERS:
            continue  # the title of the table after it: the unit builder makes it that table's caption
        blocks[i] = b.model_copy(update={"kind": BlockKind.HEADING, "level": _subtitle_level(blocks, i, matched)})
        changed = True
    return changed


def _title_line(text: str) -> bool:
    """One short unnumbered line with no sentence end: a title, not a sentence the outline starts with."""
    s = " ".join(text.split())
    return (
        0 < len(s) <= MAX_SUBTITLE_CHARS
        and "\n" not in text.strip()
        and numbering_style(s) is None
        and s[-1] not in ".:;"
    )


def _subtitle_level(blocks: list[Block], i: int, matched: dict[int, OutlineEntry]) -> int:
    """The level of the unnumbered subtitle at ``blocks[i]``, from the nearest heading before it in its
    chapter: the level of one the outline names at the same depth (a sibling: ``Key information`` then
    ``Rationale``), one below a numbered one (``1.9.1 ...``), else one below the heading before it."""
    depth = matched[i].level
    before = None
    for j in range(i - 1, -1, -1):
        b = blocks[j]
        if b.kind is not BlockKind.HEADING or b.is_furniture or b.level is None:
            continue
        before = before or b
        if b.level == 1:
            break
        if j in matched and matched[j].level == depth:
            return b.level
        if numbering_style(b.text) is not None:
            return b.level + 1
    return before.level + 1 if before is not None else 1


def _numbering_levels(blocks: list[Block]) -> None:
    """Levels placed again from the numbering, the current levels standing for the parser's."""
    heads = [i for i, b in enumerate(blocks) if b.kind is BlockKind.HEADING]
    levels = heading_levels([(blocks[i].text, blocks[i].level) for i in heads])
    for i, level in zip(heads, levels):
        if blocks[i].level != level:
            blocks[i] = blocks[i].model_copy(update={"level": level})
