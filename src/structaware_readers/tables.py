"""Table bodies (HTML, Markdown pipe tables, LaTeX tabular) -> :class:`TableGrid`.

MinerU writes tables as HTML (``table_body`` in ``content_list.json``, ``html`` in
``content_list_v2.json``, the ``table_body`` span/sub-block in ``middle.json``), 4.x
``structured_content.json`` writes them as Markdown pipe tables, and very old magic-pdf
outputs may hold LaTeX. Unstructured writes HTML (``metadata.text_as_html``).

Rules (documented here because unit ids and row units depend on them):

* **Spans** (``rowspan``/``colspan``) are expanded: every covered cell repeats the text of
  the spanning cell, so every row has exactly ``n_cols`` cells. Attribute values may be
  quoted or not (``rowspan=2``); non-numeric values count as 1; ``rowspan="0"`` spans to
  the end of its row group; spans are capped at :data:`MAX_SPAN`.
* **Header rows** are the leading ``<thead>`` rows, else the leading rows made only of
  ``<th>`` cells. When there are none and the table has more than one row, the **first row
  is taken as the header** (MinerU never emits ``<th>``); if a cell of that first row has a
  ``rowspan`` of ``r`` (2..:data:`MAX_HEADER_SPAN`) and rows remain below it, the header is
  extended to the first ``r`` rows (two-level headers such as ``Profile QA / ROUGE-1``).
  A one-row table has no header row.
* **Empty rows** (every cell blank after span expansion) are dropped: VLM backends sometimes
  emit hundreds of them (MinerU 2.6 VLM wrote a 1,372-row table of which 3 rows have text).
* **Cell text**: entities decoded (``&lt;140/90`` -> ``<140/90``), ``<br>`` -> newline,
  MinerU's ``<eq>x</eq>`` -> ``$x$``, LaTeX ``$..$`` kept as written, whitespace collapsed.
  A nested table contributes its text to the cell that holds it.
* **Not HTML**: a Markdown pipe table (rows ``| a | b |`` with a ``| --- |`` separator row:
  rows above the separator are the header) or a LaTeX ``tabular`` (``&`` cells, ``\\\\``
  rows, ``\\multicolumn`` expanded, the first row as header) is parsed best effort. Anything
  else raises :class:`MalformedInputError` naming ``path`` and ``field``.
"""

from __future__ import annotations

import html as html_lib
import re

import lxml.etree
import lxml.html

from structaware_readers.errors import MalformedInputError
from structaware_readers.limits import MAX_TABLE_CELLS
from structaware_readers.models import TableGrid

#: Largest rowspan/colspan honoured; larger values are clamped (guards against span bombs).
MAX_SPAN = 1000
#: Largest first-row rowspan that still counts as a multi-row header (see module docstring).
MAX_HEADER_SPAN = 3

_WS = re.compile(r"[ \t\r\f\v\u00a0\u3000]+")
_MD_SEP_CELL = re.compile(r"^:?-{2,}:?$")


def parse_html_table(html: str, *, path: str | None = None, field: str = "table_body") -> TableGrid:
    """Parse one table body into a rectangular :class:`TableGrid`.

    Args:
        html: the table markup: HTML ``<table>`` (MinerU ``table_body``/``html``, Unstructured
            ``text_as_html``), or a Markdown pipe table / LaTeX ``tabular`` (best effort).
        path: the file the table came from, only used in error messages.
        field: the field that held the table, only used in error messages.

    Returns:
        A grid whose ``header_rows`` and ``body_rows`` all have ``n_cols`` cells, spans
        expanded. Header detection follows the module docstring.

    Raises:
        MalformedInputError: the text is empty, holds no table rows, or is neither HTML,
            a Markdown pipe table nor a LaTeX tabular.
    """
    if not isinstance(html, str):
        raise MalformedInputError(f"table body must be a string, got {type(html).__name__}", path=path, field=field)
    text = html.strip()
    if not text:
        raise MalformedInputError("table body is empty", path=path, field=field)
    if re.search(r"<\s*(table|tr|td|th)\b", text, re.IGNORECASE):
        return _parse_html(text, path=path, field=field)
    if _looks_like_markdown_table(text):
        return _parse_markdown(text)
    if "\\begin{tabular" in text or ("&" in text and "\\\\" in text):
        return _parse_latex(text, path=path, field=field)
    raise MalformedInputError("table body is neither HTML nor a Markdown/LaTeX table", path=path, field=field)


def grid_to_text(grid: TableGrid, *, cell_sep: str = " | ") -> str:
    """Plain-text rendering of a grid: one line per row (header rows first), cells joined by ``cell_sep``.

    Newlines inside a cell become spaces so that one table row is always one text line.
    """
    lines = []
    for row in [*grid.header_rows, *grid.body_rows]:
        lines.append(cell_sep.join(c.replace("\n", " ") for c in row))
    return "\n".join(lines)


