"""A table block's grid read once for unit building: row kinds, column headers, row text, the context its units share,
footnotes by marker, and one unit per row pointing at the row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from structaware_readers.common.column_spans import MERGED_CELL_CHARS
from structaware_readers.models import BBox, Block, Grade, TableGrid, TableRowInfo, UnitType
from structaware_readers.tables.footnotes import cell_legends, cell_markers, split_footnotes
from structaware_readers.units.common import NUMBER, title
from structaware_readers.units.header_restarts import header_restarts
from structaware_readers.units.row_pieces import own_pieces, unsaid_cell_boxes

if TYPE_CHECKING:
    from structaware_readers.grades.document import DocumentGrading
    from structaware_readers.units.context import EmitContext


class RowKind(str, Enum):
    """What a body row is: ``data`` (a unit), ``group`` (a label for the rows below it: a short
    full-width row, or a first-cell-only band row in a table of three or more columns), ``note`` (a
    long full-width row, e.g. supporting text, or a label with no data row below it: a unit of its
    own, ungraded) or ``skip`` (empty, a repeat of the row above, or the column header printed again,
    as a table continued on the next page prints it)."""

    DATA = "data"
    GROUP = "group"
    NOTE = "note"
    SKIP = "skip"


#: A full-width row longer than this (characters), or holding a sentence, is a note, not a group label.
MAX_GROUP_LABEL = 80


def classify_rows(rows: list[list[str]], header_rows: list[list[str]] | None = None) -> list[RowKind]:
    """One :class:`RowKind` per body row (see its docstring); ``header_rows``: the table's column header."""
    kinds: list[RowKind] = []
    prev: list[str] | None = None
    for row in rows:
        cells = [c.strip() for c in row]
        non_empty = [c for c in cells if c]
        if not non_empty or cells == prev or repeats_header(cells, header_rows or []):
            kinds.append(RowKind.SKIP)
            continue
        prev = cells
        if len(cells) > 1 and len(set(non_empty)) == 1 and len(non_empty) == len(cells):
            label = non_empty[0]
            long = len(label) > MAX_GROUP_LABEL or (len(label.split()) >= 6 and label.endswith("."))
            kinds.append(RowKind.NOTE if long else RowKind.GROUP)
        elif len(cells) > 2 and len(non_empty) == 1 and cells[0] and not NUMBER.search(cells[0]):
            kinds.append(RowKind.GROUP)  # a band row ("Stage III", "Loans reported as trading assets:")
        else:
            kinds.append(RowKind.DATA)
    # a label with no data row below it (before the next label) labels nothing: it is a note
    for i, kind in enumerate(kinds):
        if kind is RowKind.GROUP:
            nxt = next((k for k in kinds[i + 1 :] if k is not RowKind.SKIP), None)
            if nxt is not RowKind.DATA:
                kinds[i] = RowKind.NOTE
    return kinds


def repeats_header(cells: list[str], header_rows: list[list[str]]) -> bool:
    """True when the body row ``cells`` is the column header printed again: two or more distinct
    texts, each one of its own column's header texts (any header line), and no other text. A table
    continued over pages prints its header on each page; as a row it would read ``Dose: Dose``."""
    norm = lambda c: " ".join(c.split()).casefold()
    said = [(i, norm(c)) for i, c in enumerate(cells) if c.strip()]
    if len({c for _, c in said}) < 2:
        return False
    return all(any(i < len(h) and norm(h[i]) == c for h in header_rows) for i, c in said)


#: A cell that is only a currency or percent sign: a column of its own in PDF-rebuilt grids
#: (``$ | 584,265``); it is written with the value next to it, never as a value of its own.
_SIGN_CELL = re.compile(r"^[$€£¥%]$")


def row_text(headers: list[str], cells: list[str]) -> str:
    """``Header: value; Header: value`` for one row; empty cells are left out."""
    pieces: list[tuple[str, list[str]]] = []
    prev: tuple[str, str] | None = None
    sign = ""
    for header, cell in zip(headers, cells):
        cell = cell.strip()
        if _SIGN_CELL.match(cell):
            if cell == "%" and pieces and not pieces[-1][1][-1].endswith("%"):
                pieces[-1][1][-1] += "%"
            elif cell != "%":
                sign = cell
            continue
        if sign and cell:
            cell, sign = (cell if cell.startswith(sign) else f"{sign}{cell}"), ""
        if not cell or (header, cell) == prev or (prev and len(cell) > MERGED_CELL_CHARS and cell == prev[1]):
            continue  # empty, or a merged cell repeated across columns
        prev = (header, cell)
        if header and pieces and pieces[-1][0] == header:
            pieces[-1][1].append(cell)
        else:
            pieces.append((header, [cell]))
    return "; ".join(f"{h}: {', '.join(vs)}" if h else ", ".join(vs) for h, vs in pieces)


