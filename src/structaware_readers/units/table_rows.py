"""``table_row`` units: one per body row of a table grid, or per line of a space-aligned text table.

Source: the reference paper, section 2.3 (row-level table units with their column headers); the
rules for group rows, split headers and text tables are in the package docstring.
"""

from __future__ import annotations

import re
from itertools import takewhile
from typing import TYPE_CHECKING

from structaware_readers.models import Block, TableRowInfo, UnitType
from structaware_readers.tables.header_trim import repair_header, trim_header
from structaware_readers.units.boxed_text import box_text, emit_box
from structaware_readers.units.common import NUMBER, title
from structaware_readers.units.spanning_cells import long_spans, span_cells, without_spans
from structaware_readers.units.table_recommendations import emit_recommendation_table
from structaware_readers.units.table_view import RowKind, TableView, label, row_text
from structaware_readers.units.tier_tables import emit_tier_table

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext


def emit_table(builder: EmitContext, block: Block) -> None:
    """Units of a table block: recommendation units for a recommendation table
    (:mod:`.table_recommendations`), else one ``table_row`` unit per body row (package docstring),
    and one per long cell spanning several rows (:mod:`.spanning_cells`)."""
    grid = block.table
    if grid is None or not (grid.body_rows or grid.header_rows):
        if not (builder.options.text_table_rows and _emit_text_table(builder, block)):
            # a table the parser could not structure at all: its text is one section unit of its own
            _emit_table_text(builder, block, block.text)
        return
    builder.flush_section()
    if box := box_text(block, grid):
        # boxed text (a sidebar) read as a one-column table: a section of its own (:mod:`.boxed_text`),
        # its footnote included
        heading, text = box
        emit_box(builder, block, heading, "\n".join(t for t in (text, block.footnote.strip()) if t))
        return
    grid = trim_header(repair_header(grid))
    table = TableView.of(builder, block, grid)
    if grid.text_outside_grid:
        # the markup missed part of the table: its whole text stays searchable as a unit of its own
        _emit_table_text(builder, block, grid.text_outside_grid)
    if not (emit_recommendation_table(builder, table) or emit_tier_table(builder, table)):
        _emit_rows(builder, table)
    _emit_long_footnote(builder, table)


def _emit_long_footnote(builder: EmitContext, table: TableView) -> None:
    """The table's footnote as printed, as a section unit after its rows, when row contexts carry only
    the first sentence of its general note (:func:`.common.title`): what the rest says stays searchable."""
    general = " ".join(table.general_note.split())
    if general and title(general) != general:
        builder.emit(
            UnitType.SECTION, table.block.footnote.strip(), table.base_context, [table.block], extra="footnote"
        )


def _emit_rows(builder: EmitContext, table: TableView) -> None:
    """One ``table_row`` unit per body row (group rows label the rows below them, note rows are
    ungraded) and one per long cell spanning several rows."""
    group, labelled = "", False  # labelled: a row of figures was read under the current group label
    spans = long_spans(table.rows, table.kinds)
    for i, kind in enumerate(table.kinds):
        cells = table.rows[i]
        if i in table.restarts and labelled:
            # a new block of columns: the labels of the block above end; a label printed just above the
            # restart, with no row of figures between, is the new block's own title (a stacked table's
            # caption over its units line)
            group = ""
        if kind is RowKind.SKIP:
            continue
        if kind is RowKind.GROUP:
            group, labelled = label(cells), False
            continue
        labelled = labelled or any(NUMBER.search(c) for c in cells[1:])
        if kind is RowKind.NOTE:
            text = label(cells)
            grade = None  # a note row (supporting text, a trailing label) is never graded
        else:
            for span in (s for s in spans if s.rows[0] == i):  # a long spanning cell, said once
                own = span_cells(cells, span)
                table.emit_row(
                    builder,
                    i,
                    UnitType.TABLE_ROW,
                    row_text(table.headers_at(i), own),
                    group=group,
                    cells=own,
                    extra=f"span{i}c{span.col}",
                )
            cells = without_spans(cells, i, spans)
            text = row_text(table.headers_at(i), cells)
            grade = table.grade(cells, text, builder.grading, i)
        table.emit_row(builder, i, UnitType.TABLE_ROW, text, group=group, grade=grade, cells=cells)


