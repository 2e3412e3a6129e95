"""The record the table-recovery stages share for one document (:class:`Recovery`): its blocks as the stages change
them, which blocks each stage works on, and what each decided.
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
    """One document on its way through the stages (:mod:`structaware_readers.table_recovery`)."""

    doc: ParsedDocument
    blocks: list[Block]
    targets: list[int]
    checks: list[int] = field(default_factory=list)
    split: dict[int, list[tuple[list[int], BBox]]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
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
        return sorted(
            {
                *(self.doc.blocks[i].page for i in self.targets),
                *(self.doc.blocks[i].page for i in self.checks),
                *self.split,
            }
        )

    def taken(self, i: int) -> bool:
        """Block ``i`` was absorbed into another block or took pieces in (stage 3): later stages leave it."""
        return i in self.absorbed or i in self.merged

    def drop_absorbed(self) -> None:
        """Remove the absorbed pieces; :attr:`targets` then holds every rebuilt or joined table, re-indexed."""
        targets = sorted({*self.targets, *self.merged} - self.absorbed)
        self.blocks = [b for i, b in enumerate(self.blocks) if i not in self.absorbed]
        self.targets = [i - sum(1 for a in self.absorbed if a < i) for i in targets]
        self.absorbed, self.merged = set(), set()
