"""Drafts -> :class:`ParsedDocument`: cross-page table merges, empty leftovers, headings, ids.

In order: Markdown-rendered strings become plain text; ghost tables (a continued table MinerU
already merged) are dropped, their page and bbox kept on the previous table; continued tables are
merged (:mod:`structaware_readers.tables.continued`; by flag, or by position and column count
without a new caption), repeated headers removed and each body row's page recorded; empty text
elements dropped; heading levels read from numbering
(:func:`~structaware_readers.structure.headings.heading_levels`); the title chosen; block ids
``p{page}-e{j}`` given; a warning added for each table left without a grid.

Raises :class:`EmptyDocumentError` when no body block carries any text.
"""

from __future__ import annotations

import logging
import re

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.mineru.drafts import Draft, Extracted, markdown_inline_to_plain
from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.structure.headings import heading_levels, numbering_depth
from structaware_readers.tables import grid_to_text, table_warning
from structaware_readers.tables.cell_text import plain_math
from structaware_readers.tables.continued import append_rows, continues

log = logging.getLogger(__name__)
_KEEP_EMPTY = {BlockKind.TABLE, BlockKind.FIGURE, BlockKind.FLOWCHART, BlockKind.EQUATION}


def assemble(ex: Extracted, *, doc_id: str, source: str, name: str, error_path: str | None = None) -> ParsedDocument:
    """Build the document from a format module's output (see the module docstring). Raises ``EmptyDocumentError``."""
    if ex.markdown_text:
        for d in ex.drafts:
            _to_plain(d)
    drafts = merge_tables(ex.drafts, merge_by_position=ex.merge_by_position)
    drafts = [d for d in drafts if _has_content(d)]
    levels = iter(heading_levels([(d.text, d.level) for d in drafts if d.kind is BlockKind.HEADING]))
    blocks = [_to_block(d, next(levels) if d.kind is BlockKind.HEADING else None) for d in drafts]
    warnings = table_warnings(blocks)
    if warnings:  # debug only: load_document logs the tables still without a grid once its recovery has run
        pages = sorted({b.page for b in blocks if b.kind is BlockKind.TABLE and b.table is None})
        shown = ", ".join(map(str, pages[:20])) + (", ..." if len(pages) > 20 else "")
        log.debug(
            "%s: %d table(s) without readable cell markup on page%s %s (each named in ParsedDocument.warnings)",
            error_path or source, len(warnings), "s" if len(pages) > 1 else "", shown,
        )  # fmt: skip
    if not any(_body_text(b) for b in blocks if not b.is_furniture):
        raise EmptyDocumentError(
            f"no body text in {len(ex.drafts)} {ex.input_format} elements",
            path=error_path or source,
            field=ex.input_format,
        )
    max_page = max(
        [b.page for b in blocks] + [p for b in blocks for p in b.extra_pages] + [ex.page_count or 0, len(ex.page_sizes)]
    )
    sizes = (
        list(ex.page_sizes[:max_page]) + [None] * (max_page - len(ex.page_sizes))
        if ex.page_sizes
        else [None] * max_page
    )
    title = ex.title or _guess_title(blocks) or ex.metadata_title
    return ParsedDocument(
        doc_id=doc_id,
        source=source,
        name=name,
        parser="mineru",
        parser_version=ex.parser_version,
        input_format=ex.input_format,
        page_count=max_page,
        page_sizes=sizes,
        title=title,
        blocks=blocks,
        warnings=warnings,
    )


# ---------------------------------------------------------------- table merges


def merge_tables(drafts: list[Draft], *, merge_by_position: bool) -> list[Draft]:
    """Apply steps 1–2 of the module docstring; returns the kept drafts in order."""
    last_body: dict[int, int] = {}  # page -> index (in `drafts`) of its last body draft
    first_body: dict[int, int] = {}
    for i, d in enumerate(drafts):
        if not d.is_furniture and d.kind is not BlockKind.FOOTNOTE:
            last_body[d.page] = i
            first_body.setdefault(d.page, i)

    out: list[Draft] = []
    last_table: Draft | None = None
    last_table_src: int = -1  # index in `drafts` of the last kept table
    for i, d in enumerate(drafts):
        if d.kind is not BlockKind.TABLE:
            out.append(d)
            continue
        if d.ghost:
            if last_table is not None:
                _add_extra(last_table, d)
            continue
        by_position = merge_by_position and first_body.get(d.page) == i and last_body.get(d.page - 1) == last_table_src
        if last_table is not None and continues(
            last_table.table, d.table, flagged=d.continues_prev, by_position=by_position, caption=d.caption
        ):
            assert last_table.table is not None and d.table is not None
            last_table.table = append_rows(last_table.table, last_table.page, d.table, d.page)
            _add_extra(last_table, d)
            if d.footnote:
                last_table.footnote = " ".join(x for x in (last_table.footnote, d.footnote) if x)
            last_table_src = i  # a third page may continue it again
            continue
        out.append(d)
        last_table, last_table_src = d, i
    return out


