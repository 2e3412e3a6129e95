"""Long cells that span several rows of a table, said once instead of in every row."""

from __future__ import annotations

from dataclasses import dataclass

from structaware_readers.units.table_view import RowKind

#: A spanning cell longer than this (characters) is said once, in a unit of its own.
LONG_SPAN_CHARS = 200


@dataclass(frozen=True)
class Span:
    """A long cell of column ``col`` repeated in the data rows ``rows`` (indexes into the body)."""

    col: int
    rows: tuple[int, ...]
    text: str


def long_spans(rows: list[list[str]], kinds: list[RowKind]) -> list[Span]:
    """The long cells (:data:`LONG_SPAN_CHARS`) repeated in two or more consecutive data rows of
    a value column (not the first), in row order. Skipped rows do not break a run; group and note
    rows do."""
    spans: list[Span] = []
    n_cols = max((len(r) for r in rows), default=0)
    for col in range(1, n_cols):
        run: list[int] = []
        text = ""
        for i, (row, kind) in enumerate(zip(rows, kinds)):
            if kind is RowKind.SKIP:
                continue
            cell = row[col].strip() if col < len(row) and kind is RowKind.DATA else ""
            if cell and cell == text:
                run.append(i)
                continue
            if len(run) >= 2:
                spans.append(Span(col, tuple(run), text))
            run, text = ([i], cell) if len(cell) > LONG_SPAN_CHARS else ([], "")
        if len(run) >= 2:
            spans.append(Span(col, tuple(run), text))
    return sorted(spans, key=lambda s: (s.rows[0], s.col))


def span_cells(row: list[str], span: Span) -> list[str]:
    """The cells of a span's own unit: the row's stub (first) cell and the long cell."""
    return [c if j in (0, span.col) else "" for j, c in enumerate(row)]


def without_spans(row: list[str], i: int, spans: list[Span]) -> list[str]:
    """Row ``i``'s cells with the long spanning cells it shares blanked."""
    cols = {s.col for s in spans if i in s.rows}
    return [("" if j in cols else c) for j, c in enumerate(row)]
