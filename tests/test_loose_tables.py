"""Tables a parser gave as loose blocks or as pictures, read into table blocks (journal layouts).

The blocks imitate what MinerU's flash tier gives for a two-column journal guideline: a recommendation
table's header row as three blocks (``Recommendations`` left, ``Class^a`` and ``Level^b`` right, typed
heading), each statement as one or more paragraphs (a lead-in, bullet lines, a closing line), its
grades as tiny blocks at the grade columns; a data table as one paragraph per cell under its caption;
the other text column's paragraphs interleaved. Wording is our own. One test draws the page with
reportlab so that a block holding two statements is cut at its text-layer lines.
"""

from __future__ import annotations

import io

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen import canvas as canvas_mod

from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, UnitType
from structaware_readers.units import build_units

P, H_, F = BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.FIGURE


def _doc(pages: list[list[tuple]]) -> ParsedDocument:
    blocks: list[Block] = []
    for n, page in enumerate(pages, start=1):
        for j, (kind, bbox, text, *rest) in enumerate(page):
            caption = rest[0] if rest else ""
            blocks.append(Block(block_id=f"p{n}-e{j}", kind=kind, page=n, bbox=bbox, text=text, caption=caption))
    return ParsedDocument(
        doc_id="d" * 16, source="journal.zip", name="journal", parser="mineru", page_count=len(pages), blocks=blocks
    )


LEFT_BODY = (
    P,
    (0.07, 0.07, 0.49, 0.30),
    "Blood pressure rises with age, and the benefit of lowering it holds in older adults. " * 4,
)
RIGHT_BODY = (
    P,
    (0.52, 0.07, 0.94, 0.45),
    "Home readings are lower than office readings in most adults, and the gap widens with age. " * 5,
)
CAPTION = (
    P,
    (0.08, 0.48, 0.92, 0.505),
    "Recommendation Table 2 — Recommendations for blood pressure lowering in older adults (see also Supplementary data online, Evidence Table 2)",
)
HEADER = [
    (H_, (0.081, 0.519, 0.202, 0.529), "Recommendations"),
    (H_, (0.827, 0.518, 0.868, 0.529), "Class<sup>a</sup>"),
    (H_, (0.888, 0.517, 0.929, 0.529), "Level<sup>b</sup>"),
]
STATEMENTS = [
    (
        P,
        (0.08, 0.542, 0.808, 0.569),
        "Home blood pressure monitoring is recommended for adults with suspected white-coat hypertension to confirm the diagnosis.",
    ),
    (P, (0.845, 0.549, 0.85, 0.559), "I"),
    (P, (0.903, 0.549, 0.914, 0.559), "B"),
    # two statements the parser read as one paragraph, each with its own grades
    (
        P,
        (0.08, 0.605, 0.808, 0.661),
        "Ambulatory monitoring should be considered when home readings are not available to the patient. Repeat office measurement may be considered in adults whose first reading is borderline.",
    ),
    (H_, (0.839, 0.612, 0.857, 0.622), "IIa"),
    (H_, (0.903, 0.612, 0.914, 0.622), "B"),
    (H_, (0.839, 0.644, 0.857, 0.653), "IIb"),
    (H_, (0.903, 0.644, 0.914, 0.653), "C"),
    # a lead-in, two bullet lines and a closing line; the grades sit on the middle line
    (P, (0.081, 0.667, 0.584, 0.68), "Drug treatment is recommended in adults:"),
    (P, (0.081, 0.683, 0.396, 0.695), "• aged 65 to 79 years with systolic pressure ≥140 mmHg, or"),
    (P, (0.081, 0.698, 0.357, 0.71), "• aged 80 years or older with systolic pressure ≥160 mmHg"),
    (P, (0.845, 0.69, 0.85, 0.7), "I"),
    (P, (0.901, 0.69, 0.915, 0.7), "A"),
    (P, (0.08, 0.711, 0.524, 0.725), "once lifestyle advice has been given.^12"),
    (P, (0.081, 0.729, 0.609, 0.741), "In frail adults, drug treatment should be considered:"),
    (P, (0.081, 0.745, 0.553, 0.756), "• when systolic pressure stays ≥160 mmHg, or"),
    (H_, (0.839, 0.748, 0.857, 0.758), "IIa"),
    (H_, (0.901, 0.748, 0.915, 0.758), "C"),
    (P, (0.081, 0.76, 0.533, 0.772), "• when organ damage is present."),
    (P, (0.941, 0.70, 0.955, 0.76), "Society 2031"),  # the stamp printed up the table's right edge
    (P, (0.94, 0.761, 0.952, 0.77), "©"),
]
AFTER = [
    (
        P,
        (0.071, 0.785, 0.938, 0.82),
        "BP, blood pressure; CV, cardiovascular. a Class of recommendation. b Level of evidence.",
    ),
    (H_, (0.07, 0.84, 0.4, 0.86), "5. Follow-up of treated adults"),
    (P, (0.07, 0.865, 0.49, 0.94), "Adults on treatment are seen again within three months of a change in dose."),
]


