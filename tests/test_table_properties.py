"""Property tests of the table rules (issue 9): header + rows = the grid, every body cell appears in
exactly one unit, no unit repeats a header, a rowspan never adds or loses a row."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.tables import parse_html_table
from structaware_readers.units import build_units

_WORDS = st.sampled_from(["dose", "rate", "age", "stage", "drug", "risk", "mmHg", "total", "grade", "note"])


@st.composite
def tables(draw):
    """A header row of distinct names over body rows of distinct cells, each row with 2+ filled cells."""
    n_cols = draw(st.integers(2, 5))
    n_rows = draw(st.integers(1, 6))
    headers = [f"{draw(_WORDS).title()} {c}" for c in range(n_cols)]
    body = []
    for r in range(n_rows):
        filled = draw(st.lists(st.booleans(), min_size=n_cols, max_size=n_cols))
        filled[0] = filled[1] = True
        body.append([f"{draw(_WORDS)} r{r}c{c}" if filled[c] else "" for c in range(n_cols)])
    return headers, body


def _html(headers: list[str], body: list[list[str]], *, th: bool) -> str:
    tag = "th" if th else "td"
    head = "<tr>" + "".join(f"<{tag}>{h}</{tag}>" for h in headers) + "</tr>"
    rows = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in body)
    return f"<table>{head}{rows}</table>"


def _units(grid):
    block = Block(block_id="p1-e0", kind=BlockKind.TABLE, text="t", page=1, table=grid)
    doc = ParsedDocument(doc_id="5" * 16, source="t.json", name="t", parser="test", page_count=1, blocks=[block])
    return [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]


@settings(max_examples=60, deadline=None)
@given(tables(), st.booleans())
def test_header_and_rows_are_the_grid_and_each_cell_is_in_one_unit(table, th):
    headers, body = table
    grid = parse_html_table(_html(headers, body, th=th))
    assert grid.header_rows == [headers]
    assert grid.body_rows == body
    units = _units(grid)
    assert len(units) == len(body)
    for row in body:
        for cell in filter(None, row):
            assert sum(cell in u.text for u in units) == 1
    for u in units:
        for h in headers:
            assert u.text.count(f"{h}:") <= 1


@settings(max_examples=40, deadline=None)
@given(tables(), st.data())
def test_a_rowspan_repeats_its_cell_but_never_adds_or_loses_a_row(table, data):
    headers, body = table
    n_rows = len(body)
    span = data.draw(st.integers(1, n_rows))
    rows = []
    for r, row in enumerate(body):
        cells = "".join(
            f"<td rowspan={span}>{c}</td>" if (r == 0 and k == 0) else f"<td>{c}</td>"
            for k, c in enumerate(row)
            if not (0 < r < span and k == 0)
        )
        rows.append(f"<tr>{cells}</tr>")
    rows.extend("<tr></tr>" for _ in range(data.draw(st.integers(0, 2))))  # empty rows the span may cover
    html = "<table><tr>" + "".join(f"<th>{h}</th>" for h in headers) + "</tr>" + "".join(rows) + "</table>"
    grid = parse_html_table(html)
    assert len(grid.body_rows) == n_rows
    assert [r[0] for r in grid.body_rows[:span]] == [body[0][0]] * span
    assert [r[1:] for r in grid.body_rows] == [r[1:] for r in body]
    assert len(_units(grid)) == n_rows
