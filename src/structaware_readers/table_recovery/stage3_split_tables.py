"""Stage 3: a table the parser split into pieces or partly missed, read from the PDF as one region."""

from __future__ import annotations

import logging
from typing import Any

from structaware_readers.models import BBox, Block, BlockKind, TableGrid
from structaware_readers.table_recovery.grid_rules import is_data_row_cells, is_value
from structaware_readers.table_recovery.panels import split_panels
from structaware_readers.table_recovery.pdf_text_layer import PAD, grid_from_region
from structaware_readers.table_recovery.reading_direction import region_words
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.table_recovery.split_regions import covered_share, union_box
from structaware_readers.table_recovery.stage1_select import has_grid
from structaware_readers.tables import grid_to_text, table_warning

__all__ = ["MIN_PIECES_COVERED", "MIN_PIECE_COVERED", "MISSES_WORDS", "OTHER_COLUMNS", "join_split_tables"]

log = logging.getLogger(__name__)

#: The grid of a table split into pieces must hold this share of the pieces' words (see ``_read_split_region``).
MIN_PIECES_COVERED = 0.9
#: ... and at least this share of each text piece's words (else the piece is left out, see ``_read_split_region``).
MIN_PIECE_COVERED = 0.65
OTHER_COLUMNS = "the table pieces have other columns"
MISSES_WORDS = "its grid misses words of the pieces"
ROWS_RUN_ON = "figures on its rows lie outside it"
_TEXT_PIECES = {BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.FOOTNOTE}


def join_split_tables(rec: Recovery, page_number: int, page: Any) -> None:
    """Read each split table of ``page_number`` (``page``: its ``pdfplumber.page.Page``) as one region;
    a joined table replaces its first piece, the others are absorbed."""
    for members, region in rec.split.get(page_number, []):
        read = _read_split_region(rec.blocks, members, page, region, rec.warnings, rec.absorbed)
        if read is not None:
            joined, took = read
            rec.blocks[took[0]] = joined
            rec.absorbed.update(took[1:])
            rec.merged.add(took[0])


def _read_split_region(
    blocks: list[Block], members: list[int], page: Any, region: BBox, warnings: list[str], absorbed: set[int]
) -> tuple[Block, list[int]] | None:
    """The pieces ``members`` of one table (:mod:`.split_regions`) as one table block with the grid of ``region`` read
    from the PDF's text layer, and the members it took in; ``None`` (the pieces stay as they are) when it is not one
    table (see :func:`_split_grid`; a warning when a piece is a ``table``).
    """
    first = blocks[members[0]]
    others_on_page = [
        b
        for i, b in enumerate(blocks)
        if b.page == first.page and i not in members and i not in absorbed and not b.is_furniture and b.text.strip()
    ]
    grid, why = _split_grid(page, [blocks[i] for i in members], region, others_on_page)
    if grid is not None:
        text = grid_to_text(grid)
        kept = [
            i
            for i in members
            if blocks[i].kind not in _TEXT_PIECES or covered_share(blocks[i].text, text) >= MIN_PIECE_COVERED
        ]
        if len(kept) < len(members):
            members = kept
            pieces = [blocks[i] for i in members]
            region = union_box([b.bbox for b in pieces])  # type: ignore[misc]
            grid, why = (
                _split_grid(page, pieces, region, others_on_page) if len(members) > 1 else (None, "one piece left")
            )
    pieces = [blocks[i] for i in members]
    if grid is None:
        log.debug("page %d: pieces %s are not read as one table: %s", first.page, [b.block_id for b in pieces], why)
        # figures and fragments were no table to begin with; table panels of other columns are two tables
        if any(b.kind is BlockKind.TABLE for b in pieces) and why != OTHER_COLUMNS:
            warnings.append(
                table_warning(
                    first.page,
                    first.block_id,
                    f"the {len(pieces)} pieces of a table ({', '.join(b.block_id for b in pieces)}) could not be read"
                    f" as one table from the PDF text layer ({why}); they stay as the parser gave them",
                )
            )
        return None
    base = next((b for b in pieces if b.kind is BlockKind.TABLE), None) or next(
        (b for b in pieces if b.kind is BlockKind.FIGURE), pieces[0]
    )
    others = [b for b in pieces if b is not base]
    joined = base.model_copy(
        update={
            "kind": BlockKind.TABLE,
            "table": grid,
            "text": grid_to_text(grid),
            "bbox": region,
            "caption": base.caption or next((b.caption for b in others if b.caption), ""),
            "footnote": " ".join(b.footnote for b in pieces if b.footnote),
            "parser_ids": [p for b in pieces for p in b.parser_ids],
            "extra_pages": [b.page for b in others],
            "extra_bboxes": [b.bbox for b in others],
            "extra_ids": [b.block_id for b in others],
        }
    )
    return joined, members


