"""Evidence outlines against positions read from the page: an algorithm's boxes and description lines.

The VA/DoD hypertension pages (public domain, ``tests/fixtures/pdf/vadod_htn_algorithm_pages.pdf``):
Module A drawn as a raster image on page 2 (no text layer: its positions are the OCR boxes recorded
for it, ``tests/fixtures/ocr``), its text description on pages 6-7 (text layer). Every check maps the
positions read from the page into the picture's pixels and compares them with the outline boxes
:class:`~structaware_retrievers.pictures.evidence_image.EvidencePicture` reports, within :data:`TOL` pixels;
each has a trap (a neighbouring box or line that must not be inside).
"""

from __future__ import annotations

import ctypes
import json
import unicodedata
from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")
pytest.importorskip("cv2", reason="OpenCV (structaware[ocr]) reads algorithm images")
import pypdfium2.raw as pdfium_c

from structaware_readers.algorithms import attach_described_algorithms
from structaware_readers.algorithms.box_places import fit_description_lines, place_described_boxes
from structaware_readers.algorithms.image_flow import TextLine
from structaware_readers.algorithms.images import DPI, padded
from structaware_readers.mineru import read_mineru
from structaware_readers.models import Unit, UnitType
from structaware_readers.units import build_units
from structaware_retrievers.pictures.evidence_image import evidence_picture

FIX = Path(__file__).parent / "fixtures"
HTN_PDF = FIX / "pdf" / "vadod_htn_algorithm_pages.pdf"
HTN = FIX / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_algorithm_pages"
#: Module A's image: fixture page 2, MinerU's figure box (as tests/fixtures/ocr/record_algorithm_lines.py)
MODULE_A = (2, (0.118, 0.117, 0.882, 0.61))
#: How far (picture pixels) a position read from the page may lie outside its outline.
TOL = 3

Box = tuple[float, float, float, float]


