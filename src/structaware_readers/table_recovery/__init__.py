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
figures and reads the document's own words at least as well as the parser's grid (:mod:`.markup_check`).

A table the parser split into pieces or partly missed (a ``table`` block with one block per number
below it, an ``image`` of figures with its row labels as paragraphs beside it, an ``equation`` region
whose text was dropped, two stacked ``table`` panels; :mod:`.split_regions`) is read from the PDF as
one region first, and becomes one ``table`` block when that grid holds the pieces' words: the pieces
are removed and their ids, boxes and pages kept in its ``extra_ids`` / ``extra_bboxes`` /
``extra_pages``; otherwise the pieces stay (with a warning when one of them was a ``table``).

A table the parser merged across pages whose rows may stack several items (a dose table's drugs,
:mod:`.stacked_rows`) is read from the text layer part by part, and takes that grid when it cuts them
into rows of their own and keeps the data (:func:`~.markup_check.check_parts`).

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
from structaware_readers.table_recovery.markup_check import (
    check_markup,
    check_parts,
    document_words,
    needs_check,
    needs_parts_check,
)
from structaware_readers.table_recovery.panels import split_panels
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.split_regions import (
    covered_share,
    find_split_regions,
    union_box,
)
from structaware_readers.tables import grid_to_text, is_table_warning, table_warning

log = logging.getLogger(__name__)

#: An image region becomes a table only when its grid has this many rows with a label and a figure.
MIN_IMAGE_DATA_ROWS = 3
#: An image region joins an earlier candidate region on the same rows (see :func:`_regions`).
BAND_OVERLAP = 0.6
BAND_GAP = 0.03
#: The grid of a table split into pieces must hold this share of the pieces' words (see ``_read_split_region``).
MIN_PIECES_COVERED = 0.9
#: ... and at least this share of each text piece's words (else the piece is left out, see ``_read_split_region``).
MIN_PIECE_COVERED = 0.65
OTHER_COLUMNS = "the table pieces have other columns"
_TEXT_PIECES = {BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.FOOTNOTE}

PdfSource = str | Path | bytes


def text_layer_reader() -> str | None:
    """The version of pdfplumber, the PDF text-layer reader, when it can be imported (grids are then
    rebuilt from a PDF given or found), else ``None`` (extra ``structaware[pdf]`` missing). Cheap: the
    module is found, not imported. Part of the ingest ledger's key (an install re-reads inputs)."""
    import importlib.util
    from importlib import metadata

    try:
        if importlib.util.find_spec("pdfplumber") is None:
            return None
    except (ImportError, ValueError):  # a broken or half-imported module
        return None
    try:
        return metadata.version("pdfplumber")
    except metadata.PackageNotFoundError:  # importable without distribution metadata (a source tree)
        return "unknown"


def has_grid(grid: TableGrid | None) -> bool:
    """True when ``grid`` has at least 2 rows (header + body) and 2 columns."""
    return grid is not None and grid.n_cols >= 2 and len(grid.header_rows) + len(grid.body_rows) >= 2


def needs_recovery(doc: ParsedDocument) -> bool:
    """True when ``doc`` has a table region without cells (:func:`needs_grid`) or a table split into
    pieces (:mod:`.split_regions`): :func:`recover_table_grids` may change it."""
    return any(needs_grid(b) for b in doc.blocks) or bool(_split_regions(doc.blocks))


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
    parts = [b.block_id for b in doc.blocks if pdf is not None and needs_parts_check(b)]
    split = _split_regions(doc.blocks) if pdf is not None else {}
    if not targets and not checks and not split and not parts:
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
        absorbed: set[int] = set()
        merged: set[int] = set()
        vocabulary = (
            document_words([b.text for b in doc.blocks if not b.is_furniture and b.kind is not BlockKind.TABLE])
            if checks or parts
            else None
        )
        for page_number in sorted({*by_page, *checks_by_page, *split}):
            page = plumber.pages[page_number - 1]
            try:
                for members, region in split.get(page_number, []):
                    read = _read_split_region(blocks, members, page, region, warnings, absorbed)
                    if read is not None:
                        joined, took = read
                        blocks[took[0]] = joined
                        absorbed.update(took[1:])
                        merged.add(took[0])
                rest = [i for i in by_page.get(page_number, []) if i not in absorbed and i not in merged]
                regions = _regions([blocks[i] for i in rest])
                for i, region in zip(rest, regions, strict=True):
                    if region is not None:  # None: an image fragment read with the region it belongs to
                        blocks[i] = _recover_block(blocks[i], page, region, warnings, warned)
                for i in checks_by_page.get(page_number, []):
                    if i not in absorbed and i not in merged:
                        blocks[i] = _checked_block(blocks[i], page, vocabulary)
            finally:
                page.close()  # pdfplumber caches a page's objects until it is closed
        for i, b in enumerate(blocks):
            if b.block_id in parts and i not in absorbed:
                blocks[i] = _checked_parts(b, plumber, vocabulary)
        targets = sorted({*targets, *merged} - absorbed)
        blocks = [b for i, b in enumerate(blocks) if i not in absorbed]
        targets = [i - sum(1 for a in absorbed if a < i) for i in targets]
    return _with_blocks(doc, blocks, targets, warnings)


