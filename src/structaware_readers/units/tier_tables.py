"""``recommendation`` units from a table whose columns are recommendation tiers (CSCO ``Ⅰ/Ⅱ/Ⅲ级推荐``)."""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from structaware_readers.models import Grade, UnitType
from structaware_readers.units.table_view import RowKind, TableView, label, row_text

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext

#: Fewest tier columns that make a tier table.
MIN_TIER_COLUMNS = 2

# OCR reads Ⅰ/Ⅱ/Ⅲ as l, 1, |, "ⅡI", "川" (three strokes), or drops the numeral ("级推荐")
_TIER = re.compile(r"^\s*([Il1|]{1,3}|[一二三川])?\s*级\s*(?:专家)?推荐")
_ZH = {"一": "I", "二": "II", "三": "III", "川": "III"}
_ROMAN = ("I", "II", "III")
_CATEGORY = re.compile(r"(?<![A-Za-z0-9.])(1A|1B|2A|2B|3)\s*类(?:\s*证据)?", re.IGNORECASE)


def _tier(header: str) -> str | None:
    """``"I"``/``"II"``/``"III"`` when ``header`` starts with a recommendation tier, ``""`` for a tier
    whose numeral was lost (``级推荐``), ``None`` for no tier header."""
    m = _TIER.match(unicodedata.normalize("NFKC", header))
    if not m:
        return None
    value = m.group(1) or ""
    return _ZH.get(value) or "I" * len(value)


def _tiers(headers: list[str]) -> dict[int, str]:
    """Column index -> tier of the tier columns. CSCO prints the tiers left to right, Ⅰ then Ⅱ then
    Ⅲ: when the numerals read are not that order (a numeral lost, ``ⅡI`` read for Ⅱ), up to three
    tier columns are numbered by their position."""
    read = {j: t for j, h in enumerate(headers) if (t := _tier(h)) is not None}
    values = list(read.values())
    if all(values) and all(len(a) < len(b) for a, b in zip(values, values[1:])):
        return read
    distinct = len({headers[j].strip() for j in read}) == len(read) or not any(values)
    if len(read) <= len(_ROMAN) and distinct:  # not one merged header repeated over two columns
        return {j: _ROMAN[k] for k, j in enumerate(read)}
    return {j: t for j, t in read.items() if t}


def emit_tier_table(builder: EmitContext, table: TableView) -> bool:
    """Emit the units of ``table`` when its columns are recommendation tiers; False (nothing emitted) otherwise."""
    tiers = _tiers(table.headers)
    if len(tiers) < MIN_TIER_COLUMNS:
        return False
    stub = [j for j in range(min(tiers)) if table.headers[j] or any(r[j].strip() for r in table.rows)]
    group = ""
    for i, kind in enumerate(table.kinds):
        cells = [c.strip() for c in table.rows[i]]
        if kind is RowKind.SKIP:
            continue
        if kind is RowKind.GROUP:
            group = label(cells)
            continue
        seen: set[tuple[str, str]] = set()
        picked = []
        for j, tier in tiers.items():
            key = (table.headers[j], cells[j])
            if cells[j] and key not in seen and kind is RowKind.DATA:
                seen.add(key)
                picked.append((j, tier))
        if not picked:
            table.emit_row(builder, i, UnitType.TABLE_ROW, row_text(table.headers, cells) or label(cells), group=group)
            continue
        topic = " > ".join(dict.fromkeys(cells[j] for j in stub if cells[j]))
        for j, tier in picked:
            marks = {m.upper() for m in _CATEGORY.findall(cells[j])}
            grade = Grade(
                system="CSCO",
                grade=tier,
                certainty=marks.pop() if len(marks) == 1 else "",
                source="table_column",
                raw=table.headers[j],
            )
            extra = " | ".join(p for p in (f"Topic: {topic}" if topic else "", f"Tier: {table.headers[j]}") if p)
            table.emit_row(builder, i, UnitType.RECOMMENDATION, cells[j], group=group, grade=grade, extra_context=extra)
    return True


__all__ = ["MIN_TIER_COLUMNS", "emit_tier_table"]
