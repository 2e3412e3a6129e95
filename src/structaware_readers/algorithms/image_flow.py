"""An algorithm drawn as an image -> boxes, connectors, arrowheads and labels -> a Flowchart.

Input: the figure's pixels and the text lines read in it, boxes in the image's pixels (OpenCV,
extra ``ocr``). Boxes are convex holes of closed outlines holding text; connectors are the ink left
once boxes and text are erased, an arrowhead (ink surviving a morphological opening) marking the
target; lines outside every box label the nearest connector; a 1-3 digit line at a box's top-left
corner is its number (else ``b<k>``). Pixel sizes scale with :data:`BASE_DPI`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from structaware_readers.errors import MissingExtraError
from structaware_readers.mermaid import Flowchart, FlowEdge

__all__ = ["ImageBox", "ImageFlow", "TextLine", "read_flowchart_image"]

#: Resolution the pixel sizes below are tuned for (dots per inch).
BASE_DPI = 200
#: Gray levels (0-255) below this are always ink.
INK_LEVEL = 160
#: Gray levels this much darker than the page's median are ink too (boxes outlined in light gray).
INK_CONTRAST = 60
#: Smallest convexity (contour area / hull area) of a box.
MIN_SOLIDITY = 0.9
_MIN_BOX = (30, 15)  # width, height in pixels at BASE_DPI
#: An arrowhead this close to a box (pixels at BASE_DPI, beyond the grown outline) points into it; an
#: arrowhead further away points into another connector (a branch joining a trunk).
NEAR = 9
_NUMBER = re.compile(r"\d{1,3}")
#: Stray marks OCR reads at a label's ends (``Yes/``, ``-No``).
_LABEL_EDGE = re.compile(r"^[^\w(]+|[^\w)?]+$")


@dataclass
class TextLine:
    """A line of text in the image: ``bbox`` ``(x0, y0, x1, y1)`` in pixels (origin top-left)."""

    text: str
    bbox: tuple[float, float, float, float]
    confidence: float = 1.0

    @property
    def center(self) -> tuple[float, float]:
        return ((self.bbox[0] + self.bbox[2]) / 2, (self.bbox[1] + self.bbox[3]) / 2)


@dataclass
class ImageBox:
    """A box of the chart: ``bbox`` in pixels, its number (``""`` when none is printed), its lines."""

    bbox: tuple[int, int, int, int]
    number: str = ""
    lines: list[TextLine] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(line.text.split()) for line in self.lines).strip()


@dataclass
class ImageFlow:
    """What an image gives: boxes, edges as ``(source index, target index, label)`` into ``boxes``,
    the lines that are neither box text, labels nor numbers, and ``arrows``: for each edge's
    ``(source index, target index)``, the connector's ink as ``(x, y, width, height)`` pixels."""

    boxes: list[ImageBox] = field(default_factory=list)
    edges: list[tuple[int, int, str]] = field(default_factory=list)
    loose: list[TextLine] = field(default_factory=list)
    arrows: dict[tuple[int, int], tuple[int, int, int, int]] = field(default_factory=dict)

    def node_id(self, i: int) -> str:
        return self.boxes[i].number or f"b{i + 1}"

    def to_flowchart(self, title: str = "") -> Flowchart:
        """The chart in the package's form: node ids = box numbers (``b<k>`` when unnumbered), labels
        ``Box N: <text>`` (``<text>`` alone when unnumbered)."""
        chart = Flowchart(direction="TB", title=title)
        ids = [self.node_id(i) for i in range(len(self.boxes))]
        for i, box in enumerate(self.boxes):
            chart.nodes[ids[i]] = f"Box {box.number}: {box.text}" if box.number else box.text
        for s, t, label in self.edges:
            chart.edges.append(
                FlowEdge(ids[s], ids[t], label, source_label=chart.nodes[ids[s]], target_label=chart.nodes[ids[t]])
            )
        return chart


def _cv() -> tuple[Any, Any]:
    try:
        import cv2
        import numpy as np
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError("cv2", "ocr", "reading an algorithm image (boxes and arrows)") from exc
    return cv2, np


def _reading_order(lines: list[TextLine], height: float) -> list[TextLine]:
    band = max(4.0, height * 0.6)
    return sorted(lines, key=lambda line: (round(line.center[1] / band), line.center[0]))


