"""Algorithm images -> boxes, connectors, arrowheads, labels (structaware_readers.algorithms.image_flow).

Two kinds of input: the real Module A and B images of the VA/DoD hypertension guideline (public
domain), rendered from ``tests/fixtures/pdf/vadod_htn_algorithm_pages.pdf`` at 200 dpi with the text
lines an OCR engine read in them (recorded once, ``tests/fixtures/ocr/record_algorithm_lines.py``), scored
against the guideline's own text description of the same modules; and charts drawn here with OpenCV,
each with a trap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

cv2 = pytest.importorskip("cv2", reason="OpenCV (structaware[ocr]) reads algorithm images")
np = pytest.importorskip("numpy")

from structaware_readers.algorithms.image_flow import TextLine, read_flowchart_image
from structaware_readers.algorithms.score import normalise_box_text, score_edges
from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind

FIX = Path(__file__).parent / "fixtures"
sys_path_record = FIX / "ocr"


def _record_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "record_algorithm_lines", sys_path_record / "record_algorithm_lines.py"
    )
    mod = importlib.util.module_from_spec(spec)
    # the recorder imports rapidocr only in main(): importing it for render() needs pypdfium2 alone
    src = (
        (sys_path_record / "record_algorithm_lines.py")
        .read_text()
        .replace("from rapidocr_onnxruntime import RapidOCR\n", "")
    )
    exec(compile(src, str(spec.origin), "exec"), mod.__dict__)
    return mod


def _lines(name: str) -> list[TextLine]:
    data = json.loads((FIX / "ocr" / f"vadod_htn_{name}_lines.json").read_text())
    return [TextLine(d["text"], tuple(d["bbox"]), d["confidence"]) for d in data]


@pytest.mark.parametrize(("name", "caption", "min_right"), [("module_a", "Module A", 17), ("module_b", "Module B", 10)])
def test_real_algorithm_image_against_its_text_description(name: str, caption: str, min_right: int) -> None:
    rec = _record_module()
    page, bbox = rec.IMAGES[name]
    flow = read_flowchart_image(rec.render(page, bbox), _lines(name), dpi=rec.DPI)
    chart = flow.to_flowchart()
    doc = load_document(FIX / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_algorithm_pages", pdf=False)
    truth = next(b.flowchart for b in doc.blocks if b.kind is BlockKind.FLOWCHART and b.caption.startswith(caption))
    score = score_edges(chart, truth)
    assert len(chart.nodes) == len(truth.nodes) == score.boxes_matched  # every box found, none invented
    assert score.right >= min_right, score.missed
    # at most one wrong edge (Module A: the image prints a 'Yes' beside 7 -> 4, the description none)
    assert score.read - score.right <= 1, score.wrong


def _draw() -> tuple[np.ndarray, list[TextLine]]:
    img = np.full((420, 640, 3), 255, np.uint8)
    ink = (30, 50, 120)
    lines: list[TextLine] = []

    def box(x0: int, y0: int, x1: int, y1: int, text: str, number: str) -> None:
        cv2.rectangle(img, (x0, y0), (x1, y1), ink, 2)
        cv2.putText(img, text, (x0 + 8, (y0 + y1) // 2 + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, ink, 1)
        lines.append(TextLine(text, (x0 + 8, (y0 + y1) // 2 - 7, x0 + 8 + 9 * len(text), (y0 + y1) // 2 + 8)))
        cv2.putText(img, number, (x0 - 16, y0 - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.4, ink, 1)
        lines.append(TextLine(number, (x0 - 17, y0 - 12, x0 - 6, y0)))

    def hexagon(cx: int, cy: int, text: str, number: str) -> None:
        pts = np.array(
            [
                [cx - 110, cy],
                [cx - 85, cy - 30],
                [cx + 85, cy - 30],
                [cx + 110, cy],
                [cx + 85, cy + 30],
                [cx - 85, cy + 30],
            ]
        )
        cv2.polylines(img, [pts.astype(np.int32)], True, ink, 2)
        cv2.putText(img, text, (cx - 70, cy + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45, ink, 1)
        lines.append(TextLine(text, (cx - 70, cy - 7, cx + 70, cy + 8)))
        cv2.putText(img, number, (cx - 100, cy - 32), cv2.FONT_HERSHEY_SIMPLEX, 0.4, ink, 1)
        lines.append(TextLine(number, (cx - 101, cy - 44, cx - 90, cy - 32)))

    def arrow(p: tuple[int, int], q: tuple[int, int], head: bool = True) -> None:
        if head:
            cv2.arrowedLine(img, p, q, ink, 2, tipLength=min(0.5, 14 / max(1, abs(q[0] - p[0]) + abs(q[1] - p[1]))))
            tip = np.array(q)
            d = (np.array(q) - np.array(p)) / max(1.0, float(np.hypot(*(np.array(q) - np.array(p)))))
            n = np.array([-d[1], d[0]])
            tri = np.array([tip, tip - 12 * d + 6 * n, tip - 12 * d - 6 * n]).astype(np.int32)
            cv2.fillPoly(img, [tri], ink)
        else:
            cv2.line(img, p, q, ink, 2)

    def label(text: str, x: int, y: int) -> None:
        cv2.putText(img, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.45, ink, 1)
        lines.append(TextLine(text, (x, y - 11, x + 9 * len(text), y + 2)))

    box(220, 20, 420, 70, "Adult in care", "1")
    hexagon(320, 150, "Is BP high?", "2")
    box(40, 250, 240, 300, "Treat now", "3")
    box(400, 250, 600, 300, "Screen yearly", "4")
    box(400, 350, 600, 400, "Leaflet", "5")
    arrow((320, 72), (320, 118))  # 1 -> 2
    arrow((210, 150), (140, 150), head=False)
    arrow((140, 150), (140, 247))  # 2 -(Yes)-> 3
    label("Yes", 150, 140)
    arrow((430, 150), (500, 150), head=False)
    arrow((500, 150), (500, 247))  # 2 -(No)-> 4
    label("No", 455, 140)
    arrow((620, 275), (620, 375), head=False)  # 4 - 5: a line with no arrowhead (trap)
    arrow((602, 275), (620, 275), head=False)
    arrow((620, 375), (602, 375), head=False)
    return img, lines


def test_drawn_chart_boxes_arrows_labels_and_numbers() -> None:
    img, lines = _draw()
    flow = read_flowchart_image(img, lines)
    assert [b.number for b in flow.boxes] == ["1", "2", "3", "4", "5"]
    assert [b.text for b in flow.boxes] == ["Adult in care", "Is BP high?", "Treat now", "Screen yearly", "Leaflet"]
    chart = flow.to_flowchart("Drawn")
    assert sorted((e.source, e.target, e.label) for e in chart.edges) == [
        ("1", "2", ""),
        ("2", "3", "Yes"),
        ("2", "4", "No"),
    ]
    assert chart.nodes["2"] == "Box 2: Is BP high?"
    # trap: boxes 4 and 5 are joined by a line without an arrowhead: no edge either way
    assert not any("5" in (e.source, e.target) for e in chart.edges)


def test_image_without_chart() -> None:
    blank = np.full((200, 300), 255, np.uint8)
    flow = read_flowchart_image(blank, [TextLine("Figure 3", (10, 10, 80, 25))])
    assert flow.boxes == [] and flow.edges == []
    # trap: a box with text but no connector is a box, not an edge
    cv2.rectangle(blank, (50, 50), (250, 150), 0, 2)
    flow = read_flowchart_image(blank, [TextLine("Lone box", (80, 90, 160, 110))])
    assert [b.text for b in flow.boxes] == ["Lone box"] and flow.edges == []
    with pytest.raises(ValueError, match="uint8"):
        read_flowchart_image(blank.astype(np.float32), [])


def test_score_matches_boxes_by_normalised_text() -> None:
    from structaware_readers.mermaid import Flowchart, FlowEdge

    described = Flowchart(
        nodes={"7": "Box 7: Return after acute episode resolved", "4": "Box 4: Obtain office blood pressure"}
    )
    described.edges = [FlowEdge("7", "4", "")]
    read = Flowchart(nodes={"b1": "Returnafteracuteepisoderesolved", "b2": "Obtain office blood pressure"})
    read.edges = [FlowEdge("b1", "b2", ""), FlowEdge("b2", "b1", "No")]
    score = score_edges(read, described)
    assert (score.right, score.read, score.described) == (1, 2, 1)
    assert score.wrong == ["4 -(No)-> 7"]
    assert normalise_box_text("Box 4: Obtain (see Sidebar 1)") == "obtainseesidebar1"
    # trap: a box whose text is unlike every described box is matched to none
    read.nodes["b2"] = "Abbreviations: HTN"
    assert score_edges(read, described).right == 0


def test_unread_algorithm_images_become_flow_paths(tmp_path: Path) -> None:
    """The route a document takes: the hypertension pages without their text description (the appendix
    pages cut off), the images read from the PDF with the OCR lines recorded for them; read again,
    the images' lines come from the OCR cache."""
    from structaware_readers.algorithms import attach_described_algorithms
    from structaware_readers.algorithms.images import engine_lines, read_algorithm_images
    from structaware_readers.load.loader import prepare_document
    from structaware_readers.mineru import read_mineru
    from structaware_readers.models import UnitType
    from structaware_readers.ocr import OcrLine
    from structaware_readers.ocr.cache import OcrCache
    from structaware_readers.units import build_units

    raw = read_mineru(FIX / "mineru" / "mineru-4.0.12_flash-tier_vadod_htn_algorithm_pages")
    staged = raw.model_copy(update={"blocks": [b for b in raw.blocks if b.page < 6]})
    pdf = FIX / "pdf" / "vadod_htn_algorithm_pages.pdf"
    calls: list[tuple[int, int]] = []

    class Recorded:
        """The OCR engine's interface (structaware_readers.ocr.OcrEngine) giving the recorded lines."""

        name, version = "recorded rapidocr lines", "1"

        def read(self, image: np.ndarray) -> list[OcrLine]:
            calls.append(image.shape[:2])
            h, w = image.shape[:2]
            lines = _lines("module_a" if len(calls) == 1 else "module_b")
            return [
                OcrLine(ln.text, (ln.bbox[0] / w, ln.bbox[1] / h, ln.bbox[2] / w, ln.bbox[3] / h), ln.confidence)
                for ln in lines
            ]

    cache = OcrCache(tmp_path)
    read_lines = engine_lines(Recorded(), cache=cache)

    read = read_algorithm_images(attach_described_algorithms(staged), pdf, read_lines=read_lines)
    assert len(calls) == 2  # the raster images have no text layer: OCR was asked for both
    assert len(list((tmp_path / "ocr" / "images").rglob("*.json"))) == 2
    # read again: the same pixels, so the cache answers and the engine is not asked
    again = read_algorithm_images(attach_described_algorithms(staged), pdf, read_lines=read_lines)
    assert len(calls) == 2 and again == read
    # another engine version is another key: asked again
    Recorded.version = "2"
    read_algorithm_images(attach_described_algorithms(staged), pdf, read_lines=read_lines)
    assert len(calls) == 4
    flows = [b.caption for b in read.blocks if b.kind is BlockKind.FLOWCHART]
    # (the study flow diagram is read from its own text description, on pages 4-5)
    assert flows == ["A. Module A: Screening and Diagnosis", "B. Module B: Treatment", "Figure A-1. Study Flow Diagram"]
    units = [
        u for u in build_units(read) if u.unit_type is UnitType.FLOW_PATH and u.flow.title.startswith(("A.", "B."))
    ]
    assert len(units) >= 27
    edge = next(u for u in units if u.text.startswith("Box 12: Is secondary cause suspected?") and "(No)" in u.text)
    # (OCR drops a space now and then: the recorded lines read "Initiatetreatment")
    assert edge.text.replace(" ", "") == "Box12:Issecondarycausesuspected?-(No)->Box14:Initiatetreatment(gotoModuleB)"
    assert edge.pages == [2] and edge.context.startswith("Flowchart: A. Module A: Screening and Diagnosis")
    assert not any("algorithm image" in w for w in read.warnings)
    # trap: without OCR (the text layer only) nothing is invented and the warnings name both images
    plain = read_algorithm_images(attach_described_algorithms(staged), pdf, read_lines=None)
    assert [b.caption for b in plain.blocks if b.kind is BlockKind.FLOWCHART] == ["Figure A-1. Study Flow Diagram"]
    assert sum("algorithm image" in w for w in prepare_document(plain).warnings) == 2


def test_score_takes_a_printed_box_number_with_a_shorter_text() -> None:
    from structaware_readers.mermaid import Flowchart, FlowEdge

    # CKD Module C: the description adds a clause the image prints as a footnote
    described = Flowchart(
        nodes={
            "26": "Box 26: Is consultation with urology indicated? (see Sidebar 7; referral should be made following shared decision making)",
            "27": "Box 27: Consult urology",
        }
    )
    described.edges = [FlowEdge("26", "27", "Yes")]
    read = Flowchart(
        nodes={"26": "Box 26: Is consultation with urology indicated* (see Sidebar7)", "27": "Box 27: Consult urology"}
    )
    read.edges = [FlowEdge("26", "27", "Yes")]
    assert score_edges(read, described).right == 1
    # trap: a number misread (27 printed beside box 26's text) does not override the text
    read.nodes = {"27": "Box 27: Is consultation with urology indicated* (see Sidebar7)", "x": "Consult urology"}
    read.edges = [FlowEdge("27", "x", "Yes")]
    assert score_edges(read, described).right == 1 and score_edges(read, described).wrong == []
