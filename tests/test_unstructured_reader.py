"""Unstructured elements (objects, dicts, elements JSON, raw files) -> ParsedDocument."""

from __future__ import annotations

import base64
import json
import re
import zlib
from pathlib import Path

import pytest

from structaware_readers import ids
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    InputWarning,
    MalformedInputError,
    ParserUnavailableError,
    UnknownFormatError,
)
from structaware_readers.models import BlockKind
from structaware_readers.tables import parse_html_table
from structaware_readers.unstructured import read_unstructured, spacy_model_installed

HERE = Path(__file__).parent
FIX = HERE / "fixtures" / "unstructured"
GEN = FIX / "generated"
UP = FIX / "upstream"
SHARED = HERE.parents[1] / "shared" / "fixtures"
SHARED_UNSTRUCTURED = sorted((SHARED / "unstructured").glob("**/*.json")) if SHARED.exists() else []
K = BlockKind

SAMPLE_HEADERS = ["Population", "Clinic BP target", "Grade"]
SAMPLE_ROWS = [["Age < 80", "< 140/90 mmHg", "A"], ["Age >= 80", "< 150/90 mmHg", "B"]]


def el(type_: str, text: str = "", eid: str | None = None, **md) -> dict:
    return {"type": type_, "element_id": eid or f"id-{type_}-{text[:12]}", "text": text, "metadata": md}


def pixel(x0, y0, x1, y1, w=1000, h=2000, system="PixelSpace") -> dict:
    return {
        "points": [[x0, y0], [x0, y1], [x1, y1], [x1, y0]],
        "system": system,
        "layout_width": w,
        "layout_height": h,
    }


# ------------------------------------------------------------------------------ generated samples


@pytest.mark.parametrize("fmt", ["html", "md", "docx"])
def test_sample_outputs_map_to_typed_blocks(fmt):
    path = GEN / f"sample.{fmt}.json"
    doc = read_unstructured(path)
    assert doc.parser == "unstructured" and doc.name == "sample" and doc.page_count == 1
    assert doc.doc_id == ids.doc_id_from_file(path)
    assert doc.input_format.startswith(("text/", "application/vnd.openxmlformats"))
    kinds = [b.kind for b in doc.blocks]
    assert kinds[:5] == [K.HEADING, K.HEADING, K.PARAGRAPH, K.LIST, K.TABLE]
    h1, h2 = doc.blocks[0], doc.blocks[1]
    assert (h1.text, h1.level) == ("1 Management of Hypertension", 1)
    assert (h2.text, h2.level) == ("1.1 Blood pressure targets", 2)
    assert doc.blocks[3].items == ["Measure blood pressure in both arms"]
    table = doc.blocks[4]
    assert table.table.column_headers() == SAMPLE_HEADERS
    assert table.table.body_rows == SAMPLE_ROWS
    assert table.text.splitlines()[1] == "Age < 80 | < 140/90 mmHg | A"
    assert [b.block_id for b in doc.blocks][:5] == [f"p1-e{j}" for j in range(5)]
    assert all(b.page == 1 and b.bbox is None for b in doc.blocks)
    assert doc.blocks[0].source_type == "Title" and doc.blocks[2].source_type == "UncategorizedText"


def test_markdown_mermaid_code_snippet_becomes_a_flowchart():
    doc = read_unstructured(GEN / "sample.md.json")
    flow = doc.blocks[-1]
    assert flow.kind is K.FLOWCHART and flow.source_type == "CodeSnippet"
    assert flow.mermaid.startswith("flowchart TD") and "B{ABPM confirms?}" in flow.mermaid
    fenced = "```mermaid\ngraph LR\n  A --> B\n```"
    plain_code = "def f(x):\n    return x"
    doc = read_unstructured([el("Title", "Flow"), el("CodeSnippet", fenced), el("CodeSnippet", plain_code)])
    assert doc.blocks[1].kind is K.FLOWCHART and doc.blocks[1].mermaid == "graph LR\n  A --> B"
    assert doc.blocks[2].kind is K.CODE and doc.blocks[2].mermaid is None