def _split_grid(page: Any, pieces: list[Block], region: BBox, others: list[Block]) -> tuple[TableGrid | None, str]:
    """The grid of ``region`` when it reads as one table holding the ``pieces``, else ``None`` and why:
    fewer than 2 labelled rows with figures, less than :data:`MIN_PIECES_COVERED` of the pieces' words,
    text of a block that is not a piece (``others``: its centre in the region), or (several ``table``
    pieces) other columns than the pieces read alone. A region whose ruling lines frame only part of
    it (shading bands under the body, the header lines and a last block of rows outside them) is read
    again as a borderless table when the ruled reading misses the pieces' words. Panels of the grid
    under a header printed again for another date become band rows (:mod:`.panels`)."""
    if any(_inside(b.bbox, region) for b in others):
        return None, "another block lies inside"
    grid, why = _region_grid(page, pieces, region, ruled=True)
    if why == MISSES_WORDS:
        grid, why = _region_grid(page, pieces, region, ruled=False)
        if grid is not None and _rows_run_on(page, region):
            return None, ROWS_RUN_ON
    return (split_panels(grid), "") if grid is not None else (None, why)


def _rows_run_on(page: Any, region: BBox) -> bool:
    """A figure is printed on the region's rows outside it, left or right (a column the pieces left
    out): the borderless reading would hold part of each row only."""
    px0, ptop, px1, pbottom = (float(v) for v in page.bbox)
    width, height = px1 - px0, pbottom - ptop
    left, right = px0 + region[0] * width - PAD, px0 + region[2] * width + PAD
    band = (px0, max(ptop, ptop + region[1] * height), px1, min(pbottom, ptop + region[3] * height))
    if band[3] - band[1] < 1:
        return False
    try:
        words = region_words(page.crop(band, strict=False), x_tolerance=3, y_tolerance=3)
    except Exception:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        return True  # unread: the rows are not known to end in the region
    return any((float(w["x1"]) <= left or float(w["x0"]) >= right) and is_value(str(w["text"])) for w in words)


def _region_grid(page: Any, pieces: list[Block], region: BBox, *, ruled: bool) -> tuple[TableGrid | None, str]:
    """:func:`_split_grid`'s reading of ``region`` with or without its ruling lines, and why it fails."""
    try:
        grid = grid_from_region(page, region, page_number=pieces[0].page, ruled=ruled)
        tables = [b for b in pieces if b.kind is BlockKind.TABLE]
        parts = (
            [grid_from_region(page, b.bbox, page_number=b.page, ruled=ruled) for b in tables] if len(tables) > 1 else []
        )
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        return None, f"the text layer cannot be read: {exc}"
    if grid is None or not has_grid(grid) or sum(1 for row in grid.body_rows if is_data_row_cells(row)) < 2:
        return None, "no grid with 2 labelled rows of figures"
    if covered_share("\n".join(b.text for b in pieces), grid_to_text(grid)) < MIN_PIECES_COVERED:
        return None, MISSES_WORDS
    if any(p is None or p.n_cols != grid.n_cols for p in parts):
        return None, OTHER_COLUMNS
    return grid, ""


def _inside(box: BBox | None, region: BBox) -> bool:
    """The centre of ``box`` lies in ``region``."""
    if box is None:
        return False
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]
