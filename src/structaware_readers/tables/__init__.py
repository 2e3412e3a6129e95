"""Table bodies (HTML, Markdown pipe tables, LaTeX tabular) -> :class:`TableGrid`.

MinerU writes HTML (4.x ``structured_content`` Markdown, very old outputs LaTeX), Unstructured
``text_as_html``. Modules: :mod:`.html_grid` (spans expanded, phantom rows dropped), :mod:`.rotated`
(a table read a quarter turn round), :mod:`.cell_text` (inline markup to text), :mod:`.header`
(title, header and body rows), :mod:`.text_tables` (Markdown, LaTeX), :mod:`.footnotes`.
Anything that is no table raises :class:`MalformedInputError` naming ``path`` and ``field``; readers
catch it, warn, and keep the text as section text.
"""

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
    """Parse one table body into a rectangular :class:`TableGrid`.

    Args:
        html: the table markup: HTML ``<table>`` (MinerU ``table_body``/``html``, Unstructured
            ``text_as_html``), or a Markdown pipe table / LaTeX ``tabular`` (best effort).
        path: the file the table came from, only used in error messages.
        field: the field that held the table, only used in error messages.

    Returns:
        A grid whose ``header_rows`` and ``body_rows`` all have ``n_cols`` cells, spans expanded,
        and whose ``title`` holds the text of title rows (see :mod:`.header`).

    Raises:
        MalformedInputError: the text is empty, holds no table row with text (``<table></table>``),
            or is neither HTML, a Markdown pipe table nor a LaTeX tabular.
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
