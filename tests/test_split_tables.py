"""Tables the parser split into pieces or missed, rebuilt as one table from the PDF's text layer (issue 9).

Each test draws a one-page PDF with reportlab (real text layer, read by pdfplumber) and hands
:func:`recover_table_grids` the blocks MinerU's flash tier gives for such a page on the OHR-Bench
finance filings: a ``table`` block with one ``paragraph`` per number below it; an ``image`` of the
figures with the row labels as one ``paragraph`` beside it; an ``equation`` region whose text was
dropped; two stacked ``table`` panels. Block boxes are the drawn text's boxes (0..1 of the page).
"""

from __future__ import annotations

import io
import re

from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas as canvas_mod

from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.table_recovery import recover_table_grids
from structaware_readers.units import build_units

W, H = 612.0, 792.0
SIZE = 9.0
FONT = "Helvetica"


class Page:
    """Text items drawn on one page; ``box`` gives the 0..1 box of a group of them."""

    def __init__(self) -> None:
        self.items: list[tuple[float, float, str]] = []  # (x, top, text), points from the top-left

    def text(self, x: float, top: float, text: str, *, right: bool = False) -> tuple[float, float, float, float]:
        width = stringWidth(text, FONT, SIZE)
        x0 = x - width if right else x
        self.items.append((x0, top, text))
        return (x0 / W, top / H, (x0 + width) / W, (top + SIZE + 2) / H)

    def pdf(self) -> bytes:
        buf = io.BytesIO()
        c = canvas_mod.Canvas(buf, pagesize=(W, H))
        c.setFont(FONT, SIZE)
        for x, top, text in self.items:
            c.drawString(x, H - top - SIZE, text)
        c.showPage()
        c.save()
        return buf.getvalue()


def union(*boxes):
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def block(n: int, kind: BlockKind, box, text: str = "", source_type: str = "text") -> Block:
    return Block(block_id=f"p1-e{n}", kind=kind, text=text, page=1, bbox=box, source_type=source_type)


def doc_of(blocks: list[Block]) -> ParsedDocument:
    return ParsedDocument(
        doc_id="0" * 16, source="synthetic", name="synthetic", parser="mineru", page_count=1, blocks=blocks
    )


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def assert_no_text_lost_or_doubled(before: ParsedDocument, after: ParsedDocument) -> None:
    """Every block of ``before`` is a block of ``after`` or named in one's ``extra_ids``, once; the words
    of an absorbed block are in the block that absorbed it, and in no other block."""
    ids = [b.block_id for b in after.blocks] + [e for b in after.blocks for e in b.extra_ids]
    assert sorted(ids) == sorted(b.block_id for b in before.blocks)
    for b in before.blocks:
        holder = after.block(b.block_id)
        assert set(words(b.text)) <= set(words(holder.text)), b.block_id
        if holder.block_id != b.block_id:
            for other in after.blocks:
                if other is not holder and b.text.strip():
                    assert b.text not in other.text


LABEL_X, COL1, COL2 = 72.0, 380.0, 480.0  # label start, right edges of the two figure columns


