"""A column header printed again on each page of a continued table is no evidence row.

A dose table that runs over pages prints its header at the top of each page; read as a body row it
would give a unit ``Condition: Condition; Medicine: Medicine; ...``. The rows around it, and a row
that only shares some header words, stay units.
"""

from __future__ import annotations

from structaware_readers.models import Block, BlockKind, TableGrid, UnitType
from structaware_readers.units import build_units
from structaware_readers.units.table_view import repeats_header
from synthetic_docs import synthetic_doc

HEADER = [["Condition", "Medicine", "Dose", "Dose", "Length"], ["Condition", "Medicine", "Adult", "Child", "Length"]]


def _rows(*body: list[str]) -> list[str]:
    grid = TableGrid(header_rows=HEADER, body_rows=list(body), body_row_pages=[1] * 2 + [2] * (len(body) - 2))
    table = Block(block_id="p1-e1", kind=BlockKind.TABLE, text="dose table", page=1, table=grid)
    heading = Block(block_id="p1-e0", kind=BlockKind.HEADING, text="Antibiotic doses", page=1, level=1)
    units = build_units(synthetic_doc([heading, table], pages=2))
    return [u.text for u in units if u.unit_type is UnitType.TABLE_ROW]


def test_repeated_header_on_the_next_page_is_no_row():
    texts = _rows(
        ["Otitis media", "amoxicillin", "500 mg TDS", "40 mg/kg", "5 days"],
        ["Acute cough", "doxycycline", "200 mg", "-", "5 days"],
        ["Condition", "Medicine", "Adult", "Child", "Length"],  # the header, printed again on page 2
        ["Sinusitis", "phenoxymethylpenicillin", "500 mg QDS", "250 mg QDS", "5 days"],
    )
    assert len(texts) == 3
    assert not any("Condition: Condition" in t for t in texts)
    assert any(t.startswith("Condition: Sinusitis") for t in texts)


def test_a_row_with_a_value_of_its_own_stays():
    # every cell but the last is a header text: the last is a value, so this is a row of the table
    texts = _rows(
        ["Otitis media", "amoxicillin", "500 mg TDS", "40 mg/kg", "5 days"],
        ["Acute cough", "doxycycline", "200 mg", "-", "5 days"],
        ["Condition", "Medicine", "Adult", "Child", "7 days"],
    )
    assert len(texts) == 3
    assert any("Length: 7 days" in t for t in texts)


def test_the_rule_itself():
    assert repeats_header(["Condition", "Medicine", "Dose", "Child", "Length"], HEADER)  # any header line
    assert repeats_header(["", "Medicine", "", "Child", ""], HEADER)  # header texts in their own columns
    assert not repeats_header(["Medicine", "Condition", "", "", ""], HEADER)  # in other columns
    assert not repeats_header(["Condition", "", "", "", ""], HEADER)  # one text: a label, not a header
    assert not repeats_header(["Condition", "Medicine", "Adult", "Child", "Length"], [])  # no header
