"""Grids for tables the parser left without cell structure, rebuilt from the PDF's text layer.

Parsers often find a table's *region* but not its cells: MinerU's flash tier gives borderless tables
as ``table`` blocks whose body is space-aligned text, or as ``image`` blocks whose text is one column
of it; Unstructured gives a ``Table`` without ``text_as_html``. When the PDF is at hand,
:func:`recover_table_grids` rebuilds rows and columns inside each such region from the PDF's text
layer (:mod:`structaware_readers.table_recovery.pdf_text_layer`, pdfplumber's table finder):

* a ``table`` block without a grid of at least 2 rows x 2 columns gets the rebuilt grid
  (``TableGrid.grid_source == "pdf_text_layer"``, each body row with its own page and bbox);
* an ``image`` block (MinerU ``source_type``) whose region holds a table of figures (at least
  :data:`MIN_IMAGE_DATA_ROWS` rows with a label and a number) becomes a ``table`` block;
* without the PDF (or where its text layer gives no grid), a MinerU ``table`` block's own space-aligned
  text is read as a grid (:mod:`structaware_readers.table_recovery.parser_text`,
  ``grid_source == "parser_text"``, rows without bboxes); flattened text (single spaces only, as
  Unstructured's ``Table.text``) never is;
* a table whose grid cannot be rebuilt keeps its text, which stays searchable as section text, and a
  warning naming its page and element is added to ``ParsedDocument.warnings`` (and logged); the
  document is never aborted for it. The reader's own warning about a table without cell markup
  (:func:`structaware_readers.tables.table_warning`) is replaced by the outcome here: dropped when
  the grid is rebuilt, replaced by this warning (logged once, not again) when it is not.

A table the parser did give cells, but whose header words the PDF's text layer does not hold (MinerU
cuts words of multi-line headers across cells), gets the text layer's grid when that keeps the body's
figures (:mod:`.markup_check`).

A table continued across pages whose grid (of either part) was rebuilt here is merged into one table
as the readers merge the parser's own continued tables (:mod:`.continued`).

Only pages holding such regions are opened, each page is cropped to the region, and pages are
released after use. A PDF whose page count differs from the document's is not the document's PDF:
it is ignored with a warning.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from structaware_readers.errors import (
    InputNotFoundError,
    MalformedInputError,
    MissingExtraError,
)
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery.continued import merge_continued_tables
from structaware_readers.table_recovery.grid_rules import is_data_row_cells
from structaware_readers.table_recovery.markup_check import check_markup, needs_check
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.tables import grid_to_text, is_table_warning, table_warning

log = logging.getLogger(__name__)

#: An image region becomes a table only when its grid has this many rows with a label and a figure.
MIN_IMAGE_DATA_ROWS = 3
#: An image region joins an earlier candidate region on the same rows (see :func:`_regions`).
BAND_OVERLAP = 0.6
BAND_GAP = 0.03

PdfSource = str | Path | bytes


def has_grid(grid: TableGrid | None) -> bool:
    """True when ``grid`` has at least 2 rows (header + body) and 2 columns."""
    return grid is not None and grid.n_cols >= 2 and len(grid.header_rows) + len(grid.body_rows) >= 2


def needs_grid(block: Block) -> bool:
    """A block whose region may hold a table the parser left without cells (see module docstring)."""
    if block.bbox is None or block.is_furniture:
        return False
    if block.kind is BlockKind.TABLE:
        return not has_grid(block.table)
    return block.kind is BlockKind.FIGURE and block.source_type == "image"


def recover_table_grids(doc: ParsedDocument, pdf: PdfSource | None = None) -> ParsedDocument:
    """Return ``doc`` with grids rebuilt for its ungridded table regions (see the module docstring).

    Args:
        doc: a parsed document (1-based pages, bboxes in 0..1 of the page, origin top-left).
        pdf: the document's PDF (a path, or its bytes); ``None``: only the parser's own space-aligned
            text is used (:mod:`.parser_text`).

    Returns:
        A copy of ``doc`` whose recovered blocks carry ``table`` grids (``grid_source`` ``"pdf_text_layer"``
        or ``"parser_text"``) and ``text`` = the grid's plain-text rendering; ``warnings`` extended with
        one entry per table that could not be read. ``doc`` itself when nothing needed recovery.

    Raises:
        InputNotFoundError: ``pdf`` is a path that does not exist.
        MalformedInputError: ``pdf`` cannot be opened as a PDF (names the file and field ``pdf``).
        MissingExtraError: pdfplumber is not installed (``pip install 'structaware[pdf]'``).
    """
    targets = [i for i, b in enumerate(doc.blocks) if needs_grid(b)]
    checks = [i for i, b in enumerate(doc.blocks) if pdf is not None and needs_check(b)]
    if not targets and not checks:
        return doc
    blocks = list(doc.blocks)
    warnings, warned = _take_reader_warnings(doc, targets)
    if pdf is None:
        for i in targets:
            if blocks[i].kind is BlockKind.TABLE:
                blocks[i] = _from_parser_text(blocks[i], None, warnings, warned)
        return _with_blocks(doc, blocks, targets, warnings)
    with _open_pdf(pdf) as plumber:
        if len(plumber.pages) != doc.page_count:
            msg = (
                f"{_label(pdf)} has {len(plumber.pages)} pages, the document {doc.page_count}: not its PDF;"
                " tables without cell structure are read from the parser's text only"
            )
            log.warning("%s: %s", doc.source, msg)
            return recover_table_grids(doc.model_copy(update={"warnings": [*doc.warnings, msg]}), None)
        by_page: dict[int, list[int]] = {}
        for i in targets:
            by_page.setdefault(blocks[i].page, []).append(i)
        checks_by_page: dict[int, list[int]] = {}
        for i in checks:
            checks_by_page.setdefault(blocks[i].page, []).append(i)
        for page_number in sorted({*by_page, *checks_by_page}):
            page = plumber.pages[page_number - 1]
            regions = _regions([blocks[i] for i in by_page.get(page_number, [])])
            try:
                for i, region in zip(by_page.get(page_number, []), regions, strict=True):
                    if region is not None:  # None: an image fragment read with the region it belongs to
                        blocks[i] = _recover_block(blocks[i], page, region, warnings, warned)
                for i in checks_by_page.get(page_number, []):
                    blocks[i] = _checked_block(blocks[i], page)
            finally:
                page.close()  # pdfplumber caches a page's objects until it is closed
    return _with_blocks(doc, blocks, targets, warnings)


def _checked_block(block: Block, page: Any) -> Block:
    """``block`` with the text layer's grid when its markup garbles the header (:mod:`.markup_check`)."""
    try:
        grid = check_markup(block, page)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})