def test_table_block_with_one_block_per_number_below_becomes_one_table():
    p = Page()
    head = [p.text(COL1, 100, "June 30, 2023", right=True), p.text(COL2, 100, "Dec 31, 2022", right=True)]
    head.append(p.text(LABEL_X, 100, "(in millions)"))
    head.append(p.text(LABEL_X, 124, "Assets"))
    row1 = [
        p.text(LABEL_X + 8, 136, "Securities purchased"),
        p.text(COL1, 136, "$597,912", right=True),
        p.text(COL2, 136, "$561,426", right=True),
    ]
    # below the table block: one block per label and number, as MinerU's flash tier gives them
    lab2 = p.text(LABEL_X + 8, 148, "Securities borrowed")
    n21, n22 = p.text(COL1, 148, "228,279", right=True), p.text(COL2, 148, "205,579", right=True)
    lab3 = p.text(LABEL_X, 160, "Liabilities")
    lab4 = p.text(LABEL_X + 8, 172, "Securities loaned")
    n41, n42 = p.text(COL1, 172, "52,443", right=True), p.text(COL2, 172, "(42,016)", right=True)
    note = p.text(
        LABEL_X, 196, "(a) Includes securities-for-securities lending agreements accounted for at fair value."
    )
    intro = p.text(LABEL_X, 70, "The table below summarizes the gross amounts of securities financing agreements.")
    blocks = [
        block(
            0,
            BlockKind.PARAGRAPH,
            intro,
            "The table below summarizes the gross amounts of securities financing agreements.",
        ),
        block(
            1,
            BlockKind.TABLE,
            union(*head, *row1),
            "(in millions)  June 30, 2023   Dec 31, 2022\nAssets\n  Securities purchased  $597,912  $561,426",
            source_type="table",
        ),
        # MinerU types some rows of a table at the top of a page as page headers: they are rows too
        block(2, BlockKind.HEADER, lab2, "Securities borrowed", source_type="header"),
        block(3, BlockKind.PARAGRAPH, n21, "228,279"),
        block(4, BlockKind.PARAGRAPH, n22, "205,579"),
        block(5, BlockKind.FOOTNOTE, lab3, "Liabilities", source_type="page_footnote"),
        block(6, BlockKind.FOOTNOTE, lab4, "Securities loaned", source_type="page_footnote"),
        block(7, BlockKind.PARAGRAPH, n41, "52,443"),
        block(8, BlockKind.PARAGRAPH, n42, "(42,016)"),
        block(
            9,
            BlockKind.FOOTNOTE,
            note,
            "(a) Includes securities-for-securities lending agreements accounted for at fair value.",
            source_type="page_footnote",
        ),
    ]
    doc = doc_of(blocks)
    out = recover_table_grids(doc, p.pdf())

    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1", "p1-e9"]  # intro and footnote stay
    table = out.block("p1-e1")
    assert table.kind is BlockKind.TABLE and table.table.grid_source == "pdf_text_layer"
    assert table.extra_ids == [f"p1-e{i}" for i in range(2, 9)]
    assert table.extra_pages == [1] * 7 and table.extra_bboxes == [b.bbox for b in blocks[2:9]]
    assert table.table.header_rows[-1][1:] == ["June 30, 2023", "Dec 31, 2022"]
    assert table.table.body_rows == [
        ["Assets", "", ""],
        ["Securities purchased", "$597,912", "$561,426"],
        ["Securities borrowed", "228,279", "205,579"],
        ["Liabilities", "", ""],
        ["Securities loaned", "52,443", "(42,016)"],
    ]
    assert len(table.table.body_row_bboxes) == 5 and out.warnings == []
    assert_no_text_lost_or_doubled(doc, out)
    # each absorbed element is addressable: it names the table that holds it
    assert out.block("p1-e7") is table
    rows = [u for u in build_units(out) if u.unit_type is UnitType.TABLE_ROW]
    assert [u.table.cells for u in rows][-1] == ["Securities loaned", "52,443", "(42,016)"]
    assert all(u.element_ids == ["p1-e1"] for u in rows)
    # without the PDF nothing changes
    assert [b.block_id for b in recover_table_grids(doc, None).blocks] == [b.block_id for b in blocks]


def test_figure_of_numbers_with_its_row_labels_beside_it_becomes_one_table():
    p = Page()
    quarters = ["First Quarter", "Second Quarter", "Third Quarter", "Fourth Quarter"]
    highs, lows = ["$657.72", "731.50", "839.95", "847.21"], ["$474.00", "585.25", "716.54", "710.10"]
    figure_boxes = [p.text(COL1, 100, "High", right=True), p.text(COL2, 100, "Low", right=True)]
    label_boxes = [p.text(LABEL_X, 112, "Year ended December 31, 2016")]
    for k, (q, hi, lo) in enumerate(zip(quarters, highs, lows)):
        top = 124 + 12 * k
        label_boxes.append(p.text(LABEL_X + 12, top, q))
        figure_boxes += [p.text(COL1, top, hi, right=True), p.text(COL2, top, lo, right=True)]
    after = p.text(LABEL_X, 190, "As of January 24, 2018, there were 2,357 shareholders of record of our common stock.")
    blocks = [
        block(
            0,
            BlockKind.FIGURE,
            union(*figure_boxes),
            "High Low\n" + "\n".join(f"{h}   {lo}" for h, lo in zip(highs, lows)),
            source_type="image",
        ),
        block(1, BlockKind.PARAGRAPH, union(*label_boxes), "Year ended December 31, 2016 " + " ".join(quarters)),
        block(
            2,
            BlockKind.PARAGRAPH,
            after,
            "As of January 24, 2018, there were 2,357 shareholders of record of our common stock.",
        ),
    ]
    doc = doc_of(blocks)
    out = recover_table_grids(doc, p.pdf())

    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e2"]
    table = out.blocks[0]
    assert table.kind is BlockKind.TABLE and table.source_type == "image" and table.extra_ids == ["p1-e1"]
    assert table.table.body_rows[-4:] == [
        ["First Quarter", "$657.72", "$474.00"],
        ["Second Quarter", "731.50", "585.25"],
        ["Third Quarter", "839.95", "716.54"],
        ["Fourth Quarter", "847.21", "710.10"],
    ]
    assert_no_text_lost_or_doubled(doc, out)


