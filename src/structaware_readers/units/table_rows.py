"""``table_row`` units: one per body row of a table grid, or per line of a space-aligned text table.

Source: the reference paper, section 2.3 (row-level table units with their column headers); the
rules for group rows, split headers and text tables are in the package docstring.
"""

from __future__ import annotations

import re
from itertools import takewhile
from typing import TYPE_CHECKING

from structaware_readers import grades
from structaware_readers.models import BBox, Block, TableGrid, TableRowInfo, UnitType
from structaware_readers.units.common import NUMBER, title

if TYPE_CHECKING:
    from structaware_readers.units.builder import UnitBuilder


def emit_table(builder: UnitBuilder, block: Block) -> None:
    """One ``table_row`` unit per body row of ``block``'s grid (see the package docstring)."""
    grid = block.table
    if grid is None or not (grid.body_rows or grid.header_rows):
        if not (builder.options.text_table_rows and _emit_text_table(builder, block)):
            # a table the parser could not structure at all: keep its text in the section
            builder.on_text(block, "\n".join(t for t in (block.caption, block.text, block.footnote) if t))
        return
    builder.flush_section()
    grid = repair_header(grid)
    headers = grid.column_headers()
    rows = grid.body_rows or grid.header_rows
    caption = block.caption.strip()
    head = f"Table: {title(caption)}" if caption else "Table"
    base_context = " | ".join(s for s in (head, f"Columns: {'; '.join(headers)}", builder.section_context()) if s)
    group = ""
    for i, row in enumerate(rows):
        cells = [c.strip() for c in row]
        non_empty = [c for c in cells if c]
        if not non_empty:
            continue
        if len(cells) > 1 and len(set(non_empty)) == 1 and len(non_empty) == len(cells):
            group = non_empty[0]  # a full-width group row labels the rows below it
            continue
        if len(cells) > 2 and len(non_empty) == 1 and cells[0] and not NUMBER.search(cells[0]):
            group = cells[0]  # a label-only row ("Loans reported as trading assets:") heads a group
            continue
        pairs = [f"{h}: {c}" for h, c in zip(headers, cells) if c]
        text = ", ".join(pairs)
        context = f"{base_context} | Group: {group}" if group else base_context
        page = grid.body_row_pages[i] if i < len(grid.body_row_pages) else None
        builder.emit(
            UnitType.TABLE_ROW,
            text,
            context,
            [block],
            pages=[page] if page else None,
            refs=[_row_element(block, page)] if page else None,
            grade=grades.detect_grade(text),
            table=TableRowInfo(table_id=block.block_id, row_index=i, headers=headers, cells=cells, caption=caption),
            extra=f"row{i}",
        )


def _emit_text_table(builder: UnitBuilder, block: Block) -> bool:
    """Rows of a table the parser left as space-aligned text (MinerU flash on borderless tables).

    A line with a label and at least one number is a row: cells are split at runs of two or more
    spaces, the row text is ``label: value, value``; lines before the first row form the column
    header context; a label-only line after that heads a group. Returns False (nothing emitted)
    when fewer than two lines look like rows: the text then stays in its section.
    """
    lines = [line for line in block.text.splitlines() if line.strip()]
    parsed = [_text_row(line) for line in lines]
    if sum(1 for row in parsed if row is not None and _is_data_row(row)) < 2:
        return False
    builder.flush_section()
    caption = block.caption.strip()
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
        head = f"Table: {title(caption)}" if caption else "Table"
        columns = f"Columns: {' / '.join(header)}" if header else ""
        context = " | ".join(x for x in (head, columns, section, f"Group: {group}" if group else "") if x)
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


def repair_header(grid: TableGrid) -> TableGrid:
    """Move leading number-free body rows into the header of a mostly numeric table.

    Parsers often take only the first line of a two-line header (``"Three months ended"`` over
    ``"2022 | 2021"``); when most body rows carry numbers, leading rows with none are header rows.
    """
    body = grid.body_rows
    numeric = sum(1 for row in body if any(NUMBER.search(c) for c in row[1:]))
    if not grid.header_rows or len(body) < 3 or numeric < len(body) / 2:
        return grid
    k = 0
    while k < len(body) - 1 and not any(NUMBER.search(c) for c in body[k]):
        distinct = {c.strip() for c in body[k] if c.strip()}
        if len(distinct) < 2:  # a group label row or an empty row, not a header line
            break
        k += 1
    if k == 0:
        return grid
    pages = grid.body_row_pages[k:] if grid.body_row_pages else []
    return TableGrid(header_rows=grid.header_rows + body[:k], body_rows=body[k:], body_row_pages=pages)


def _row_element(block: Block, page: int) -> tuple[str, BBox | None, int]:
    """The element a table row sits in: the table itself, or the continuation part on ``page``."""
    if page != block.page and page in block.extra_pages:
        k = block.extra_pages.index(page)
        eid = block.extra_ids[k] if k < len(block.extra_ids) else block.block_id
        return eid, block.extra_bboxes[k] if k < len(block.extra_bboxes) else None, page
    return block.block_id, block.bbox, block.page