def table_warnings(blocks: list[Block]) -> list[str]:
    """One warning per table block without a grid, naming its page and element: its cell markup
    was empty or unreadable, so it gives no row units (its text, if any, stays section text).
    They go to ``ParsedDocument.warnings`` (one log line per document names their pages); a grid rebuilt later
    (:mod:`structaware_readers.table_recovery`) replaces the warning of its table."""
    out = []
    for b in blocks:
        if b.kind is BlockKind.TABLE and b.table is None:
            kept = "its text stays section text" if b.text.strip() else "it has no text to index"
            out.append(table_warning(b.page, b.block_id, f"table without readable cell markup; {kept}"))
    return out


def _add_extra(target: Draft, cont: Draft) -> None:
    target.extra_pages.append(cont.page)
    target.extra_bboxes.append(cont.bbox)
    target.extra_ids.append(cont.block_id)
    target.extra_pages.extend(cont.extra_pages)
    target.extra_bboxes.extend(cont.extra_bboxes)
    target.extra_ids.extend(cont.extra_ids)


# ---------------------------------------------------------------------- blocks


def _to_plain(d: Draft) -> None:
    """Markdown-rendered strings -> plain text (code, equations and Mermaid are left verbatim)."""
    if d.kind not in (BlockKind.CODE, BlockKind.EQUATION, BlockKind.FLOWCHART):
        d.text = markdown_inline_to_plain(d.text)
    d.caption = markdown_inline_to_plain(d.caption)
    d.footnote = markdown_inline_to_plain(d.footnote)
    d.items = [markdown_inline_to_plain(i) for i in d.items]
    if d.table is not None:
        d.table = d.table.model_copy(
            update={
                "header_rows": [[markdown_inline_to_plain(c) for c in r] for r in d.table.header_rows],
                "body_rows": [[markdown_inline_to_plain(c) for c in r] for r in d.table.body_rows],
                "title": markdown_inline_to_plain(d.table.title),
            }
        )


def _has_content(d: Draft) -> bool:
    if d.kind in _KEEP_EMPTY:
        return True
    return bool(d.text.strip() or d.items or d.caption.strip())


_BULLET = re.compile(r"^\s*[-*+\u2022\u00b7\u25aa\u25e6]\s+")  # Markdown/typographic bullet, not "1."


def _to_block(d: Draft, level: int | None) -> Block:
    text, caption, footnote = d.text, d.caption, d.footnote
    if d.kind is BlockKind.TABLE:
        # a table's caption and notes are read like its cells: "m$^{2}$" -> "m²" (tables.cell_text)
        caption, footnote = plain_math(caption), plain_math(footnote)
        if d.table is not None:
            text = grid_to_text(d.table)
    return Block(
        block_id=d.block_id,
        kind=d.kind,
        text=text,
        page=d.page,
        bbox=d.bbox,
        level=level,
        table=d.table,
        caption=caption,
        footnote=footnote,
        items=[_BULLET.sub("", item) for item in d.items],
        mermaid=d.mermaid,
        source_type=d.source_type,
        continues_prev=d.continues_prev,
        extra_pages=d.extra_pages,
        extra_bboxes=d.extra_bboxes,
        extra_ids=d.extra_ids if len(d.extra_ids) == len(d.extra_pages) else [],
    )


def _body_text(b: Block) -> bool:
    if b.text.strip() or b.caption.strip() or any(i.strip() for i in b.items):
        return True
    return b.table is not None and any(c.strip() for r in [*b.table.header_rows, *b.table.body_rows] for c in r)


def _guess_title(blocks: list[Block]) -> str:
    """First unnumbered heading on the first page that has a heading, else ``""``."""
    for b in blocks:
        if b.kind is BlockKind.HEADING and b.page == blocks[0].page:
            return b.text if numbering_depth(b.text) is None else ""
    return ""


__all__ = ["assemble", "merge_tables"]