@pytest.mark.shared
@pytest.mark.skipif(not SHARED.exists(), reason=f"shared fixtures absent: {SHARED}")
def test_unstructured_tables_have_the_same_grid_shape_as_mineru():
    """Acceptance hook: the same table row, whichever parser read the document."""
    mineru_cl = SHARED / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table" / "content_list.rendered.json"
    item = next(x for x in json.loads(mineru_cl.read_text()) if x["type"] == "table")
    mineru_grid = parse_html_table(item["table_body"])
    for fmt in ("html", "md", "docx"):
        grid = next(b for b in read_unstructured(GEN / f"sample.{fmt}.json").blocks if b.kind is K.TABLE).table
        assert grid.column_headers() == mineru_grid.column_headers(), fmt
        assert grid.body_rows == mineru_grid.body_rows, fmt
        assert len(grid.header_rows) == len(mineru_grid.header_rows) == 1


# ------------------------------------------------------------------------------ upstream outputs


def test_hi_res_pixel_coordinates_are_normalised_top_left():
    path = UP / "hi_res_embedded-images.pdf.json"
    raw = json.loads(path.read_text())
    doc = read_unstructured(path)
    first = doc.blocks[0]
    (x0, y0), (_, y1), (x1, _) = raw[0]["metadata"]["coordinates"]["points"][:3]
    w, h = raw[0]["metadata"]["coordinates"]["layout_width"], raw[0]["metadata"]["coordinates"]["layout_height"]
    assert first.bbox == pytest.approx((x0 / w, y0 / h, x1 / w, y1 / h))
    assert first.bbox == pytest.approx((78.7 / 1575, 35.0 / 1166, 601.3 / 1575, 68.3 / 1166))
    assert all(b.bbox is not None for b in doc.blocks)
    assert doc.page_sizes == [None]  # pixel space: the PDF page size in points is unknown
    assert [b.kind for b in doc.blocks].count(K.FIGURE) == 3
    assert doc.name == "embedded-images"


def test_html_v2_heading_levels_come_from_the_h_tags_and_furniture_is_typed():
    doc = read_unstructured(UP / "example_full_doc.json")
    levels = {b.text: b.level for b in doc.blocks if b.kind is K.HEADING}
    assert levels["ENTERPRISE PRODUCTS PARTNERS L.P."] == 1  # <h1>
    assert levels["NOTES TO UNAUDITED CONDENSED CONSOLIDATED FINANCIAL STATEMENTS"] == 2  # <h2>
    assert levels["Note 6. Intangible Assets and Goodwill"] == 3  # <h3>
    assert levels["Identifiable Intangible Assets"] == 4  # <h4>
    kinds = {b.kind for b in doc.blocks}
    assert {K.HEADER, K.FOOTER, K.PAGE_NUMBER, K.FOOTNOTE, K.TABLE} <= kinds
    assert doc.page_count == 6
    # the empty page containers (<div class="Page">) are dropped, their positions still count
    assert doc.blocks[0].block_id == "p1-e1" and doc.blocks[0].kind is K.HEADER
    first_table = next(b for b in doc.blocks if b.kind is K.TABLE)
    assert first_table.table.n_cols == 7 and "June 30, 2023" in first_table.table.column_headers()[1]


def test_chunked_composite_elements_expand_to_the_unchunked_elements():
    chunked = read_unstructured(UP / "chunking-basic_handbook-1p.docx.json")
    plain = read_unstructured(UP / "docx_handbook-1p.docx.json")
    assert [(b.kind, b.text) for b in chunked.blocks] == [(b.kind, b.text) for b in plain.blocks]
    assert all(b.source_type != "CompositeElement" for b in chunked.blocks)
    assert len(chunked.blocks) == 15


def test_figure_captions_attach_to_their_figure_without_coordinates():
    doc = read_unstructured(UP / "biomed-api_main.PMC6312790.pdf.json")
    assert not any(b.kind is K.CAPTION for b in doc.blocks)
    fig5 = next(b for b in doc.blocks if b.caption.startswith("Fig. 5."))
    assert fig5.kind is K.FIGURE and fig5.page == 4  # found past the stray axis label "C/0"
    table = next(b for b in doc.blocks if b.kind is K.TABLE and b.page == 4)
    assert table.caption.startswith("Potentiodynamic polarization data")
    assert sum(1 for b in doc.blocks if b.kind is K.FIGURE and b.caption.startswith("Fig.")) == 9


