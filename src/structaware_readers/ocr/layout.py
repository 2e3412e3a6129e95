"""OCR lines of one page -> typed blocks in reading order (heading, paragraph, table, furniture). Input: the lines an
:class:`~structaware_readers.ocr.engine.OcrEngine` read and the page's horizontal rules; boxes are 0..1 of the page,
origin top-left.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from structaware_readers.models import BBox, Block, BlockKind, TableGrid
from structaware_readers.ocr.cache import Rule
from structaware_readers.ocr.engine import OcrLine
from structaware_readers.structure.furniture import is_page_number
from structaware_readers.structure.headings import numbering_depth

#: Lines whose bottom is above this (page fraction) are running-head candidates.
TOP_BAND = 0.06
#: Lines whose top is below this are running-foot candidates.
BOTTOM_BAND = 0.945
#: A line continues the paragraph above when the gap is below this many body line heights.
PARA_GAP = 0.75
#: A heading line has at most this many characters.
HEADING_MAX_CHARS = 40
#: A label heading (body-size type, :func:`_is_label`) has at most this many words.
LABEL_MAX_WORDS = 6
_SENTENCE_END = tuple("。；;：:，,、！？!?") + (".",)
_DOUBLED_ROMAN = re.compile(r"([ⅠⅡⅢⅣⅤ])\1+(?=\s*(?:级|类|期))")
_NOTE = re.compile(r"^[a-z*†‡§]\s")  # a table note ("d 对于…", "* p < 0.05"): taller with its marker, no heading
_CAPTION = re.compile(r"^\s*(表|Table|TABLE)\s*[\dA-Za-z一二三四五六七八九十]")


@dataclass
class LayoutResult:
    """The blocks of one page and what was flagged while building them."""

    blocks: list[Block]
    low_confidence: list[OcrLine] = field(default_factory=list)


def page_blocks(page: int, lines: list[OcrLine], rules: list[Rule] = (), *, route: str = "ocr") -> LayoutResult:
    """Typed blocks of one OCR'd page in reading order, ids ``p{page}-e{j}`` in that order."""
    from structaware_readers.structure.reading_order import restore_reading_order

    lines = [repair_line(ln) for ln in lines if ln.text.strip()]
    low = [ln for ln in lines if ln.low_confidence]
    if not lines:
        return LayoutResult([], low)
    body_h = _body_height(lines)
    furniture: list[tuple[BlockKind, OcrLine]] = []
    rest: list[OcrLine] = []
    for ln in lines:
        kind = _furniture_kind(ln)
        if kind is None:
            rest.append(ln)
        else:
            furniture.append((kind, ln))

    tables: list[tuple[BBox, TableGrid, str, list[OcrLine]]] = []
    for region, inner in _table_regions(rest, rules):
        inside = [ln for ln in rest if _center_in(ln, region)]
        grid = _grid(inside, region, inner, body_h)
        if grid is None:
            continue
        caption = _caption_above(rest, region, body_h)
        used = set(map(id, inside)) | ({id(caption)} if caption else set())
        rest = [ln for ln in rest if id(ln) not in used]
        tables.append((region, grid, caption.text if caption else "", inside))

    drafts: list[Block] = []
    for kind, ln in furniture:
        drafts.append(
            Block(block_id="", kind=kind, text=ln.text, page=page, bbox=ln.bbox, source_type=f"{route}_{kind.value}")
        )
    for region, grid, caption, inside in tables:
        text = "\n".join(" | ".join(c for c in row if c) for row in grid.header_rows + grid.body_rows)
        drafts.append(
            Block(
                block_id="",
                kind=BlockKind.TABLE,
                text=text,
                page=page,
                bbox=_union([ln.bbox for ln in inside] + [region]),
                table=grid,
                caption=caption,
                source_type=f"{route}_table",
            )
        )
    line_blocks = [
        Block(block_id=str(i), kind=BlockKind.PARAGRAPH, text=ln.text, page=page, bbox=ln.bbox)
        for i, ln in enumerate(rest)
    ]
    ordered = [rest[int(b.block_id)] for b in restore_reading_order(line_blocks)]
    drafts.extend(_paragraphs(ordered, page, body_h, route))
    blocks = _order(drafts)  # the route's own output order (top to bottom) names the blocks
    for j, b in enumerate(blocks):
        b.block_id = f"p{page}-e{j}"
    return LayoutResult(restore_reading_order(blocks), low)


def _order(blocks: list[Block]) -> list[Block]:
    return sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]) if b.bbox else (0, 0))


# ---------------------------------------------------------------------------- furniture
def _furniture_kind(ln: OcrLine) -> BlockKind | None:
    x0, y0, x1, y1 = ln.bbox
    if y1 <= TOP_BAND:
        return BlockKind.PAGE_NUMBER if is_page_number(ln.text) else BlockKind.HEADER
    if y0 >= BOTTOM_BAND:
        return BlockKind.PAGE_NUMBER if is_page_number(ln.text) else BlockKind.FOOTER
    if (x0 >= 0.93 or x1 <= 0.07) and (x1 - x0) < 0.06:
        return BlockKind.ASIDE
    return None


