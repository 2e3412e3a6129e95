"""Tables that are not HTML: Markdown pipe tables (MinerU 4.x ``structured_content.json``) and LaTeX ``tabular`` (very
old magic-pdf outputs), parsed best effort into :class:`TableGrid`.
"""

from __future__ import annotations

import html as html_lib
import re

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import TableGrid
from structaware_readers.tables.cell_text import plain_math
from structaware_readers.tables.html_grid import MAX_SPAN

_WS = re.compile(r"[ \t\r\f\v\u00a0\u3000]+")
_MD_SEP_CELL = re.compile(r"^:?-{2,}:?$")


def looks_like_markdown_table(text: str) -> bool:
    """Every non-blank line holds a ``|`` and one line is a ``| --- |`` separator."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if len(lines) < 2 or not all("|" in ln for ln in lines):
        return False
    return any(_is_md_separator(ln) for ln in lines)


def looks_like_latex_table(text: str) -> bool:
    return "\\begin{tabular" in text or ("&" in text and "\\\\" in text)


def _split_md_row(line: str) -> list[str]:
    line = line.strip()
    line = line.removeprefix("|")
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells = re.split(r"(?<!\\)\|", line)
    return [
        plain_math(html_lib.unescape(_WS.sub(" ", c.replace("\\|", "|")).strip()).replace("<br>", "\n")) for c in cells
    ]


def _is_md_separator(line: str) -> bool:
    cells = _split_md_row(line)
    return bool(cells) and all(_MD_SEP_CELL.match(c.replace(" ", "")) for c in cells)


def parse_markdown_table(text: str) -> TableGrid:
    """A Markdown pipe table -> grid (rows above the separator are the header)."""
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
    pad = lambda rows: [r + [""] * (n_cols - len(r)) for r in rows]
    return TableGrid(header_rows=pad(header), body_rows=pad(body))


def parse_latex_table(text: str, *, path: str | None, field: str) -> TableGrid:
    """A LaTeX ``tabular`` -> grid. Raises :class:`MalformedInputError` when it has no rows."""
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


__all__ = ["looks_like_latex_table", "looks_like_markdown_table", "parse_latex_table", "parse_markdown_table"]
