"""Evidence pictures: the outline of every region lands on the region's own text in the PDF.

Each check reads the text the PDF has under the outline drawn in the picture: the outline's pixel
box is mapped back to PDF user space through PDFium's own device-to-page transform (which knows the
page's ``/Rotate`` and its boxes) and the text layer is read there (``get_text_bounded``). The unit's
text must be there, and the neighbouring rows' or boxes' text must not (the traps).

Fixtures: the synthetic guideline (a 60-row table continued from page 3 to 4; MinerU 4.0.12 output in
three formats: ``content_list`` and ``content_list_v2`` in 0..1000 of the page, the docvortex middle
JSON in 0..1), its Unstructured partition rescaled to hi_res pixel coordinates, and
``evidence_geometry.pdf`` (an algorithm whose edge crosses from page 1 to page 2, and a table on a
page stored portrait with ``/Rotate 90``; its box ground truth is ``evidence_geometry.boxes.json``).
"""

from __future__ import annotations

import ctypes
import json
import re
import shutil
from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")
import pypdfium2.raw as pdfium_c

from structaware_readers.errors import MalformedInputError, PdfNotFoundError
from structaware_readers.ids import doc_id_from_file
from structaware_readers.load.loader import load_document
from structaware_readers.models import FlowEdgeInfo, Unit, UnitType
from structaware_readers.units import build_units
from structaware_retrievers.index.structure_index import SearchHit
from structaware_retrievers.pictures.evidence_image import OUTLINE_COLOR, evidence_image, evidence_picture

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EN_PDF = FIXTURES / "pdf" / "synthetic_guideline_en.pdf"
EN_MINERU = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
GEO_PDF = FIXTURES / "pdf" / "evidence_geometry.pdf"
GEO_MINERU = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_evidence_geometry"
GEO_BOXES = json.loads((FIXTURES / "pdf" / "evidence_geometry.boxes.json").read_text())
EN_UNSTRUCTURED = FIXTURES / "unstructured" / "generated" / "synthetic_guideline_en.pdf.fast.json"


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def text_under(picture, outline, pdf: Path) -> str:
    """The PDF's text inside ``outline`` as drawn in ``picture`` (PDFium maps the pixels back)."""
    panel = next(p for p in picture.panels if p.page == outline.page)
    width, height = panel.page_size
    x0, y0, x1, y1 = outline.box
    dx, dy = panel.crop[0] - panel.left, panel.crop[1] - panel.top  # picture pixels -> whole-page pixels
    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[outline.page - 1]
        px, py = ctypes.c_double(), ctypes.c_double()
        corners = []
        for x, y in ((x0 + dx, y0 + dy), (x1 + dx, y1 + dy)):
            pdfium_c.FPDF_DeviceToPage(page, 0, 0, width, height, 0, x, y, ctypes.byref(px), ctypes.byref(py))
            corners.append((px.value, py.value))
        (left, right), (bottom, top) = sorted(c[0] for c in corners), sorted(c[1] for c in corners)
        return page.get_textpage().get_text_bounded(left, bottom, right, top)
    finally:
        doc.close()


def assert_drawn(picture) -> None:
    """Every outline is drawn just outside its box: the pixel left of the box is the outline colour,
    the box's own first pixel is not."""
    image = picture.image
    for o in picture.outlines:
        x0, y0, x1, y1 = o.box
        mid = (y0 + y1) // 2
        assert image.getpixel((x0 - 1, mid)) == OUTLINE_COLOR, o
        assert image.getpixel((x1, mid)) == OUTLINE_COLOR, o
        assert image.getpixel((x0 + 1, mid)) != OUTLINE_COLOR, o


@pytest.fixture(scope="module")
def en_rows() -> list[Unit]:
    doc = load_document(EN_MINERU, pdf=EN_PDF)
    rows = [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]
    assert len(rows) == 60
    return rows


def _label(row: Unit) -> str:
    return row.table.cells[0]  # "Adults 57-59 y"