def label(cells: list[str]) -> str:
    """The one text of a label or note row (its first non-empty cell)."""
    return next(c.strip() for c in cells if c.strip())


#: Column headers that name a grade column; its cells are read as grades with the header as their label.
GRADE_HEADER = re.compile(
    r"(?i)^(?:grade|category|class|COR|LOE|level|strength|evidence|rating|推荐|证据)"
    r"|\b(?:grade|category|class|level of evidence|strength of recommendation)\b|推荐|证据"
)


#: A cell longer than this (characters) is not read alone as a grade cell of a table without headers.
MAX_GRADE_CELL = 60


@dataclass
class TableView:
    """A table block's grid read once for unit building: body rows, their kinds, column headers,
    the context shared by its units and the footnotes keyed by marker; ``restarts``: per body row where a
    new block of columns starts (a header line printed again with other text, :mod:`.header_restarts`),
    the column headers and shared context of the rows from there on."""

    block: Block
    grid: TableGrid
    rows: list[list[str]]
    kinds: list[RowKind]
    headers: list[str]
    caption: str
    base_context: str
    notes: dict[str, str]
    general_note: str
    legends: dict[str, str] = field(default_factory=dict)
    restarts: dict[int, tuple[list[str], str]] = field(default_factory=dict)

    @classmethod
    def of(cls, builder: EmitContext, block: Block, grid: TableGrid) -> TableView:
        rows = grid.body_rows or grid.header_rows
        n_cols = grid.n_cols
        headers = grid.column_headers() if grid.header_rows and grid.body_rows else [""] * n_cols
        caption = block.caption.strip()
        lead = "" if caption or grid.title.strip() else builder.lead_in(block)
        titles = [t for t in (title(caption) if caption else "", grid.title.strip(), title(lead) if lead else "") if t]
        if len(titles) == 2 and titles[1].casefold() in titles[0].casefold():
            titles = titles[:1]
        head = f"Table: {' > '.join(titles)}" if titles else "Table"
        notes, general = split_footnotes(block.footnote, cell_markers([c for r in rows for c in r]))
        legends = cell_legends(block.footnote, [c for r in rows for c in r[1:]]) if block.footnote else {}
        # a symbol in every row tells rows apart no more than the general note does
        legends = {k: v for k, v in legends.items() if not all(k in (c.strip() for c in r) for r in rows)}
        section = builder.section_context()

        def shared(hs: list[str]) -> str:
            return " | ".join(s for s in (builder.document, head, _columns(hs), section) if s)

        kinds = classify_rows(rows, grid.header_rows if grid.body_rows else None)
        restarts: dict[int, tuple[list[str], str]] = {}
        for i, (n, header_rows) in header_restarts(rows, grid.header_rows if grid.body_rows else []).items():
            kinds[i : i + n] = [RowKind.SKIP] * n  # header lines, not rows
            new = TableGrid(header_rows=header_rows, body_rows=rows[:1]).column_headers()
            restarts[i] = (new, shared(new))
        return cls(block, grid, rows, kinds, headers, caption, shared(headers), notes, general, legends, restarts)

    def _part(self, i: int | None) -> tuple[list[str], str]:
        """The column headers and shared context of body row ``i`` (its block of columns)."""
        start = max((k for k in self.restarts if i is not None and k <= i), default=None)
        return self.restarts[start] if start is not None else (self.headers, self.base_context)

    def headers_at(self, i: int) -> list[str]:
        """The column headers of body row ``i``: the table's, or those of the block of columns it is in."""
        return self._part(i)[0]

    def context(self, cells: list[str], group: str = "", i: int | None = None) -> str:
        """The shared context (of body row ``i``'s block of columns), the row's group label, the notes its
        markers point at, the general note."""
        parts = [self._part(i)[1]]
        if group:
            parts.append(f"Group: {group}")
        for marker in cell_markers(cells):
            if marker in self.notes:
                parts.append(f"Note {marker}: {self.notes[marker]}")
        general = title(self.general_note) if self.general_note else ""
        for key in dict.fromkeys(c.strip() for c in cells[1:]):
            if key in self.legends and self.legends[key] not in general:
                parts.append(f"Note {key}: {self.legends[key]}")
        if general:
            parts.append(f"Note: {general}")
        return " | ".join(parts)

    def grade(self, cells: list[str], text: str, grading: DocumentGrading, i: int | None = None) -> Grade | None:
        """The row's grade: from its grade columns (header + value; ``source="table_column"``), else, in a
        table without column headers, from the last short cell that is a grade by itself (``Grade B``,
        ``I statement``), else from its text; a grade that is ambiguous outside a guideline
        (``Level 2`` in a fair-value table) counts only in one."""
        headers = self._part(i)[0]
        in_columns = "; ".join(
            f"{h}: {c.strip()}" for h, c in zip(headers, cells) if h and c.strip() and GRADE_HEADER.search(h)
        )
        graded = grading.grade(in_columns, source="table_column") if in_columns else None
        if graded is None and not any(headers):
            for cell in reversed(cells):
                if cell.strip() and len(cell) <= MAX_GRADE_CELL:
                    graded = grading.grade(cell, source="table_column")
                    if graded is not None:
                        break
        return graded or grading.grade(text)

    def emit_row(
        self,
        builder: EmitContext,
        i: int,
        unit_type: UnitType,
        text: str,
        *,
        group: str = "",
        grade: Grade | None = None,
        extra_context: str = "",
        cells: list[str] | None = None,
        extra: str = "",
    ) -> None:
        """Emit one unit for body row ``i``, pointing at the row's page and bbox when the grid has them.

        ``cells`` replaces the row's cells in the unit's table metadata (a row whose spanning cell
        is said elsewhere); ``extra`` tells a further unit of the same row apart in its id."""
        cells = self.rows[i] if cells is None else cells
        grid = self.grid
        page = grid.body_row_pages[i] if i < len(grid.body_row_pages) else None
        context = self.context(cells, group, i)
        if extra_context:
            context = f"{context} | {extra_context}"
        ref = _row_element(self.block, page) if page else None
        merged = []
        if ref is not None and i < len(grid.body_row_bboxes) and grid.body_row_bboxes[i] is not None:
            # the row's own box, not the whole table's, without the columns of cells said in another unit
            own, *rest = own_pieces(grid.body_row_bboxes[i], unsaid_cell_boxes(grid, i, cells, ref[2]))
            ref = (ref[0], own, ref[2])
            merged = [(ref[0], box, ref[2]) for box in rest]
            if len(grid.body_row_cell_bboxes) == len(grid.body_rows):  # the merged cells it shows, printed apart
                said = {" ".join(c.split()) for c in cells if c.strip()}  # a cell spanning columns: said in any
                for col, p, box in grid.body_row_cell_bboxes[i]:  # a cell spanning columns too: its box once
                    more = (_row_element(self.block, p)[0], box, p)
                    shown = col < len(cells) and cells[col].strip()
                    if (shown or _said(grid.body_rows[i], col, said)) and more not in merged:
                        merged.append(more)
        builder.emit(
            unit_type,
            text,
            context,
            [self.block],
            pages=sorted({page, *(p for _, _, p in merged)}) if page else None,
            refs=[ref] if ref else None,
            more_refs=merged,
            grade=grade,
            table=TableRowInfo(
                table_id=self.block.block_id, row_index=i, headers=self.headers_at(i), cells=cells, caption=self.caption
            ),
            extra=extra or f"row{i}",
        )


def _columns(headers: list[str]) -> str:
    """``Columns: a; b`` for the shared context: each header once where it spans adjacent columns."""
    named = [h for i, h in enumerate(headers) if h and (i == 0 or headers[i - 1] != h)]
    return f"Columns: {'; '.join(named)}" if named else ""


def _said(row: list[str], col: int, said: set[str]) -> bool:
    """The row's cell of column ``col`` is one of the texts ``said`` (a unit's cells) in another column."""
    return col < len(row) and bool(row[col].strip()) and " ".join(row[col].split()) in said


def _row_element(block: Block, page: int) -> tuple[str, BBox | None, int]:
    """The element a table row sits in: the table itself, or the continuation part on ``page``."""
    if page != block.page and page in block.extra_pages:
        k = block.extra_pages.index(page)
        eid = block.extra_ids[k] if k < len(block.extra_ids) else block.block_id
        return eid, block.extra_bboxes[k] if k < len(block.extra_bboxes) else None, page
    return block.block_id, block.bbox, block.page