def _with_blocks(doc: ParsedDocument, blocks: list[Block], targets: list[int], warnings: list[str]) -> ParsedDocument:
    """``doc`` with the recovered ``blocks`` (tables continued across pages merged, see
    :mod:`.continued`) and ``warnings``."""
    rebuilt = {blocks[i].block_id for i in targets if blocks[i].kind is BlockKind.TABLE and has_grid(blocks[i].table)}
    return doc.model_copy(update={"blocks": merge_continued_tables(blocks, rebuilt), "warnings": warnings})


def _take_reader_warnings(doc: ParsedDocument, targets: list[int]) -> tuple[list[str], set[str]]:
    """``doc.warnings`` without the reader's warnings about the target tables that have no grid (their
    outcome is decided here), and the ids of those tables (already warned about, so not logged again)."""
    tables = [doc.blocks[i] for i in targets if doc.blocks[i].kind is BlockKind.TABLE and doc.blocks[i].table is None]
    kept: list[str] = []
    warned: set[str] = set()
    for w in doc.warnings:
        about = next((b for b in tables if is_table_warning(w, b.page, b.block_id)), None)
        if about is None:
            kept.append(w)
        else:
            warned.add(about.block_id)
    return kept, warned


def _regions(blocks: list[Block]) -> list[BBox | None]:
    """The region to read for each candidate block of one page, in reading order.

    MinerU's flash tier sometimes cuts one borderless table into several ``image`` blocks on the same
    rows (the labels with some columns, the other columns apart). An image region on the rows of an
    earlier candidate region (vertical overlap >= :data:`BAND_OVERLAP` of the lower one, horizontal gap
    <= :data:`BAND_GAP` of the page width) joins that region and is not read on its own (``None``).
    """
    regions: list[BBox | None] = [b.bbox for b in blocks]
    for j, bj in enumerate(blocks):
        if bj.kind is not BlockKind.FIGURE or bj.bbox is None:
            continue
        for i in range(j):
            ri = regions[i]
            if ri is not None and _same_rows(ri, bj.bbox):
                regions[i] = (min(ri[0], bj.bbox[0]), min(ri[1], bj.bbox[1]), max(ri[2], bj.bbox[2]), max(ri[3], bj.bbox[3]))
                regions[j] = None
                break
    return regions