def _rec_table(doc: ParsedDocument) -> Block:
    tables = [b for b in doc.blocks if b.kind is BlockKind.TABLE]
    assert len(tables) == 1, [b.text[:40] for b in doc.blocks]
    return tables[0]


def test_recommendation_table_of_loose_blocks_becomes_graded_rows() -> None:
    doc = prepare_document(_doc([[LEFT_BODY, RIGHT_BODY, CAPTION, *HEADER, *STATEMENTS, *AFTER]]))
    table = _rec_table(doc)
    grid = table.table
    assert grid is not None and grid.grid_source == "parser_blocks"
    assert grid.header_rows == [["Recommendations", "Class^a", "Level^b"]]
    assert [r[1:] for r in grid.body_rows] == [["I", "B"], ["IIa", "B"], ["IIb", "C"], ["I", "A"], ["IIa", "C"]]
    statements = [r[0] for r in grid.body_rows]
    assert statements[0].startswith("Home blood pressure monitoring")
    assert (
        statements[1]
        == "Ambulatory monitoring should be considered when home readings are not available to the patient."
    )
    assert statements[2] == "Repeat office measurement may be considered in adults whose first reading is borderline."
    assert statements[3] == (
        "Drug treatment is recommended in adults:\n• aged 65 to 79 years with systolic pressure ≥140 mmHg, or\n"
        "• aged 80 years or older with systolic pressure ≥160 mmHg once lifestyle advice has been given.^12"
    )
    assert statements[4].startswith("In frail adults") and statements[4].endswith("organ damage is present.")
    assert table.caption.startswith("Recommendation Table 2")
    kept = {b.text for b in doc.blocks}
    # the body text of both columns, the legend and the heading after the table stay where they were
    assert {LEFT_BODY[2], RIGHT_BODY[2], AFTER[0][2], AFTER[1][2]} <= kept
    assert not kept & {"IIa", "Class^a", "Recommendations"}

    units = build_units(doc)
    recs = [u for u in units if u.unit_type is UnitType.RECOMMENDATION and u.grade is not None]
    assert [(u.grade.grade, u.grade.certainty) for u in recs] == [
        ("I", "B"),
        ("IIa", "B"),
        ("IIb", "C"),
        ("I", "A"),
        ("IIa", "C"),
    ]
    assert all(u.element_ids == [table.block_id] for u in recs)
    # each row points at its own lines, not at the whole table
    assert recs[0].bboxes[0][1] == pytest.approx(0.542) and recs[0].bboxes[0][3] == pytest.approx(0.569)


def test_recommendation_columns_cor_loe_at_the_left() -> None:
    page = [
        (P, (0.07, 0.10, 0.60, 0.12), "Table 7. Recommendations for anticoagulation after valve repair"),
        (H_, (0.07, 0.13, 0.11, 0.14), "COR"),
        (H_, (0.13, 0.13, 0.17, 0.14), "LOE"),
        (H_, (0.20, 0.13, 0.40, 0.14), "Recommendations"),
        (P, (0.08, 0.155, 0.09, 0.165), "1"),
        (P, (0.14, 0.155, 0.16, 0.165), "B-R"),
        (
            P,
            (0.20, 0.15, 0.90, 0.172),
            "In patients with a bioprosthetic mitral valve, anticoagulation for 3 to 6 months is reasonable.",
        ),
        (P, (0.08, 0.19, 0.10, 0.20), "2b"),
        (P, (0.14, 0.19, 0.17, 0.20), "C-LD"),
        (
            P,
            (0.20, 0.185, 0.90, 0.207),
            "Aspirin alone may be considered after surgical repair when bleeding risk is high.",
        ),
        (
            P,
            (0.07, 0.25, 0.93, 0.40),
            "Anticoagulation after valve repair has been studied in three small trials, none of them blinded. " * 3,
        ),
    ]
    doc = prepare_document(_doc([page]))
    grid = _rec_table(doc).table
    assert grid is not None
    assert [r[:2] for r in grid.body_rows] == [["1", "B-R"], ["2b", "C-LD"]]
    assert grid.body_rows[1][2].startswith("Aspirin alone")
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION and u.grade is not None]
    assert [u.grade.certainty for u in recs] == ["B-R", "C-LD"]