# ---------------------------------------------------------------------------- tables
def _table_regions(lines: list[OcrLine], rules: list[Rule]) -> list[tuple[BBox, list[float]]]:
    """Regions bounded by >= 3 stacked rules of similar extent; with the inner rules' y."""
    groups: list[list[Rule]] = []
    for r in sorted(rules):
        for g in groups:
            last = g[-1]
            first = g[0]
            similar = abs(r[1] - last[1]) < 0.04 and abs(r[2] - last[2]) < 0.04
            inside = r[1] > first[1] - 0.01 and r[2] < first[2] + 0.01 and r[2] - r[1] > 0.5 * (first[2] - first[1])
            if (similar or inside) and r[0] - last[0] < 0.3 and not _text_across(lines, last, r):
                g.append(r)
                break
        else:
            groups.append([r])
    out: list[tuple[BBox, list[float]]] = []
    for g in groups:
        if len(g) < 3:
            continue
        x0, x1 = min(r[1] for r in g), max(r[2] for r in g)
        out.append(((x0, g[0][0], x1, g[-1][0]), [r[0] for r in g[1:-1]]))
    return out


def _text_across(lines: list[OcrLine], a: Rule, b: Rule) -> bool:
    """Whether a line between rules ``a`` and ``b`` is body text running across most of the rule (no table)."""
    width = max(a[2], b[2]) - min(a[1], b[1])
    return any(a[0] < ln.center_y < b[0] and (ln.bbox[2] - ln.bbox[0]) > 0.85 * width for ln in lines)


def _center_in(ln: OcrLine, box: BBox) -> bool:
    cx, cy = (ln.bbox[0] + ln.bbox[2]) / 2, ln.center_y
    return box[0] - 0.01 <= cx <= box[2] + 0.01 and box[1] <= cy <= box[3]


def _columns(lines: list[OcrLine], x0: float, x1: float) -> list[float]:
    """Column boundaries (x) inside ``x0..x1``: whitespace gaps no line (or almost none) crosses."""
    steps = 400
    width = max(x1 - x0, 1e-6)
    cover = [0] * steps
    for ln in lines:
        a = max(0, int((ln.bbox[0] - x0) / width * steps))
        b = min(steps, int((ln.bbox[2] - x0) / width * steps) + 1)
        for i in range(a, b):
            cover[i] += 1
    allowed = max(
        1, len(lines) // 10
    )  # a few spanning lines (a title row, two header cells read as one line) do not hide a gap
    cuts: list[float] = []
    i = 0
    first = next((k for k, c in enumerate(cover) if c > allowed), steps)
    last = max((k for k, c in enumerate(cover) if c > allowed), default=0)
    i = first
    while i < last:
        if cover[i] <= allowed:
            j = i
            while j < last and cover[j] <= allowed:
                j += 1
            if (j - i) / steps * width >= 0.012:
                cuts.append(x0 + (i + j) / 2 / steps * width)
            i = j
        else:
            i += 1
    return cuts


def _grid(lines: list[OcrLine], region: BBox, inner: list[float], body_h: float) -> TableGrid | None:
    if len(lines) < 3:
        return None
    cuts = _columns(lines, region[0], region[2])
    if not cuts:
        return None
    n_cols = len(cuts) + 1

    def col(ln: OcrLine) -> int:
        return sum(1 for c in cuts if ln.bbox[0] + 0.002 >= c)

    bands: list[list[OcrLine]] = []
    if len(inner) >= 2:  # ruled rows: each band between two rules is one row, however many lines it holds
        edges = [region[1], *inner, region[3]]
        for top, bottom in zip(edges, edges[1:]):
            band = [ln for ln in lines if top <= ln.center_y < bottom]
            if band:
                bands.append(band)
    else:  # a three-line table (one rule under the header) or rules only around it: visual rows
        head = [ln for ln in lines if inner and ln.center_y < inner[0]]
        if head:
            bands.append(head)
        for row in _visual_rows([ln for ln in lines if not head or ln.center_y >= inner[0]], body_h):
            if len(bands) > bool(head) and not any(col(ln) == 0 for ln in row):
                bands[-1].extend(row)  # a wrapped cell: no first-column text
            else:
                bands.append(list(row))
    if len(bands) < 2:
        return None
    grid_rows: list[list[str]] = []
    boxes: list[BBox | None] = []
    for band in bands:
        cells = [[] for _ in range(n_cols)]
        for ln in sorted(band, key=lambda x: (x.bbox[1], x.bbox[0])):
            cells[col(ln)].append(ln.text)
        grid_rows.append([join_lines(c) for c in cells])
        boxes.append(_union([ln.bbox for ln in band]))
    return TableGrid(
        header_rows=grid_rows[:1], body_rows=grid_rows[1:], body_row_bboxes=boxes[1:], grid_source="ocr_lines"
    )