def test_region_whose_numbers_the_parser_dropped_gets_them_from_the_pdf():
    p = Page()
    labels = ["Cost of services", "Cost of wireless equipment", "Total Operating Expenses"]
    values = [("31,234", "28,524"), ("20,523", "15,736"), ("65,345", "59,677")]
    head = [p.text(COL1, 100, "2021", right=True), p.text(COL2, 100, "2020", right=True)]
    label_boxes = []
    for k, (label, (a, b)) in enumerate(zip(labels, values)):
        top = 112 + 12 * k
        label_boxes.append(p.text(LABEL_X, top, label))
        head += [p.text(COL1, top, a, right=True), p.text(COL2, top, b, right=True)]
    blocks = [block(0, BlockKind.EQUATION, union(*head, *label_boxes), "", source_type="equation")]
    blocks += [block(1 + k, BlockKind.PARAGRAPH, box, label) for k, (box, label) in enumerate(zip(label_boxes, labels))]
    doc = doc_of(blocks)
    assert not any("20,523" in b.text for b in blocks)  # the parse has the labels only
    out = recover_table_grids(doc, p.pdf())

    table = out.block("p1-e0")
    assert [b.block_id for b in out.blocks] == ["p1-e0"] and table.extra_ids == ["p1-e1", "p1-e2", "p1-e3"]
    assert table.table.body_rows == [[label, a, b] for label, (a, b) in zip(labels, values)]
    assert_no_text_lost_or_doubled(doc, out)


def _panel(p: Page, top: float, date: str, rows: list[tuple[str, str, str]], *, third: str | None = None):
    boxes = [p.text(COL1, top, date, right=True), p.text(COL2, top, "Net", right=True)]
    if third:
        boxes.append(p.text(560, top, third, right=True))
    for k, (label, a, b) in enumerate(rows):
        t = top + 12 * (k + 1)
        boxes += [p.text(LABEL_X, t, label), p.text(COL1, t, a, right=True), p.text(COL2, t, b, right=True)]
        if third:
            boxes.append(p.text(560, t, "1", right=True))
    return union(*boxes)


def test_stacked_panels_of_the_same_columns_become_one_table_keeping_both_ids():
    p = Page()
    first = _panel(
        p, 100, "March 31, 2021", [("Interest rate", "310,838", "28,548"), ("Foreign exchange", "185,672", "15,112")]
    )
    second = _panel(
        p, 142, "December 31, 2020", [("Interest rate", "390,659", "35,725"), ("Foreign exchange", "205,359", "15,781")]
    )
    # MinerU's boxes of the two panels touch (the second starts a little above the first's end)
    second = (second[0], second[1] - 0.005, second[2], second[3])
    blocks = [
        block(
            0,
            BlockKind.TABLE,
            first,
            "March 31, 2021 Net\nInterest rate 310,838 28,548\nForeign exchange 185,672 15,112",
            "table",
        ),
        block(
            1,
            BlockKind.TABLE,
            second,
            "December 31, 2020 Net\nInterest rate 390,659 35,725\nForeign exchange 205,359 15,781",
            "table",
        ),
    ]
    doc = doc_of(blocks)
    out = recover_table_grids(doc, p.pdf())

    assert [b.block_id for b in out.blocks] == ["p1-e0"]
    table = out.blocks[0]
    assert table.extra_ids == ["p1-e1"] and out.block("p1-e1") is table
    # one band row per panel, named by what its header says and the other's does not; the header keeps
    # what both share, the second panel's header is no body row
    assert table.table.header_rows == [["", "", "Net"]]
    assert table.table.body_rows == [
        ["March 31, 2021"] * 3,
        ["Interest rate", "310,838", "28,548"],
        ["Foreign exchange", "185,672", "15,112"],
        ["December 31, 2020"] * 3,
        ["Interest rate", "390,659", "35,725"],
        ["Foreign exchange", "205,359", "15,781"],
    ]
    assert len(table.table.body_row_bboxes) == 6 and table.table.body_row_bboxes[0] is None
    assert_no_text_lost_or_doubled(doc, out)
    # the rows of each panel are units grouped under their panel's date
    rows = [u for u in build_units(out) if u.unit_type is UnitType.TABLE_ROW]
    fx = [u for u in rows if u.table.cells[0] == "Foreign exchange"]
    assert "March 31, 2021" in fx[0].context and "December 31, 2020" in fx[1].context
    assert "December" not in fx[0].context and "March" not in fx[1].context


