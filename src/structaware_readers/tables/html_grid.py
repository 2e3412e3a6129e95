"""HTML ``<table>`` -> rectangular rows with spans expanded (lxml), before any header decision."""

from __future__ import annotations

import re
from dataclasses import dataclass

import lxml.etree
import lxml.html

from structaware_readers.common.limits import MAX_TABLE_CELLS
from structaware_readers.errors import MalformedInputError
from structaware_readers.tables.cell_text import cell_text

#: Largest rowspan/colspan honoured; larger values are clamped (guards against span bombs).
MAX_SPAN = 1000


@dataclass
class HtmlRow:
    """One kept row: its cells after span expansion, whether it is marked as a header row
    (in ``<thead>`` or made only of ``<th>``), and how many of the kept rows below it its
    tallest own cell still covers (``rowspan`` minus one, dropped rows not counted)."""

    cells: list[str]
    is_head: bool
    covers_below: int


def read_html_rows(text: str, *, path: str | None, field: str) -> list[HtmlRow]:
    """The rows of the outermost table in ``text``, spans expanded, phantom and blank rows dropped.

    Raises:
        MalformedInputError: no ``<tr>`` row, or no cell with text.
    """
    try:
        root = lxml.html.fragment_fromstring(text, create_parent="div")
    except (lxml.etree.ParserError, ValueError) as exc:  # pragma: no cover - lxml recovers from almost anything
        raise MalformedInputError(f"table HTML cannot be parsed: {exc}", path=path, field=field) from exc
    tables = root.xpath("descendant-or-self::table")
    table = tables[0] if tables else root  # outermost table only; nested tables become cell text
    groups = _row_groups(table)
    if not any(rows for _, rows in groups):
        raise MalformedInputError("table HTML has no <tr> rows", path=path, field=field)
    out: list[HtmlRow] = []
    for group_tag, rows in groups:
        expanded = _expand_group(rows, path=path, field=field)
        kept = [i for i, (_, own_text, _) in enumerate(expanded) if own_text]  # phantom/blank rows dropped
        for i in kept:
            cells, _, max_rs = expanded[i]
            tr = rows[i]
            th_only = bool(tr.xpath("./th")) and not tr.xpath("./td")
            below = sum(1 for j in kept if i < j < i + max_rs)
            out.append(HtmlRow(cells=cells, is_head=group_tag == "thead" or th_only, covers_below=below))
    if not out:
        raise MalformedInputError("table HTML has no cell text", path=path, field=field)
    n_cols = max(len(r.cells) for r in out)
    for r in out:
        r.cells += [""] * (n_cols - len(r.cells))
    return out


def _row_groups(table) -> list[tuple[str, list]]:
    """Rows of ``table`` grouped by section, in document order, nested tables excluded."""
    groups: list[tuple[str, list]] = []
    loose: list = []
    for child in table:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag == "tr":
            loose.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            if loose:
                groups.append(("tbody", loose))
                loose = []
            groups.append((tag, [tr for tr in child if isinstance(tr.tag, str) and tr.tag.lower() == "tr"]))
    if loose:
        groups.append(("tbody", loose))
    if not groups:
        # no table element (a fragment of rows), or rows wrapped in unexpected elements
        groups.append(("tbody", list(table.iter("tr"))))
    return groups


def _cells(tr) -> list:
    return [c for c in tr if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")]


def _span(cell, attr: str) -> int:
    raw = (cell.get(attr) or "1").strip().strip("\"'")
    m = re.match(r"\d+", raw)
    if not m:
        return 1
    return min(int(m.group(0)[:6]), MAX_SPAN)  # [:6]: a 5,000-digit value is a span bomb, not a number


def _expand_group(rows: list, *, path: str | None, field: str) -> list[tuple[list[str], bool, int]]:
    """Expand row/col spans inside one row group: per row ``(cells, any own cell has text, max rowspan)``.

    Raises:
        MalformedInputError: the spans expand to more than :data:`MAX_TABLE_CELLS` cells.
    """
    out: list[list[str]] = [[] for _ in rows]
    n_cells = 0
    own_text = [False] * len(rows)
    max_rs = [1] * len(rows)
    pending: dict[tuple[int, int], str] = {}
    for r, tr in enumerate(rows):
        row = out[r]
        col = 0
        for cell in _cells(tr):
            while (r, col) in pending:
                row.append(pending.pop((r, col)))
                col += 1
            text = cell_text(cell)
            own_text[r] = own_text[r] or bool(text)
            rs = _span(cell, "rowspan")
            max_rs[r] = max(max_rs[r], rs)
            rs = len(rows) - r if rs == 0 else max(1, min(rs, len(rows) - r))
            cs = max(1, _span(cell, "colspan"))
            n_cells += rs * cs
            if n_cells > MAX_TABLE_CELLS:
                raise MalformedInputError(
                    f"the table's row/column spans expand to more than {MAX_TABLE_CELLS} cells", path=path, field=field
                )
            for dc in range(cs):
                row.append(text)
                for dr in range(1, rs):
                    pending[(r + dr, col + dc)] = text
            col += cs
        while (r, col) in pending:  # cells spanned from above at the end of the row
            row.append(pending.pop((r, col)))
            col += 1
    # leftovers (a row with fewer cells than the spans above it): place them in column order
    for (r, c), text in sorted(pending.items()):
        row = out[r]
        while len(row) < c:
            row.append("")
        row.insert(c, text)
    return list(zip(out, own_text, max_rs, strict=True))


__all__ = ["MAX_SPAN", "HtmlRow", "read_html_rows"]
