"""The PDF's text layer where a loose table needs it: a statement block's lines, a data table's grid. Boxes are 0..1 of
the page, origin top-left.
"""

from __future__ import annotations

import logging
from typing import Any

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import BBox, Block, TableGrid
from structaware_readers.table_recovery.pdf_text_layer import grid_from_region
from structaware_readers.table_recovery.reading_direction import reading_text, region_words
from structaware_readers.table_recovery.shown_page import shown_page
from structaware_readers.table_recovery.split_regions import covered_share
from structaware_readers.table_recovery.stage1_select import has_grid
from structaware_readers.table_recovery.stage2_find_pdf import open_pdf, pdf_label
from structaware_readers.text.as_read import as_read

log = logging.getLogger(__name__)

PAD = 1.5
LINE_TOLERANCE = 3.0
#: A text-layer grid is kept when it holds at least this share of the region's block words.
MIN_COVERED = 0.85


class PageLines:
    """One pdfplumber page, read on demand."""

    def __init__(self, page: Any, page_number: int):
        self.page = page
        self.number = page_number
        x0, top, x1, bottom = (float(v) for v in page.bbox)
        self.origin = (x0, top)
        self.size = (x1 - x0, bottom - top)

    def statement_lines(self, block: Block) -> list[tuple[str, BBox]]:
        """The text lines inside ``block``'s box, top to bottom, as ``(text, bbox)``; [] when none."""
        if block.bbox is None:
            return []
        (ox, oy), (w, h) = self.origin, self.size
        x0, y0, x1, y1 = block.bbox
        region = (ox + x0 * w - PAD, oy + y0 * h - PAD, ox + x1 * w + PAD, oy + y1 * h + PAD)
        try:
            words = region_words(self.page.crop(region, strict=False), x_tolerance=3, y_tolerance=3)
        except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
            log.debug("page %d: text layer of %s cannot be read: %s", self.number, block.block_id, exc)
            return []
        lines: list[list[dict[str, Any]]] = []
        for word in sorted(
            (wd for wd in words if wd.get("upright", True)), key=lambda wd: (float(wd["top"]), float(wd["x0"]))
        ):
            if lines and abs(float(word["top"]) - float(lines[-1][0]["top"])) <= LINE_TOLERANCE:
                lines[-1].append(word)
            else:
                lines.append([word])
        out: list[tuple[str, BBox]] = []
        for line in lines:
            line.sort(key=lambda wd: float(wd["x0"]))
            box = (
                _unit((min(float(wd["x0"]) for wd in line) - ox) / w),
                _unit((min(float(wd["top"]) for wd in line) - oy) / h),
                _unit((max(float(wd["x1"]) for wd in line) - ox) / w),
                _unit((max(float(wd["bottom"]) for wd in line) - oy) / h),
            )
            out.append((self._line_text(line), box))
        return out

    def _line_text(self, line: list[dict[str, Any]]) -> str:
        """One line's text read with its small raised glyphs marked (``modifiers^e``), else its words."""
        region = (
            min(float(wd["x0"]) for wd in line) - 0.5,
            min(float(wd["top"]) for wd in line) - 0.5,
            max(float(wd["x1"]) for wd in line) + 0.5,
            max(float(wd["bottom"]) for wd in line) + 0.5,
        )
        try:
            text = reading_text(list(self.page.crop(region, strict=False).chars))
        except Exception:  # noqa: BLE001 - pdfminer raises many types on broken content streams
            text = ""
        return as_read(" ".join(text.split()) or " ".join(str(wd["text"]) for wd in line))


def _unit(v: float) -> float:
    return min(1.0, max(0.0, v))


def region_grid(lines: PageLines, bbox: BBox, page_number: int, words: str) -> TableGrid | None:
    """The text layer's grid of the region ``bbox`` when it holds the blocks' ``words``, else None."""
    try:
        grid = grid_from_region(lines.page, bbox, page_number=page_number)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of a loose table cannot be read: %s", page_number, exc)
        return None
    if grid is None or not has_grid(grid):
        return None
    return grid if covered_share(words, grid_words(grid)) >= MIN_COVERED else None


def grid_words(grid: TableGrid) -> str:
    """Every cell of ``grid`` (and its title) as one text, for word coverage checks."""
    return " ".join(c for row in [*grid.header_rows, *grid.body_rows] for c in row) + " " + grid.title


def held(grid: TableGrid, blocks: list[Block], members: list[int]) -> list[int]:
    """The members whose words ``grid`` holds (at least :data:`MIN_COVERED` of them): the others are
    left as blocks of their own, so that no printed word is lost."""
    words = grid_words(grid)
    return [i for i in members if covered_share(blocks[i].text, words) >= MIN_COVERED]


class TextLayer:
    """A PDF opened for the pass, one page at a time (the previous page released). Raises ``InputNotFoundError``."""

    def __init__(self, pdf: Any, page_count: int):
        self._cm = open_pdf(pdf)
        self._plumber = self._cm.__enter__()
        self._open: PageLines | None = None
        if len(self._plumber.pages) != page_count:
            self.close()
            raise MalformedInputError(
                f"{len(self._plumber.pages)} pages, the document {page_count}: not its PDF",
                path=pdf_label(pdf),
                field="pdf",
            )

    def page(self, number: int) -> PageLines:
        if self._open is not None and self._open.number != number:
            self._open.page.root_page.close()
        if self._open is None or self._open.number != number:
            self._open = PageLines(shown_page(self._plumber, number), number)
        return self._open

    def close(self) -> None:
        if self._open is not None:
            self._open.page.root_page.close()
            self._open = None
        self._cm.__exit__(None, None, None)


__all__ = ["PageLines", "TextLayer", "grid_words", "held", "region_grid"]
