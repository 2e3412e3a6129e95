"""Table bodies (HTML, Markdown pipe tables, LaTeX tabular) -> :class:`TableGrid`."""

from __future__ import annotations

import re

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import TableGrid
from structaware_readers.tables.header import MAX_HEADER_SPAN, grid_from_rows
from structaware_readers.tables.html_grid import MAX_SPAN, read_html_rows
from structaware_readers.tables.rotated import turn_back
from structaware_readers.tables.text_tables import (
    looks_like_latex_table,
    looks_like_markdown_table,
    parse_latex_table,
    parse_markdown_table,
)


def parse_html_table(html: str, *, path: str | None = None, field: str = "table_body") -> TableGrid:
    """Parse one table body (HTML ``<table>``, or a Markdown pipe table / LaTeX ``tabular``, best effort) into a
    rectangular :class:`TableGrid`, spans expanded and title rows in ``title``. Raises ``MalformedInputError`` (empty,
    no row with text, or no table markup).
    """
    if not isinstance(html, str):
        raise MalformedInputError(f"table body must be a string, got {type(html).__name__}", path=path, field=field)
    text = html.strip()
    if not text:
        raise MalformedInputError("table body is empty", path=path, field=field)
    if re.search(r"<\s*(table|tr|td|th)\b", text, re.IGNORECASE):
        rows = read_html_rows(text, path=path, field=field)
        if turned := turn_back(rows):
            return grid_from_rows(turned).model_copy(update={"turned": True})
        return grid_from_rows(rows)
    if looks_like_markdown_table(text):
        return parse_markdown_table(text)
    if looks_like_latex_table(text):
        return parse_latex_table(text, path=path, field=field)
    raise MalformedInputError("table body is neither HTML nor a Markdown/LaTeX table", path=path, field=field)


def grid_to_text(grid: TableGrid, *, cell_sep: str = " | ") -> str:
    """Plain-text rendering of a grid: the title line (if any), then one line per row (header rows
    first), cells joined by ``cell_sep``.

    Newlines inside a cell become spaces so that one table row is always one text line.
    """
    lines = [grid.title] if grid.title else []
    for row in [*grid.header_rows, *grid.body_rows]:
        lines.append(cell_sep.join(c.replace("\n", " ") for c in row))
    return "\n".join(lines)


def table_warning(page: int, element_id: str, message: str) -> str:
    """The text of a warning about one table (``ParsedDocument.warnings``): ``"page 3, element p3-e2:
    <message>"`` (1-based page, the block id of the table)."""
    return f"page {page}, element {element_id}: {message}"


def is_table_warning(warning: str, page: int, element_id: str) -> bool:
    """True when ``warning`` was made by :func:`table_warning` for this page and element."""
    return warning.startswith(f"page {page}, element {element_id}: ")


__all__ = ["MAX_HEADER_SPAN", "MAX_SPAN", "grid_to_text", "is_table_warning", "parse_html_table", "table_warning"]