DATA_PAGE = [
    (P, (0.07, 0.07, 0.49, 0.28), "Starting doses are low in older adults because clearance falls with age. " * 4),
    (P, (0.07, 0.30, 0.45, 0.315), "Table 3 Starting and maximum doses of oral agents"),
    (
        P,
        (0.52, 0.07, 0.94, 0.60),
        "Most adults need two agents to reach the target, and fixed-dose pills help adherence. " * 8,
    ),
    (H_, (0.07, 0.325, 0.13, 0.337), "Agent"),
    (P, (0.20, 0.325, 0.30, 0.337), "Starting dose"),
    (P, (0.34, 0.325, 0.45, 0.337), "Maximum dose"),
    (P, (0.07, 0.345, 0.15, 0.357), "Amlodipine"),
    (P, (0.20, 0.345, 0.29, 0.357), "2.5 mg daily"),
    (P, (0.34, 0.345, 0.42, 0.357), "10 mg daily"),
    (P, (0.07, 0.365, 0.15, 0.377), "Lisinopril"),
    (P, (0.20, 0.365, 0.28, 0.377), "5 mg daily"),
    (P, (0.34, 0.365, 0.42, 0.377), "40 mg daily"),
    (P, (0.07, 0.385, 0.16, 0.397), "Hydrochloro-"),
    (P, (0.07, 0.399, 0.13, 0.411), "thiazide"),
    (P, (0.20, 0.385, 0.29, 0.397), "12.5 mg daily"),
    (P, (0.34, 0.385, 0.42, 0.397), "25 mg daily^a"),
    (P, (0.07, 0.42, 0.45, 0.432), "a Reduce the dose in kidney disease."),
    (P, (0.07, 0.45, 0.49, 0.60), "Doses are raised every four weeks until the target is reached. " * 3),
]


def test_data_table_of_loose_blocks_under_its_caption() -> None:
    doc = prepare_document(_doc([DATA_PAGE]))
    table = _rec_table(doc)
    grid = table.table
    assert grid is not None and grid.grid_source == "parser_blocks"
    assert table.caption == "Table 3 Starting and maximum doses of oral agents"
    assert grid.header_rows == [["Agent", "Starting dose", "Maximum dose"]]
    assert grid.body_rows == [
        ["Amlodipine", "2.5 mg daily", "10 mg daily"],
        ["Lisinopril", "5 mg daily", "40 mg daily"],
        ["Hydrochloro-thiazide", "12.5 mg daily", "25 mg daily^a"],
    ]
    rows = [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]
    assert len(rows) == 3 and "Amlodipine" in rows[0].text
    kept = {b.text for b in doc.blocks}
    assert DATA_PAGE[2][2] in kept and DATA_PAGE[16][2] in kept  # the other column, the legend


def test_cited_table_and_caption_over_body_text_are_no_tables_beside_a_real_one() -> None:
    cited = [
        (P, (0.07, 0.07, 0.49, 0.10), "Table 5 of the earlier edition lists these doses, which have not changed."),
        (P, (0.07, 0.10, 0.49, 0.30), "The doses are unchanged because no new trial has tested lower ones. " * 3),
        (P, (0.52, 0.07, 0.94, 0.30), "Adherence falls when the number of daily pills rises above three. " * 3),
    ]
    prose = [
        (P, (0.07, 0.07, 0.45, 0.085), "Table 2 Summary of the trials in older adults"),
        (
            P,
            (0.07, 0.09, 0.49, 0.20),
            "Three trials enrolled adults over 80 years of age and found fewer strokes. " * 2,
        ),
        (
            P,
            (0.07, 0.205, 0.49, 0.30),
            "A fourth trial was stopped early for benefit after two years of follow-up. " * 2,
        ),
        (P, (0.07, 0.305, 0.49, 0.40), "None of the trials enrolled adults living in care homes. " * 2),
        (P, (0.07, 0.405, 0.49, 0.50), "Falls were not more frequent with treatment in any of them. " * 2),
        (P, (0.52, 0.07, 0.94, 0.50), "Frailty scores were recorded in two of the trials only. " * 6),
    ]
    doc = prepare_document(_doc([cited, prose, DATA_PAGE]))
    # only the real table of the third page is one
    assert [b.page for b in doc.blocks if b.kind is BlockKind.TABLE] == [3]
    assert [b.text for b in doc.blocks if b.page < 3] == [b[2] for b in [*cited, *prose]]


