"""Headings settled from the PDF outline, numbering and signs of false headings (heading_pass, outline, heading_evidence).

Every case runs through :func:`structaware_readers.load.loader.prepare_document` and the unit builder, so
it checks the section path a reader finally sees; each has a near miss that must stay as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.structure.headings import numbering_style
from structaware_readers.units import build_units
from synthetic_docs import synthetic_doc


def _doc(blocks: list[Block], pages: int = 3) -> ParsedDocument:
    return synthetic_doc(blocks, pages)


def _b(bid: str, kind: BlockKind, text: str, page: int, bbox=None, level=None, **kw) -> Block:
    return Block(block_id=bid, kind=kind, text=text, page=page, bbox=bbox, level=level, **kw)


def _paths(doc: ParsedDocument) -> dict[str, list[str]]:
    """First words of each unit's text -> its section path."""
    return {" ".join(u.text.split()[:4]): u.section_path for u in build_units(doc)}


def _outlined_pdf(path: Path) -> Path:
    """Three pages with an outline: a title entry over chapters, sections, appendices (one printed in a table)."""
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    c = canvas.Canvas(str(path))
    outline = [
        ("Clinical Practice Guideline for Raised Blood Pressure", 0),
        ("III. About this Guideline", 1),
        ("A. Methods", 2),
        ("a. Grading Recommendations", 3),
        ("B. Patients with Kidney Disease and Patients Treated in Community Care Settings", 2),
        ("Appendix I: Participant List", 1),
        ("A. Work Group Members", 2),
        ("Appendix J: Literature Search Terms and Strategy", 1),
    ]
    pages = [0, 0, 0, 0, 1, 1, 1, 2]
    for page in range(3):
        for k, (title, level) in enumerate(outline):
            if pages[k] == page:
                c.bookmarkPage(f"b{k}")
                c.addOutlineEntry(title, f"b{k}", level=level)
        c.drawString(72, 720, f"page {page + 1}")
        c.showPage()
    c.save()
    return path


