"""A table the parser wrote as space-aligned text -> :class:`TableGrid` (no PDF needed)."""

from __future__ import annotations

import re

from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.grid_rules import Line, Phrase, build_grid, split_title

_PHRASE = re.compile(r"\S+(?: \S+)*")  # words joined by single spaces; two or more spaces end a phrase


def grid_from_aligned_text(text: str, *, page_number: int) -> TableGrid | None:
    """The grid of a space-aligned text table, or ``None`` (fewer than 2 rows x 2 columns)."""
    lines: list[Line] = []
    for i, raw in enumerate(text.expandtabs(8).splitlines()):
        phrases = [Phrase(m.group(0), m.start(), m.end(), i, i + 1) for m in _PHRASE.finditer(raw)]
        if phrases:
            lines.append(Line(i, i + 1, phrases))
    if len(lines) < 2 or not any(len(line.phrases) > 1 for line in lines):
        return None
    built = build_grid(lines)
    if built is None:
        return None
    header, body, _boxes, _header_boxes = built
    title, header = split_title(header)
    return TableGrid(
        title=title,
        header_rows=header,
        body_rows=body,
        body_row_pages=[page_number] * len(body),
        grid_source="parser_text",
    )
