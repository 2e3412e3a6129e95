"""``recommendation`` units from a recommendation table whose grade lives in its columns.

Two layouts, told apart by the header: class / level (ACC/AHA, ESC, ``推荐等级 | 证据等级``) and strength /
category (GRADE). A table qualifies when it has a recommendation column and either class and level columns or a
strength column, and no evidence, reference or year-named column (an evidence table restates the
recommendations). Each graded row gives one unit (the recommendation cell, then ``Header: value`` of the other
columns); full-width rows become ungraded ``table_row`` units.
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

_MARK = r"[a-e]?"  # a footnote letter glued to a header word by the text layer ("Strengtha")
_CLASS_HEADER = re.compile(
    r"(?i)^(?:COR|class(?:\s+of\s+recommendations?)?|recommendation\s+class|推荐等级|推荐级别|推荐强度)$"
)
_LEVEL_HEADER = re.compile(r"(?i)^(?:LOE|level(?:\s+of\s+evidence)?|evidence\s+level|证据等级|证据级别|证据质量)$")
# the certainty beside a strength column: "Strength | Quality of evidence"
_QUALITY_HEADER = re.compile(rf"(?i)^(?:quality|certainty)(?:\s+of\s+(?:the\s+)?evidence)?{_MARK}$")
_REC_HEADER = re.compile(r"(?i)recommendations?|推荐意见|推荐内容")
_STRENGTH_HEADER = re.compile(
    rf"(?i)^(?:strength(?:\s+of\s+(?:the\s+)?recommendations?)?|recommendation\s+strength|"
    rf"strength\s+and\s+direction){_MARK}$"
)
_CATEGORY_HEADER = re.compile(rf"(?i)^(?:(?:recommendation\s+)?category|status){_MARK}$")
_NUMBER_HEADER = re.compile(r"(?i)^(?:#|no\.?|number|rec(?:ommendation)?\s*#)$")
_NAMES_STRENGTH = re.compile(r"(?i)strength")  # "Recommendation Strength and Direction" is no recommendation column
_NOT_OWN = re.compile(r"(?i)^(?:evidence|references?|studies)\b|\b(?:19|20)\d\d\b")
_CLASS = re.compile(r"(?i)^(?:I{1,3}|IIa|IIb|1|2a|2b|3)(?:\s*[:(]\s*(?:no\s+benefit|harm)\)?)?$")
_LEVEL = re.compile(r"^(?:A|B-R|B-NR|C-LD|C-EO|B|C)$")
_CJK_HEADER = re.compile(r"[\u3400-\u9fff]")
_NOT_APPLICABLE = re.compile(r"(?i)^(?:not\s+applicable|n/?a)$")
# "(cont.)", "(continued)", also spaced out by a text layer: "(co nt. )"
_CONTINUED = re.compile(r"(?i)\s*\(\s*c\s*o\s*n\s*t\s*(?:i\s*n\s*u\s*e\s*d\s*)?\.?\s*\)\s*")
_ASIDE = re.compile(r"\([^()]*\)")  # a parenthesised cross-reference in a caption
_FOOTNOTE_MARK = re.compile(r"\^\S+|[*†‡§¶]+")
#: A strength table needs this many rows with a grade in its strength column.
MIN_GRADED_ROWS = 2
#: A recommendation cell needs this many words.
MIN_WORDS = 4


@dataclass
class _Layout:
    """Where a recommendation table keeps what: column indices of the header."""

    rec: int
    grade: list[int]  # class + level, or strength (+ category)
    number: int | None = None
    topics: list[int] = field(default_factory=list)
    strength_table: bool = False

    @property
    def used(self) -> set[int]:
        return {self.rec, *self.grade, *self.topics} | ({self.number} if self.number is not None else set())


@dataclass
class _Rec:
    row: int
    text: str
    grade: Grade | None
    context: str
    notes: list[str] = field(default_factory=list)


def _squeeze(text: str) -> str:
    return re.sub(r"[\s\-]+", "", text).lower()


def _clean(header: str) -> str:
    return " ".join(_FOOTNOTE_MARK.sub("", header).split())


def _layout(headers: list[str], caption: str) -> _Layout | None:
    """The columns of a recommendation table, or None when ``headers`` are not one's (module docstring)."""
    clean = [_clean(h) for h in headers]
    own_caption = _ASIDE.sub(" ", caption)  # "(see also Supplementary data online, Evidence Table 1)" is no title
    if any(_NOT_OWN.search(h) for h in clean) or re.search(r"(?i)\bevidence\s+table\b", own_caption):
        return None
    strength = next((j for j, h in enumerate(clean) if _STRENGTH_HEADER.match(h)), None)
    cls_col = next((j for j, h in enumerate(clean) if _CLASS_HEADER.match(h)), None)
    lvl_col = next((j for j, h in enumerate(clean) if _LEVEL_HEADER.match(h)), None)
    taken = {strength, cls_col, lvl_col}
    rec = next(
        (j for j, h in enumerate(clean) if j not in taken and _REC_HEADER.search(h) and not _NAMES_STRENGTH.search(h)),
        None,
    )
    if rec is None:
        return None
    if cls_col is not None and lvl_col is not None:
        return _Layout(rec, [cls_col, lvl_col])
    number = next((j for j, h in enumerate(clean) if _NUMBER_HEADER.match(h)), None)
    if strength is None:
        return None
    quality = [j for j, h in enumerate(clean) if _QUALITY_HEADER.match(h)][:1]
    grade = [strength] + quality + [j for j, h in enumerate(clean) if _CATEGORY_HEADER.match(h)][:1]
    first = min(rec, number if number is not None else rec)
    topics = [j for j in range(first) if j not in grade]
    return _Layout(rec, grade, number, topics, strength_table=True)


