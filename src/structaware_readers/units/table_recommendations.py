"""``recommendation`` units from a recommendation table whose grade lives in its columns.

ACC/AHA guidelines (and ESC, which copies the layout) print recommendations as a table: a class
column (``COR``/``Class``), a level column (``LOE``/``Level``) and a recommendation column, often with
rows that are not recommendations: a ``See Online Data Supplements`` row under the class and level
columns that repeats the recommendation's ``rowspan`` cells, and a full-width supporting-text row.

Rules:

* The table is a recommendation table when it has a class column, a level column and a column
  whose header names recommendations; other tables are left to :mod:`.table_rows`.
* A row whose class cell is an ACC/AHA class (``I``, ``IIa``, ``IIb``, ``III``, ``III: No Benefit``,
  ``III: Harm``, Arabic ``1``/``2a``/``2b``/``3`` too) and whose level cell is a level (``A``,
  ``B-R``, ``B-NR``, ``C-LD``, ``C-EO``, also plain ``B``/``C``) gives one ``recommendation`` unit:
  text = the recommendation cell, then any other column as ``Header: value`` lines; grade =
  :func:`structaware_readers.grades.grade_from_cells` on the class and level columns (``source =
  "table_column"``; the level keeps its suffix, ``B-NR``); it is a table member (``Unit.table``).
* A following row that repeats the recommendation cell (a ``rowspan`` carried down) is not a second
  unit: its own text (``See Online Data Supplements 3 and 4.``) goes to the recommendation's context.
* Full-width rows (supporting text) become ungraded ``table_row`` units whose context names the
  recommendation they support; group rows label the rows below them as in any table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from structaware_readers import grades
from structaware_readers.models import Grade, UnitType
from structaware_readers.units.common import title
from structaware_readers.units.table_view import RowKind, TableView, label, row_text

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext

_CLASS_HEADER = re.compile(r"(?i)^(?:COR|class(?:\s+of\s+recommendations?)?|recommendation\s+class)$")
_LEVEL_HEADER = re.compile(r"(?i)^(?:LOE|level(?:\s+of\s+evidence)?|evidence\s+level)$")
_REC_HEADER = re.compile(r"(?i)recommendations?")
_CLASS = re.compile(r"(?i)^(?:I{1,3}|IIa|IIb|1|2a|2b|3)(?:\s*[:(]\s*(?:no\s+benefit|harm)\)?)?$")
_LEVEL = re.compile(r"^(?:A|B-R|B-NR|C-LD|C-EO|B|C)$")


@dataclass
class _Rec:
    row: int
    text: str
    grade: Grade | None
    notes: list[str] = field(default_factory=list)


def emit_recommendation_table(builder: EmitContext, table: TableView) -> bool:
    """Emit the units of ``table`` when it is a recommendation table; False (nothing emitted) otherwise."""
    columns = _columns(table.headers)
    if columns is None:
        return False
    cls_col, lvl_col, rec_col = columns
    recs: list[_Rec] = []
    order: list[tuple[int, str, _Rec | None]] = []  # (row, group, the recommendation a note row follows)
    group = ""
    for i, kind in enumerate(table.kinds):
        cells = [c.strip() for c in table.rows[i]]
        if kind is RowKind.SKIP:
            continue
        if kind is RowKind.GROUP:
            group = label(cells)
            continue
        last = recs[-1] if recs else None
        if kind is RowKind.DATA and _CLASS.match(cells[cls_col]) and _LEVEL.match(cells[lvl_col]) and cells[rec_col]:
            others = [f"{h}: {c}" for j, (h, c) in enumerate(zip(table.headers, cells)) if h and c and j not in columns]
            text = "\n".join([cells[rec_col], *others])
            grade = grades.grade_from_cells([table.headers[cls_col], table.headers[lvl_col]], [cells[cls_col], cells[lvl_col]])
            recs.append(_Rec(i, text, grade))
            order.append((i, group, recs[-1]))
        elif kind is RowKind.DATA and last is not None and cells[rec_col] == table.rows[last.row][rec_col].strip():
            # the recommendation's rowspan carried down: this row only adds a note under other columns
            carried = set(table.rows[last.row])
            last.notes += [c for c in dict.fromkeys(cells) if c and c not in carried and c not in last.notes]
        else:
            order.append((i, group, last))  # supporting text, or a row that is no recommendation
    if not recs:
        return False
    for i, group, rec in order:
        if rec is not None and rec.row == i:
            table.emit_row(
                builder,
                i,
                UnitType.RECOMMENDATION,
                rec.text,
                group=group,
                grade=rec.grade,
                extra_context=" | ".join(f"Note: {n}" for n in rec.notes),
            )
        else:
            about = f"Supporting text of: {title(rec.text.splitlines()[0])}" if rec else ""
            cells = table.rows[i]
            text = label(cells) if table.kinds[i] is RowKind.NOTE else row_text(table.headers, cells)
            table.emit_row(builder, i, UnitType.TABLE_ROW, text, group=group, extra_context=about)
    return True


def _columns(headers: list[str]) -> tuple[int, int, int] | None:
    """``(class column, level column, recommendation column)`` or None."""
    cls_col = next((j for j, h in enumerate(headers) if _CLASS_HEADER.match(h.strip())), None)
    lvl_col = next((j for j, h in enumerate(headers) if _LEVEL_HEADER.match(h.strip())), None)
    rec_col = next(
        (j for j, h in enumerate(headers) if j not in (cls_col, lvl_col) and _REC_HEADER.search(h)), None
    )
    if cls_col is None or lvl_col is None or rec_col is None:
        return None
    return cls_col, lvl_col, rec_col


__all__ = ["emit_recommendation_table"]