def _visual_rows(lines: list[OcrLine], body_h: float) -> list[list[OcrLine]]:
    rows: list[list[OcrLine]] = []
    for ln in sorted(lines, key=lambda x: x.center_y):
        if rows and abs(ln.center_y - statistics.fmean(x.center_y for x in rows[-1])) < 0.5 * body_h:
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return rows


def _caption_above(lines: list[OcrLine], region: BBox, body_h: float) -> OcrLine | None:
    above = [
        ln for ln in lines
        if ln.center_y < region[1] and region[1] - ln.bbox[3] < 3 * body_h and _CAPTION.match(ln.text)
    ]  # fmt: skip
    return max(above, key=lambda ln: ln.bbox[3], default=None)


# ---------------------------------------------------------------------------- text
def _body_height(lines: list[OcrLine]) -> float:
    heights = [ln.height for ln in lines if len(ln.text) >= 4] or [ln.height for ln in lines]
    return statistics.median(heights)


def _is_heading(ln: OcrLine, body_h: float) -> bool:
    text = ln.text.strip()
    if len(text) > HEADING_MAX_CHARS or text.endswith(_SENTENCE_END) or len(text) < 2 or _NOTE.match(text):
        return False
    numbered = numbering_depth(text) is not None
    tall = ln.height >= 1.3 * body_h
    return tall or (numbered and ln.height >= 0.95 * body_h and len(text) <= 30)


def _is_label(ln: OcrLine, nxt: OcrLine) -> bool:
    """A block's first line that is a label set in body-size type (bold, which OCR does not see): ``Recommendation``,
    ``Discussion``, ``Sidebar 4: Initiating Steroids`` above a paragraph.
    """
    text = ln.text.strip()
    if not 2 <= len(text) <= HEADING_MAX_CHARS or text.endswith(_SENTENCE_END) or _NOTE.match(text):
        return False
    if not (text[0].isupper() or _is_cjk(text[0])) or len(text.split()) > LABEL_MAX_WORDS:
        return False
    if sum(ch.isalpha() for ch in text) < 4:  # "Yes", "No", "Low": a chart's or a table's words
        return False
    width, next_width = ln.bbox[2] - ln.bbox[0], nxt.bbox[2] - nxt.bbox[0]
    return width <= 0.5 * next_width


def _paragraphs(lines: list[OcrLine], page: int, body_h: float, route: str) -> list[Block]:
    groups: list[tuple[bool, list[OcrLine]]] = []
    for ln in lines:
        heading = _is_heading(ln, body_h)
        if groups and not heading and not groups[-1][0] and _continues(groups[-1][1][-1], ln, body_h):
            if len(groups[-1][1]) == 1 and _is_label(groups[-1][1][0], ln):
                groups[-1] = (True, groups[-1][1])  # the label heads the paragraph that starts here
                groups.append((False, [ln]))
                continue
            groups[-1][1].append(ln)
        else:
            groups.append((heading, [ln]))
    out: list[Block] = []
    for heading, group in groups:
        kind = BlockKind.HEADING if heading else BlockKind.PARAGRAPH
        text = join_lines([ln.text for ln in group])
        out.append(
            Block(
                block_id="",
                kind=kind,
                text=text,
                page=page,
                bbox=_union([ln.bbox for ln in group]),
                level=numbering_depth(text) if heading else None,
                source_type=f"{route}_{kind.value}",
            )
        )
    return out


def _continues(prev: OcrLine, ln: OcrLine, body_h: float) -> bool:
    gap = ln.bbox[1] - prev.bbox[3]
    if gap > PARA_GAP * body_h or gap < -0.5 * body_h:
        return False
    if not 0.75 <= ln.height / max(prev.height, 1e-6) <= 1.33:
        return False
    overlap = min(prev.bbox[2], ln.bbox[2]) - max(prev.bbox[0], ln.bbox[0])
    return overlap > 0.3 * min(prev.bbox[2] - prev.bbox[0], ln.bbox[2] - ln.bbox[0])


def repair_line(ln: OcrLine) -> OcrLine:
    """Undo recogniser slips with one reading only: a Roman numeral read twice before ``级``/``类``/``期``
    (CTC repeats a wide glyph: ``ⅢⅢ级推荐`` -> ``Ⅲ级推荐``; ``Ⅱ期`` stays ``Ⅱ期``)."""
    text = _DOUBLED_ROMAN.sub(r"\1", ln.text)
    return ln if text == ln.text else OcrLine(text, ln.bbox, ln.confidence, ln.polygon)


def _is_cjk(ch: str) -> bool:
    o = ord(ch)
    return 0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF or 0x3000 <= o <= 0x303F


def join_lines(parts: list[str]) -> str:
    """Join OCR lines: no space between CJK characters, one between Latin words, line-end hyphens dropped."""
    out = ""
    for part in (p.strip() for p in parts):
        if not part:
            continue
        if not out:
            out = part
        elif _is_cjk(out[-1]) or _is_cjk(part[0]):
            out += part
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and part[0].islower():
            out = out[:-1] + part
        else:
            out += " " + part
    return out


def _union(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
