"""Stage 5: a table without cells read from the parser's own space-aligned text (:mod:`.parser_text`, ``grid_source ==
"parser_text"``): for every target table when the PDF is not at hand, and for a table whose region in the PDF's text
layer gave no grid (stage 4).
"""

from __future__ import annotations

import logging

from structaware_readers.models import Block
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text
from structaware_readers.table_recovery.stage1_select import has_grid
from structaware_readers.tables import grid_to_text, table_warning

__all__ = ["from_parser_text"]

log = logging.getLogger(__name__)


def from_parser_text(block: Block, tried: str | None, warnings: list[str]) -> Block:
    """The grid of the parser's space-aligned text, else the block unchanged and a warning in ``warnings``
    (logged at debug level: ``load_document`` logs the tables left without a grid once, at the end)."""
    grid = grid_from_aligned_text(block.text, page_number=block.page)
    if has_grid(grid):
        return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})  # type: ignore[arg-type]
    sources = f"{tried} or the parser's text" if tried else "the parser's text (no PDF given)"
    kept = "its text stays section text" if block.text.strip() else "it has no text to index"
    msg = table_warning(
        block.page, block.block_id, f"table has no cell structure and none could be rebuilt from {sources}; {kept}"
    )
    log.debug(msg)
    warnings.append(msg)
    return block