def _grade_headers(table: TableView, layout: _Layout) -> list[str]:
    """The grade columns' headers as grade labels: ``Strength`` / ``Category`` whatever mark is glued on."""
    if layout.strength_table:
        names = ["Strength"]
        for j in layout.grade[1:]:
            names.append("Quality" if _QUALITY_HEADER.match(_clean(table.headers[j])) else "Category")
        return names
    return [_clean(table.headers[j]) for j in layout.grade]


def _row_grade(table: TableView, layout: _Layout, cells: list[str]) -> tuple[bool, Grade | None]:
    """``(is a recommendation row, its grade)`` from the grade columns."""
    heads = _grade_headers(table, layout)
    if not layout.strength_table:
        cls_col, lvl_col = layout.grade
        acc = any(_clean(table.headers[j]).upper() in ("COR", "LOE") for j in layout.grade)
        grade = grades.parse_class_level(cells[cls_col], cells[lvl_col], system="ACC/AHA" if acc else "")
        if grade is not None or (_CLASS.match(cells[cls_col]) and _LEVEL.match(cells[lvl_col])):
            return grade is not None, grade  # ESC or ACC/AHA cells as printed (footnote marks allowed)
        # Chinese headers: a class/level pair the grading catalogue reads
        grade = grades.grade_from_cells(heads, [cells[j] for j in layout.grade])
        return (True, grade) if grade is not None and _CJK_HEADER.search(" ".join(heads)) else (False, None)
    grade = grades.grade_from_cells(heads, [cells[j] for j in layout.grade])
    if grade is None:
        return bool(_NOT_APPLICABLE.match(cells[layout.grade[0]])), None
    return True, grade


class _Topics:
    """The topic path of each row from the topic columns, merged cells carried down."""

    def __init__(self, table: TableView, layout: _Layout):
        self.headers = [_clean(table.headers[j]) for j in layout.topics]
        self.columns = layout.topics
        self.current = [""] * len(self.columns)
        self.own = [j for j in (layout.rec, layout.number) if j is not None]

    def read(self, cells: list[str]) -> str:
        # a number or recommendation cell spread over a topic column, a header word repeated in the body
        own = {_squeeze(cells[j]) for j in self.own} | {_squeeze(h) for h in self.headers}
        values = [_CONTINUED.sub(" ", cells[j]).strip() if _squeeze(cells[j]) not in own else "" for j in self.columns]
        for k, v in enumerate(values):
            if v and v != self.current[k]:
                self.current[k] = v
                # a new value opens a new topic: cells to its right under another header start afresh
                for r in range(k + 1, len(values)):
                    if self.headers[r] != self.headers[k] and not values[r]:
                        self.current[r] = ""
        path: list[str] = []
        for k, v in enumerate(self.current):
            if not v:
                continue
            if path and k and self.headers[k] == self.headers[k - 1] and self.current[k - 1]:
                if v not in path[-1]:
                    path[-1] = f"{path[-1]} {v}"  # one merged cell split over two columns (two printed lines)
            elif v not in path:
                path.append(v)
        return " > ".join(path)


