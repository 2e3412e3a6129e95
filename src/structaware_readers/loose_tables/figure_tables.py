"""Figures that are tables: a table printed as a box or as an image with a text layer, which the
parser cropped as a ``figure``.

A figure is a table when its caption names one (its own caption, or a caption block just above it:
at most :data:`CAPTION_GAP` of the page height, overlapping it across), or when the grid read inside
it has a recommendation table's header row (``Recommendations | Class | Level``). Its grid comes
from the PDF's text layer inside the figure's box, else from the figure's own text when that is
space-aligned (:func:`~structaware_readers.table_recovery.parser_text.grid_from_aligned_text`); a
captioned table whose grid cannot be read is still a table block (its text one unit of its own), a
figure captioned ``Figure 1`` stays a figure.
"""

from __future__ import annotations

from structaware_readers.loose_tables.anchors import header_role, is_piece, is_table_caption
from structaware_readers.loose_tables.text_lines import PageLines, region_grid
from structaware_readers.models import Block, BlockKind, TableGrid
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text

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


def _rec_header(grid: TableGrid) -> bool:
    roles = {header_role(h) for h in (grid.header_rows[-1] if grid.header_rows else [])}
    return "rec" in roles and bool({"class", "level"} & roles)


def figure_table(blocks: list[Block], f: int, lines: PageLines | None) -> tuple[Block, list[int]] | None:
    """The table block a figure ``blocks[f]`` of one page really is, with the indices it absorbs (the
    figure and a caption block above it), or None when it is no table (module docstring)."""
    from structaware_readers.tables import grid_to_text

    fig = blocks[f]
    cap = _caption_above(blocks, f)
    captioned = is_table_caption(fig.caption) or cap is not None
    grid: TableGrid | None = None
    if lines is not None and fig.bbox is not None:
        grid = region_grid(lines, fig.bbox, fig.page, fig.text)
    if grid is None and fig.text:
        grid = grid_from_aligned_text(fig.text, page_number=fig.page)
    if not captioned and (grid is None or not _rec_header(grid)):
        return None
    caption = " ".join(p for p in (" ".join(blocks[cap].text.split()) if cap is not None else "", fig.caption) if p)
    members = [f] if cap is None else sorted([cap, f])
    block = fig.model_copy(
        update={
            "kind": BlockKind.TABLE,
            "table": grid,
            "text": grid_to_text(grid) if grid is not None else fig.text,
            "caption": caption,
            "block_id": blocks[min(members)].block_id,
            "parser_ids": [blocks[i].block_id for i in members],
        }
    )
    return block, members


__all__ = ["figure_table"]