def _checked_block(block: Block, page: Any, vocabulary: Any) -> Block:
    """``block`` with the text layer's grid when its markup garbles the header and the text layer reads
    the document's words as well (:mod:`.markup_check`)."""
    try:
        grid = check_markup(block, page, vocabulary)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})


def _checked_parts(block: Block, plumber: Any, vocabulary: Any) -> Block:
    """``block`` (a table merged across pages) with the text layer's grid, read part by part, when that
    cuts stacked items into rows of their own (:func:`~.markup_check.check_parts`)."""
    pages = [plumber.pages[p - 1] for p in (block.page, *block.extra_pages)]
    try:
        grid = check_parts(block, pages, vocabulary)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    finally:
        for page in pages:
            page.close()
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})


def _with_blocks(doc: ParsedDocument, blocks: list[Block], targets: list[int], warnings: list[str]) -> ParsedDocument:
    """``doc`` with the recovered ``blocks`` (tables continued across pages merged, see
    :mod:`.continued`) and ``warnings``."""
    rebuilt = {blocks[i].block_id for i in targets if blocks[i].kind is BlockKind.TABLE and has_grid(blocks[i].table)}
    return doc.model_copy(update={"blocks": merge_continued_tables(blocks, rebuilt), "warnings": warnings})


def _split_regions(blocks: list[Block]) -> dict[int, list[tuple[list[int], BBox]]]:
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


def _read_split_region(
    blocks: list[Block], members: list[int], page: Any, region: BBox, warnings: list[str], absorbed: set[int]
) -> tuple[Block, list[int]] | None:
    """The pieces ``members`` of one table (:mod:`.split_regions`) as one table block with the grid of
    ``region`` read from the PDF's text layer, and the members it took in; ``None`` (the pieces stay as
    they are) when it is not one table (see :func:`_split_grid`; a warning when a piece is a ``table``).

    A text piece whose words the grid does not hold (less than :data:`MIN_PIECE_COVERED` of them: a
    title above a ruled table, a sentence beside it) is left out and the region read again without it.
    The first ``table`` piece (else image, else the first piece) gives the block its id; the others'
    ids, boxes and pages go to ``extra_ids`` / ``extra_bboxes`` / ``extra_pages``, so the elements stay
    addressable."""
    first = blocks[members[0]]
    others_on_page = [
        b for i, b in enumerate(blocks)
        if b.page == first.page and i not in members and i not in absorbed and not b.is_furniture and b.text.strip()
    ]
    grid, why = _split_grid(page, [blocks[i] for i in members], region, others_on_page)
    if grid is not None:
        text = grid_to_text(grid)
        kept = [i for i in members if blocks[i].kind not in _TEXT_PIECES or covered_share(blocks[i].text, text) >= MIN_PIECE_COVERED]
        if len(kept) < len(members):
            members = kept
            pieces = [blocks[i] for i in members]
            region = union_box([b.bbox for b in pieces])  # type: ignore[misc]
            grid, why = _split_grid(page, pieces, region, others_on_page) if len(members) > 1 else (None, "one piece left")
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
    pieces) other columns than the pieces read alone. Panels of the grid under a header printed again
    for another date become band rows (:mod:`.panels`)."""
    if any(_inside(b.bbox, region) for b in others):
        return None, "another block lies inside"
    try:
        grid = grid_from_region(page, region, page_number=pieces[0].page)
        tables = [b for b in pieces if b.kind is BlockKind.TABLE]
        parts = [grid_from_region(page, b.bbox, page_number=b.page) for b in tables] if len(tables) > 1 else []
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        return None, f"the text layer cannot be read: {exc}"
    if grid is None or not has_grid(grid) or sum(1 for row in grid.body_rows if is_data_row_cells(row)) < 2:
        return None, "no grid with 2 labelled rows of figures"
    if covered_share("\n".join(b.text for b in pieces), grid_to_text(grid)) < MIN_PIECES_COVERED:
        return None, "its grid misses words of the pieces"
    if any(p is None or p.n_cols != grid.n_cols for p in parts):
        return None, OTHER_COLUMNS
    return split_panels(grid), ""


def _inside(box: BBox | None, region: BBox) -> bool:
    """The centre of ``box`` lies in ``region``."""
    if box is None:
        return False
    x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return region[0] <= x <= region[2] and region[1] <= y <= region[3]


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


__all__ = ["MIN_IMAGE_DATA_ROWS", "has_grid", "needs_grid", "needs_recovery", "recover_table_grids", "text_layer_reader"]
