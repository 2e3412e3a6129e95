"""Charts drawn with live text (boxes and arrows as vector graphics) gathered into one figure.

A parser reading the text layer block by block splits such a chart into dozens of short blocks,
which become one-line sections under false headings. :func:`gather_chart_regions` finds a chart
title (a figure caption, or a heading naming a chart: :data:`CHART_TITLE`) followed on its page by a
cluster of short blocks laid out in two dimensions (:data:`MIN_BOXES`, :data:`MIN_SIDE_BY_SIDE`,
:data:`MIN_HEIGHT`; stricter under a heading title) and replaces the cluster with one FIGURE block:
the title as caption, the box texts in reading order, the union of their bboxes (0..1 of the page).
"""

from __future__ import annotations

import re

from structaware_readers.loose_tables.anchors import union, y_overlap
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

__all__ = ["gather_chart_regions"]

#: A figure caption opening a block: ``Fig. 5.``, ``Figure 2 |``, ``Algorithm 1:``, ``图 3``.
FIGURE_CAPTION = re.compile(r"^(?:fig(?:ure)?\.?|algorithm|flow\s*chart|chart)\s*[A-Z]?\d+[A-Za-z]?\b|^图\s*\d+", re.I)
#: A block that starts a table, a note under a figure, or another caption: the cluster ends there.
#: A heading that names a chart: without a figure caption, only such a heading titles a chart
#: (a filing's cover page, a signature page or a table left as loose numbers is laid out in short
#: blocks too).
CHART_TITLE = re.compile(
    r"\b(?:algorithms?|flow\s*charts?|flow\s*diagrams?|diagrams?|pathways?|decision\s+trees?)\b|流程图|路径图|示意图",
    re.I,
)
_STOP = re.compile(
    r"^(?:(?:recommendation\s+)?table\s*[A-Z]?\d+|source[s]?\s*:|adapted\s+from|note[s]?\s*:|表\s*\d+|来源[:：])", re.I
)
_MEMBER_KINDS = {BlockKind.HEADING, BlockKind.PARAGRAPH, BlockKind.FIGURE, BlockKind.LIST, BlockKind.CAPTION}
#: A block longer than this (characters) is running prose, not a box of a chart.
MAX_BOX_CHARS = 320
MIN_BOXES = 6
MIN_SIDE_BY_SIDE = 2
#: Least height (fraction of the page) a chart's blocks cover.
MIN_HEIGHT = 0.2
#: Under a heading (no caption), the boxes must be scattered: distinct left edges for at least this
#: share of them (columns of a list, a table or a page of names share a few edges).
MIN_SCATTER, EDGE_TOLERANCE = 0.4, 0.01
#: Under a heading, the boxes hold labels: at most this many characters on average.
MAX_MEAN_LABEL = 40


def _side_by_side(a: BBox, b: BBox) -> bool:
    return y_overlap(a, b) > 0.3 and (a[2] <= b[0] or b[2] <= a[0])


def _cluster(blocks: list[Block], start: int, title: Block) -> list[int]:
    """Indexes of the blocks after ``start`` that may be boxes of a chart titled by ``title``."""
    members: list[int] = []
    for j in range(start + 1, len(blocks)):
        b = blocks[j]
        if b.kind.is_furniture:
            continue
        text = " ".join(b.text.split())
        if (
            b.page != title.page
            or b.kind not in _MEMBER_KINDS
            or b.bbox is None
            or len(text) > MAX_BOX_CHARS
            or _STOP.match(text)
            or FIGURE_CAPTION.match(text)
            or (b.kind is BlockKind.FIGURE and b.caption.strip())
        ):
            break
        members.append(j)
    return members


def _is_chart(blocks: list[Block], members: list[int], caption: bool) -> bool:
    boxes = [blocks[j].bbox for j in members if blocks[j].text.strip() and blocks[j].bbox is not None]
    if len(boxes) < MIN_BOXES:
        return False
    pairs = sum(1 for i, a in enumerate(boxes) for b in boxes[i + 1 :] if _side_by_side(a, b))
    height = max(b[3] for b in boxes) - min(b[1] for b in boxes)
    if pairs < MIN_SIDE_BY_SIDE * (1 if caption else 2) or height < MIN_HEIGHT:
        return False
    if caption:
        return True
    mean = sum(len(" ".join(blocks[j].text.split())) for j in members) / len(members)
    return mean <= MAX_MEAN_LABEL and _left_edges(boxes) >= MIN_SCATTER * len(boxes)


def _left_edges(boxes: list[BBox]) -> int:
    """How many distinct left edges the boxes have (edges within :data:`EDGE_TOLERANCE` are one)."""
    edges = sorted(b[0] for b in boxes)
    return 1 + sum(1 for a, b in zip(edges, edges[1:]) if b - a > EDGE_TOLERANCE)


def _chart_block(title: Block, parts: list[Block]) -> Block:
    ordered = sorted(parts, key=lambda b: (round(b.bbox[1] / 0.015), b.bbox[0]))  # rows of boxes, left to right
    text = "\n".join(" ".join(b.text.split()) for b in ordered if b.text.strip())
    first = parts[0]
    ids = [pid for b in [title, *parts] for pid in (b.parser_ids or [b.block_id])]
    return first.model_copy(
        update={
            "kind": BlockKind.FIGURE,
            "text": text,
            "caption": " ".join(title.text.split()),
            "bbox": union([b.bbox for b in parts]),
            "level": None,
            "parser_ids": ids,
        }
    )


def gather_chart_regions(doc: ParsedDocument) -> ParsedDocument:
    """``doc`` with each chart drawn with live text as one FIGURE block (module docstring);
    ``doc`` itself when it has none."""
    blocks = doc.blocks
    out: list[Block] = []
    i = 0
    changed = False
    while i < len(blocks):
        b = blocks[i]
        text = " ".join(b.text.split())
        caption = bool(FIGURE_CAPTION.match(text)) and b.kind in (
            BlockKind.PARAGRAPH,
            BlockKind.HEADING,
            BlockKind.CAPTION,
        )
        titled = b.kind is BlockKind.HEADING and CHART_TITLE.search(text) is not None
        if (caption or titled) and len(text) <= MAX_BOX_CHARS and not _STOP.match(text):
            members = _cluster(blocks, i, b)
            if _is_chart(blocks, members, caption):
                out.append(_chart_block(b, [blocks[j] for j in members]))
                i = members[-1] + 1
                changed = True
                continue
        out.append(b)
        i += 1
    return doc.model_copy(update={"blocks": out}) if changed else doc
