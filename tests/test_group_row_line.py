"""A table group's row lines (``search.results.row_line``) hand over a cell merged across columns once, as the
row's own text does (``units.table_view.row_text``): a prescribing summary prints an infection's key points over
the medicine, dose and length columns, and the parser repeats the paragraph in each of them."""

from __future__ import annotations

from structaware_readers.common.column_spans import MERGED_CELL_CHARS
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


def test_a_paragraph_long_row_is_evidence_of_its_own_not_a_group_row() -> None:
    from structaware_retrievers.query.fusion import GROUP_LONG_ROW_CHARS, GROUP_SHORT_ROW_CHARS

    doses = ["Amoxicillin", "500 mg three times a day", "", "5 days"]
    best = _row(["Acute otitis media", "Regular analgesia first.", *doses], 0)
    advice = (
        "Offer an antibiotic if the person is systemically very unwell, has symptoms and signs of a more serious "
        "illness or condition, or is at high risk of complications. Consider no antibiotic or a back-up "
        "prescription otherwise, and advise that symptoms can last for about a week."
    )
    long_row = _row(["Acute sore throat", " ".join([advice] * 3), "Phenoxymethylpenicillin", "", "", "5 to 10 days"], 1)
    mid_row = _row(["Acute cough", advice, "Doxycycline", "200 mg on day 1", "", "5 days"], 2)
    short_row = _row(["Sinusitis", "", "Amoxicillin", "500 mg TDS", "", "5 days"], 3)
    other = Unit(**{**best.model_dump(), "unit_id": "s1", "unit_type": UnitType.SECTION, "table": None})
    assert len(row_line(long_row)) > GROUP_LONG_ROW_CHARS >= len(row_line(mid_row)) > GROUP_SHORT_ROW_CHARS

    def hits(*units: Unit) -> list[SearchHit]:
        return [SearchHit(unit=u, score=1.0 - i / 10, rank=i + 1) for i, u in enumerate(units)]

    # the paragraph-long row does not ride along with the best row; the section keeps its place in the top 2
    out = group_table_rows(hits(best, long_row, other, short_row), 3, 2)
    assert [h.unit.unit_id for h in out] == ["u0", "s1"] and out[0].group == [short_row]
    # set aside, it comes back as a hit of its own when the top k has room
    out = group_table_rows(hits(best, long_row, other), 3, 5)
    assert [h.unit.unit_id for h in out] == ["u0", "s1", "u1"] and out[0].group == []
    # trap: a row of a few sentences (under a section part's size) still joins as the second row
    assert group_table_rows(hits(best, mid_row, other), 3, 5)[0].group == [mid_row]
    # the limit is a parameter
    assert group_table_rows(hits(best, long_row, other), 3, 5, long_row_chars=10_000)[0].group == [long_row]