def test_stacked_tables_of_other_columns_stay_two_tables():
    p = Page()
    first = _panel(p, 100, "March 31, 2021", [("Interest rate", "310,838", "28,548"), ("Credit", "14,212", "1,048")])
    second = _panel(p, 142, "Total", [("Equity", "73,578", "19,753"), ("Commodity", "22,089", "8,658")], third="Other")
    blocks = [
        block(
            0, BlockKind.TABLE, first, "March 31, 2021 Net\nInterest rate 310,838 28,548\nCredit 14,212 1,048", "table"
        ),
        block(
            1,
            BlockKind.TABLE,
            (second[0], second[1] - 0.005, second[2], second[3]),
            "Total Net Other\nEquity 73,578 19,753 1\nCommodity 22,089 8,658 1",
            "table",
        ),
    ]
    out = recover_table_grids(doc_of(blocks), p.pdf())
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1"]
    assert [b.table.n_cols for b in out.blocks] == [3, 4] and all(not b.extra_ids for b in out.blocks)
    assert out.warnings == []  # two tables, read as such: nothing to warn about


def test_text_column_beside_a_table_is_not_taken_as_its_labels():
    """A two-column page: the running text left of a table on the same rows stays text."""
    p = Page()
    prose = [
        p.text(40, 100 + 12 * k, line)
        for k, line in enumerate(
            [
                "In addition to its obligation to repurchase",
                "certain loans, the Firm also has the option",
                "to repurchase delinquent loans. Options",
            ]
        )
    ]
    label = p.text(40, 136, "Options to repurchase")
    table = [p.text(420, 100, "Mar 31,", right=True), p.text(520, 100, "Dec 31,", right=True)]
    for k, (lab, a, b) in enumerate([("Loans repurchased", "$1,332", "$1,413"), ("Real estate owned", "8", "9")]):
        table += [
            p.text(250, 112 + 12 * k, lab),
            p.text(420, 112 + 12 * k, a, right=True),
            p.text(520, 112 + 12 * k, b, right=True),
        ]
    blocks = [
        block(
            0,
            BlockKind.PARAGRAPH,
            union(*prose),
            "In addition to its obligation to repurchase certain loans, the Firm also"
            " has the option to repurchase delinquent loans. Options",
        ),
        block(1, BlockKind.PARAGRAPH, label, "Options to repurchase"),
        block(
            2,
            BlockKind.TABLE,
            union(*table),
            "Mar 31, Dec 31,\nLoans repurchased $1,332 $1,413\nReal estate owned 8 9",
            "table",
        ),
    ]
    out = recover_table_grids(doc_of(blocks), p.pdf())
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1", "p1-e2"]
    assert out.block("p1-e2").table.body_rows == [
        ["Loans repurchased", "$1,332", "$1,413"],
        ["Real estate owned", "8", "9"],
    ]


