"""A table group's row lines (``search.results.row_line``) hand over a cell merged across columns once, as the
row's own text does (``units.table_view.row_text``): a prescribing summary prints an infection's key points over
the medicine, dose and length columns, and the parser repeats the paragraph in each of them."""

from __future__ import annotations

from structaware_readers.common.merged_cells import MERGED_CELL_CHARS
from structaware_readers.models import TableRowInfo, Unit, UnitType
from structaware_readers.units.table_view import row_text
from structaware_retrievers.search.evidence import group_table_rows
from structaware_retrievers.search.results import SearchHit, hit_unit, row_line

HEADERS = ["Infection", "Key points", "Medicine", "Adult dose", "Child dose", "Length"]
KEY_POINTS = (
    "Most episodes settle within three weeks without treatment. Offer a back-up prescription only if symptoms "
    "worsen or the person is systemically unwell."
)


def _row(cells: list[str], index: int = 0) -> Unit:
    return Unit(
        unit_id=f"u{index}",
        unit_type=UnitType.TABLE_ROW,
        text=row_text(HEADERS, cells),
        context="Table | Columns: " + "; ".join(HEADERS),
        doc_id="d",
        doc_name="d",
        pages=[3],
        element_ids=[f"p3-e{index}"],
        bboxes=[None],
        element_pages=[3],
        ordinal=index,
        table=TableRowInfo(table_id="t1", row_index=index, headers=HEADERS, cells=cells),
    )


def test_a_cell_merged_across_columns_is_given_once_in_a_group_line() -> None:
    assert len(KEY_POINTS) > MERGED_CELL_CHARS
    merged = _row(["Acute sinusitis", KEY_POINTS, KEY_POINTS, KEY_POINTS, KEY_POINTS, KEY_POINTS], 1)
    line = row_line(merged)
    assert line.count(KEY_POINTS) == 1 == merged.text.count(KEY_POINTS)
    # the repeats are left empty, so the columns stay in place as in a Markdown table
    assert line == " | ".join(["Acute sinusitis", KEY_POINTS, "", "", "", ""])
    # a group hands the merged paragraph over once: the hit's row, then the group row's line
    first = _row(["Acute otitis media", "Regular analgesia first.", "Amoxicillin", "500 mg TDS", "", "5 days"], 0)
    hit = group_table_rows([SearchHit(unit=first, score=1.0, rank=1), SearchHit(unit=merged, score=0.9, rank=2)], 3, 5)
    assert hit_unit(hit[0]).text.count(KEY_POINTS) == 1


def test_short_equal_cells_and_a_repeat_further_along_keep_their_place() -> None:
    # trap: a dose row whose adult and child doses are the same short value is two cells, not a merge
    same_dose = _row(["Cellulitis", "", "Flucloxacillin", "500 mg QDS", "500 mg QDS", "5 to 7 days"], 2)
    assert row_line(same_dose) == "Cellulitis |  | Flucloxacillin | 500 mg QDS | 500 mg QDS | 5 to 7 days"
    # trap: the same long paragraph with another cell between is printed twice, not merged
    apart = _row(["Impetigo", KEY_POINTS, "Hydrogen peroxide 1% cream", KEY_POINTS, "", ""], 3)
    assert row_line(apart).count(KEY_POINTS) == 2
    # a merged cell that continues past an empty cell is still one cell (the row's text says it once too)
    gap = _row(["Scarlet fever", KEY_POINTS, "", KEY_POINTS, "", ""], 4)
    assert row_line(gap).count(KEY_POINTS) == 1 == gap.text.count(KEY_POINTS)