def test_unstructured_fast_pdf_headings_get_levels_from_numbering():
    doc = read_unstructured(GEN / "synthetic_guideline_en.pdf.fast.json")
    levels = {b.text: b.level for b in doc.blocks if b.kind is K.HEADING}
    assert levels["1 Introduction"] == 1
    assert levels["2.1 Blood pressure measurement"] == 2
    assert levels["2.1.1 Confirming the diagnosis"] == 3
    assert doc.page_count == 4 and doc.name == "synthetic_guideline_en"
    assert {b.kind for b in doc.blocks if b.source_type in ("Header", "Footer")} == {K.HEADER, K.FOOTER}
    ids_ = [b.block_id for b in doc.blocks]
    assert len(ids_) == len(set(ids_)) and all(re.fullmatch(r"p[1-4]-e\d+", i) for i in ids_)


@pytest.mark.shared
@pytest.mark.parametrize("path", SHARED_UNSTRUCTURED, ids=lambda p: p.name)
def test_every_shared_unstructured_fixture_reads(path):
    doc = read_unstructured(path)
    assert doc.body_blocks() and doc.page_count >= 1
    seen = set()
    for b in doc.blocks:
        assert b.block_id not in seen
        seen.add(b.block_id)
        assert re.fullmatch(rf"p{b.page}-e\d+", b.block_id)
        assert 1 <= b.page <= doc.page_count
        if b.bbox is not None:
            assert 0 <= b.bbox[0] <= b.bbox[2] <= 1 and 0 <= b.bbox[1] <= b.bbox[3] <= 1
        if b.kind is K.TABLE:
            # a Table without usable markup keeps its text and no grid (issue 9: no invented cells)
            assert (b.table is not None and b.table.n_cols >= 1) or (b.table is None and b.text.strip())


def test_shared_fixture_list_is_not_empty_when_shared_exists():
    if not SHARED.exists():
        pytest.skip(f"shared fixtures absent: {SHARED}")
    assert len(SHARED_UNSTRUCTURED) >= 17


# ------------------------------------------------------------------------------ table chunks


def _dosing_rows() -> list[list[str]]:
    return [[f"Adults {18 + 3 * i}-{20 + 3 * i} y", f"{5 + i} mg once daily", "ABC"[i % 3]] for i in range(12)]


@pytest.mark.parametrize("name", ["table_chunks_no_orig.json", "table_chunks_with_orig.json"])
def test_table_chunks_rebuild_the_original_table(name):
    raw = json.loads((GEN / name).read_text())
    assert sum(1 for e in raw if e["type"] == "TableChunk") == 3
    doc = read_unstructured(GEN / name)
    tables = [b for b in doc.blocks if b.kind is K.TABLE]
    assert len(tables) == 1
    grid = tables[0].table
    assert grid.column_headers() == ["Population", "Starting dose", "Grade"]
    assert grid.body_rows == _dosing_rows()  # repeated header rows of chunks 2 and 3 removed
    assert grid.body_row_pages == []  # one page
    if name == "table_chunks_with_orig.json":
        assert [b.kind for b in doc.blocks] == [K.HEADING, K.PARAGRAPH, K.TABLE]
        assert tables[0].source_type == "Table"
    else:  # a chunk without orig_elements stays one paragraph
        assert [b.kind for b in doc.blocks] == [K.PARAGRAPH, K.TABLE]
        assert doc.blocks[0].source_type == "CompositeElement"
        assert tables[0].source_type == "TableChunk"


def test_table_chunks_across_pages_keep_their_pages():
    html1 = "<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    html2 = "<table><tr><th>a</th><th>b</th></tr><tr><td>3</td><td>4</td></tr></table>"
    els = [
        el(
            "TableChunk",
            "a b 1 2",
            "c0",
            table_id="t",
            chunk_index=0,
            text_as_html=html1,
            page_number=1,
            coordinates=pixel(100, 1000, 900, 1900),
        ),
        el(
            "TableChunk",
            "a b 3 4",
            "c1",
            table_id="t",
            chunk_index=1,
            text_as_html=html2,
            page_number=2,
            num_carried_over_header_rows=1,
            is_continuation=True,
            coordinates=pixel(100, 100, 900, 400),
        ),
    ]
    (table,) = read_unstructured(list(reversed(els))).blocks  # chunk order comes from chunk_index
    assert table.block_id == "p1-e0" and table.page == 1 and table.extra_pages == [2]
    assert table.extra_bboxes == [pytest.approx((0.1, 0.05, 0.9, 0.2))]
    assert table.table.body_rows == [["1", "2"], ["3", "4"]]
    assert table.table.body_row_pages == [1, 2]