def _norm(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _ocr_lines() -> list[TextLine]:
    data = json.loads((FIX / "ocr" / "vadod_htn_module_a_lines.json").read_text())
    return [TextLine(d["text"], tuple(d["bbox"]), d["confidence"]) for d in data]


@pytest.fixture(scope="module")
def htn_edges() -> list[Unit]:
    """The flow paths of Modules A and B as the loader makes them with the PDF at hand: description
    paragraphs fitted to the text layer, boxes placed on Module A's image with the recorded OCR lines
    (Module B's image is given no lines: its edges keep the whole image)."""
    calls: list[int] = []

    def read_lines(image):
        calls.append(1)
        return _ocr_lines() if len(calls) == 1 else []

    doc = fit_description_lines(attach_described_algorithms(read_mineru(HTN)), HTN_PDF)
    placed = place_described_boxes(doc, HTN_PDF, read_lines=read_lines)
    assert len(calls) == 3  # Module A, Module B and the study flow diagram: no text layer in any image
    return [u for u in build_units(placed) if u.unit_type is UnitType.FLOW_PATH]


def _edge(units: list[Unit], source: str, target: str) -> Unit:
    return next(u for u in units if u.text.startswith(f"Box {source}:") and f"-> Box {target}:" in u.text)


def _ocr_in_picture(picture, line: TextLine) -> Box:
    """An OCR line of Module A's image (pixels of its region rendered at DPI) in picture pixels."""
    page, figure = MODULE_A
    panel = next(p for p in picture.panels if p.page == page)
    region = padded(figure)
    width, height = panel.page_size
    k = panel.scale * 72 / DPI
    left, top = region[0] * width, region[1] * height
    dx, dy = panel.left - panel.crop[0], panel.top - panel.crop[1]
    x0, y0, x1, y1 = line.bbox
    return (left + x0 * k + dx, top + y0 * k + dy, left + x1 * k + dx, top + y1 * k + dy)


def _inside(box: Box, outline: tuple[int, int, int, int], tol: float = TOL) -> bool:
    return (
        box[0] >= outline[0] - tol
        and box[1] >= outline[1] - tol
        and box[2] <= outline[2] + tol
        and box[3] <= outline[3] + tol
    )


def _lines_of(words: str) -> list[TextLine]:
    """The recorded OCR lines whose text holds ``words`` (normalised)."""
    found = [ln for ln in _ocr_lines() if _norm(words) in _norm(ln.text)]
    assert found, words
    return found


@pytest.mark.parametrize(
    ("source", "target", "source_words", "target_words", "trap_words"),
    [
        # a hexagon beside a hexagon; trap: Box 4 just above Box 5
        ("5", "6", "When measured", "injury or illness", "Obtain office blood"),
        # two boxes far apart (Box 15 at the bottom left); trap: Box 11 beside Box 10
        ("10", "15", "Confirm diagnosis", "Screen blood pressure", "Obtain history"),
    ],
)
def test_a_flow_path_on_the_image_outlines_its_two_boxes_and_the_arrow(
    htn_edges: list[Unit], source: str, target: str, source_words: str, target_words: str, trap_words: str
) -> None:
    edge = _edge(htn_edges, source, target)
    picture = evidence_picture(edge, pdf=HTN_PDF, pages=[2])
    outlines = [o.box for o in picture.outlines]
    assert len(outlines) == 3  # the two boxes and the arrow between them, not the whole image
    image_px = (0.118 * 918, 0.117 * 1188, 0.882 * 918, 0.61 * 1188)
    assert all(
        (o[2] - o[0]) * (o[3] - o[1]) < 0.1 * (image_px[2] - image_px[0]) * (image_px[3] - image_px[1])
        for o in outlines
    )
    first, second, arrow = outlines
    for words, outline in ((source_words, first), (target_words, second)):
        for line in _lines_of(words):
            assert _inside(_ocr_in_picture(picture, line), outline), (words, outline)
    for line in _lines_of(trap_words):
        box = _ocr_in_picture(picture, line)
        assert not any(_inside(box, o, 0) for o in outlines), trap_words
    # the arrow runs from one box to the other and holds neither box's text
    assert _gap(arrow, first) <= TOL + 1 and _gap(arrow, second) <= TOL + 1, (arrow, first, second)
    for words in (source_words, target_words, trap_words):
        for line in _lines_of(words):
            assert not _inside(_ocr_in_picture(picture, line), arrow, 0), words


def _gap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> int:
    """Pixels between two boxes (0 when they touch or overlap)."""
    return max(0, a[0] - b[2], b[0] - a[2], a[1] - b[3], b[1] - a[3])


def test_a_flow_path_whose_box_was_not_found_keeps_the_whole_image(htn_edges: list[Unit]) -> None:
    """Module B's image gave no lines: its edges point at the whole image, not at a guess."""
    edge = _edge(htn_edges, "16", "17")
    assert ("p3-e2", (0.122, 0.117, 0.786, 0.569)) in list(zip(edge.element_ids, edge.bboxes))


def _text_lines(pdf: Path, page_number: int, size: tuple[int, int]) -> list[tuple[str, Box]]:
    """The text layer's lines of a page, in pixels of the page rendered at ``size`` (PDFium's own
    page-to-device transform), with their text."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[page_number - 1]
        textpage = page.get_textpage()
        x, y = ctypes.c_int(), ctypes.c_int()
        out = []
        for k in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(k)
            text = textpage.get_text_bounded(left, bottom, right, top)
            corners = []
            for px, py in ((left, top), (right, bottom)):
                pdfium_c.FPDF_PageToDevice(page, 0, 0, size[0], size[1], 0, px, py, ctypes.byref(x), ctypes.byref(y))
                corners.append((x.value, y.value))
            (x0, x1), (y0, y1) = sorted(c[0] for c in corners), sorted(c[1] for c in corners)
            out.append((text, (x0, y0, x1, y1)))
        # runs that overlap vertically by half the smaller height are one line, read left to right
        groups: list[list[tuple[str, Box]]] = []
        for run in sorted(out, key=lambda r: r[1][1]):
            for group in groups:
                top, bottom = min(b[1] for _, b in group), max(b[3] for _, b in group)
                if min(bottom, run[1][3]) - max(top, run[1][1]) >= 0.5 * min(bottom - top, run[1][3] - run[1][1]):
                    group.append(run)
                    break
            else:
                groups.append([run])
        lines: list[tuple[str, Box]] = []
        for group in groups:
            group.sort(key=lambda r: r[1][0])
            boxes = [b for _, b in group]
            lines.append(
                (
                    "".join(t for t, _ in group),
                    (
                        min(b[0] for b in boxes),
                        min(b[1] for b in boxes),
                        max(b[2] for b in boxes),
                        max(b[3] for b in boxes),
                    ),
                )
            )
        return lines
    finally:
        doc.close()


def _stated_lines(lines: list[tuple[str, Box]], first: str, last: str) -> list[Box]:
    """The lines from the one holding ``first`` to the one holding ``last`` (normalised), inclusive."""
    texts = [_norm(t) for t, _ in lines]
    a = next(i for i, t in enumerate(texts) if _norm(first) in t)
    b = next(i for i in range(a, len(texts)) if _norm(last) in texts[i])
    return [box for _, box in lines[a : b + 1]]


@pytest.mark.parametrize(
    ("source", "target", "stated", "trap"),
    [
        # Box 4's text is quoted in the item before the one that connects it to Box 5
        (
            "4",
            "5",
            [("then Box 4", "pressure (see Sidebar 1)"), ("Box 4 connects to Box 5", "80 mm Hg?")],
            "Does patient have an acute",
        ),
        # Box 6 is quoted on the line after the statement of the edge, a paragraph of its own
        (
            "5",
            "6",
            [("Box 4 connects to Box 5", "80 mm Hg?"), ("Yes\u201d to Box 5", "injury or illness?")],
            "then Box 7",
        ),
    ],
)
def test_a_flow_path_on_the_description_outlines_every_line_of_both_boxes(
    htn_edges: list[Unit], source: str, target: str, stated: list[tuple[str, str]], trap: str
) -> None:
    edge = _edge(htn_edges, source, target)
    picture = evidence_picture(edge, pdf=HTN_PDF, pages=[6])
    (panel,) = picture.panels
    lines = _text_lines(HTN_PDF, 6, panel.page_size)
    outlines = [o.box for o in picture.outlines]
    for first, last in stated:
        for box in _stated_lines(lines, first, last):
            assert any(_inside(box, o) for o in outlines), (first, last, box, outlines)
    (trap_box,) = _stated_lines(lines, trap, trap)
    assert not any(_inside(trap_box, o, 0) for o in outlines), trap


# --- table rows in Chinese: every line of the row inside its outline, the neighbours' outside ----------

ZH_PDF = FIX / "pdf" / "zh_table_rows.pdf"
#: The two tables' regions as a parser gives them (0..1 of the A4 page: the generator's rules).
ZH_TABLES = {"p1-e2": (0.121, 0.159, 0.9643, 0.3587), "p1-e3": (0.121, 0.4134, 0.9643, 0.6093)}


def _zh_spec():
    """The generator's tables (``tests/fixtures/pdf/make_zh_table_rows.py``): the lines each cell prints."""
    import importlib.util

    pytest.importorskip("reportlab")
    spec = importlib.util.spec_from_file_location("make_zh_table_rows", FIX / "pdf" / "make_zh_table_rows.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [mod.TABLE_1, mod.TABLE_2]


@pytest.fixture(scope="module")
def zh_rows() -> list[tuple[Unit, list[list[str] | None]]]:
    """Each table row unit of the two tables read as a parser reads them (cells from its markup, a merged
    cell repeated in the rows it covers, one box per table), rows placed from the PDF's text layer;
    with the lines each of its cells prints."""
    from structaware_readers.ids import doc_id_from_file
    from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid
    from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes

    blocks, printed = [], []
    for (bid, bbox), (_, header, _, rows) in zip(ZH_TABLES.items(), _zh_spec()):
        body = []
        for r, row in enumerate(rows):
            body.append(["".join(cell if cell is not None else rows[r - 1][c]) for c, cell in enumerate(row)])
            printed.append(row)
        grid = TableGrid(header_rows=[header], body_rows=body, grid_source="parser_html")
        text = "\n".join(" | ".join(r) for r in [header, *body])
        blocks.append(Block(block_id=bid, kind=BlockKind.TABLE, page=1, text=text, bbox=bbox, table=grid))
    doc = ParsedDocument(
        doc_id=doc_id_from_file(ZH_PDF),
        source=str(ZH_PDF),
        name="zh_table_rows",
        parser="mineru",
        page_count=1,
        blocks=blocks,
    )
    rows = [u for u in build_units(add_row_boxes(doc, ZH_PDF)) if u.unit_type is UnitType.TABLE_ROW]
    assert len(rows) == len(printed) == 7
    return list(zip(rows, printed))


def _runs(pdf: Path, page_number: int, size: tuple[int, int]) -> list[tuple[str, Box]]:
    """The text layer's runs (PDFium's text rectangles) of a page with their text, in pixels of the
    page rendered at ``size``."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        page = doc[page_number - 1]
        textpage = page.get_textpage()
        x, y = ctypes.c_int(), ctypes.c_int()
        out = []
        for k in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(k)
            corners = []
            for px, py in ((left, top), (right, bottom)):
                pdfium_c.FPDF_PageToDevice(page, 0, 0, size[0], size[1], 0, px, py, ctypes.byref(x), ctypes.byref(y))
                corners.append((x.value, y.value))
            (x0, x1), (y0, y1) = sorted(c[0] for c in corners), sorted(c[1] for c in corners)
            out.append((textpage.get_text_bounded(left, bottom, right, top), (x0, y0, x1, y1)))
        return out
    finally:
        doc.close()


def _printed_boxes(runs: list[tuple[str, Box]], lines: list[str]) -> list[Box]:
    found = []
    for line in lines:
        boxes = [b for t, b in runs if _norm(t) == _norm(line)]
        assert len(boxes) == 1, line
        found.append(boxes[0])
    return found


@pytest.mark.parametrize("i", range(7))
def test_a_chinese_table_row_is_outlined_on_its_own_lines(zh_rows, i: int) -> None:
    """Rows whose cells wrap over two or three lines (centred, so a row's first line is not its label's
    line), ``组长`` inside ``副组长``, a merged cell printed once across two rows: the outlines of each
    row hold every line of its cells, the merged cell included in both rows it covers, and no line of
    the rows above and below (the trap)."""
    row, printed = zh_rows[i]
    picture = evidence_picture(row, pdf=ZH_PDF)
    (panel,) = picture.panels
    outlines = [o.box for o in picture.outlines]
    runs = _runs(ZH_PDF, 1, panel.page_size)
    own = [line for c, cell in enumerate(printed) for line in (cell if cell is not None else zh_rows[i - 1][1][c])]
    for box in _printed_boxes(runs, own):
        assert any(_inside(box, o) for o in outlines), (row.text, box, outlines)
    table_of = [0, 0, 0, 1, 1, 1, 1]
    for n in (i - 1, i + 1):
        if 0 <= n < len(zh_rows) and table_of[n] == table_of[i]:
            theirs = [line for c, cell in enumerate(zh_rows[n][1]) if cell is not None and c > 0 for line in cell]
            for box in _printed_boxes(runs, theirs):
                middle = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
                for x0, y0, x1, y1 in outlines:
                    assert not (x0 <= middle[0] <= x1 and y0 <= middle[1] <= y1), (row.text, zh_rows[n][0].text, box)


def test_chart_text_is_read_where_it_is_on_a_page_with_an_offset_crop_box(tmp_path: Path) -> None:
    """A chart's text read from the text layer lands on the chart's boxes also on a page whose crop box
    does not start at the page origin (PDFium's transform, not ``height - y``): the algorithm of
    ``evidence_geometry.pdf`` page 1, whose box ground truth is ``evidence_geometry.boxes.json``, as
    printed and with its crop box moved in by 30 points left and 20 top."""
    from structaware_readers.algorithms.images import text_layer_lines

    boxes = json.loads((FIX / "pdf" / "evidence_geometry.boxes.json").read_text())
    src = pdfium.PdfDocument(str(FIX / "pdf" / "evidence_geometry.pdf"))
    cropped = pdfium.PdfDocument.new()
    cropped.import_pages(src, [0])
    cropped[0].set_cropbox(30, 40, 582, 772)
    cropped.save(str(tmp_path / "cropped.pdf"))
    k = DPI / 72
    for pdf, (dx, dy) in ((src, (0, 0)), (pdfium.PdfDocument(str(tmp_path / "cropped.pdf")), (30, 20))):
        page = pdf[0]
        width, height = page.get_size()
        # the chart's region (0..1 of the page shown), the same points of paper on both pages
        region = (
            (0.25 * 612 - dx) / width,
            (0.55 * 792 - dy) / height,
            (0.75 * 612 - dx) / width,
            (0.9 * 792 - dy) / height,
        )
        lines = text_layer_lines(page, region, region)
        left, top = int(region[0] * width * k), int(region[1] * height * k)
        for name in ("A1", "A2"):
            x0, y0, x1, y1 = (v * s for v, s in zip(boxes[name]["bbox"], (612, 792, 612, 792)))
            mine = [ln for ln in lines if _norm(ln.text) and _norm(ln.text) in _norm(boxes[name]["label"])]
            assert mine, (name, [ln.text for ln in lines])
            for line in mine:  # back to points of the paper: inside the box drawn for it
                a0, b0, a1, b1 = (
                    (line.bbox[0] + left) / k + dx,
                    (line.bbox[1] + top) / k + dy,
                    (line.bbox[2] + left) / k + dx,
                    (line.bbox[3] + top) / k + dy,
                )
                assert x0 - 1 <= a0 and a1 <= x1 + 1 and y0 - 1 <= b0 and b1 <= y1 + 1, (
                    name,
                    line.text,
                    (a0, b0, a1, b1),
                    (x0, y0, x1, y1),
                )
