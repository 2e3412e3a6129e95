"""Unstructured tables: ``Table`` elements and ``TableChunk`` s rebuilt into one grid.

A table without usable markup (no ``text_as_html``/``table_as_cells``, or ``<table></table>``)
and with a flat text gets no grid (its text stays section text) and a warning; markup that holds
only part of ``Table.text`` keeps its grid and ``TableGrid.text_outside_grid`` (warned too). A text
with line and cell breaks (tabs, `` | ``, runs of spaces) gives a grid with ``grid_source =
"parser_text"``. Warnings name the page, the block id and Unstructured's ``element_id``; they are
logged and appended to the ``warnings`` list the caller passes (``ParsedDocument.warnings``).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from html import escape
from typing import Any

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import TableGrid
from structaware_readers.tables import parse_html_table, table_warning
from structaware_readers.tables.coverage import missing_words
from structaware_readers.unstructured.records import Record

__all__ = ["table_chunk_groups", "table_grid"]

log = logging.getLogger(__name__)


def table_chunk_groups(records: list[Record], source: str) -> dict[str, list[Record]]:
    """TableChunks (left after ``orig_elements`` expansion) grouped by ``table_id``, in ``chunk_index`` order. Raises
    ``MalformedInputError``.
    """
    groups: dict[str, list[Record]] = {}
    for r in records:
        tid = r.md.get("table_id")
        if r.type == "TableChunk" and isinstance(tid, str):
            groups.setdefault(tid, []).append(r)
    for tid, group in groups.items():
        indexes = [g.md.get("chunk_index", k) for k, g in enumerate(group)]
        for g, index in zip(group, indexes):
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise MalformedInputError(
                    f"chunk_index must be a non-negative integer, got {index!r}"[:200],
                    path=source, field=f"{g.where}.metadata.chunk_index",
                )  # fmt: skip
        if len(set(indexes)) != len(indexes):
            raise MalformedInputError(
                f"table_id {tid} has repeated chunk_index values {indexes}",
                path=source,
                field=f"{group[0].where}.metadata.chunk_index",
            )
        group.sort(key=lambda g: g.md.get("chunk_index", 0))
    return groups


def table_grid(chunks: list[Record], source: str, warnings: list[str] | None = None) -> TableGrid | None:
    """The grid of one table (``chunks``: a ``Table``, or the ``TableChunk`` s of one table): later chunks' first
    ``num_carried_over_header_rows`` rows are dropped, and ``body_row_pages`` is set when the rows lie on several
    pages. ``None`` when the table has no usable markup (the text then stays section text; see the module
    docstring). Raises ``MalformedInputError``.
    """
    if len(chunks) == 1:
        return _one_grid(chunks[0], source, warnings)
    if not all(isinstance(c.md.get("text_as_html"), str) and c.md["text_as_html"].strip() for c in chunks):
        # text-only chunks: the split text, joined back
        return _text_grid(chunks[0], " ".join(c.text.strip() for c in chunks), source, warnings)
    grids = [_one_grid(c, source, warnings, table=chunks[0]) for c in chunks]
    if any(g is None for g in grids):
        return None
    first = grids[0]
    assert first is not None
    merged = TableGrid(header_rows=list(first.header_rows), body_rows=list(first.body_rows))
    row_pages = [chunks[0].page] * len(merged.body_rows)
    for c, g in zip(chunks[1:], grids[1:]):
        assert g is not None
        carried = c.md.get("num_carried_over_header_rows") or 0
        if not isinstance(carried, int) or carried < 0:
            raise MalformedInputError(
                f"num_carried_over_header_rows must be an integer >= 0, got {carried!r}",
                path=source,
                field=f"{c.where}.metadata.num_carried_over_header_rows",
            )
        rows = [*g.header_rows, *g.body_rows][carried:]
        merged.body_rows.extend(rows)
        row_pages.extend([c.page] * len(rows))
    if len(set(row_pages)) > 1:
        merged.body_row_pages = row_pages
    width = merged.n_cols
    merged.header_rows = [r + [""] * (width - len(r)) for r in merged.header_rows]
    merged.body_rows = [r + [""] * (width - len(r)) for r in merged.body_rows]
    return merged


def _one_grid(r: Record, source: str, warnings: list[str] | None, table: Record | None = None) -> TableGrid | None:
    """Grid of one ``Table``: from ``text_as_html``, else ``table_as_cells``, else line-structured text."""
    html = r.md.get("text_as_html")
    field = f"{r.where}.metadata.text_as_html"
    cells = r.md.get("table_as_cells")
    if not (isinstance(html, str) and html.strip()) and cells:
        html = _cells_to_html(cells, source, f"{r.where}.metadata.table_as_cells")
        field = f"{r.where}.metadata.table_as_cells"
    if not (isinstance(html, str) and html.strip()):
        return _text_grid(r, r.text, source, warnings)
    try:
        grid = parse_html_table(html, path=source, field=field)
    except MalformedInputError as exc:
        _warn(
            r,
            source,
            warnings,
            table,
            f"table markup cannot be read ({exc.args[0] if exc.args else exc}); its text stays section text",
            level=logging.DEBUG if table is None else logging.WARNING,  # a whole table: load_document logs it
        )
        return None
    missing = missing_words(grid, r.text)
    if missing:
        _warn(
            r,
            source,
            warnings,
            table,
            f"table markup holds only part of the table text (no cell has {', '.join(missing[:6])});"
            " the whole text stays searchable",
        )
        grid = grid.model_copy(update={"text_outside_grid": r.text.strip()})
    return grid


def _text_grid(r: Record, text: str, source: str, warnings: list[str] | None) -> TableGrid | None:
    """A grid from text with line and cell breaks (tabs, `` | ``, 2+ spaces), else None (and a warning)."""
    grid = _grid_from_text(text)
    if grid is None:
        msg = "table has no markup (text_as_html/table_as_cells); its text stays section text"
        _warn(r, source, warnings, None, msg, level=logging.DEBUG)  # load_document logs what its recovery leaves
    return grid


def _warn(
    r: Record, source: str, warnings: list[str] | None, table: Record | None, message: str, level: int = logging.WARNING
) -> None:
    """Log (at ``level``) and record one warning about element ``r`` of the table whose first record is ``table``
    (default ``r``; the table's block id is ``p{page}-e{j}`` of that record)."""
    t = table or r
    text = table_warning(t.page, f"p{t.page}-e{t.j}", f"{message} (Unstructured element {r.element_id or r.where})")
    log.log(level, "%s: %s", source, text)
    if warnings is not None:
        warnings.append(text)


def _grid_from_text(text: str) -> TableGrid | None:
    """Rows from text that has them (two or more lines, cells split at tabs, `` | `` or 2+ spaces,
    at least two lines with two cells), else None: a flat text is never split into invented cells."""
    rows = [
        [c.strip() for c in re.split(r"\t| \| |\s{2,}", line.strip()) if c.strip()]
        for line in text.splitlines()
        if line.strip()
    ]
    rows = [r for r in rows if r]
    if sum(1 for r in rows if len(r) >= 2) < 2:
        return None
    width = max(len(r) for r in rows)
    return TableGrid(body_rows=[r + [""] * (width - len(r)) for r in rows], grid_source="parser_text")


def _cells_to_html(cells: Any, source: str, where: str) -> str:
    """``table_as_cells`` (``[{content, x, y, w, h}]``, 0-based column/row, spans) -> HTML."""
    if not isinstance(cells, list):
        raise MalformedInputError("table_as_cells is not a list", path=source, field=where)
    origin: dict[tuple[int, int], Mapping[str, Any]] = {}
    covered: set[tuple[int, int]] = set()
    n_rows = n_cols = 0
    for k, c in enumerate(cells):
        try:
            x, y = int(c["x"]), int(c["y"])
            w, h = max(1, int(c.get("w", 1))), max(1, int(c.get("h", 1)))
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedInputError(f"cell needs integer x, y: {exc}", path=source, field=f"{where}[{k}]") from exc
        origin[(y, x)] = {**c, "w": w, "h": h}
        covered.update((y + dy, x + dx) for dy in range(h) for dx in range(w) if (dy, dx) != (0, 0))
        n_rows, n_cols = max(n_rows, y + h), max(n_cols, x + w)
    rows = []
    for y in range(n_rows):
        tds = []
        for x in range(n_cols):
            if (y, x) in origin:
                c = origin[(y, x)]
                span = (f' colspan="{c["w"]}"' if c["w"] > 1 else "") + (f' rowspan="{c["h"]}"' if c["h"] > 1 else "")
                tds.append(f"<td{span}>{escape(str(c.get('content') or ''))}</td>")
            elif (y, x) not in covered:
                tds.append("<td></td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"
