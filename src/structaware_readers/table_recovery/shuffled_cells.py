"""Cells read from lines printed on top of each other, written in the page's order to find their lines.

Where a cell's lines overlap, a parser may merge them and sort their glyphs left to right (``RJuenv
i2e0w2 d1ate:`` for ``Review date:`` over ``Jun 2021``). The text restore puts them back
(:func:`~structaware_readers.text.overlapped_lines.unshuffle`), but only after table recovery; the row-box
stage matches a cell's words against the page's lines, and the merged words match none, so the lines
printing them stay outside every box. :func:`unshuffled_view` gives the stage the cells as the restore
will write them; the grid the units are built from keeps the parser's text.
"""

from __future__ import annotations

from collections.abc import Callable

from structaware_readers.models import Block, TableGrid
from structaware_readers.text.layer import PageWords
from structaware_readers.text.overlapped_lines import unshuffle

__all__ = ["unshuffled_view", "with_cells_of"]


def unshuffled_view(block: Block, pages: list[int], page_text: Callable[[int], str]) -> Block:
    """``block`` with each cell of its grid unshuffled against its row's page (header rows: the block's
    page; ``pages``: one per body row); ``block`` itself when no cell changes."""
    grid: TableGrid = block.table  # type: ignore[assignment]
    texts: dict[int, PageWords] = {}

    def cells(row: list[str], page: int) -> list[str]:
        if page not in texts:
            texts[page] = PageWords(text=page_text(page))
        return [unshuffle(c, texts[page]) if c.strip() else c for c in row]

    header = [cells(row, block.page) for row in grid.header_rows]
    body = [cells(row, page) for row, page in zip(grid.body_rows, pages)]
    if header == grid.header_rows and body == grid.body_rows:
        return block
    return block.model_copy(update={"table": grid.model_copy(update={"header_rows": header, "body_rows": body})})


def with_cells_of(block: Block, original: Block) -> Block:
    """``block`` (boxes found on an :func:`unshuffled_view`) with ``original``'s cells."""
    grid: TableGrid = block.table  # type: ignore[assignment]
    kept: TableGrid = original.table  # type: ignore[assignment]
    update = {"header_rows": kept.header_rows, "body_rows": kept.body_rows}
    return block.model_copy(update={"table": grid.model_copy(update=update)})
