"""Table cells merged across columns: a parser gives such a cell once per column it spans (a prescribing
summary's key-points paragraph printed over the medicine, dose and length columns comes back four times).
A row's text (``units.table_view.row_text``) and a table group's row line (``search.results.row_line``) give it once.
"""

from __future__ import annotations

__all__ = ["MERGED_CELL_CHARS", "merged_once"]

#: A cell longer than this (characters) that repeats the last filled cell left of it is one cell merged across
#: those columns; shorter equal cells are values of their own (two doses of ``500 mg``, two years' ``0``).
MERGED_CELL_CHARS = 80


def merged_once(cells: list[str]) -> list[str]:
    """``cells`` stripped, each repeat of a merged cell (:data:`MERGED_CELL_CHARS`) left empty, so the columns
    stay in place."""
    out: list[str] = []
    last = ""
    for cell in (c.strip() for c in cells):
        if cell and len(cell) > MERGED_CELL_CHARS and cell == last:
            cell = ""
        last = cell or last
        out.append(cell)
    return out