def emit_recommendation_table(builder: EmitContext, table: TableView) -> bool:
    """Emit the units of ``table`` when it is a recommendation table; False (nothing emitted) otherwise."""
    layout = _layout(table.headers, table.caption + " " + table.grid.title)
    if layout is None:
        return False
    topics = _Topics(table, layout)
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
        topic = topics.read(cells) if kind is RowKind.DATA else ""
        is_rec, grade = _row_grade(table, layout, cells) if kind is RowKind.DATA else (False, None)
        rec_cell = cells[layout.rec]
        if is_rec and rec_cell and (not layout.strength_table or len(rec_cell.split()) >= MIN_WORDS):
            recs.append(_Rec(i, _text(table, layout, cells), grade, _context(layout, cells, topic)))
            order.append((i, group, recs[-1]))
        elif kind is RowKind.DATA and last is not None and rec_cell == table.rows[last.row][layout.rec].strip():
            # the recommendation's rowspan carried down: this row only adds a note under other columns
            carried = set(table.rows[last.row])
            last.notes += [c for c in dict.fromkeys(cells) if c and c not in carried and c not in last.notes]
        elif kind is RowKind.DATA and last is not None and _continues(layout, cells):
            head, *rest = last.text.split("\n", 1)
            last.text = "\n".join([f"{head} {rec_cell}", *rest])
        else:
            order.append((i, group, last))  # supporting text, or a row that is no recommendation
    if not recs or (layout.strength_table and sum(r.grade is not None for r in recs) < MIN_GRADED_ROWS):
        return False
    for i, group, rec in order:
        if rec is not None and rec.row == i:
            extra = [rec.context, *(f"Note: {n}" for n in rec.notes)]
            table.emit_row(
                builder,
                i,
                UnitType.RECOMMENDATION,
                rec.text,
                group=group,
                grade=rec.grade,
                extra_context=" | ".join(e for e in extra if e),
            )
        else:
            about = f"Supporting text of: {title(rec.text.splitlines()[0])}" if rec else ""
            cells = table.rows[i]
            text = label(cells) if table.kinds[i] is RowKind.NOTE else row_text(table.headers, cells)
            table.emit_row(builder, i, UnitType.TABLE_ROW, text, group=group, extra_context=about)
    return True


def _text(table: TableView, layout: _Layout, cells: list[str]) -> str:
    """The recommendation cell, then (strength tables) the grade columns and any other column as ``Header: value``."""
    skip = layout.used - (set(layout.grade) if layout.strength_table else set())
    names = dict(zip(layout.grade, _grade_headers(table, layout)))
    pairs = [
        (names.get(j) or _clean(h), c)
        for j, (h, c) in enumerate(zip(table.headers, cells))
        if h and c and j not in skip
    ]
    others = [f"{h}: {c}" for h, c in dict.fromkeys(pairs)]  # a merged cell repeated under one header once
    lines = [cells[layout.rec], "; ".join(others)] if layout.strength_table else [cells[layout.rec], *others]
    return "\n".join(line for line in lines if line)


def _context(layout: _Layout, cells: list[str], topic: str) -> str:
    parts = [f"Topic: {topic}" if topic else ""]
    if layout.number is not None and (m := re.match(r"^\s*(\d{1,4})", cells[layout.number])):
        parts.append(f"Recommendation {m.group(1)}")
    return " | ".join(p for p in parts if p)


def _continues(layout: _Layout, cells: list[str]) -> bool:
    """A row with text only in the recommendation column (and topic columns): the rest of the one above."""
    return bool(cells[layout.rec]) and not any(
        cells[j] for j in range(len(cells)) if j != layout.rec and j not in layout.topics
    )


__all__ = ["MIN_GRADED_ROWS", "emit_recommendation_table"]
