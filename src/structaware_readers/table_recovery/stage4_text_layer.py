"""Stage 4: table regions without cells rebuilt from the PDF's text layer, one page at a time."""

from __future__ import annotations

import logging
from typing import Any

from structaware_readers.models import BBox, Block, BlockKind
from structaware_readers.table_recovery.grid_rules import is_data_row_cells
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.table_recovery.stage1_select import has_grid
from structaware_readers.table_recovery.stage5_parser_text import from_parser_text
from structaware_readers.tables import grid_to_text

__all__ = ["BAND_GAP", "BAND_OVERLAP", "MIN_IMAGE_DATA_ROWS", "rebuild_from_text_layer"]

log = logging.getLogger(__name__)

#: An image region becomes a table only when its grid has this many rows with a label and a figure.
MIN_IMAGE_DATA_ROWS = 3
#: An image region joins an earlier candidate region on the same rows (see :func:`_regions`).
BAND_OVERLAP = 0.6
BAND_GAP = 0.03


def rebuild_from_text_layer(rec: Recovery, page_number: int, page: Any) -> None:
    """Rebuild the grids of the target regions of ``page_number`` (``page``: its ``pdfplumber.page.Page``)."""
    rest = [i for i in rec.on_page(rec.targets, page_number) if not rec.taken(i)]
    regions = _regions([rec.blocks[i] for i in rest])
    for i, region in zip(rest, regions, strict=True):
        if region is not None:  # None: an image fragment read with the region it belongs to
            rec.blocks[i] = _recover_block(rec.blocks[i], page, region, rec.warnings)


def _regions(blocks: list[Block]) -> list[BBox | None]:
    """The region to read for each candidate block of one page, in reading order."""
    regions: list[BBox | None] = [b.bbox for b in blocks]
    for j, bj in enumerate(blocks):
        if bj.kind is not BlockKind.FIGURE or bj.bbox is None:
            continue
        for i in range(j):
            ri = regions[i]
            if ri is not None and _same_rows(ri, bj.bbox):
                regions[i] = (
                    min(ri[0], bj.bbox[0]),
                    min(ri[1], bj.bbox[1]),
                    max(ri[2], bj.bbox[2]),
                    max(ri[3], bj.bbox[3]),
                )
                regions[j] = None
                break
    return regions


def _same_rows(a: BBox, b: BBox) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    gap = max(a[0], b[0]) - min(a[2], b[2])
    return overlap >= BAND_OVERLAP * min(a[3] - a[1], b[3] - b[1]) and gap <= BAND_GAP


def _recover_block(block: Block, page: Any, region: BBox, warnings: list[str]) -> Block:
    try:
        grid = grid_from_region(page, region, page_number=block.page)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    if block.kind is BlockKind.TABLE:
        if has_grid(grid):
            return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})  # type: ignore[arg-type]
        return from_parser_text(block, "the PDF text layer", warnings)
    # an image region: a table only when its text layer holds labelled figures
    if grid is None or sum(1 for row in grid.body_rows if is_data_row_cells(row)) < MIN_IMAGE_DATA_ROWS:
        return block
    return block.model_copy(update={"kind": BlockKind.TABLE, "table": grid, "text": grid_to_text(grid)})
