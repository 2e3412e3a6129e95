"""Records -> typed :class:`Block` s in the parser's order (the mapping table of the package
docstring): one block per element, list items grouped into LIST blocks, table chunks rebuilt
into one TABLE, captions attached to their figure or table."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from structaware_readers.mermaid import find_flowchart_source
from structaware_readers.models import BBox, Block, BlockKind
from structaware_readers.structure.headings import heading_levels
from structaware_readers.tables import grid_to_text
from structaware_readers.unstructured.captions import TABLE_PREFIX, attach_captions
from structaware_readers.unstructured.hierarchy import Hierarchy
from structaware_readers.unstructured.records import Record
from structaware_readers.unstructured.tables import table_chunk_groups, table_grid

__all__ = ["build_blocks"]

_FURNITURE = {"Header": BlockKind.HEADER, "Footer": BlockKind.FOOTER, "PageNumber": BlockKind.PAGE_NUMBER}
_KEEP_EMPTY = {"Table", "TableChunk", "Image"}
_FOOTNOTE_CLASS = re.compile(r"^\s*<\w+[^>]*\bclass\s*=\s*[\"']?Footnote\b")
_LIST_MAX_GAP = 0.05  # page fraction between stacked list items of one list


def build_blocks(records: list[Record], source: str, warnings: list[str] | None = None) -> list[Block]:
    """Blocks for ``records`` (ids ``p{page}-e{j}`` of each block's first record). Heading levels: Unstructured's own
    (:meth:`Hierarchy.parser_level`) where it gives one, else from numbering and title order
    (:func:`~structaware_readers.structure.headings.heading_levels`). Raises ``MalformedInputError``.
    """
    return _Builder(records, source, warnings).build()


class _Builder:
    def __init__(self, records: list[Record], source: str, warnings: list[str] | None):
        self.records = records
        self.source = source
        self.warnings = warnings
        self.hierarchy = Hierarchy(records, source)
        self.blocks: list[Block] = []
        self.caption_blocks: set[int] = set()

    def build(self) -> list[Block]:
        chunks = table_chunk_groups(self.records, self.source)
        i = 0
        n = len(self.records)
        while i < n:
            r = self.records[i]
            if r.type == "ListItem":
                run = [r]
                while i + 1 < n and _continues_list(run, self.records[i + 1]):
                    i += 1
                    run.append(self.records[i])
                self._emit_list(run)
            elif r.type == "TableChunk":
                tid = r.md.get("table_id")
                group = chunks.get(tid) if isinstance(tid, str) else None
                if group is None:
                    self._emit_table([r])
                elif group[0] is r:
                    self._emit_table(group)
                # later chunks of a rebuilt table: already emitted with the first one
            else:
                self._emit_one(r)
            i += 1
        blocks = attach_captions(self.blocks, self.caption_blocks)
        headings = [b for b in blocks if b.kind is BlockKind.HEADING]
        levels = heading_levels([(b.text, b.level) for b in headings], parser_levels_fixed=True)
        for b, level in zip(headings, levels):
            b.level = level
        return blocks

    def _emit_one(self, r: Record) -> None:
        t = r.type
        if t == "PageBreak":
            return
        if not r.text.strip() and t not in _KEEP_EMPTY:
            return
        text = r.text.strip()
        if t in _FURNITURE:
            self._add(r, _FURNITURE[t], text)
        elif t == "Title":
            self._add(r, BlockKind.HEADING, text, level=self.hierarchy.parser_level(r))
        elif t == "Table":
            self._emit_table([r])
        elif t == "Image":
            self._add(r, BlockKind.FIGURE, text)
        elif t == "FigureCaption":
            self.caption_blocks.add(len(self.blocks))
            self._add(r, BlockKind.CAPTION, text)
        elif t == "Formula":
            self._add(r, BlockKind.EQUATION, text)
        elif t == "CodeSnippet":
            mermaid = find_flowchart_source(r.text)
            if mermaid is not None:
                self._add(r, BlockKind.FLOWCHART, mermaid, mermaid=mermaid)
            else:
                self._add(r, BlockKind.CODE, r.text.strip("\n"))
        elif isinstance(r.md.get("text_as_html"), str) and _FOOTNOTE_CLASS.match(r.md["text_as_html"]):
            self._add(r, BlockKind.FOOTNOTE, text)
        else:  # NarrativeText, UncategorizedText, Text, CompositeElement without orig, Address, ...
            self._add(r, BlockKind.PARAGRAPH, text)

    def _add(self, r: Record, kind: BlockKind, text: str, **extra: Any) -> Block:
        return self._append([r], kind, text, bbox=r.bbox, **extra)

    def _append(self, recs: list[Record], kind: BlockKind, text: str, **extra: Any) -> Block:
        first = recs[0]
        block = Block(
            block_id=f"p{first.page}-e{first.j}",
            kind=kind,
            text=text,
            page=first.page,
            source_type=first.type,
            parser_ids=[x.element_id for x in recs if x.element_id],
            **extra,
        )
        self.blocks.append(block)
        return block

    def _emit_list(self, run: list[Record]) -> None:
        items = [x.text.strip() for x in run if x.text.strip()]
        if not items:
            return
        boxes = [x.bbox for x in run if x.bbox is not None]
        self._append(run, BlockKind.LIST, "\n".join(items), items=items, bbox=_union(boxes) if boxes else None)

    def _emit_table(self, chunks: list[Record]) -> None:
        grid = table_grid(chunks, self.source, self.warnings)
        first = chunks[0]
        text = grid_to_text(grid) if grid is not None else "\n".join(c.text.strip() for c in chunks if c.text.strip())
        extra_pages: list[int] = []
        extra_bboxes: list[BBox | None] = []
        for c in chunks[1:]:
            if c.page != first.page and c.page not in extra_pages:
                extra_pages.append(c.page)
                extra_bboxes.append(c.bbox)
        same_page = [c.bbox for c in chunks if c.page == first.page and c.bbox is not None]
        prev = self.blocks[-1] if self.blocks else None
        # a "Table 5 ..." Title right before the table (its parent) names it: the table's caption too
        caption = (
            prev.text
            if prev is not None
            and prev.kind is BlockKind.HEADING
            and prev.page == first.page
            and TABLE_PREFIX.match(prev.text)
            else ""
        )
        self._append(
            chunks,
            BlockKind.TABLE,
            text,
            table=grid,
            caption=caption,
            bbox=_union(same_page) if same_page else None,
            extra_pages=extra_pages,
            extra_bboxes=extra_bboxes,
        )


def _continues_list(run: list[Record], nxt: Record) -> bool:
    """``nxt`` is the next item of the list ``run``: same page, same parent (or nested under an
    item of the run), stacked below the previous item in the same column."""
    if nxt.type != "ListItem" or nxt.page != run[0].page or not nxt.text.strip():
        return False
    run_ids = {x.element_id for x in run if x.element_id}
    same_parent = nxt.md.get("parent_id") == run[0].md.get("parent_id") or nxt.md.get("parent_id") in run_ids
    if not same_parent:
        return False
    prev = run[-1]
    if (prev.bbox is None) != (nxt.bbox is None):
        return False
    if prev.bbox is None or nxt.bbox is None:
        return True
    a, b = prev.bbox, nxt.bbox
    x_overlap = min(a[2], b[2]) - max(a[0], b[0]) > 0
    return x_overlap and b[1] >= a[1] and b[1] - a[3] <= _LIST_MAX_GAP


def _union(boxes: Iterable[BBox]) -> BBox:
    xs0, ys0, xs1, ys1 = zip(*boxes)
    return (min(xs0), min(ys0), max(xs1), max(ys1))
