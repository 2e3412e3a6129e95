"""A filing's cover page names the filing in its table rows' context (issue 9, third session).

The cover blocks below are the text blocks MinerU 4.0.12's flash tier gives for the cover pages of SEC
filings (one line per block, the period's date apart from its phrase, the registrant's name before
the "(Exact name of registrant ...)" note, sometimes with the commission file number in between).
"""

from __future__ import annotations

import pytest

from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.units import UnitOptions, build_units
from structaware_readers.units.filing_cover import FilingCover, read_filing_cover

_10Q_COVER = [
    "UNITED STATES SECURITIES AND EXCHANGE COMMISSION Washington, D.C. 20549",
    "FORM 10-Q",
    "Quarterly report pursuant to Section 13 or 15(d) of the Securities Exchange Act of 1934",
    "For the quarterly period ended",
    "Commission file",
    "June 30, 2022",
    "number 1-5805",
    "JPMorgan Chase & Co.",
    "(Exact name of registrant as specified in its charter)",
    "Delaware",
]
_10K_COVER = [
    "SECURITIES AND EXCHANGE COMMISSION",
    "Washington, D.C. 20549 FORM 10-K",
    "ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)",
    "For the fiscal year ended December 31, 2021",
    "Verizon Communications Inc.",
    "Commission file number: 1-8606",
    "(Exact name of registrant as specified in its charter)",
]
_GRID = TableGrid(
    header_rows=[["(in millions)", "June 30, 2022", "December 31, 2021"]],
    body_rows=[
        ["Loans retained", "$584,265", "$560,354"],
        ["Total wholesale credit portfolio", "1,248,615", "1,203,283"],
    ],
)


def _doc(cover: list[str], *, table_page: int = 62) -> ParsedDocument:
    blocks = [Block(block_id=f"p1-e{i}", kind=BlockKind.PARAGRAPH, text=t, page=1) for i, t in enumerate(cover)]
    blocks += [
        Block(
            block_id=f"p{table_page}-e0",
            kind=BlockKind.HEADING,
            text="Wholesale credit portfolio",
            page=table_page,
            level=1,
        ),
        Block(
            block_id=f"p{table_page}-e1",
            kind=BlockKind.PARAGRAPH,
            text="Retained loans increased in the quarter.",
            page=table_page,
        ),
        Block(block_id=f"p{table_page}-e2", kind=BlockKind.TABLE, text="", page=table_page, table=_GRID),
    ]
    return ParsedDocument(
        doc_id="6" * 16, source="filing.json", name="filing", parser="test", page_count=table_page, blocks=blocks
    )


@pytest.mark.parametrize(
    "cover, expected",
    [
        (_10Q_COVER, FilingCover("10-Q", "JPMorgan Chase & Co.", "June 30, 2022")),
        (_10K_COVER, FilingCover("10-K", "Verizon Communications Inc.", "December 31, 2021")),
        # no registrant note: the form and period still name the filing
        ([line for line in _10Q_COVER if "Exact name" not in line], FilingCover("10-Q", "", "June 30, 2022")),
    ],
)
def test_a_filing_cover_gives_form_registrant_and_period(cover, expected):
    assert read_filing_cover(_doc(cover)) == expected


@pytest.mark.parametrize(
    "cover",
    [
        ["2017 Guideline for the Prevention of Hypertension", "Class I, LOE A"],  # not a filing
        ["FORM 10-Q", "Quarterly report"],  # a form without its period
        ["For the quarterly period ended June 30, 2022"],  # a period without a form
    ],
)
def test_a_document_without_a_filing_cover_gives_none(cover):
    assert read_filing_cover(_doc(cover)) is None


def test_table_rows_of_a_filing_name_it_first_and_sections_stay_as_they_were():
    units = build_units(_doc(_10Q_COVER))
    rows = [u for u in units if u.unit_type is UnitType.TABLE_ROW]
    assert len(rows) == 2
    label = "Document: JPMorgan Chase & Co. Form 10-Q for the period ended June 30, 2022"
    assert all(u.context.startswith(f"{label} | Table") for u in rows)
    assert rows[0].text == "(in millions): Loans retained; June 30, 2022: $584,265; December 31, 2021: $560,354"
    assert all("Document:" not in u.context for u in units if u.unit_type is not UnitType.TABLE_ROW)
    # the option turns it off; the rest of the context is the same
    plain = [
        u
        for u in build_units(_doc(_10Q_COVER), UnitOptions(document_context=False))
        if u.unit_type is UnitType.TABLE_ROW
    ]
    assert [u.context for u in plain] == [u.context.removeprefix(f"{label} | ") for u in rows]
    # without a cover nothing changes
    other = [u for u in build_units(_doc(["A guideline"])) if u.unit_type is UnitType.TABLE_ROW]
    assert [u.context for u in other] == [u.context for u in plain]
