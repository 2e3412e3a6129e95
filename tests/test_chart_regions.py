"""A chart drawn with live text, split by the parser into short blocks, becomes one figure unit.

The blocks imitate a treatment pathway on a report page (boxes side by side under a ``Fig. 4.``
caption) and, as traps, a page of names in two columns under a heading and a caption followed by
running prose. Wording is made up for the test.
"""

from __future__ import annotations

from structaware_readers.algorithms.chart_regions import gather_chart_regions
from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_readers.units import build_units

P, H, F = BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.FIGURE


def _doc(specs: list[tuple[BlockKind, str, tuple[float, float, float, float]]], page: int = 3) -> ParsedDocument:
    blocks = [
        Block(block_id=f"p{page}-e{i}", kind=kind, text=text, page=page, bbox=bbox, level=1 if kind is H else None)
        for i, (kind, text, bbox) in enumerate(specs)
    ]
    return ParsedDocument(doc_id="6" * 16, source="x", name="x", parser="test", page_count=page, blocks=blocks)


PATHWAY = [
    (H, "2.3 Testing before treatment", (0.1, 0.05, 0.5, 0.07)),
    (H, "Fig. 4. Treatment pathways by enzyme test result", (0.1, 0.09, 0.8, 0.11)),
    (H, "Adult patient with confirmed infection", (0.35, 0.14, 0.75, 0.17)),
    (F, "Quantitative test\navailable", (0.15, 0.21, 0.3, 0.24)),
    (P, "Measure the patient's enzyme activity", (0.45, 0.2, 0.6, 0.24)),
    (P, "No test available", (0.72, 0.21, 0.82, 0.23)),
    (P, "Normal (>70% of normal activity)", (0.1, 0.3, 0.28, 0.34)),
    (P, "Intermediate (30-70% of normal activity)", (0.32, 0.3, 0.5, 0.34)),
    (P, "Deficient (<30% of normal activity)", (0.54, 0.3, 0.72, 0.34)),
    (H, "Drug A 300 mg single adult dose", (0.1, 0.4, 0.3, 0.44)),
    (P, "Consider 8 weekly doses of drug B (0.75 mg/kg once a week) under supervision", (0.45, 0.4, 0.75, 0.45)),
    (P, "Drug B 0.5 mg/kg daily for 14 days", (0.4, 0.5, 0.6, 0.53)),
    (P, "Source: adapted from the national guideline.", (0.1, 0.6, 0.4, 0.62)),
    (H, "2.4 Follow-up", (0.1, 0.66, 0.4, 0.68)),
    (
        P,
        "Review every patient on day 3 and day 7 of treatment, and sooner if symptoms of haemolysis appear. " * 2,
        (0.1, 0.7, 0.9, 0.8),
    ),
]


def test_a_pathway_split_into_boxes_becomes_one_figure_unit_under_its_caption():
    doc = gather_chart_regions(_doc(PATHWAY))
    figures = [b for b in doc.blocks if b.kind is BlockKind.FIGURE]
    assert len(figures) == 1
    fig = figures[0]
    assert fig.caption == "Fig. 4. Treatment pathways by enzyme test result"
    assert fig.text.splitlines()[0] == "Adult patient with confirmed infection"
    assert "Deficient (<30% of normal activity)" in fig.text and "Drug B 0.5 mg/kg daily for 14 days" in fig.text
    assert fig.bbox == (0.1, 0.14, 0.82, 0.53)
    assert len(fig.parser_ids) == 11  # the caption and the ten boxes
    # the note under the chart and the next section are left as they were
    assert [b.text for b in doc.blocks][-3:] == [PATHWAY[-3][1], "2.4 Follow-up", PATHWAY[-1][1]]
    units = build_units(prepare_document(_doc(PATHWAY)))
    fig_units = [u for u in units if u.unit_type is UnitType.FIGURE]
    assert len(fig_units) == 1 and fig_units[0].context.startswith("Figure: Fig. 4. Treatment pathways")
    # no box became a heading of the section path
    assert not any("Drug A" in " > ".join(u.section_path) for u in units)


def test_names_in_two_columns_under_a_heading_are_not_a_chart():
    names = [(H, "Appendix C: Participant List", (0.1, 0.05, 0.6, 0.07))]
    for row in range(5):
        y = 0.1 + row * 0.08
        names.append((P, f"Member {row} A, MD, Chief of Medicine, a regional medical centre", (0.1, y, 0.45, y + 0.05)))
        names.append(
            (P, f"Member {row} B, PharmD, Clinical pharmacist, a community health clinic", (0.55, y, 0.9, y + 0.05))
        )
    doc = _doc(names)
    assert gather_chart_regions(doc) is doc


def test_a_cover_page_of_short_blocks_under_a_heading_is_not_a_chart():
    """Trap: a filing's cover page (a title, then labels and values side by side) is not a chart; the
    same boxes under a heading that names a diagram are."""
    boxes = [
        (P, "Annual report for the fiscal year", (0.1, 0.2, 0.3, 0.23)), (P, "Registrant", (0.6, 0.2, 0.7, 0.23)),
        (P, "Commission file", (0.15, 0.3, 0.3, 0.33)), (P, "State of incorporation", (0.55, 0.3, 0.75, 0.33)),
        (P, "Address of offices", (0.2, 0.4, 0.35, 0.43)), (P, "Telephone", (0.65, 0.4, 0.8, 0.43)),
        (P, "Securities registered", (0.12, 0.5, 0.32, 0.53)), (P, "Trading symbol", (0.58, 0.5, 0.72, 0.53)),
    ]  # fmt: skip
    cover = _doc([(H, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION", (0.1, 0.1, 0.9, 0.12)), *boxes], page=1)
    assert gather_chart_regions(cover) is cover
    diagram = _doc([(H, "Entry points diagram", (0.1, 0.1, 0.9, 0.12)), *boxes], page=1)
    (chart,) = gather_chart_regions(diagram).blocks
    assert chart.kind is F and chart.caption == "Entry points diagram"


def test_a_caption_followed_by_prose_is_not_a_chart():
    prose = "The trials enrolled adults with impaired kidney function and followed them for a median of two years. " * 4
    doc = _doc(
        [
            (P, "Figure 2 | Outcomes by treatment arm", (0.1, 0.1, 0.9, 0.12)),
            (P, prose, (0.1, 0.15, 0.48, 0.5)),
            (P, prose, (0.52, 0.15, 0.9, 0.5)),
        ]
    )
    assert gather_chart_regions(doc) is doc