def test_outline_sets_levels_promotes_titles_and_splits_an_appendix_out_of_a_table(tmp_path: Path) -> None:
    pdf = _outlined_pdf(tmp_path / "outlined.pdf")
    grid = TableGrid(
        header_rows=[["Appendix J: Literature Search Terms and Strategy", ""], ["Set", "Search terms"]],
        body_rows=[["1", "hypertension AND ambulatory monitoring"], ["2", "home blood pressure AND telemonitoring"]],
    )
    blocks = [
        _b(
            "p1-e0",
            BlockKind.PARAGRAPH,
            "Clinical Practice Guideline for Raised Blood Pressure",
            1,
            (0.1, 0.05, 0.9, 0.08),
        ),
        _b("p1-e1", BlockKind.HEADING, "III. About this Guideline", 1, (0.1, 0.1, 0.5, 0.12), level=1),
        _b("p1-e2", BlockKind.HEADING, "A. Methods", 1, (0.1, 0.15, 0.3, 0.17), level=2),
        _b(
            "p1-e3",
            BlockKind.PARAGRAPH,
            "The work group met four times and reviewed the evidence.",
            1,
            (0.1, 0.2, 0.9, 0.3),
        ),
        # the parser typed this title as body text: the outline promotes it
        _b("p1-e4", BlockKind.PARAGRAPH, "a. Grading Recommendations", 1, (0.1, 0.35, 0.5, 0.37)),
        _b(
            "p1-e5",
            BlockKind.PARAGRAPH,
            "Each recommendation was graded with the GRADE approach.",
            1,
            (0.1, 0.4, 0.9, 0.5),
        ),
        # trap: a paragraph that starts like the entry but runs on is body text
        _b(
            "p1-e6",
            BlockKind.PARAGRAPH,
            "Grading recommendations took the work group two further meetings to agree on.",
            1,
            (0.1, 0.55, 0.9, 0.6),
        ),
        # a title cut over two lines by the parser
        _b(
            "p1-e7",
            BlockKind.HEADING,
            "B. Patients with Kidney Disease and Patients Treated in",
            1,
            (0.1, 0.65, 0.9, 0.67),
            level=2,
        ),
        _b("p1-e8", BlockKind.HEADING, "Community Care Settings", 1, (0.1, 0.67, 0.5, 0.69), level=2),
        _b(
            "p1-e9",
            BlockKind.PARAGRAPH,
            "Kidney disease changes the choice of the first drug.",
            1,
            (0.1, 0.7, 0.9, 0.8),
        ),
        # trap: a heading the outline does not name stays a heading, nested under the last named one
        _b("p1-e10", BlockKind.HEADING, "Discussion", 1, (0.1, 0.82, 0.3, 0.84), level=1),
        _b("p1-e11", BlockKind.PARAGRAPH, "Trials in kidney disease were small and short.", 1, (0.1, 0.85, 0.9, 0.9)),
        # two titles the parser read as one line
        _b(
            "p2-e0",
            BlockKind.HEADING,
            "Appendix I: Participant List A. Work Group Members",
            2,
            (0.1, 0.1, 0.5, 0.12),
            level=1,
        ),
        _b("p2-e1", BlockKind.PARAGRAPH, "Work group members and their affiliations.", 2, (0.1, 0.15, 0.9, 0.2)),
        _b("p2-e2", BlockKind.HEADING, "Annex B. Patient Leaflet", 2, (0.1, 0.3, 0.5, 0.32), level=1),
        _b("p2-e3", BlockKind.PARAGRAPH, "Take one tablet each morning with water.", 2, (0.1, 0.35, 0.9, 0.4)),
        _b(
            "p3-e0",
            BlockKind.TABLE,
            "Appendix J: Literature Search Terms and Strategy\nSet Search terms\n1 hypertension AND ambulatory monitoring",
            3,
            (0.1, 0.1, 0.9, 0.9),
            table=grid,
        ),
    ]
    doc = prepare_document(_doc(blocks), pdf=pdf)
    kinds = {b.block_id: (b.kind, b.level) for b in doc.blocks}
    assert kinds["p1-e0"] == (BlockKind.HEADING, 1)
    assert kinds["p1-e1"] == (BlockKind.HEADING, 1)
    assert kinds["p1-e4"] == (BlockKind.HEADING, 3)
    assert kinds["p1-e6"][0] is BlockKind.PARAGRAPH
    assert kinds["p1-e10"] == (BlockKind.HEADING, 3)
    assert "p1-e8" not in kinds  # joined into the heading above it
    cut = next(b for b in doc.blocks if b.block_id == "p1-e7")
    assert cut.text == "B. Patients with Kidney Disease and Patients Treated in Community Care Settings"
    assert cut.extra_ids == ["p1-e8"]

    paths = _paths(doc)
    assert paths["Each recommendation was graded"] == [
        "III. About this Guideline",
        "A. Methods",
        "a. Grading Recommendations",
    ]
    assert paths["Trials in kidney disease"][-2:] == [
        "B. Patients with Kidney Disease and Patients Treated in Community Care Settings",
        "Discussion",
    ]
    assert paths["Work group members and"] == ["Appendix I: Participant List", "A. Work Group Members"]
    assert paths["Take one tablet each"] == ["Annex B. Patient Leaflet"]  # not in the outline, a top level still
    rows = [u for u in build_units(doc) if u.unit_type.value == "table_row"]
    assert rows and all(u.section_path == ["Appendix J: Literature Search Terms and Strategy"] for u in rows)