def test_figure_captioned_as_a_table_becomes_a_table_a_figure_stays_a_figure() -> None:
    page = [
        (P, (0.07, 0.07, 0.60, 0.085), "Table 6 Dose changes in kidney disease"),
        (
            F,
            (0.07, 0.09, 0.93, 0.30),
            (
                "Agent          eGFR 30-59      eGFR <30\n"
                "Metformin      1 g daily       Stop\n"
                "Sitagliptin    50 mg daily     25 mg daily"
            ),
        ),
        (F, (0.07, 0.40, 0.93, 0.70), "Assess\nTreat\nReview", "Figure 1 Treatment pathway for older adults"),
    ]
    doc = prepare_document(_doc([page]))
    kinds = [b.kind for b in doc.blocks]
    assert kinds == [BlockKind.TABLE, BlockKind.FIGURE]
    table = doc.blocks[0]
    assert table.caption == "Table 6 Dose changes in kidney disease"
    assert isinstance(table.table, TableGrid)
    assert ["Metformin", "1 g daily", "Stop"] in table.table.body_rows
    assert doc.blocks[1].caption.startswith("Figure 1")


# -- the same recommendation table drawn as a PDF: a block holding two statements is cut at its lines --

PW, PH, SIZE = 612.0, 792.0, 8.0


def _pdf(lines: list[tuple[float, float, str]]) -> bytes:
    buf = io.BytesIO()
    c = canvas_mod.Canvas(buf, pagesize=(PW, PH))
    c.setFont("Helvetica", SIZE)
    for x, top, text in lines:
        c.drawString(x, PH - top - SIZE, text)
    c.save()
    return buf.getvalue()


def _box(x: float, top: float, text: str) -> tuple[float, float, float, float]:
    return (x / PW, top / PH, (x + stringWidth(text, "Helvetica", SIZE)) / PW, (top + SIZE + 2) / PH)


def test_two_statements_in_one_block_cut_at_text_layer_lines() -> None:
    first = ["Statins should be considered in adults over 75 years with diabetes", "and one further risk factor"]
    second = ["statin treatment may be continued in adults who already", "take it and tolerate it well"]
    second[0] = "A " + second[0]
    tops = [420.0, 430.0, 445.0, 455.0]
    text_lines = [(50.0, t, s) for t, s in zip(tops, [*first, *second])]
    grades = [(500.0, 425.0, "IIa"), (540.0, 425.0, "B"), (500.0, 450.0, "IIb"), (540.0, 450.0, "C")]
    head = [(50.0, 400.0, "Recommendations"), (500.0, 400.0, "Class"), (540.0, 400.0, "Level")]
    pdf = _pdf([*head, *text_lines, *grades, (50.0, 380.0, "Recommendation Table 9 — Lipid lowering in older adults")])
    boxes = [_box(x, t, s) for x, t, s in text_lines]
    merged = (min(b[0] for b in boxes), boxes[0][1], max(b[2] for b in boxes), boxes[-1][3])
    page = [
        (
            P,
            _box(50.0, 380.0, "Recommendation Table 9 — Lipid lowering in older adults"),
            "Recommendation Table 9 — Lipid lowering in older adults",
        ),
        *[(H_, _box(x, t, s), s) for x, t, s in head],
        # the parser's one paragraph for both statements: no sentence end between them
        (P, merged, " ".join([*first, *second])),
        *[(P, _box(x, t, s), s) for x, t, s in grades],
    ]
    doc = prepare_document(_doc([page]), pdf=pdf)
    grid = _rec_table(doc).table
    assert grid is not None
    assert grid.body_rows == [
        [" ".join(first), "IIa", "B"],
        [" ".join(second), "IIb", "C"],
    ]