@pytest.mark.parametrize("r", [0, 20, 36, 37, 59])  # first row, a middle one, last of page 3, first and last of page 4
def test_a_table_row_is_outlined_on_its_own_row(en_rows: list[Unit], r: int) -> None:
    row = en_rows[r]
    picture = evidence_picture(row, pdf=EN_PDF)  # the rows were read from MinerU's output, the PDF beside it
    (outline,) = picture.outlines
    assert [p.page for p in picture.panels] == row.pages
    assert outline.box[3] - outline.box[1] < 30  # a row's height in pixels, not the table's
    under = _flat(text_under(picture, outline, EN_PDF))
    assert _flat(_label(row)) in under and _flat(row.table.cells[1]) in under
    for n in (r - 1, r + 1):  # the trap: the neighbouring rows are not under the outline
        if 0 <= n < len(en_rows) and en_rows[n].pages == row.pages:
            assert _flat(_label(en_rows[n])) not in under
    assert_drawn(picture)


def test_a_cropped_picture_keeps_the_outline_on_the_row(en_rows: list[Unit]) -> None:
    row = en_rows[20]
    whole, cropped = evidence_picture(row, pdf=EN_PDF), evidence_picture(row, pdf=EN_PDF, crop=True, margin=20)
    assert cropped.image.width < whole.image.width and cropped.image.height < whole.image.height / 4
    (outline,) = cropped.outlines
    assert _flat(_label(row)) in _flat(text_under(cropped, outline, EN_PDF))
    assert_drawn(cropped)
    # the margin is 20 pt = 30 px at 108 dpi, plus the outline's 3 px, on every side the page allows
    assert outline.box[0] == 30 + 3 and outline.box[1] == 30 + 3


def test_a_grouped_hit_outlines_every_row_of_its_group_on_each_page(en_rows: list[Unit]) -> None:
    hit = SearchHit(unit=en_rows[20], score=1.0, rank=1, group=[en_rows[45], en_rows[5]])
    picture = evidence_picture(hit, pdf=EN_PDF)
    assert [p.page for p in picture.panels] == [3, 4]  # side by side, in page order
    assert len(picture.outlines) == 3
    by_page = {3: [en_rows[20], en_rows[5]], 4: [en_rows[45]]}
    for outline in picture.outlines:
        under = _flat(text_under(picture, outline, EN_PDF))
        mine = [row for row in by_page[outline.page] if _flat(_label(row)) in under]
        assert len(mine) == 1, (outline, under[:200])
    assert_drawn(picture)


def test_a_flow_edge_across_pages_outlines_both_boxes_on_both_pages() -> None:
    source, target = GEO_BOXES["A2"], GEO_BOXES["A3"]
    edge = Unit(
        unit_id="00000000-0000-5000-8000-000000000001",
        unit_type=UnitType.FLOW_PATH,
        text=f"{source['label']} -> {target['label']}",
        doc_id=doc_id_from_file(GEO_PDF),
        doc_name="evidence_geometry",
        source=str(GEO_PDF),
        pages=[1, 2],
        element_ids=["p1-e2", "p2-e0"],
        bboxes=[tuple(source["bbox"]), tuple(target["bbox"])],
        element_pages=[source["page"], target["page"]],
        flow=FlowEdgeInfo(flowchart_id="p1-e2", source=source["label"], target=target["label"]),
    )
    picture = evidence_picture(edge)
    assert [p.page for p in picture.panels] == [1, 2]
    first, second = picture.outlines
    assert first.page == 1 and second.page == 2 and second.box[0] > picture.panels[1].left
    under_first, under_second = _flat(text_under(picture, first, GEO_PDF)), _flat(text_under(picture, second, GEO_PDF))
    assert under_first == _flat(source["label"]) and under_second == _flat(target["label"])
    assert _flat(GEO_BOXES["A1"]["label"]) not in under_first and _flat(GEO_BOXES["A4"]["label"]) not in under_second
    assert_drawn(picture)