# --------------------------------------------------------------------------- HTML


def _parse_html(text: str, *, path: str | None, field: str) -> TableGrid:
    try:
        root = lxml.html.fragment_fromstring(text, create_parent="div")
    except (lxml.etree.ParserError, ValueError) as exc:  # pragma: no cover - lxml recovers from almost anything
        raise MalformedInputError(f"table HTML cannot be parsed: {exc}", path=path, field=field) from exc
    tables = root.xpath("descendant-or-self::table")
    # outermost table only; nested tables become cell text
    table = tables[0] if tables else root
    groups = _row_groups(table)
    if not any(rows for _, rows in groups):
        raise MalformedInputError("table HTML has no <tr> rows", path=path, field=field)

    grid_rows: list[list[str]] = []
    is_head: list[bool] = []
    for group_tag, rows in groups:
        expanded = _expand_group(rows, path=path, field=field)
        for tr, cells in zip(rows, expanded, strict=True):
            grid_rows.append(cells)
            th_only = bool(tr.xpath("./th")) and not tr.xpath("./td")
            is_head.append(group_tag == "thead" or th_only)

    keep = [i for i, r in enumerate(grid_rows) if any(c.strip() for c in r)]
    grid_rows = [grid_rows[i] for i in keep]
    is_head = [is_head[i] for i in keep]
    if not grid_rows:
        raise MalformedInputError("table HTML has no cell text", path=path, field=field)
    n_cols = max((len(r) for r in grid_rows), default=0)
    grid_rows = [r + [""] * (n_cols - len(r)) for r in grid_rows]

    n_head = 0
    while n_head < len(grid_rows) and is_head[n_head]:
        n_head += 1
    if n_head == 0 and len(grid_rows) > 1:
        n_head = 1
        first_spans = [_span(td, "rowspan") for td in _cells(_first_row(groups))] if keep and keep[0] == 0 else []
        r = max(first_spans, default=1)
        if 1 < r <= MAX_HEADER_SPAN and r < len(grid_rows):
            n_head = r
    return TableGrid(header_rows=grid_rows[:n_head], body_rows=grid_rows[n_head:])


def _first_row(groups: list[tuple[str, list]]):
    for _, rows in groups:
        if rows:
            return rows[0]
    return None  # pragma: no cover - callers check that rows exist


def _row_groups(table) -> list[tuple[str, list]]:
    """Rows of ``table`` grouped by section, in document order, nested tables excluded."""
    groups: list[tuple[str, list]] = []
    loose: list = []
    for child in table:
        tag = child.tag if isinstance(child.tag, str) else ""
        tag = tag.lower()
        if tag == "tr":
            loose.append(child)
        elif tag in ("thead", "tbody", "tfoot"):
            if loose:
                groups.append(("tbody", loose))
                loose = []
            groups.append((tag, [tr for tr in child if isinstance(tr.tag, str) and tr.tag.lower() == "tr"]))
        elif tag in ("caption", "colgroup", "col"):
            continue
    if loose:
        groups.append(("tbody", loose))
    if not groups:
        # no table element (a fragment of rows), or rows wrapped in unexpected elements
        rows = [tr for tr in table.iter("tr")]
        groups.append(("tbody", rows))
    return groups


