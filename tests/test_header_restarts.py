"""A header line printed again in a table's body with other text starts a new block of columns.

A filing stacks a "Quarter ended" block and a "Nine months ended" block of one shape under one header,
or continues a segment table with other segment names. The rows below such a line take its header, not
the first block's, and the line is no row itself. All-text rows of a guideline table stay rows.
The tables here are made up.
"""

from __future__ import annotations

from structaware_readers.models import Block, BlockKind, TableGrid, UnitType
from structaware_readers.units import build_units
from structaware_readers.units.header_restarts import header_restarts
from synthetic_docs import synthetic_doc

SEGMENTS = [
    ["Quarter ended March 31,", "Widgets", "Widgets", "Gadgets", "Gadgets"],
    ["(in thousands)", "2031", "2030", "2031", "2030"],
]


def _units(header: list[list[str]], *body: list[str]):
    grid = TableGrid(header_rows=header, body_rows=list(body))
    table = Block(block_id="p1-e1", kind=BlockKind.TABLE, text="table", page=1, table=grid)
    heading = Block(block_id="p1-e0", kind=BlockKind.HEADING, text="Results", page=1, level=1)
    return [u for u in build_units(synthetic_doc([heading, table])) if u.unit_type is UnitType.TABLE_ROW]


def test_a_second_period_block_takes_its_own_header():
    units = _units(
        SEGMENTS,
        ["Sales", "$410", "$395", "$77", "$81"],
        ["Operating profit", "52", "47", "9", "12"],
        ["Nine months ended March 31,", "Widgets", "Widgets", "Gadgets", "Gadgets"],
        ["Sales", "1,215", "1,180", "230", "245"],
        ["Operating profit", "150", "139", "28", "33"],
    )
    texts = [u.text for u in units]
    assert len(texts) == 4  # the period line is no row
    assert not any("Quarter ended March 31, / (in thousands): Nine months" in t for t in texts)
    assert texts[0].startswith("Quarter ended March 31, / (in thousands): Sales; Widgets / 2031: $410")
    assert texts[2].startswith("Nine months ended March 31, / (in thousands): Sales; Widgets / 2031: 1,215")
    assert "Nine months ended March 31," in units[3].context
    assert units[3].table.headers[1] == "Widgets / 2031"


def test_other_segment_names_with_a_year_line_below():
    units = _units(
        SEGMENTS,
        ["Sales", "$410", "$395", "$77", "$81"],
        ["Quarter ended March 31,", "Sprockets", "Sprockets", "Other", ""],
        ["(in thousands)", "2031", "2030", "2031", "2030"],
        ["Sales", "$19", "$22", "$3", "$4"],
    )
    texts = [u.text for u in units]
    assert len(texts) == 2
    assert texts[1] == (
        "Quarter ended March 31, / (in thousands): Sales; Sprockets / 2031: $19; Sprockets / 2030: $22; "
        "Other / 2031: $3; Other / 2030: $4"
    )


def test_guideline_text_rows_stay_rows():
    # traps: all-text rows with cells repeated across columns, one labelled with the label column's
    # header, one with a time phrase, each followed by a row with figures
    header = [["Population", "Medicine", "Adult dose", "Child dose"]]
    units = _units(
        header,
        ["Adults with asthma", "budesonide", "200 mcg twice daily", "100 mcg twice daily"],
        ["Population", "Not applicable", "Not applicable", "Not applicable"],
        ["Adults over 65", "budesonide", "100 mcg twice daily", "-"],
        ["At 6 weeks", "Review", "Review", "Review"],
        ["Children under 5", "budesonide", "-", "50 mcg twice daily"],
    )
    texts = [u.text for u in units]
    assert len(texts) == 5
    assert texts[1].startswith("Population: Population; Medicine: Not applicable")
    assert texts[3].startswith("Population: At 6 weeks; Medicine: Review")
    assert texts[4].startswith("Population: Children under 5; Medicine: budesonide")
    assert all(u.table.headers == units[0].table.headers for u in units)


def test_the_rule_itself():
    body = [["Sales", "1", "2", "3", "4"]]
    period = ["Nine months ended March 31,", "Widgets", "Widgets", "Gadgets", "Gadgets"]
    assert list(header_restarts([period, *body], SEGMENTS)) == [0]
    # followed by no figures: a text row, no header
    assert not header_restarts([period, ["Sales", "n/a", "n/a", "", ""]], SEGMENTS)
    # a figure in it: a data row
    assert not header_restarts([["Nine months ended March 31,", "Widgets", "12", "", ""], *body], SEGMENTS)
    # a label that is no period phrase and no header text of the label column
    assert not header_restarts([["Children", "Widgets", "Widgets", "Gadgets", "Gadgets"], *body], SEGMENTS)
    # a lone name without a year line below is no column name
    assert not header_restarts([["Nine months ended March 31,", "Sprockets", "", "Other", ""], *body], SEGMENTS)


def test_a_period_over_the_value_columns():
    # the period names the value columns, not the label column; the year line below is printed again
    header = [["", "Quarter ended March 31,", "Quarter ended March 31,"], ["(in thousands)", "2031", "2030"]]
    units = _units(
        header,
        ["Sales", "410", "395"],
        ["", "At March 31,", "At March 31,"],
        ["(in thousands)", "2031", "2030"],
        ["Inventory", "88", "91"],
    )
    assert [u.text for u in units] == [
        "(in thousands): Sales; Quarter ended March 31, / 2031: 410; Quarter ended March 31, / 2030: 395",
        "(in thousands): Inventory; At March 31, / 2031: 88; At March 31, / 2030: 91",
    ]
    # one text over the full width is a group label, as before
    assert not header_restarts([["Quarter ended March 31,"] * 3, ["Sales", "410", "395"]], header)


def test_header_lines_printed_again_below_the_restart():
    # below the restart the parser reads the header's lines again, one word short: still header lines
    header = [["", "Sales", "Sales", "Margin"], ["Quarter ended March 31,", "2031", "2030", "on sales"]]
    period = ["Nine months ended March 31,", "2031", "2030", "on sales"]
    near = ["", "Sales", "Sales", "on"]
    assert list(header_restarts([period, near, ["Widgets", "12", "11", "9 %"]], header)) == [0]
    assert not header_restarts([period, near, ["Widgets", "n/a", "n/a", ""]], header)


def test_a_label_just_above_a_restart_titles_the_new_block():
    # a stacked table's caption, read as a label row just above its header line, heads the new block;
    # trap: the first block's label ends at the restart
    caption = "The notional amounts of the hedges outstanding were as follows:"
    header = [["", "Carrying amount", "Fair value"], ["(in millions)", "2031", "2031"]]
    units = _units(
        header,
        ["Bonds in the first block"] * 3,
        ["Bonds", "410", "395"],
        [caption] * 3,
        ["", "(in millions)", "(in millions)"],  # the units line of the stacked table: no figures
        ["At March 31,", "2031", "2030"],
        ["Swaps", "88", "91"],
        ["At June 30,", "2031", "2030"],
        ["Forwards", "12", "14"],
    )
    by_label = {u.text.split(";")[0].split(": ")[-1]: u for u in units}
    assert {"Bonds", "Swaps", "Forwards"} <= set(by_label)
    assert "Group: Bonds in the first block" in by_label["Bonds"].context
    assert f"Group: {caption}" in by_label["Swaps"].context
    assert "Group:" not in by_label["Forwards"].context  # figures were read under the caption: it ends