@pytest.mark.parametrize("name", ["middle_json.json", "content_list.rendered.json"])
def test_rows_of_a_table_on_a_rotated_page_are_outlined_on_their_text(name: str) -> None:
    doc = load_document(GEO_MINERU / name, pdf=GEO_PDF)
    rows = [u for u in build_units(doc) if u.unit_type is UnitType.TABLE_ROW]
    labels = ["Adults under 65 years", "Adults 65 to 79 years", "Adults 80 years and over", "Chronic kidney disease",
              "Diabetes mellitus"]  # fmt: skip
    assert len(rows) == len(labels) and all(r.pages == [3] for r in rows)
    for i, row in enumerate(rows):
        picture = evidence_picture(row, pdf=GEO_PDF)
        (panel,) = picture.panels
        assert panel.page_size == (1188, 918)  # shown landscape: the page's /Rotate 90 applied
        under = _flat(text_under(picture, picture.outlines[0], GEO_PDF))
        assert _flat(labels[i]) in under
        assert all(_flat(other) not in under for j, other in enumerate(labels) if j != i)
        assert_drawn(picture)


@pytest.mark.parametrize(
    "name",
    ["content_list.rendered.json", "content_list_v2.rendered.json", "middle_json.json"],  # 0..1000, 0..1000, 0..1
)
def test_mineru_boxes_of_every_scale_land_on_the_recommendation(name: str) -> None:
    units = build_units(load_document(EN_MINERU / name, pdf=EN_PDF))
    recommendations = [u for u in units if u.unit_type is UnitType.RECOMMENDATION]
    assert len(recommendations) == 3
    for unit in recommendations:
        picture = evidence_picture(unit, pdf=EN_PDF)
        under = _flat(text_under(picture, picture.outlines[0], EN_PDF))
        assert _flat(unit.text[:60]) in under, (name, unit.text[:60], under[:120])
        others = [u.text[:40] for u in recommendations if u.unit_id != unit.unit_id]
        assert not any(_flat(t) in under for t in others)


def _pixel_space(elements: list[dict], dpi: float = 200.0) -> list[dict]:
    """Unstructured's hi_res coordinates: pixels of the page image at ``dpi`` (the fast strategy's are points)."""
    out = json.loads(json.dumps(elements))
    k = dpi / 72.0
    for e in out:
        c = e.get("metadata", {}).get("coordinates")
        if c:
            c["points"] = [[x * k, y * k] for x, y in c["points"]]
            c["layout_width"], c["layout_height"] = c["layout_width"] * k, c["layout_height"] * k
    return out


def test_unstructured_pixel_coordinates_land_on_the_same_text(tmp_path: Path) -> None:
    points = json.loads(EN_UNSTRUCTURED.read_text())
    pixels = tmp_path / "synthetic_guideline_en.pdf.json"
    pixels.write_text(json.dumps(_pixel_space(points)))
    by_points = build_units(load_document(EN_UNSTRUCTURED, pdf=False))
    by_pixels = build_units(load_document(pixels, pdf=False))
    assert [u.element_ids for u in by_pixels] == [u.element_ids for u in by_points]
    for u, v in zip(by_pixels, by_points):  # the same boxes, 0..1 of the page, from pixels as from points
        assert all(a == pytest.approx(b, abs=1e-4) for a, b in zip(u.bboxes, v.bboxes) if a and b)
    checked = 0
    for unit in by_pixels:
        if unit.unit_type not in (UnitType.RECOMMENDATION, UnitType.SECTION) or not all(unit.bboxes):
            continue
        picture = evidence_picture(unit, pdf=EN_PDF)
        under = "".join(_flat(text_under(picture, o, EN_PDF)) for o in picture.outlines)
        words = _flat(unit.text)[:50]
        assert words in under, (unit.element_ids, words, under[:200])
        checked += 1
    assert checked >= 5


