"""Figures that are tables: a table printed as a box or an image with a text layer, cropped as a figure.

A figure is a table when its caption (or a caption block just above it, within
:data:`CAPTION_GAP`) names one, or when the grid read inside it has a recommendation table's header.
Its grid comes from the text layer inside its box (with loose rows below it when the grid holds
them), else from its own space-aligned text; a captioned table without a readable grid is still a
table block.
"""

from __future__ import annotations

import re

from structaware_readers.loose_tables.anchors import centre_x, centre_y, header_role, is_piece, is_table_caption, union
from structaware_readers.loose_tables.data_region import loose_blocks_below
from structaware_readers.loose_tables.text_lines import PageLines, held, region_grid
from structaware_readers.models import Block, BlockKind, TableGrid
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text
from structaware_readers.tables import grid_to_text

CAPTION_GAP = 0.03


def _caption_above(blocks: list[Block], f: int) -> int | None:
    box = blocks[f].bbox
    if box is None:
        return None
    best: int | None = None
    for i, b in enumerate(blocks):
        c = b.bbox
        if i == f or c is None or not is_piece(b) or not is_table_caption(b.text):
            continue
        if 0 <= box[1] - c[3] <= CAPTION_GAP and min(box[2], c[2]) > max(box[0], c[0]):
            if best is None or c[3] > blocks[best].bbox[3]:  # type: ignore[index]
                best = i
    return best


def _inside(blocks: list[Block], f: int) -> list[int]:
    """Text pieces whose middle lies inside the figure's box (text the parser kept out of the picture)."""
    box = blocks[f].bbox
    assert box is not None
    return [
        i
        for i, b in enumerate(blocks)
        if i != f
        and is_piece(b)
        and b.bbox is not None
        and box[0] <= centre_x(b.bbox) <= box[2]
        and box[1] <= centre_y(b.bbox) <= box[3]
    ]


def _names_rec_columns(text: str) -> bool:
    """The text read inside a figure names a recommendation column and a grade column (on its lines,
    or in their space-separated chunks)."""
    chunks = [c for line in text.splitlines() for c in [line, *re.split(r"\s{2,}", line)]]
    roles = {header_role(c) for c in chunks if len(c) <= 40}
    return "rec" in roles and bool({"class", "level"} & roles)


def _rec_header(grid: TableGrid) -> bool:
    roles = {header_role(h) for h in (grid.header_rows[-1] if grid.header_rows else [])}
    return "rec" in roles and bool({"class", "level"} & roles)


def figure_table(blocks: list[Block], f: int, lines: PageLines | None) -> tuple[Block, list[int]] | None:
    """The table block a figure ``blocks[f]`` of one page really is, with the indices it absorbs (the
    figure and a caption block above it), or None when it is no table (module docstring)."""
    fig = blocks[f]
    cap = _caption_above(blocks, f)
    captioned = is_table_caption(fig.caption) or cap is not None
    if not captioned and not _names_rec_columns(fig.text):
        return None  # a picture whose own text names no recommendation column: its text layer is not read
    grid: TableGrid | None = None
    extra: list[int] = []
    if lines is not None and fig.bbox is not None:
        if captioned:  # the rest of the table may be loose text the parser left beside and below the picture
            extra = [i for i in _inside(blocks, f) + loose_blocks_below(blocks, f) if i != cap]
            if extra:
                region = union([fig.bbox, *(blocks[i].bbox for i in extra)])  # type: ignore[list-item]
                words = " ".join([fig.text, *(blocks[i].text for i in extra)])
                grid = region_grid(lines, region, fig.page, words)
                extra = held(grid, blocks, extra) if grid is not None else []
        if grid is None:
            extra = []
            grid = region_grid(lines, fig.bbox, fig.page, fig.text)
    if grid is None and fig.text:
        grid = grid_from_aligned_text(fig.text, page_number=fig.page)
    if not captioned and (grid is None or not _rec_header(grid)):
        return None
    caption = " ".join(p for p in (" ".join(blocks[cap].text.split()) if cap is not None else "", fig.caption) if p)
    members = sorted({f, *extra, *([cap] if cap is not None else [])})
    block = fig.model_copy(
        update={
            "kind": BlockKind.TABLE,
            "table": grid,
            "text": grid_to_text(grid) if grid is not None else fig.text,
            "caption": caption,
            "block_id": blocks[min(members)].block_id,
            "bbox": union([b for b in (blocks[i].bbox for i in members if i != cap) if b is not None]),
            "parser_ids": list(dict.fromkeys(p for i in members for p in blocks[i].parser_ids)),
        }
    )
    return block, members


__all__ = ["figure_table"]
