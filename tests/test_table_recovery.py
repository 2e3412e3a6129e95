"""Grids for tables the parser left without cell structure (issue 9, part 1)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from structaware_readers.models import GRID_SOURCES, TableGrid
from structaware_readers.tables import parse_html_table


def test_parser_markup_grid_says_where_it_came_from():
    grid = parse_html_table("<table><tr><td>Drug</td><td>Dose</td></tr><tr><td>A</td><td>5 mg</td></tr></table>")
    assert grid.grid_source == "parser_html"
    assert grid.body_row_bboxes == []  # the parser's HTML carries no row positions


def test_grid_source_outside_the_vocabulary_is_refused():
    assert set(GRID_SOURCES) == {"parser_html", "pdf_text_layer", "parser_spans"}
    with pytest.raises(ValidationError, match="grid_source"):
        TableGrid(body_rows=[["a", "b"]], grid_source="guess")
