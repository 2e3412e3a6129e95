"""The record the table-recovery stages share for one document (:class:`Recovery`): its blocks as the
stages change them, which blocks each stage works on, and what each decided.

What a stage decided is read here and on the blocks themselves: a rebuilt grid says where it came
from (``TableGrid.grid_source``: ``"pdf_text_layer"``, ``"parser_text"``); a table joined from
pieces lists the pieces' ids, boxes and pages in ``Block.extra_ids`` / ``extra_bboxes`` /
``extra_pages`` and the pieces are in :attr:`Recovery.absorbed`; a table left without a grid has a
warning in :attr:`Recovery.warnings`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from structaware_readers.models import BBox, Block, ParsedDocument
from structaware_readers.table_recovery.pdfium_text import PdfiumText

__all__ = ["PdfSource", "Recovery"]

#: The document's PDF: a path, or its bytes.
PdfSource = str | Path | bytes


@dataclass
class Recovery:
    """One document on its way through the stages (:mod:`structaware_readers.table_recovery`).

    Attributes:
        doc: the document as the reader gave it (never changed).
        blocks: its blocks in reading order, as the stages change them (indices below point here).
        targets: table regions without cells (stage 1), then also the tables joined from pieces
            (stage 3): the blocks whose grids were (to be) rebuilt.
        checks: tables with parser markup to check against the PDF's text layer (stage 1, read in stage 6).
        parts: ids of tables merged across pages to check part by part for stacked items (stage 1, 6).
        split: per 1-based page, the tables the parser split into pieces: the pieces' indices and the
            region to read (stage 1, read in stage 3).
        warnings: the document's warnings, without the reader's warnings about the target tables
            (stage 1: their outcome is decided here), plus one per table a stage could not read.
        warned: ids of the target tables the reader had warned about (their warning is not logged again).
        absorbed: pieces taken into another block (stage 3); removed when the stages are done.
        merged: blocks that took pieces in (stage 3).
        vocabulary: the document's own words (``stage6_markup_check.document_words`` of its blocks
            other than tables), read when markup is checked; ``None`` otherwise.
        text: the PDF's text runs as PDFium reads them (stage 6's quick look at a header), while
            the PDF is open and markup is checked; ``None`` otherwise.
    """

    doc: ParsedDocument
    blocks: list[Block]
    targets: list[int]
    checks: list[int] = field(default_factory=list)
    split: dict[int, list[tuple[list[int], BBox]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    warned: set[str] = field(default_factory=set)
    absorbed: set[int] = field(default_factory=set)
    merged: set[int] = field(default_factory=set)
    parts: list[str] = field(default_factory=list)
    vocabulary: Counter[str] | None = None
    text: PdfiumText | None = None

    def on_page(self, indices: list[int], page_number: int) -> list[int]:
        """The blocks of ``indices`` on ``page_number`` as the reader placed them, in order."""
        return [i for i in indices if self.doc.blocks[i].page == page_number]

    def pages(self) -> list[int]:
        """The 1-based pages a stage reads from the PDF, in order."""
        return sorted({*(self.doc.blocks[i].page for i in self.targets), *(self.doc.blocks[i].page for i in self.checks), *self.split})

    def taken(self, i: int) -> bool:
        """Block ``i`` was absorbed into another block or took pieces in (stage 3): later stages leave it."""
        return i in self.absorbed or i in self.merged

    def drop_absorbed(self) -> None:
        """Remove the absorbed pieces; :attr:`targets` then holds every rebuilt or joined table, re-indexed."""
        targets = sorted({*self.targets, *self.merged} - self.absorbed)
        self.blocks = [b for i, b in enumerate(self.blocks) if i not in self.absorbed]
        self.targets = [i - sum(1 for a in self.absorbed if a < i) for i in targets]
        self.absorbed, self.merged = set(), set()
