"""A run of text a table's pages print, as the passes that box rows and merged cells read it.

Its own module so that :mod:`.merged_cells` and the passes it calls (:mod:`.whole_cell_lines`) share the type
without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TextLine"]


@dataclass
class TextLine:
    """A run of text on the page: its words (see ``words``) and its box (0..1 of the page, top-left)."""

    words: list[str]
    x0: float
    y0: float
    x1: float
    y1: float
