"""Stage 6: a parser's table markup checked against the PDF's text layer, and replaced when it garbles words.

MinerU's table recognition reads a table's cells from the page image; on dense financial tables it
often cuts the words of a multi-line column header across cells (``June 30, Dec2022 | ember 31,
2021``, ``Three mon | ths ended Jun | e 30,``), or takes the first data row for the header and drops
the real one, while the figures of the body are right. Such a header breaks every row's ``header:
value`` text. When the PDF is at hand, the words of each header cell of a parser-markup grid
(``grid_source == "parser_html"``) are looked up among the words of the table's region in the PDF's
text layer; when fewer than :data:`MIN_HEADER_WORDS_FOUND` of them are there, or when a header row is
a data row (a label and figures), the region's grid is rebuilt from the text layer
(:func:`~structaware_readers.table_recovery.pdf_text_layer.grid_from_region`) and used instead,
but only if it keeps the body's figures (at least :data:`MIN_FIGURES_KEPT` of them, counted with
repeats) and loses no body row: a rebuild that drops data stays unused and the parser's grid is kept.

A table merged across pages (``Block.extra_ids``) is left as it is: one region cannot rebuild it.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

from structaware_readers.models import Block, TableGrid
from structaware_readers.table_recovery.grid_rules import is_data_row_cells
from structaware_readers.table_recovery.pdf_text_layer import PAD, grid_from_region
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.tables import grid_to_text

__all__ = ["MIN_FIGURES_KEPT", "MIN_HEADER_WORDS_FOUND", "check_markup", "check_parser_markup"]

log = logging.getLogger(__name__)

#: A header whose words are found in the PDF region at this share or more is right as it is.
MIN_HEADER_WORDS_FOUND = 0.9
#: The rebuilt grid must keep at least this share of the parser body's figures.
MIN_FIGURES_KEPT = 0.95

_WORD = re.compile(r"[A-Za-z]{3,}")
_FIGURE = re.compile(r"\d[\d,.]*")


def check_parser_markup(rec: Recovery, page_number: int, page: Any) -> None:
    """Check the parser-markup tables of ``page_number`` (stage 1's ``checks``; ``page``: its
    ``pdfplumber.page.Page``) and give each whose header garbles words the text layer's grid."""
    for i in rec.on_page(rec.checks, page_number):
        if not rec.taken(i):
            rec.blocks[i] = _checked_block(rec.blocks[i], page)


def check_markup(block: Block, page: Any) -> TableGrid | None:
    """The text layer's grid of ``block``'s region when the parser's header garbles words (module
    docstring), else ``None`` (keep the parser's grid).

    Args:
        block: a table block for which :func:`~.stage1_select.needs_check` holds.
        page: its ``pdfplumber.page.Page``.
    """
    grid = block.table
    assert grid is not None and block.bbox is not None
    header_words = [w.lower() for row in grid.header_rows for cell in row for w in _WORD.findall(cell)]
    if not any(is_data_row_cells(row) for row in grid.header_rows):
        if not header_words:
            return None
        pdf_words = _region_words(page, block.bbox)
        if not pdf_words:
            return None
        if sum(1 for w in header_words if w in pdf_words) >= MIN_HEADER_WORDS_FOUND * len(header_words):
            return None
    rebuilt = grid_from_region(page, block.bbox, page_number=block.page)
    if rebuilt is None or rebuilt.n_cols < 2 or len(rebuilt.body_rows) < len(grid.body_rows):
        return None
    if any(is_data_row_cells(row) for row in rebuilt.header_rows):
        return None
    before = _figures([row for row in grid.header_rows if is_data_row_cells(row)] + grid.body_rows)
    after = _figures([*rebuilt.header_rows, *rebuilt.body_rows])
    kept = sum(min(n, after[f]) for f, n in before.items())
    if before and kept < MIN_FIGURES_KEPT * sum(before.values()):
        return None
    return rebuilt


def _region_words(page: Any, bbox: tuple[float, float, float, float]) -> set[str]:
    px0, ptop, px1, pbottom = (float(v) for v in page.bbox)
    width, height = px1 - px0, pbottom - ptop
    region = (
        max(px0, px0 + bbox[0] * width - PAD),
        max(ptop, ptop + bbox[1] * height - PAD),
        min(px1, px0 + bbox[2] * width + PAD),
        min(pbottom, ptop + bbox[3] * height + PAD),
    )
    if region[2] - region[0] < 1 or region[3] - region[1] < 1:
        return set()
    words = page.crop(region, strict=False).extract_words(x_tolerance=3, y_tolerance=3)
    return {w.lower() for word in words for w in _WORD.findall(word["text"])}


def _figures(rows: list[list[str]]) -> Counter[str]:
    return Counter(f.rstrip(".,") for row in rows for cell in row for f in _FIGURE.findall(cell))


def _checked_block(block: Block, page: Any) -> Block:
    """``block`` with the text layer's grid when its markup garbles the header (see the module docstring)."""
    try:
        grid = check_markup(block, page)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})
