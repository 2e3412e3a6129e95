"""Stage 1: which blocks of a document the later stages work on, in one :class:`~.record.Recovery`.

Table regions without a grid (:func:`needs_grid`: a table without 2 x 2 cells, or a MinerU image of
a table) for stages 4-5; tables split into pieces (:mod:`.split_regions`) for stage 3; parser markup
to check (:func:`needs_check`, :func:`needs_parts_check`) for stage 6. Pieces and markup are looked
at only with the PDF at hand. The reader's warning about a target table is taken out: the later
stages decide its outcome.
"""

from __future__ import annotations

from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.table_recovery.split_regions import find_split_regions
from structaware_readers.table_recovery.stacked_rows import may_hold_stacked_rows
from structaware_readers.tables import is_table_warning

__all__ = [
    "has_grid",
    "needs_check",
    "needs_grid",
    "needs_parts_check",
    "needs_recovery",
    "select",
    "split_regions_by_page",
]


def has_grid(grid: TableGrid | None) -> bool:
    """True when ``grid`` has at least 2 rows (header + body) and 2 columns."""
    return grid is not None and grid.n_cols >= 2 and len(grid.header_rows) + len(grid.body_rows) >= 2


def needs_grid(block: Block) -> bool:
    """A block whose region may hold a table the parser left without cells (see the module docstring)."""
    if block.bbox is None or block.is_furniture:
        return False
    if block.kind is BlockKind.TABLE:
        return not has_grid(block.table)
    return block.kind is BlockKind.FIGURE and block.source_type == "image"


def needs_check(block: Block) -> bool:
    """A single-part table block with a parser-markup grid, body rows and a region (stage 6; a grid
    without a header row may still cut the page's words at its column boundaries)."""
    return (
        block.kind is BlockKind.TABLE
        and block.table is not None
        and block.table.grid_source == "parser_html"
        and bool(block.table.body_rows)
        and block.bbox is not None
        and not block.extra_ids
        and not block.is_furniture
    )


def needs_parts_check(block: Block) -> bool:
    """A table merged across pages (``extra_ids``) from parser markup, every part with its region,
    whose rows may hold stacked items (:func:`~.stacked_rows.may_hold_stacked_rows`) or which the
    parser read a quarter turn round (``TableGrid.turned``; stage 6)."""
    return (
        block.kind is BlockKind.TABLE
        and block.table is not None
        and block.table.grid_source == "parser_html"
        and bool(block.extra_ids)
        and block.bbox is not None
        and all(b is not None for b in block.extra_bboxes)
        and len(block.extra_bboxes) == len(block.extra_pages)
        and not block.is_furniture
        and (block.table.turned or may_hold_stacked_rows(block.table.body_rows))
    )


def needs_recovery(doc: ParsedDocument) -> bool:
    """True when ``doc`` has a table region without cells (:func:`needs_grid`) or a table split into
    pieces (:mod:`.split_regions`): the stages may change it even without checking markup."""
    return any(needs_grid(b) for b in doc.blocks) or bool(split_regions_by_page(doc.blocks))


def split_regions_by_page(blocks: list[Block]) -> dict[int, list[tuple[list[int], BBox]]]:
    """Per page, the tables the parser split into pieces (:mod:`.split_regions`): the members' indices
    into ``blocks`` (reading order) and the region to read."""
    on_page: dict[int, list[int]] = {}
    for i, b in enumerate(blocks):
        on_page.setdefault(b.page, []).append(i)
    out: dict[int, list[tuple[list[int], BBox]]] = {}
    for page_number, idx in on_page.items():
        for r in find_split_regions([blocks[i] for i in idx]):
            out.setdefault(page_number, []).append(([idx[k] for k in r.members], r.bbox))
    return out


def select(doc: ParsedDocument, *, with_pdf: bool) -> Recovery | None:
    """The record of what the later stages work on, or ``None`` when there is nothing to do."""
    targets = [i for i, b in enumerate(doc.blocks) if needs_grid(b)]
    checks = [i for i, b in enumerate(doc.blocks) if with_pdf and needs_check(b)]
    parts = [b.block_id for b in doc.blocks if with_pdf and needs_parts_check(b)]
    split = split_regions_by_page(doc.blocks) if with_pdf else {}
    if not targets and not checks and not split and not parts:
        return None
    return Recovery(doc, list(doc.blocks), targets, checks, split, _take_reader_warnings(doc, targets), parts=parts)


def _take_reader_warnings(doc: ParsedDocument, targets: list[int]) -> list[str]:
    """``doc.warnings`` without the reader's warnings about the target tables that have no grid (their
    outcome is decided here)."""
    tables = [doc.blocks[i] for i in targets if doc.blocks[i].kind is BlockKind.TABLE and doc.blocks[i].table is None]
    return [w for w in doc.warnings if not any(is_table_warning(w, b.page, b.block_id) for b in tables)]