def test_without_a_readable_outline_the_outline_steps_do_nothing() -> None:
    blocks = [
        _b("p1-e0", BlockKind.HEADING, "A. Methods", 1, (0.1, 0.15, 0.3, 0.17), level=1),
        _b("p1-e1", BlockKind.PARAGRAPH, "a. Grading Recommendations", 1, (0.1, 0.35, 0.5, 0.37)),
    ]
    from structaware_readers.structure.outline import read_outline

    corrupt = Path(__file__).parent / "fixtures" / "pdf" / "corrupt_truncated.pdf"
    assert read_outline(corrupt) == []
    for pdf in (None, corrupt):
        doc = prepare_document(_doc(blocks), pdf=pdf)
        assert [b.kind for b in doc.blocks] == [BlockKind.HEADING, BlockKind.PARAGRAPH]


def _recommendation_table_page() -> list[Block]:
    """A journal page: a chapter title, then a recommendation table whose cells the parser typed as titles."""
    return [
        _b(
            "p9-e0",
            BlockKind.HEADING,
            "4. New low-density lipoprotein cholesterol-lowering therapies",
            9,
            (0.52, 0.07, 0.89, 0.11),
            level=1,
        ),
        _b(
            "p9-e1",
            BlockKind.PARAGRAPH,
            "Bempedoic acid lowers LDL-C by about a fifth when added to a statin.",
            9,
            (0.52, 0.12, 0.93, 0.3),
        ),
        _b("p9-e2", BlockKind.HEADING, "Recommendations", 9, (0.52, 0.52, 0.64, 0.53), level=2),
        _b("p9-e3", BlockKind.HEADING, "Class^a", 9, (0.82, 0.52, 0.86, 0.53), level=2),
        _b("p9-e4", BlockKind.HEADING, "Level^b", 9, (0.88, 0.52, 0.92, 0.53), level=2),
        _b(
            "p9-e5",
            BlockKind.PARAGRAPH,
            "Bempedoic acid is recommended in patients unable to take a statin.",
            9,
            (0.52, 0.54, 0.8, 0.6),
        ),
        _b("p9-e6", BlockKind.HEADING, "IIa", 9, (0.84, 0.56, 0.86, 0.57), level=2),
        _b("p9-e7", BlockKind.HEADING, "B", 9, (0.9, 0.56, 0.91, 0.57), level=2),
        _b("p9-e8", BlockKind.HEADING, "2 LVEF ≤40%", 9, (0.52, 0.62, 0.62, 0.63), level=1),
        _b(
            "p9-e9",
            BlockKind.PARAGRAPH,
            "Evolocumab may be considered after an acute coronary syndrome.",
            9,
            (0.52, 0.64, 0.93, 0.7),
        ),
        # trap: a real sub-heading with grade-like letters in it
        _b("p9-e10", BlockKind.HEADING, "IIb trials of inclisiran", 9, (0.52, 0.72, 0.8, 0.74), level=2),
        _b(
            "p9-e11",
            BlockKind.PARAGRAPH,
            "Two trials of inclisiran reported outcomes in 2024.",
            9,
            (0.52, 0.75, 0.93, 0.8),
        ),
    ]


def test_table_cells_typed_as_headings_open_no_section() -> None:
    doc = prepare_document(_doc(_recommendation_table_page(), pages=9))
    paths = _paths(doc)
    chapter = "4. New low-density lipoprotein cholesterol-lowering therapies"
    for path in paths.values():
        assert not {"Class^a", "Level^b", "IIa", "B", "2 LVEF ≤40%"} & set(path)
    assert paths["Two trials of inclisiran"] == [chapter, "IIb trials of inclisiran"]