def test_parser_table_just_below_loose_rows_is_the_rest_of_the_table() -> None:
    rest = TableGrid(
        header_rows=[["Giving the dose", "• Weigh the patient before each course"]],
        body_rows=[["Follow-up", "• Ask about dark urine on day 3"]],
    )
    other = TableGrid(header_rows=[["Site", "Staff", "Tests"]], body_rows=[["Clinic", "2", "40"]])
    page = [
        (H_, (0.12, 0.20, 0.75, 0.215), "Table B2. Topics of a training day for dispensers"),
        (H_, (0.18, 0.225, 0.24, 0.24), "Topic"),  # column names centred over their columns
        (H_, (0.56, 0.225, 0.62, 0.24), "Content"),
        (P, (0.13, 0.245, 0.25, 0.26), "Why the test"),
        (P, (0.13, 0.259, 0.26, 0.274), "matters"),
        (P, (0.32, 0.246, 0.84, 0.277), "• Who is at risk of haemolysis and why a test comes first"),
        (P, (0.13, 0.285, 0.24, 0.30), "Reading"),
        (P, (0.13, 0.299, 0.25, 0.314), "the result"),
        (P, (0.32, 0.286, 0.83, 0.30), "• What each reading means for the dose"),
    ]
    doc = _doc([page])
    blocks = [
        *doc.blocks,
        Block(block_id="p1-e9", kind=BlockKind.TABLE, page=1, bbox=(0.12, 0.32, 0.88, 0.50), table=rest, text="rest"),
        Block(
            block_id="p1-e10", kind=BlockKind.TABLE, page=1, bbox=(0.12, 0.60, 0.88, 0.70), table=other, text="other"
        ),
    ]
    out = prepare_document(doc.model_copy(update={"blocks": blocks}))
    tables = [b for b in out.blocks if b.kind is BlockKind.TABLE]
    assert [t.block_id for t in tables] == ["p1-e0", "p1-e10"]  # the three-column table below is another one
    grid = tables[0].table
    assert grid is not None and grid.header_rows == [["Topic", "Content"]]
    assert grid.body_rows == [
        ["Why the test matters", "• Who is at risk of haemolysis and why a test comes first"],
        ["Reading the result", "• What each reading means for the dose"],
        ["Giving the dose", "• Weigh the patient before each course"],
        ["Follow-up", "• Ask about dark urine on day 3"],
    ]
    assert grid.body_row_bboxes[2] is None and grid.body_row_bboxes[0] is not None


def test_row_labels_the_text_layer_grid_left_out_are_put_back() -> None:
    from structaware_readers.loose_tables.data_region import with_label_column

    grid = TableGrid(
        header_rows=[["Office reading", "Office reading"]],
        body_rows=[["<140 mmHg", "≥140 mmHg"], ["Advice", "Advice and review"], ["Advice", "Drug treatment"]],
        body_row_bboxes=[(0.30, 0.20, 0.90, 0.22), (0.30, 0.23, 0.90, 0.25), (0.30, 0.26, 0.90, 0.28)],
        body_row_pages=[1, 1, 1],
        grid_source="pdf_text_layer",
    )
    page = [
        (P, (0.08, 0.15, 0.20, 0.19), "Overall risk"),
        (P, (0.08, 0.232, 0.12, 0.245), "Low"),
        (P, (0.08, 0.262, 0.14, 0.275), "High"),
        (P, (0.40, 0.232, 0.50, 0.245), "Advice"),  # a cell the grid holds
    ]
    doc = _doc([page])
    out = with_label_column(grid, doc.blocks, [0, 1, 2, 3])
    assert out.header_rows == [["Overall risk", "Office reading", "Office reading"], ["", "<140 mmHg", "≥140 mmHg"]]
    assert out.body_rows == [["Low", "Advice", "Advice and review"], ["High", "Advice", "Drug treatment"]]
    assert len(out.body_row_bboxes) == 2 and out.body_row_bboxes[0][0] == pytest.approx(0.08)


def test_recommendation_table_pictured_as_a_figure_becomes_a_graded_table() -> None:
    rows = [
        ("Recommendations", "Class", "Level"),
        ("Screening for atrial fibrillation is recommended at age 75.", "I", "B"),
        ("Repeat screening may be considered every two years.", "IIb", "C"),
    ]
    drawn = [(x, 300.0 + 16 * k, t) for k, row in enumerate(rows) for x, t in zip((60.0, 420.0, 480.0), row)]
    drawn += [(60.0, 500.0, "Assess"), (60.0, 530.0, "Treat")]
    pdf = _pdf(drawn)
    page = [
        (F, (50 / PW, 296 / PH, 520 / PW, 346 / PH), "\n".join("   ".join(r) for r in rows)),
        (F, (50 / PW, 496 / PH, 200 / PW, 542 / PH), "Assess\nTreat", "Figure 2 Screening pathway"),
    ]
    doc = prepare_document(_doc([page]), pdf=pdf)
    assert [b.kind for b in doc.blocks] == [BlockKind.TABLE, BlockKind.FIGURE]
    recs = [u for u in build_units(doc) if u.unit_type is UnitType.RECOMMENDATION]
    assert [(u.grade.grade, u.grade.certainty) if u.grade else None for u in recs] == [("I", "B"), ("IIb", "C")]
    assert recs[0].text.startswith("Screening for atrial fibrillation is recommended at age 75.")