def test_pieces_the_pdf_does_not_hold_stay_as_they_are_with_a_warning():
    """The pieces name figures the page's text layer does not have (not this page's PDF region): the
    table and its fragments are kept as the parser gave them, and a warning names page and element."""
    p = Page()
    head = [p.text(COL1, 100, "2021", right=True), p.text(COL2, 100, "2020", right=True)]
    row = [
        p.text(LABEL_X, 112, "Net sales"),
        p.text(COL1, 112, "107,006", right=True),
        p.text(COL2, 112, "135,987", right=True),
    ]
    lab = p.text(LABEL_X, 124, "Operating income")
    n1, n2 = p.text(COL1, 124, "2,233", right=True), p.text(COL2, 124, "4,186", right=True)
    blocks = [
        block(0, BlockKind.TABLE, union(*head, *row), "2021 2020\nNet sales 107,006 135,987", "table"),
        block(1, BlockKind.PARAGRAPH, lab, "Operating profit margin adjusted"),
        block(2, BlockKind.PARAGRAPH, n1, "9,999"),
        block(3, BlockKind.PARAGRAPH, n2, "8,888"),
    ]
    doc = doc_of(blocks)
    out = recover_table_grids(doc, p.pdf())
    assert [b.block_id for b in out.blocks] == ["p1-e0", "p1-e1", "p1-e2", "p1-e3"]
    assert [b.text for b in out.blocks[1:]] == ["Operating profit margin adjusted", "9,999", "8,888"]
    assert any(w.startswith("page 1, element p1-e0: the 4 pieces of a table") for w in out.warnings)


def test_panel_header_printed_again_for_another_period_becomes_a_band_row():
    from structaware_readers.models import TableGrid
    from structaware_readers.table_recovery.panels import split_panels

    grid = TableGrid(
        header_rows=[
            ["Three months ended March 31,", "2021 Amounts reclassified", "Amounts recorded"],
            ["(in millions)", "from AOCI", "in OCI"],
        ],
        body_rows=[
            ["Interest rate", "$237", "$(2,761)"],
            ["Foreign exchange", "27", "66"],
            ["Three months ended March 31,", "2020 Amounts reclassified", "Amounts recorded"],
            ["(in millions)", "from AOCI", "in OCI"],
            ["Interest rate", "$(9)", "$3,461"],
            ["Foreign exchange", "17", "(210)"],
        ],
        body_row_pages=[7] * 6,
        grid_source="pdf_text_layer",
    )
    out = split_panels(grid)
    assert out.header_rows == [
        ["Three months ended March 31,", "Amounts reclassified", "Amounts recorded"],
        ["(in millions)", "from AOCI", "in OCI"],
    ]
    assert [r[0] for r in out.body_rows] == [
        "Three months ended March 31, 2021",
        "Interest rate",
        "Foreign exchange",
        "Three months ended March 31, 2020",
        "Interest rate",
        "Foreign exchange",
    ]
    assert out.body_row_pages == [7] * 6
    # a body line without figures that does not repeat the header (a sub-heading) stays a row
    other = grid.model_copy(
        update={
            "body_rows": [*grid.body_rows[:2], ["Hedges of", "net investments", ""], *grid.body_rows[4:]],
            "body_row_pages": [7] * 5,
        }
    )
    assert split_panels(other) == other


def test_ruled_cells_holding_label_and_figures_are_row_shading_not_columns():
    """Row shading draws rectangles that pdfplumber's ruled-table finder takes for cell borders: one cell
    per row holding label and figures (Verizon's statements, as pdfplumber read p87). Such a ruled grid
    gives way to the borderless reading; a ruled checklist (cells of words) does not."""
    from structaware_readers.table_recovery.pdf_text_layer import _rows_in_one_cell

    shaded = [
        ["Foreign Exchange Forwards:", "Foreign Exchange Forwards:", ""],
        ["Notional value entered into $ 12,604 $ 14,030", "Notional value entered into $ 12,604 $ 14,030", ""],
        ["Notional value settled 13,077 13,755", "Notional value settled 13,077 13,755", ""],
        ["Notional value sold 2,000", "", "—"],
    ]
    assert _rows_in_one_cell(shaded)
    checklist = [
        ["Elements to be assessed", "Assessment", "Notes/Areas for Improvement"],
        ["A. HCP are required to demonstrate competency with safe injection practices", "Yes No", ""],
        ["B. Single-dose vials are used for only one patient", "Yes No", ""],
    ]
    assert not _rows_in_one_cell(checklist)
    assert not _rows_in_one_cell([["Net income", "$8,649", "$11,948"], ["Overhead ratio", "59", "56"]])