# ------------------------------------------------------------------------------ coordinates


@pytest.mark.parametrize(
    ("coords", "expected"),
    [
        (pixel(100, 200, 500, 600), (0.1, 0.1, 0.5, 0.3)),  # top-left origin
        (pixel(100, 1800, 500, 1400, system="PointSpace"), (0.1, 0.1, 0.5, 0.3)),  # bottom-left: flipped
        (
            {"points": [[0.1, 0.9], [0.1, 0.7], [0.5, 0.7], [0.5, 0.9]], "system": "RelativeCoordinateSystem"},
            (0.1, 0.1, 0.5, 0.3),
        ),
        (pixel(-10, 0, 1010, 2000), (0.0, 0.0, 1.0, 1.0)),  # a hair outside the page: clamped
    ],
)
def test_coordinate_systems(coords, expected):
    doc = read_unstructured([el("NarrativeText", "x", coordinates=coords, page_number=3)])
    b = doc.blocks[0]
    assert b.bbox == pytest.approx(expected)
    assert b.page == 3 and b.block_id == "p3-e0" and doc.page_count == 3
    if coords.get("system") == "PointSpace":
        assert doc.page_sizes[2] == (1000.0, 2000.0)


@pytest.mark.parametrize(
    ("coords", "field"),
    [
        ({**pixel(0, 0, 1, 1), "system": "WeirdSpace"}, "[0].metadata.coordinates.system"),
        (pixel(0, 0, 1500, 100), "[0].metadata.coordinates.points"),
        ({**pixel(0, 0, 1, 1), "layout_width": 0}, "[0].metadata.coordinates"),
    ],
)
def test_bad_coordinates_raise(coords, field):
    with pytest.raises(MalformedInputError) as err:
        read_unstructured([el("NarrativeText", "x", coordinates=coords)])
    assert err.value.field == field


# ------------------------------------------------------------------------------ grouping and captions


def test_list_items_group_by_parent_and_column():
    els = [
        el("Title", "Advice", "t"),
        el("ListItem", "one", "l1", parent_id="t", coordinates=pixel(100, 100, 450, 140)),
        el("ListItem", "two", "l2", parent_id="t", coordinates=pixel(100, 150, 450, 190)),
        el("ListItem", "nested", "l3", parent_id="l2", category_depth=1, coordinates=pixel(150, 200, 450, 240)),
        el("ListItem", "other column", "l4", parent_id="t", coordinates=pixel(550, 100, 900, 140)),
        el("NarrativeText", "break", "p"),
        el("ListItem", "after text", "l5", parent_id="t"),
    ]
    doc = read_unstructured(els)
    lists = [b for b in doc.blocks if b.kind is K.LIST]
    assert [b.items for b in lists] == [["one", "two", "nested"], ["other column"], ["after text"]]
    assert lists[0].text == "one\ntwo\nnested" and lists[0].block_id == "p1-e1"
    assert lists[0].bbox == pytest.approx((0.1, 0.05, 0.45, 0.12))
    assert lists[1].block_id == "p1-e4"


def test_a_parent_id_that_is_not_a_string_is_ignored_with_a_warning():
    # found by the fuzz test: a list as parent_id crashed list grouping (TypeError: unhashable type)
    els = [
        el("ListItem", "", "l1"),
        el("ListItem", "one", "l2", parent_id=[]),
        el("ListItem", "two", "l3", parent_id=["l1"]),
        el("NarrativeText", "text", "p", parent_id=7),
    ]
    with pytest.warns(InputWarning) as got:
        doc = read_unstructured(els)
    (warning,) = [w.message for w in got if "parent_id" in str(w.message)]
    assert warning.field == "[1].metadata.parent_id, [2].metadata.parent_id, [3].metadata.parent_id"
    assert "3 parent_id values are not strings" in str(warning)
    assert [b.items for b in doc.blocks if b.kind is K.LIST] == [["one", "two"]]