def _same_rows(a: BBox, b: BBox) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    gap = max(a[0], b[0]) - min(a[2], b[2])
    return overlap >= BAND_OVERLAP * min(a[3] - a[1], b[3] - b[1]) and gap <= BAND_GAP


def _recover_block(block: Block, page: Any, region: BBox, warnings: list[str], warned: set[str]) -> Block:
    try:
        grid = grid_from_region(page, region, page_number=block.page)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    if block.kind is BlockKind.TABLE:
        if has_grid(grid):
            return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})  # type: ignore[arg-type]
        return _from_parser_text(block, "the PDF text layer", warnings, warned)
    # an image region: a table only when its text layer holds labelled figures
    if grid is None or sum(1 for row in grid.body_rows if is_data_row_cells(row)) < MIN_IMAGE_DATA_ROWS:
        return block
    return block.model_copy(update={"kind": BlockKind.TABLE, "table": grid, "text": grid_to_text(grid)})


def _from_parser_text(block: Block, tried: str | None, warnings: list[str], warned: set[str]) -> Block:
    """The grid of the parser's space-aligned text, else the block unchanged and a warning (logged
    unless the reader already logged one about this table: ``warned``)."""
    grid = grid_from_aligned_text(block.text, page_number=block.page)
    if has_grid(grid):
        return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})  # type: ignore[arg-type]
    sources = f"{tried} or the parser's text" if tried else "the parser's text (no PDF given)"
    kept = "its text stays section text" if block.text.strip() else "it has no text to index"
    msg = table_warning(block.page, block.block_id, f"table has no cell structure and none could be rebuilt from {sources}; {kept}")
    (log.debug if block.block_id in warned else log.warning)(msg)
    warnings.append(msg)
    return block


def _label(pdf: PdfSource) -> str:
    return "the PDF" if isinstance(pdf, bytes) else str(pdf)


@contextmanager
def _open_pdf(pdf: PdfSource) -> Iterator[Any]:
    try:
        import pdfplumber
    except ImportError as exc:
        raise MissingExtraError("pdfplumber", "pdf", "Rebuilding table grids from the PDF", path=_label(pdf)) from exc

    if not isinstance(pdf, bytes):
        path = Path(pdf)
        if not path.is_file():
            raise InputNotFoundError("no such PDF file", path=path, field="pdf")
    try:
        handle = pdfplumber.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf)
    except Exception as exc:
        raise MalformedInputError(f"not a readable PDF: {exc}", path=_label(pdf), field="pdf") from exc
    try:
        yield handle
    finally:
        handle.close()


__all__ = ["MIN_IMAGE_DATA_ROWS", "has_grid", "needs_grid", "recover_table_grids"]
