"""Tables a parser gave as loose blocks, or as pictures, turned into table blocks with a grid.

Layout parsers often miss boxed recommendation tables and data tables, giving each header, statement,
grade or cell line as its own block, or the whole table as a figure. :func:`gather_loose_tables`
finds such regions page by page: recommendation tables from their header row (:mod:`.rec_region`),
data tables from their caption (:mod:`.data_region`, grid from the text layer or block positions),
figures captioned as tables (:mod:`.figure_tables`). Each region becomes one TABLE block keeping its
first member's id, every member's ``parser_ids`` and each row's box. A caption citing a table in
running text is left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from structaware_readers.errors import InputNotFoundError, MalformedInputError, MissingExtraError
from structaware_readers.loose_tables.anchors import is_table_caption, union
from structaware_readers.loose_tables.data_region import MAX_GAP, blocks_grid, find_data_region, with_label_column
from structaware_readers.loose_tables.figure_tables import figure_table
from structaware_readers.loose_tables.rec_region import header_rows, read_rec_region
from structaware_readers.loose_tables.text_lines import PageLines, TextLayer, held, region_grid
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.tables import grid_to_text

__all__ = ["gather_loose_tables"]

log = logging.getLogger(__name__)

#: A caption joins a recommendation table when it ends at most this far (page height) above the header row.
CAPTION_GAP = 0.03


def gather_loose_tables(doc: ParsedDocument, pdf: str | bytes | Any | None = None) -> ParsedDocument:
    """``doc`` (1-based pages, bboxes 0..1 of the page, origin top-left) with its loose and pictured tables as table
    blocks (module docstring); ``doc`` itself when none is found. ``pdf`` (path or bytes, or ``None``) gives the text
    layer; one that cannot be opened is named in ``doc.warnings``.
    """
    pages: dict[int, list[int]] = {}
    for i, b in enumerate(doc.blocks):
        pages.setdefault(b.page, []).append(i)
    if not any(_may_hold(doc.blocks[i]) for i in range(len(doc.blocks))):
        return doc
    warnings = list(doc.warnings)
    replaced: dict[int, Block] = {}
    absorbed: set[int] = set()
    with _text_layer(pdf, doc.page_count, warnings) as layer:
        for page, idx in sorted(pages.items()):
            blocks = [doc.blocks[i] for i in idx]
            if not any(_may_hold(b) for b in blocks):
                continue
            lines = layer.page(page) if layer is not None else None
            for new, members in _page_tables(blocks, lines):
                glob = [idx[m] for m in members]
                first = min(glob)
                replaced[first] = new.model_copy(update={"block_id": doc.blocks[first].block_id})
                absorbed.update(g for g in glob if g != first)
    if not replaced:
        return doc
    out = [replaced.get(i, b) for i, b in enumerate(doc.blocks) if i not in absorbed]
    return doc.model_copy(update={"blocks": out, "warnings": warnings})


def _may_hold(b: Block) -> bool:
    return not b.is_furniture and (b.kind is BlockKind.FIGURE or (bool(b.text) and len(b.text) < 400))


def _page_tables(blocks: list[Block], lines: PageLines | None) -> list[tuple[Block, list[int]]]:
    """The table blocks found on one page with the indices (into ``blocks``) of what each absorbs."""
    found: list[tuple[Block, list[int]]] = []
    taken: set[int] = set()
    for header in header_rows(blocks):
        if taken & set(header):
            continue
        region = read_rec_region(blocks, header, lines.statement_lines if lines is not None else None)
        if region is None or region.grid is None:
            continue
        caption = _caption_above(blocks, header, taken)
        members = [*caption, *header, *region.members]
        taken.update(members)
        found.append((_table_block(blocks, members, region.grid, caption), members))
    for c, b in enumerate(blocks):
        if c in taken or b.kind is BlockKind.FIGURE or not is_table_caption(b.text):
            continue
        data = find_data_region(blocks, c)
        if data is None or taken & set(data.members):
            continue
        grid = _data_grid(blocks, data.members, data.bbox, lines)
        if grid is None:
            continue
        kept = held(grid, blocks, data.members) if grid.grid_source == "pdf_text_layer" else data.members
        members = [c, *kept]
        rest = _rest_of_table(blocks, data.bbox, grid, taken | set(members))
        if rest is not None:
            grid = _joined(grid, blocks[rest].table, blocks[rest].bbox)  # type: ignore[arg-type]
            members.append(rest)
        taken.update(members)
        found.append((_table_block(blocks, members, grid, [c]), members))
    for f, b in enumerate(blocks):
        if f in taken or b.kind is not BlockKind.FIGURE:
            continue
        got = figure_table(blocks, f, lines)
        if got is not None:
            block, members = got
            taken.update(members)
            found.append((block, members))
    return found


def _caption_above(blocks: list[Block], header: list[int], taken: set[int]) -> list[int]:
    """The caption blocks just above a recommendation table's header row (its caption may run over two
    blocks), or [] when the block chain above does not start with a table caption."""
    top = min(blocks[j].bbox[1] for j in header)  # type: ignore[index]
    left = min(blocks[j].bbox[0] for j in header) - 0.02  # type: ignore[index]
    right = max(blocks[j].bbox[2] for j in header) + 0.02  # type: ignore[index]
    chain: list[int] = []
    edge = top
    for i in sorted(
        (
            i
            for i, b in enumerate(blocks)
            if i not in taken and i not in header and b.bbox is not None and b.bbox[3] <= top + 0.005
        ),
        key=lambda i: -blocks[i].bbox[3],  # type: ignore[index]
    ):
        box = blocks[i].bbox
        assert box is not None
        if box[2] < left or box[0] > right or (box[0] < left - 0.02 and box[2] > right + 0.02):
            continue
        if edge - box[3] > CAPTION_GAP or len(chain) >= 3 or blocks[i].kind is BlockKind.FIGURE:
            break
        chain.append(i)
        edge = box[1]
        if is_table_caption(blocks[i].text):
            return sorted(chain, key=lambda i: blocks[i].bbox[1])  # type: ignore[index]
    return []


def _data_grid(blocks: list[Block], members: list[int], bbox: BBox, lines: PageLines | None) -> TableGrid | None:
    """A data table's grid: the text layer's when it keeps the blocks' words, else the blocks'."""
    page = blocks[members[0]].page
    words = " ".join(blocks[i].text for i in members)
    if lines is not None:
        grid = region_grid(lines, bbox, page, words)
        if grid is not None:
            return with_label_column(grid, blocks, members)
    return blocks_grid(blocks, members, page)


def _rest_of_table(blocks: list[Block], region: BBox, grid: TableGrid, taken: set[int]) -> int | None:
    """A table block the parser found just below a loose table's region, with as many columns: the
    rest of the same table (the parser saw a table only where rules begin)."""
    for i, b in enumerate(blocks):
        box = b.bbox
        if i in taken or b.kind is not BlockKind.TABLE or b.table is None or box is None or b.extra_ids:
            continue
        near = -0.005 <= box[1] - region[3] <= MAX_GAP
        across = min(box[2], region[2]) - max(box[0], region[0]) >= 0.5 * (region[2] - region[0])
        if near and across and b.table.n_cols == grid.n_cols:
            return i
    return None


def _joined(grid: TableGrid, rest: TableGrid, rest_box: BBox | None = None) -> TableGrid:
    """``grid`` with the rows of the parser's table below it (its header row is one of the body rows, boxed by
    :func:`_header_band`)."""
    rows = [*rest.header_rows, *rest.body_rows]
    own = rest.body_row_bboxes if len(rest.body_row_bboxes) == len(rest.body_rows) else [None] * len(rest.body_rows)
    head = _header_band(rest, own, rest_box)
    page = grid.body_row_pages[0] if grid.body_row_pages else None
    return grid.model_copy(
        update={
            "body_rows": [*grid.body_rows, *rows],
            "body_row_bboxes": [*grid.body_row_bboxes, *head, *own],
            "body_row_pages": [*grid.body_row_pages, *([page] * len(rows))] if page is not None else [],
        }
    )


def _header_band(rest: TableGrid, own: list[BBox | None], rest_box: BBox | None) -> list[BBox | None]:
    """The boxes of the header rows of the parser's table below a loose table, which become body rows: their own
    boxes when known; else a single header row lies between the top of the parser's table (``rest_box``, 0..1 of
    the page, origin top-left) and its first body row's box, across the table; else none is known."""
    n = len(rest.header_rows)
    if len(rest.header_row_bboxes) == n and all(b is not None for b in rest.header_row_bboxes):
        return list(rest.header_row_bboxes)
    first = own[0] if own else None
    if n == 1 and rest_box is not None and first is not None and rest_box[1] < first[1]:
        return [(rest_box[0], rest_box[1], rest_box[2], first[1])]
    return [None] * n


def _table_block(blocks: list[Block], members: list[int], grid: TableGrid, caption: list[int]) -> Block:
    first = min(members)
    body = [i for i in members if i not in caption]
    box = union([blocks[i].bbox for i in body if blocks[i].bbox is not None])  # type: ignore[misc]
    return Block(
        block_id=blocks[first].block_id,
        kind=BlockKind.TABLE,
        text=grid_to_text(grid),
        page=blocks[first].page,
        bbox=box,
        table=grid,
        caption=" ".join(" ".join(blocks[i].text.split()) for i in caption),
        source_type="loose_blocks",
        parser_ids=list(dict.fromkeys(p for i in sorted(members) for p in blocks[i].parser_ids)),
    )


@contextmanager
def _text_layer(pdf: Any, page_count: int, warnings: list[str]) -> Iterator[Any]:
    """The PDF's text layer per page (:class:`.text_lines.TextLayer`), or None without a usable PDF."""
    if pdf is None:
        yield None
        return
    try:
        layer = TextLayer(pdf, page_count)
    except (InputNotFoundError, MalformedInputError, MissingExtraError) as exc:
        warnings.append(f"loose tables read without the PDF's text layer: {exc}")
        yield None
        return
    try:
        yield layer
    finally:
        layer.close()