def test_caption_attaches_by_geometry_and_stays_a_caption_when_alone():
    els = [
        el("Image", "", "img", coordinates=pixel(100, 200, 900, 800)),
        el("FigureCaption", "Figure 1. Anatomy", "cap", coordinates=pixel(100, 820, 900, 860)),
        el("NarrativeText", "Body text", "p", coordinates=pixel(100, 900, 900, 1200)),
        el("FigureCaption", "A lonely caption", "cap2", coordinates=pixel(100, 1900, 900, 1950)),
    ]
    doc = read_unstructured(els)
    assert [b.kind for b in doc.blocks] == [K.FIGURE, K.PARAGRAPH, K.CAPTION]
    assert doc.blocks[0].caption == "Figure 1. Anatomy"
    assert doc.blocks[2].text == "A lonely caption" and doc.blocks[2].block_id == "p1-e3"


def test_table_caption_prefix_picks_the_next_table_without_coordinates():
    els = [
        el("Image", "chart", "img"),
        el("FigureCaption", "Table 2. Doses", "cap"),
        el("Table", "a b", "tab", text_as_html="<table><tr><td>a</td><td>b</td></tr></table>"),
    ]
    blocks = read_unstructured(els).blocks
    assert [b.kind for b in blocks] == [K.FIGURE, K.TABLE]
    assert blocks[1].caption == "Table 2. Doses" and blocks[0].caption == ""


def test_table_without_html_uses_cells_then_text():
    cells = [
        {"content": "Dose", "x": 0, "y": 0, "w": 2, "h": 1},
        {"content": "adult", "x": 0, "y": 1, "w": 1, "h": 1},
        {"content": "5 mg", "x": 1, "y": 1, "w": 1, "h": 1},
    ]
    blocks = read_unstructured(
        [
            el("Table", "Dose adult 5 mg", "t1", table_as_cells=cells),
            el("Table", "Drug\tDose\nA\t5 mg", "t2"),
        ]
    ).blocks
    # one text spanning the whole first row is the table's title, not a column header (tables.header)
    assert blocks[0].table.title == "Dose"
    assert blocks[0].table.body_rows == [["adult", "5 mg"]]
    assert blocks[1].table.body_rows == [["Drug", "Dose"], ["A", "5 mg"]]
    # where each grid came from: the parser's cell structure, or rows rebuilt from its text
    assert blocks[0].table.grid_source == "parser_html"
    assert blocks[1].table.grid_source == "parser_text"


def test_heading_level_falls_back_to_the_parent_chain():
    els = [
        el("Header", "running head", "h"),
        el("Title", "Background", "t1", parent_id="h"),
        el("Title", "Aims", "t2", parent_id="t1"),
        el("Title", "Specific aims", "t3", parent_id="t2"),
        el("NarrativeText", "text", "p", parent_id="t3"),
        el("PageBreak", "", "pb"),
    ]
    doc = read_unstructured(els)
    assert [b.level for b in doc.blocks if b.kind is K.HEADING] == [1, 2, 3]
    assert all(b.source_type != "PageBreak" for b in doc.blocks)


# ------------------------------------------------------------------------------ inputs and errors


def test_element_objects_give_the_same_blocks_as_their_json():
    staging = pytest.importorskip("unstructured.staging.base")
    path = GEN / "sample.md.json"
    elements = staging.elements_from_json(filename=str(path))
    from_objects = read_unstructured(elements)
    from_json = read_unstructured(path)
    assert [b.model_dump() for b in from_objects.blocks] == [b.model_dump() for b in from_json.blocks]
    assert from_objects.source == "sample.md" and from_objects.name == "sample"
    assert read_unstructured(elements).doc_id == from_objects.doc_id  # deterministic in memory


def test_ndjson_and_wrapped_elements_are_accepted(tmp_path):
    dicts = json.loads((GEN / "sample.html.json").read_text())
    nd = tmp_path / "sample.ndjson"
    nd.write_text("\n".join(json.dumps(d) for d in dicts))
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"elements": dicts}))
    expected = [(b.kind, b.text) for b in read_unstructured(GEN / "sample.html.json").blocks]
    assert [(b.kind, b.text) for b in read_unstructured(nd).blocks] == expected
    assert [(b.kind, b.text) for b in read_unstructured(wrapped).blocks] == expected