def _cells(tr) -> list:
    if tr is None:
        return []
    return [c for c in tr if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")]


def _span(cell, attr: str) -> int:
    raw = (cell.get(attr) or "1").strip().strip("\"'")
    m = re.match(r"\d+", raw)
    if not m:
        return 1
    return min(int(m.group(0)[:6]), MAX_SPAN)  # [:6]: a 5,000-digit value is a span bomb, not a number


def _expand_group(rows: list, *, path: str | None, field: str) -> list[list[str]]:
    """Expand row/col spans inside one row group (spans never cross ``thead``/``tbody``).

    Raises:
        MalformedInputError: the spans expand to more than :data:`MAX_TABLE_CELLS` cells.
    """
    out: list[list[str]] = [[] for _ in rows]
    pending: dict[tuple[int, int], str] = {}
    cells = 0
    for r, tr in enumerate(rows):
        row = out[r]
        col = 0
        for cell in _cells(tr):
            while (r, col) in pending:
                row.append(pending.pop((r, col)))
                col += 1
            text = _cell_text(cell)
            rs = _span(cell, "rowspan")
            if rs == 0:
                rs = len(rows) - r
            rs = max(1, min(rs, len(rows) - r))
            cs = max(1, _span(cell, "colspan"))
            cells += rs * cs
            if cells > MAX_TABLE_CELLS:
                raise MalformedInputError(
                    f"the table's row/column spans expand to more than {MAX_TABLE_CELLS} cells", path=path, field=field
                )
            for dc in range(cs):
                row.append(text)
                for dr in range(1, rs):
                    pending[(r + dr, col + dc)] = text
            col += cs
        # cells spanned from above at the end of the row
        while (r, col) in pending:
            row.append(pending.pop((r, col)))
            col += 1
    # leftovers (a row with fewer cells than the spans above it): place them in column order
    for (r, c), text in sorted(pending.items()):
        row = out[r]
        while len(row) < c:
            row.append("")
        row.insert(c, text)
    return out


def _cell_text(cell) -> str:
    parts: list[str] = []
    _collect_text(cell, parts, is_root=True)
    text = "".join(parts)
    lines = [_WS.sub(" ", ln).strip() for ln in text.split("\n")]
    return "\n".join(ln for ln in lines if ln)


def _collect_text(el, parts: list[str], *, is_root: bool = False) -> None:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag == "br":
        parts.append("\n")
    elif tag == "eq":
        inner = "".join(el.itertext()).strip()
        if inner:
            parts.append(f" ${inner}$ ")
    elif tag in ("script", "style"):
        pass
    else:
        if tag in ("p", "div", "li", "tr") and not is_root:
            parts.append("\n")
        if el.text:
            parts.append(el.text)
        for child in el:
            _collect_text(child, parts)
        if tag in ("td", "th") and not is_root:
            parts.append(" ")
    if not is_root and el.tail:
        parts.append(el.tail)


# ----------------------------------------------------------------------- Markdown


def _looks_like_markdown_table(text: str) -> bool:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2 or not all("|" in ln for ln in lines):
        return False
    return any(_is_md_separator(ln) for ln in lines)


def _split_md_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells = re.split(r"(?<!\\)\|", line)
    return [html_lib.unescape(_WS.sub(" ", c.replace("\\|", "|")).strip()).replace("<br>", "\n") for c in cells]


def _is_md_separator(line: str) -> bool:
    cells = _split_md_row(line)
    return bool(cells) and all(_MD_SEP_CELL.match(c.replace(" ", "")) for c in cells)


def _parse_markdown(text: str) -> TableGrid:
    header: list[list[str]] = []
    body: list[list[str]] = []
    seen_sep = False
    for ln in text.splitlines():
        if not ln.strip():
            continue
        if not seen_sep and _is_md_separator(ln):
            seen_sep = True
            continue
        row = _split_md_row(ln)
        if any(c.strip() for c in row):
            (body if seen_sep else header).append(row)
    n_cols = max((len(r) for r in header + body), default=0)
    pad = lambda rows: [r + [""] * (n_cols - len(r)) for r in rows]  # noqa: E731
    return TableGrid(header_rows=pad(header), body_rows=pad(body))


# -------------------------------------------------------------------------- LaTeX


def _parse_latex(text: str, *, path: str | None, field: str) -> TableGrid:
    body = text
    m = re.search(r"\\begin\{tabular\}(?:\{[^}]*\})?(.*?)\\end\{tabular\}", text, re.DOTALL)
    if m:
        body = m.group(1)
    body = re.sub(r"\\(hline|toprule|midrule|bottomrule|cline\{[^}]*\})", "", body)
    rows: list[list[str]] = []
    for raw_row in re.split(r"\\\\", body):
        if not raw_row.strip():
            continue
        cells: list[str] = []
        for raw_cell in re.split(r"(?<!\\)&", raw_row):
            mc = re.match(r"\s*\\multicolumn\{(\d+)\}\{[^}]*\}\{(.*)\}\s*$", raw_cell, re.DOTALL)
            if mc:
                cells.extend([_latex_cell(mc.group(2))] * max(1, min(int(mc.group(1)[:6]), MAX_SPAN)))
            else:
                cells.append(_latex_cell(raw_cell))
        rows.append(cells)
    if not rows:
        raise MalformedInputError("LaTeX table has no rows", path=path, field=field)
    n_cols = max(len(r) for r in rows)
    rows = [r + [""] * (n_cols - len(r)) for r in rows]
    n_head = 1 if len(rows) > 1 else 0
    return TableGrid(header_rows=rows[:n_head], body_rows=rows[n_head:])


def _latex_cell(cell: str) -> str:
    cell = re.sub(r"\\multirow\{\d+\}\{[^}]*\}\{(.*)\}", r"\1", cell.strip(), flags=re.DOTALL)
    cell = cell.replace("\\&", "&").replace("\\%", "%")
    return _WS.sub(" ", cell).strip()


__all__ = ["MAX_HEADER_SPAN", "MAX_SPAN", "grid_to_text", "parse_html_table"]