def test_an_index_from_parser_output_alone_names_the_pdf_it_needs(tmp_path: Path) -> None:
    folder = tmp_path / "synthetic_guideline_en"
    shutil.copytree(EN_MINERU, folder)
    unit = next(u for u in build_units(load_document(folder)) if u.unit_type is UnitType.RECOMMENDATION)
    with pytest.raises(PdfNotFoundError) as err:
        evidence_picture(unit)
    assert isinstance(err.value, FileNotFoundError)
    assert "synthetic_guideline_en.pdf" in str(err.value) and str(folder) in str(err.value)
    shutil.copy(EN_PDF, tmp_path / "synthetic_guideline_en.pdf")  # beside the output: found
    assert evidence_picture(unit).outlines
    # given explicitly: a PDF, a folder of <doc_name>.pdf, a mapping by doc_id
    assert evidence_picture(unit, pdf=EN_PDF).pdf == EN_PDF
    assert evidence_picture(unit, pdf=tmp_path).pdf == tmp_path / "synthetic_guideline_en.pdf"
    assert evidence_picture(unit, pdf={unit.doc_id: EN_PDF}).pdf == EN_PDF
    with pytest.raises(PdfNotFoundError, match="name neither"):
        evidence_picture(unit, pdf={"another": EN_PDF})


def test_a_pdf_changed_since_it_was_indexed_is_refused(tmp_path: Path, en_rows: list[Unit]) -> None:
    moved = tmp_path / "guideline.pdf"
    shutil.copy(EN_PDF, moved)
    row = en_rows[3].model_copy(
        update={"source": str(moved), "doc_id": doc_id_from_file(EN_PDF)}
    )  # as if ingested from the PDF
    assert evidence_picture(row).outlines  # the indexed bytes: fine
    moved.write_bytes((FIXTURES / "pdf" / "tiny_heading_table.pdf").read_bytes())
    with pytest.raises(PdfNotFoundError, match="changed since it was indexed"):
        evidence_picture(row)
    moved.unlink()
    with pytest.raises(PdfNotFoundError, match="not here"):
        evidence_picture(row)
    with pytest.raises(MalformedInputError, match="beyond this PDF's 1 pages"):  # another PDF given by hand
        evidence_picture(row, pdf=FIXTURES / "pdf" / "tiny_heading_table.pdf")


def test_elements_without_a_box_are_named_and_bad_arguments_are_errors(en_rows: list[Unit]) -> None:
    row = en_rows[2]
    boxless = row.model_copy(update={"bboxes": [None]})
    picture = evidence_picture(boxless, pdf=EN_PDF)
    assert picture.outlines == [] and picture.warnings == [
        f"{row.doc_name}: element {row.element_ids[0]} (page 3) has no bbox: not outlined"
    ]
    with pytest.raises(ValueError, match="not on page"):
        evidence_picture(row, pdf=EN_PDF, pages=[1])
    with pytest.raises(ValueError, match="dpi"):
        evidence_picture(row, pdf=EN_PDF, dpi=5000)
    with pytest.raises(TypeError, match="SearchHit or a Unit"):
        evidence_picture({"unit_id": row.unit_id})  # type: ignore[arg-type]
    image = evidence_image(row, pdf=EN_PDF, dpi=72)
    assert image.size == (596, 842)  # A4 (595.3 x 841.9 pt) at one pixel per point, as PDFium rounds it


def test_the_png_carries_the_outlines(en_rows: list[Unit]) -> None:
    from io import BytesIO

    from PIL import Image

    picture = evidence_picture(en_rows[7], pdf=EN_PDF, crop=True)
    png = Image.open(BytesIO(picture.png()))
    meta = json.loads(png.text["structaware"])
    assert meta["unit_id"] == en_rows[7].unit_id and meta["pages"] == [3]
    assert meta["outlines"][0]["box"] == list(picture.outlines[0].box)