def test_abbreviation_pairs_on_one_line_are_no_headings_but_a_title_beside_the_other_column_is() -> None:
    blocks = [
        _b("p3-e0", BlockKind.HEADING, "Abbreviations and acronyms", 3, (0.07, 0.69, 0.41, 0.71), level=1),
        _b("p3-e1", BlockKind.HEADING, "ACS", 3, (0.07, 0.72, 0.1, 0.73), level=2),
        _b("p3-e2", BlockKind.HEADING, "Acute coronary syndromes", 3, (0.21, 0.72, 0.38, 0.735), level=2),
        # trap: a heading of the right column on the same line as a left-column paragraph
        _b(
            "p3-e3",
            BlockKind.PARAGRAPH,
            "The guideline covers adults treated in primary care settings.",
            3,
            (0.07, 0.74, 0.48, 0.9),
        ),
        _b("p3-e4", BlockKind.HEADING, "1. Preamble", 3, (0.52, 0.75, 0.66, 0.77), level=1),
        _b(
            "p3-e5",
            BlockKind.PARAGRAPH,
            "Guidelines summarise the evidence available at the time of writing.",
            3,
            (0.52, 0.78, 0.93, 0.9),
        ),
    ]
    doc = prepare_document(_doc(blocks))
    kinds = {b.block_id: b.kind for b in doc.blocks}
    assert kinds["p3-e1"] is BlockKind.PARAGRAPH and kinds["p3-e2"] is BlockKind.PARAGRAPH
    assert kinds["p3-e0"] is BlockKind.HEADING and kinds["p3-e4"] is BlockKind.HEADING


@pytest.mark.parametrize(
    ("text", "heading"),
    [
        ("*†, (Society Chairperson) (Netherlands),", False),
        ("and the Scientific Document Group", False),
        ("Document Reviewers: Anna Berg, (Review Co-ordinator) (Sweden), Paul Smit, (Netherlands)", False),
        ("Table 3 Cardiovascular risk categories", False),
        ("4 类要素上。风险评估应覆盖管线、土体、水文和交通荷载，并逐项记录。", False),
        ("eGFR thresholds for drug dosing", True),  # trap: an abbreviation in lower case first
        ("a. Grading Recommendations", True),  # trap: a lettered label
        ("Level of Care for Pregnant Veterans", True),  # trap: a header word that opens a title
        ("2.城市道路塌陷风险源", True),
        ("Renee Redden, PMHCNS, BC", False),
        ("Heart Failure, HFrEF, HFpEF", True),  # trap: abbreviations in mixed case are no credentials
        ("References^1", True),  # trap: a citation mark on a back-matter title
        ("Statins^9", True),  # trap: a citation number, not a table's footnote letter
        ("emission tomography-computed tomography，", False),
        ("Department of Veterans Affairs. Guidance on dosing of erythropoietin. 2011;", False),
    ],
)
def test_signs_of_non_headings(text: str, heading: bool) -> None:
    blocks = [
        _b("p1-e0", BlockKind.HEADING, text, 1, (0.1, 0.1, 0.6, 0.12), level=1),
        _b("p1-e1", BlockKind.PARAGRAPH, "Body text of the section follows here.", 1, (0.1, 0.2, 0.9, 0.3)),
    ]
    doc = prepare_document(_doc(blocks))
    assert (doc.blocks[0].kind is BlockKind.HEADING) is heading


def test_a_count_written_with_a_space_is_no_numbering() -> None:
    assert numbering_style("4 类要素上") is None
    assert numbering_style("4 风险源识别") is not None  # trap: a numbered title


def test_one_level_chinese_chapters_typed_as_paragraphs_become_headings() -> None:
    blocks = [
        _b("p1-e0", BlockKind.HEADING, "1.城市道路的风险源", 1, (0.1, 0.1, 0.5, 0.12), level=1),
        _b(
            "p1-e1",
            BlockKind.PARAGRAPH,
            "城市道路下方埋设的管线老化，是路面塌陷的主要原因之一。",
            1,
            (0.1, 0.15, 0.9, 0.2),
        ),
        # trap: numbered list lines next to each other stay list lines
        _b("p1-e2", BlockKind.PARAGRAPH, "1.管道破损", 1, (0.1, 0.22, 0.4, 0.24)),
        _b("p1-e3", BlockKind.PARAGRAPH, "2.接口脱落", 1, (0.1, 0.25, 0.4, 0.27)),
        _b("p1-e4", BlockKind.PARAGRAPH, "以上情况应在巡查记录中写明位置和范围。", 1, (0.1, 0.3, 0.9, 0.35)),
        _b("p2-e0", BlockKind.PARAGRAPH, "2.城市道路塌陷风险源", 2, (0.1, 0.1, 0.5, 0.12)),
        _b("p2-e1", BlockKind.PARAGRAPH, "地下水位变化和施工扰动会使土体流失，形成空洞。", 2, (0.1, 0.15, 0.9, 0.2)),
    ]
    doc = prepare_document(_doc(blocks))
    kinds = {b.block_id: b.kind for b in doc.blocks}
    assert kinds["p2-e0"] is BlockKind.HEADING
    assert kinds["p1-e2"] is BlockKind.PARAGRAPH and kinds["p1-e3"] is BlockKind.PARAGRAPH
    paths = _paths(doc)
    assert paths["地下水位变化和施工扰动会使土体流失，形成空洞。"] == ["2.城市道路塌陷风险源"]


