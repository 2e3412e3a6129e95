"""Row units stay the size of a row: a long cell that spans several rows is said once, in a unit
of its own, and data rows a rebuilt grid took for header rows go back to the body.

The shape of an antimicrobial summary table (infection | key points | medicine | dose | length):
the key points of an infection stand beside each of its drug rows, and a grid repeats them in
every row. Wording is made up for the test.
"""

from __future__ import annotations

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.units import build_units
from structaware_readers.units.table_view import row_text

KEY_POINTS = (
    "Advise about self-care and managing symptoms with paracetamol or ibuprofen. Consider a back-up "
    "antibiotic prescription if symptoms do not improve within 3 days. Offer an immediate antibiotic to "
    "people who are systemically very unwell or at high risk of complications. Review the choice of "
    "antibiotic when culture results are available."
)
QUESTION = (
    "Key question 2 - For adults with suspected infection, does early treatment compared with delayed "
    "treatment improve outcomes such as admission, complications and duration of symptoms in primary care?"
)


def _units(grid: TableGrid):
    blocks = [
        Block(block_id="p1-e1", kind=BlockKind.HEADING, text="2 Infections", page=1, level=1),
        Block(
            block_id="p1-e2", kind=BlockKind.TABLE, text="", page=1, table=grid, caption="Table 1. Treatment summary"
        ),
    ]
    doc = ParsedDocument(doc_id="5" * 16, source="x", name="x", parser="test", page_count=1, blocks=blocks)
    return [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]


def test_a_long_cell_spanning_drug_rows_becomes_one_unit_and_leaves_the_rows():
    grid = TableGrid(
        header_rows=[["Infection", "Key points", "Medicine", "Adult dose", "Length"]],
        body_rows=[
            ["Lower urinary tract infection", KEY_POINTS, "nitrofurantoin", "100mg MR BD", "3 days"],
            [
                "Lower urinary tract infection",
                KEY_POINTS,
                "pivmecillinam",
                "400mg initial dose, then 200mg TDS",
                "3 days",
            ],
            [
                "Acute sore throat",
                "Most people do not need an antibiotic.",
                "phenoxymethylpenicillin",
                "500mg QDS",
                "5 to 10 days",
            ],
        ],
    )
    units = _units(grid)
    texts = [u.text for u in units]
    assert sum(KEY_POINTS in t for t in texts) == 1
    span = next(u for u in units if KEY_POINTS in u.text)
    assert span.text == f"Infection: Lower urinary tract infection; Key points: {KEY_POINTS}"
    assert span.table.cells[2:] == ["", "", ""]
    piv = next(u for u in units if "pivmecillinam" in u.text)
    assert piv.text == (
        "Infection: Lower urinary tract infection; Medicine: pivmecillinam; "
        "Adult dose: 400mg initial dose, then 200mg TDS; Length: 3 days"
    )
    assert piv.table.cells[1] == ""
    assert len({u.unit_id for u in units}) == len(units) == 4
    # trap: a short cell seen once stays in its own row
    throat = next(u for u in units if "phenoxymethylpenicillin" in u.text)
    assert "Key points: Most people do not need an antibiotic." in throat.text


def test_a_long_first_column_names_its_rows_and_stays_in_them():
    grid = TableGrid(
        header_rows=[["Question", "Outcome", "Studies"]],
        body_rows=[[QUESTION, "Admission", "3 RCTs"], [QUESTION, "Complications", "2 RCTs"]],
    )
    units = _units(grid)
    assert len(units) == 2
    assert all(u.text.startswith(f"Question: {QUESTION}") for u in units)


def test_a_long_cell_in_one_row_only_stays_in_that_row():
    grid = TableGrid(
        header_rows=[["Infection", "Key points", "Medicine"]],
        body_rows=[["Impetigo", KEY_POINTS, "fusidic acid"], ["Cellulitis", KEY_POINTS.upper(), "flucloxacillin"]],
    )
    units = _units(grid)
    assert len(units) == 2 and KEY_POINTS in units[0].text


def test_a_long_cell_merged_across_two_columns_is_written_once():
    text = row_text(["Key points", "Medicine", "Length"], [KEY_POINTS, KEY_POINTS, "5 days"])
    assert text == f"Key points: {KEY_POINTS}; Length: 5 days"
    # trap: a short value repeated under two headers is two values
    assert row_text(["Adult", "Child"], ["Not recommended", "Not recommended"]) == (
        "Adult: Not recommended; Child: Not recommended"
    )


def test_data_rows_read_as_header_rows_go_back_to_the_body():
    """A rebuilt grid that took a characteristics table's rows for header rows: they become rows."""
    grid = TableGrid(
        header_rows=[
            ["Characteristic", "Trial A", "Trial B"],
            ["Age inclusion criteria", "18 years or more", "18 years or more"],
            ["Age, years, mean", "52.2", "50.6"],
            ["Female sex, n (%)", "44 (32.1)", "282 (34.5)"],
            ["White", "54 (39.4)", "361 (44.2)"],
            ["Black", "0 (0)", "1 (0.1)"],
        ],
        body_rows=[["eGFR inclusion criteria", "25-75", "20-45"]],
    )
    units = _units(grid)
    assert [u.text for u in units][:3] == [
        "Characteristic: Age inclusion criteria; Trial A: 18 years or more; Trial B: 18 years or more",
        "Characteristic: Age, years, mean; Trial A: 52.2; Trial B: 50.6",
        "Characteristic: Female sex, n (%); Trial A: 44 (32.1); Trial B: 282 (34.5)",
    ]
    assert len(units) == 6
    assert all(len(u.context) < 200 for u in units)


def test_a_multi_row_header_of_years_stays_a_header():
    """Trap: a filing's three header rows (period, date, years) are a real header."""
    grid = TableGrid(
        header_rows=[
            ["", "Three months ended", "Three months ended"],
            ["", "June 30,", "June 30,"],
            ["(in millions)", "2022", "2021"],
        ],
        body_rows=[["Net revenue", "1,204", "1,110"], ["Operating income", "310", "295"]],
    )
    units = _units(grid)
    assert len(units) == 2
    assert units[0].table.headers[1] == "Three months ended / June 30, / 2022"