def _emit_table_text(builder: EmitContext, block: Block, text: str) -> None:
    """The text of a table without a (complete) grid as one section unit: caption (unless it is the
    heading just above, already the unit's context), text, footnote."""
    caption = block.caption.strip()
    if caption and caption in builder.section_path[-1:]:
        caption = ""
    builder.flush_section()
    builder.on_text(block, "\n".join(t for t in (caption, text, block.footnote) if t))
    builder.flush_section()


def _emit_text_table(builder: EmitContext, block: Block) -> bool:
    """Rows of a table the parser left as space-aligned text (MinerU flash on borderless tables)."""
    lines = [line for line in block.text.splitlines() if line.strip()]
    parsed = [_text_row(line) for line in lines]
    if sum(1 for row in parsed if row is not None and _is_data_row(row)) < 2:
        return False
    builder.flush_section()
    caption = block.caption.strip() or builder.lead_in(block)
    head = f"Table: {title(caption)}" if caption else "Table"
    header: list[str] = []
    group = ""
    section = builder.section_context()
    seen_data = False
    pending: list[str] = []  # number-free lines since the last row
    for i, (line, row) in enumerate(zip(lines, parsed)):
        if row is None or not _is_data_row(row):
            text = " ".join(line.split())
            if seen_data and row is not None:
                header, group, pending = [text], "", []  # a new header line starts a new block of columns
            else:
                pending.append(text)
            continue
        label, values = row
        # a label wrapped over several lines: "Nonaccrual loans" / "retained(a)  $ 842  $ 689"
        while pending and (label[:1].islower() or label[:1] == "(" or pending[-1].endswith(("-", "/"))):
            prefix = pending.pop()
            label = f"{prefix}{'' if prefix.endswith('-') else ' '}{label}"
        if not seen_data:
            header = header + pending  # column header lines ("Three months ended June 30,", "2022 2021")
        elif pending:
            group = pending[-1]  # a label-only line heads the rows below it
        pending = []
        seen_data = True
        columns = f"Columns: {' / '.join(header)}" if header else ""
        context = " | ".join(
            x for x in (builder.document, head, columns, section, f"Group: {group}" if group else "") if x
        )
        builder.emit(
            UnitType.TABLE_ROW,
            f"{label}: {', '.join(values)}" if label else ", ".join(values),
            context,
            [block],
            table=TableRowInfo(
                table_id=block.block_id, row_index=i, headers=header, cells=[label, *values], caption=caption
            ),
            extra=f"line{i}",
        )
    if footnote := block.footnote.strip():
        # no row context carries it: the footnote as printed, after the rows
        context = " | ".join(x for x in (builder.document, head, section) if x)
        builder.emit(UnitType.SECTION, footnote, context, [block], extra="footnote")
    return True


_CELL_SPLIT = re.compile(r"\s{2,}|\t")
_CURRENCY = {"$", "€", "£", "¥", "%", "¢"}


def _text_row(line: str) -> tuple[str, list[str]] | None:
    """``(label, values)`` for a space-aligned table line with at least one number, else None."""
    cells = [c.strip() for c in _CELL_SPLIT.split(line.strip()) if c.strip()]
    merged: list[str] = []
    for cell in cells:  # "$   8,649" -> "$8,649"
        if merged and merged[-1] in _CURRENCY:
            merged[-1] = merged[-1] + cell
        else:
            merged.append(cell)
    if not any(NUMBER.search(c) for c in merged):
        return None
    label_cells = list(takewhile(lambda c: not NUMBER.search(c), merged))
    return " ".join(label_cells), merged[len(label_cells) :]


_YEAR = re.compile(r"(?:19|20)\d\d")


def _is_data_row(row: tuple[str, list[str]]) -> bool:
    """A labelled line with a value that is not a bare year (year-only lines are column headers)."""
    label, values = row
    return bool(label) and any(not _YEAR.fullmatch(v.strip("()$% ,")) for v in values)