def test_outline_reading_drops_figures_lead_ins_and_bullets_and_unnests_numbered_siblings(tmp_path: Path) -> None:
    from structaware_readers.structure.outline import read_outline

    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    c = canvas.Canvas(str(tmp_path / "sloppy.pdf"))
    outline = [
        ("Recommendations", 0),
        ("Recommendation 1", 1),
        ("Recommendation 2", 2),  # bookmarked under Recommendation 1: a sibling all the same
        ("Stage 1", 2),  # trap: another title with a number stays nested
        ("Fig. 2. Flow of patients through the review", 0),  # a list of figures is no section
        ("Table 3. Opioid doses in morphine milligram equivalents", 0),
        ("References", 0),
    ]
    for k, (title, level) in enumerate(outline):
        c.bookmarkPage(f"b{k}")
        c.addOutlineEntry(title, f"b{k}", level=level)
    c.drawString(72, 720, "page")
    c.showPage()
    # page 2: a chapter, then bookmarks a flowchart's boxes were given
    for k, title in enumerate(
        [
            "Assessment and Monitoring",
            "Assess for risk of raised blood pressure:",
            "\uf0b7 Repeat the reading after five minutes",
        ]
    ):
        c.bookmarkPage(f"later{k}")
        c.addOutlineEntry(title, f"later{k}", level=0)
    c.drawString(72, 720, "page 2")
    c.showPage()
    c.save()
    entries = read_outline(tmp_path / "sloppy.pdf")
    assert [(e.title, e.level, e.page) for e in entries] == [
        ("Recommendations", 1, 1),
        ("Recommendation 1", 2, 1),
        ("Recommendation 2", 2, 1),
        ("Stage 1", 3, 1),
        ("References", 1, 1),
        ("Assessment and Monitoring", 1, 2),
    ]


def test_outline_bookmarks_pointing_back_are_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bookmarks added out of order (a flowchart's boxes bookmarked after later chapters) point back
    to pages already passed; read here through pypdfium2 4.x's outline items."""
    import collections

    import pypdfium2

    from structaware_readers.structure.outline import read_outline

    item = collections.namedtuple("item", "level title page_index")
    toc = [
        item(0, "Introduction", 10),
        item(1, "Screening", 12),
        item(1, "Clinical Team Roles", 15),
        item(0, "Whom to Screen", 12),  # points back: left out
        item(0, "Protocol 1: Clinical Assessment", 16),
        item(1, "3.1 Assess the patient", 16),  # trap: the same page is no step back
    ]

    class FakePdf:
        def __init__(self, *_args: object) -> None:
            pass

        def get_toc(self, **_kw: object) -> list:
            return toc

        def close(self) -> None:
            pass

    monkeypatch.setattr(pypdfium2, "PdfDocument", FakePdf)
    assert [(e.title, e.level, e.page) for e in read_outline(b"%PDF-1.7")] == [
        ("Introduction", 1, 11),
        ("Screening", 2, 13),
        ("Clinical Team Roles", 2, 16),
        ("Protocol 1: Clinical Assessment", 1, 17),
        ("3.1 Assess the patient", 2, 17),
    ]