def read_flowchart_image(image: Any, lines: list[TextLine], *, dpi: int = BASE_DPI) -> ImageFlow:
    """Read a flowchart image into boxes and directed, labelled edges (module docstring). Raises ``MissingExtraError``,
    ``ValueError``.
    """
    cv2, np = _cv()
    img = np.asarray(image)
    if img.dtype != np.uint8 or img.ndim not in (2, 3):
        raise ValueError(f"image must be a (h, w) or (h, w, 3) uint8 array, not {img.dtype} of shape {img.shape}")
    gray = img if img.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(img[:, :, :3]), cv2.COLOR_RGB2GRAY)
    # ink below INK_LEVEL; when that closes too few boxes, also what is INK_CONTRAST darker than the
    # page (its median): light gray outlines. The reading with more edges is kept (a lighter threshold
    # thickens anti-aliased lines and merges arrowheads on charts drawn in dark ink).
    flow = _read(cv2, np, (gray < INK_LEVEL).astype(np.uint8), lines, dpi)
    light = float(np.median(gray)) - INK_CONTRAST
    if light > INK_LEVEL:
        other = _read(cv2, np, (gray < light).astype(np.uint8), lines, dpi)
        if len(other.edges) > len(flow.edges):
            return other
    return flow


def _read(cv2: Any, np: Any, ink: Any, lines: list[TextLine], dpi: int) -> ImageFlow:
    """:func:`read_flowchart_image` on one ink mask."""
    h, w = ink.shape
    f = dpi / BASE_DPI
    px = lambda n: max(1, int(round(n * f)))

    contours, hierarchy = cv2.findContours(ink * 255, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    shapes: list[tuple[Any, ImageBox]] = []
    taken: set[int] = set()
    for i, c in enumerate(contours):
        if hierarchy[0][i][3] < 0:
            continue  # an outer contour: ink, not a hole
        x, y, bw, bh = cv2.boundingRect(c)
        if bw < px(_MIN_BOX[0]) or bh < px(_MIN_BOX[1]):
            continue
        hull = cv2.contourArea(cv2.convexHull(c))
        if hull <= 0 or cv2.contourArea(c) / hull < MIN_SOLIDITY:
            continue
        inside = [
            k for k, line in enumerate(lines) if k not in taken and cv2.pointPolygonTest(c, line.center, False) > 0
        ]
        if not inside:
            continue
        taken.update(inside)
        shapes.append(
            (c, ImageBox((x, y, bw, bh), lines=_reading_order([lines[k] for k in inside], _line_height(lines, inside))))
        )
    shapes.sort(key=lambda s: (s[1].bbox[1], s[1].bbox[0]))
    flow = ImageFlow(boxes=[b for _, b in shapes])
    outside = [line for k, line in enumerate(lines) if k not in taken]
    numbers = [line for line in outside if _NUMBER.fullmatch(line.text.strip())]
    _number_boxes(flow.boxes, numbers, px)
    words = [
        line for line in outside if line not in numbers or not any(b.number == line.text.strip() for b in flow.boxes)
    ]

    # connectors: ink outside the (grown) boxes and the text
    zones = []
    grow = np.ones((px(7), px(7)), np.uint8)
    all_zones = np.zeros((h, w), np.uint8)
    for c, _ in shapes:
        m = np.zeros((h, w), np.uint8)
        cv2.drawContours(m, [c], -1, 1, thickness=-1)
        m = cv2.dilate(m, grow)
        zones.append(m)
        all_zones |= m
    conn = ink.copy()
    conn[all_zones > 0] = 0
    for line in lines:
        x0, y0, x1, y1 = (int(round(v)) for v in line.bbox)
        conn[max(0, y0) : y1 + 1, max(0, x0) : x1 + 1] = 0
    heads = cv2.morphologyEx(conn, cv2.MORPH_OPEN, np.ones((px(4), px(4)), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(conn, connectivity=8)
    touch = np.ones((px(9), px(9)), np.uint8)
    near = np.ones((px(NEAR), px(NEAR)), np.uint8)
    near_zones = [cv2.dilate(z, near) for z in zones]
    pieces: list[tuple[Any, list[int], list[int]]] = []
    for ci in range(1, n):
        if stats[ci][4] < px(15):
            continue
        x, y, bw, bh = stats[ci][:4]
        sl = (slice(max(0, y - px(30)), y + bh + px(30)), slice(max(0, x - px(30)), x + bw + px(30)))
        piece = (labels[sl] == ci).astype(np.uint8)
        grown = cv2.dilate(piece, touch)
        touched = [j for j, z in enumerate(zones) if (grown & z[sl]).any()]
        if len(touched) < 2:
            continue
        tips = heads[sl] & piece
        targets = [j for j in touched if (tips & near_zones[j][sl]).any()]
        if not targets:
            # arrowheads only where branches join a trunk, or drawn open (a "V" no opening keeps): the
            # target is the box the connector enters from above (flow runs down)
            targets = [j for j in touched if _enters_from_top(grown, zones[j][sl], flow.boxes[j].bbox, sl)]
        sources = [j for j in touched if j not in targets]
        if not targets or not sources:
            continue
        pieces.append(((sl, piece), sources, targets))
        for s in sources:
            for t in targets:
                if (s, t) not in {(a, b) for a, b, _ in flow.edges}:
                    flow.edges.append((s, t, ""))
                    flow.arrows[s, t] = (int(x), int(y), int(bw), int(bh))
    used = _label_edges(flow, pieces, words, px, np)
    flow.loose = [line for k, line in enumerate(words) if k not in used]
    return flow


def _enters_from_top(grown: Any, zone: Any, bbox: tuple[int, int, int, int], sl: tuple[slice, slice]) -> bool:
    """The connector meets the box in the top quarter of its height."""
    import numpy as np

    ys, _ = np.nonzero(grown & zone)
    if not len(ys):
        return False
    y = float(ys.mean()) + sl[0].start
    return y < bbox[1] + 0.25 * bbox[3]


def _line_height(lines: list[TextLine], idx: list[int]) -> float:
    hs = sorted(lines[k].bbox[3] - lines[k].bbox[1] for k in idx)
    return hs[len(hs) // 2] if hs else 10.0


def _number_boxes(boxes: list[ImageBox], numbers: list[TextLine], px: Any) -> None:
    """A box's number: the digits line nearest its top-left corner, above it or to its left."""
    used: set[int] = set()
    for box in boxes:
        x, y, bw, _ = box.bbox
        best: tuple[float, int] | None = None
        for k, line in enumerate(numbers):
            cx, cy = line.center
            if k in used or not (x - px(60) <= cx <= x + bw * 0.5 and y - px(45) <= cy <= y + px(15)):
                continue
            d = abs(cx - x) + abs(cy - y)
            if best is None or d < best[0]:
                best = (d, k)
        if best is not None:
            used.add(best[1])
            box.number = numbers[best[1]].text.strip()


def _label_edges(flow: ImageFlow, pieces: list, words: list[TextLine], px: Any, np: Any) -> set[int]:
    """Each short text outside the boxes labels the edge of the nearest connector that leaves the
    source box nearest to it; returns the indexes (into ``words``) of the lines used as labels."""
    used: set[int] = set()
    for k, line in enumerate(words):
        if len(line.text.split()) > 4 or _NUMBER.fullmatch(line.text.strip()):
            continue  # a sentence, or a box number the boxes did not take: no label
        cx, cy = line.center
        x0, y0, x1, y1 = line.bbox
        best: tuple[float, int] | None = None
        for p, ((sl, piece), _, _) in enumerate(pieces):
            ys, xs = np.nonzero(piece)
            if not len(xs):
                continue
            # distance from the label's box (a long label sits beside the line with its end, not its middle)
            dx = np.maximum(np.maximum(x0 - (xs + sl[1].start), (xs + sl[1].start) - x1), 0)
            dy = np.maximum(np.maximum(y0 - (ys + sl[0].start), (ys + sl[0].start) - y1), 0)
            d = float(np.min(dx**2 + dy**2))
            if best is None or d < best[0]:
                best = (d, p)
        if best is None or best[0] > px(60) ** 2:
            continue
        _, sources, targets = pieces[best[1]]

        def dist(j: int) -> float:
            x, y, bw, bh = flow.boxes[j].bbox
            return max(x - cx, 0, cx - x - bw) ** 2 + max(y - cy, 0, cy - y - bh) ** 2  # noqa: B023 - called in this iteration only

        src = min(sources, key=dist)
        for e, (s, t, label) in enumerate(flow.edges):
            if s == src and t in targets and not label:
                flow.edges[e] = (s, t, _LABEL_EDGE.sub("", " ".join(line.text.split())))
                used.add(k)
    return used