def test_orig_elements_encoding_roundtrip_and_corruption():
    inner = [el("Title", "2 Methods", "a"), el("NarrativeText", "We measured.", "b")]
    blob = base64.b64encode(zlib.compress(json.dumps(inner).encode())).decode()
    doc = read_unstructured([el("CompositeElement", "2 Methods\n\nWe measured.", "c", orig_elements=blob)])
    assert [(b.kind, b.text) for b in doc.blocks] == [(K.HEADING, "2 Methods"), (K.PARAGRAPH, "We measured.")]
    # a damaged orig_elements is a warning naming the field; the chunk's own text is read instead
    with pytest.warns(InputWarning) as caught:
        doc = read_unstructured([el("CompositeElement", "fallback text", "c", orig_elements="not base64 zlib")])
    assert [w.message.field for w in caught] == ["[0].metadata.orig_elements"]
    assert [(b.kind, b.text, b.parser_ids) for b in doc.blocks] == [(K.PARAGRAPH, "fallback text", ["c"])]


def test_orig_elements_inflation_is_capped(monkeypatch):
    from structaware_readers.unstructured import records

    inner = [el("NarrativeText", "x" * 5000, "a")]
    blob = base64.b64encode(zlib.compress(json.dumps(inner).encode())).decode()
    monkeypatch.setattr(records, "ORIG_ELEMENTS_MAX_BYTES", 1000)
    with pytest.warns(InputWarning, match="over 1000 bytes"):
        doc = read_unstructured([el("CompositeElement", "chunk text", "c", orig_elements=blob)])
    assert [b.text for b in doc.blocks] == ["chunk text"]
    with pytest.raises(MalformedInputError, match="more than 1000 bytes"):
        records.decode_orig_elements(blob, "<elements>", "[0].metadata.orig_elements")


def test_errors_name_the_file_and_field(tmp_path):
    with pytest.raises(InputNotFoundError):
        read_unstructured(tmp_path / "missing.json")
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(EmptyDocumentError) as err:
        read_unstructured(empty)
    assert err.value.path == str(empty)
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{"foo": 1}]))
    with pytest.raises(UnknownFormatError):
        read_unstructured(other)
    with pytest.raises(MalformedInputError) as err:
        read_unstructured([el("Title", "ok"), {"text": "no type", "metadata": {}}])
    assert err.value.field == "[1].type"
    with pytest.raises(MalformedInputError) as err:
        read_unstructured([el("Title", "x", page_number=0)])
    assert err.value.field == "[0].metadata.page_number"
    with pytest.raises(EmptyDocumentError):  # only page furniture: nothing to index
        read_unstructured([el("Header", "running head"), el("PageNumber", "3"), el("PageBreak")])
    with pytest.raises(UnknownFormatError):
        read_unstructured(tmp_path)


# ------------------------------------------------------------------------------ raw files

HAS_SPACY_MODEL = spacy_model_installed()


@pytest.mark.skipif(HAS_SPACY_MODEL, reason="en_core_web_sm is installed: the raw route works here")
@pytest.mark.parametrize("name", ["sample.html", "sample.md"])
def test_raw_file_without_the_spacy_model_raises_before_partitioning(name):
    with pytest.raises(ParserUnavailableError) as err:
        read_unstructured(GEN / "inputs" / name)
    assert err.value.field == "en_core_web_sm" and "elements_to_json" in str(err.value)
    assert err.value.path == str(GEN / "inputs" / name)


@pytest.mark.skipif(not HAS_SPACY_MODEL, reason="en_core_web_sm (spaCy model for unstructured) is not installed")
def test_raw_html_is_partitioned_when_the_model_exists():
    path = GEN / "inputs" / "sample.html"
    doc = read_unstructured(path)
    assert doc.doc_id == ids.doc_id_from_file(path) and doc.parser_version and doc.input_format == "text/html"
    headings = [(b.text, b.level) for b in doc.blocks if b.kind is K.HEADING]
    assert headings == [("1 Management of Hypertension", 1), ("1.1 Blood pressure targets", 2)]
    table = next(b for b in doc.blocks if b.kind is K.TABLE)
    assert table.table.column_headers() == SAMPLE_HEADERS and table.table.body_rows == SAMPLE_ROWS
