"""A data table the parser gave as loose blocks under its caption, and its grid from block positions.

The region spans the text width or the caption's column and runs down until a legend, heading,
caption, non-text block or a gap over :data:`MAX_GAP`; it is a table when it has
:data:`MIN_MEMBERS` members and :data:`MIN_SIDE_BY_SIDE` lines of blocks side by side. Used when the
text layer gives no grid: :func:`blocks_grid` clusters left edges into columns, opens a row at each
block of the leftmost column and takes a first row of short cells as the header. Bboxes are 0..1
of the page, origin top-left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.loose_tables.anchors import (
    centre_x,
    header_role,
    is_legend,
    is_numbered_heading,
    is_piece,
    is_stamp,
    is_table_caption,
    union,
    y_overlap,
)
from structaware_readers.loose_tables.rec_region import join_pieces
from structaware_readers.models import BBox, Block, BlockKind, TableGrid
from structaware_readers.table_recovery.grid_rules import split_title

MAX_GAP = 0.04
LOOK_BELOW = 0.15
MIN_MEMBERS = 4
MIN_SIDE_BY_SIDE = 2
COLUMN_GAP = 0.04
#: Two short labels this close (page height; lines of one cell touch or overlap) may be one label.
TOUCH_GAP = 0.002
#: A header cell holds at most this many characters.
MAX_HEADER_CHARS = 40
#: Stacked blocks of the leftmost column closer than this (page height) may be one label.
STACK_GAP = 0.008
_FIGURE_CAPTION = re.compile(r"(?i)^\s*(?:fig(?:ure)?\.?|图)\s*\d+")
_RUNS_ON_END = re.compile(r"[-,:;]$")


@dataclass
class DataRegion:
    """A data table under a caption: the caption's index, member indices (reading order kept) and box."""

    caption: int
    members: list[int] = field(default_factory=list)
    bbox: BBox = (0.0, 0.0, 0.0, 0.0)


def _crosses_middle(box: BBox) -> bool:
    return box[0] < 0.47 and box[2] > 0.53


def find_data_region(blocks: list[Block], caption: int) -> DataRegion | None:
    """The loose table under the caption ``blocks[caption]`` of one page, or None (module docstring)."""
    members = loose_blocks_below(blocks, caption)
    texts = [i for i in members if blocks[i].kind is not BlockKind.EQUATION]
    if len(texts) < MIN_MEMBERS or _side_by_side(blocks, texts) < MIN_SIDE_BY_SIDE:
        return None
    return DataRegion(caption, sorted(members), union([blocks[i].bbox for i in members]))  # type: ignore[misc]


def loose_blocks_below(blocks: list[Block], anchor: int) -> list[int]:
    """The pieces below ``blocks[anchor]`` (a caption, or a table's picture) inside its span, top to
    bottom, until the region ends (module docstring, **Span** and **Extent**)."""
    cap = blocks[anchor].bbox
    if cap is None:
        return []
    below = sorted(
        (i for i, b in enumerate(blocks) if i != anchor and b.bbox is not None and b.bbox[1] >= cap[3] - 0.005),
        key=lambda i: blocks[i].bbox[1],  # type: ignore[index]
    )
    near = [i for i in below if blocks[i].bbox[1] - cap[3] <= LOOK_BELOW and not blocks[i].is_furniture]  # type: ignore[index]
    full = _crosses_middle(cap) or any(_crosses_middle(blocks[i].bbox) for i in near)  # type: ignore[arg-type]
    lo, hi = (0.0, 1.0) if full else ((0.0, 0.53) if centre_x(cap) < 0.5 else (0.47, 1.0))
    members: list[int] = []
    last = cap[3]
    for i in below:
        b = blocks[i]
        box = b.bbox
        assert box is not None
        if b.is_furniture or is_stamp(b) or not (lo <= centre_x(box) <= hi):
            continue
        if not full and (box[0] < lo - 0.01 or box[2] > hi + 0.01):
            break
        if box[1] - last > MAX_GAP:
            break
        if not is_piece(b) or is_legend(b.text) or is_numbered_heading(b):
            break
        if is_table_caption(b.text) or _FIGURE_CAPTION.match(b.text) or header_role(b.text) == "rec":
            break
        members.append(i)
        last = max(last, box[3])
    return members


def _side_by_side(blocks: list[Block], members: list[int]) -> int:
    """How many members have another member beside them on their line (overlapping vertically,
    not horizontally)."""
    n = 0
    for i in members:
        a = blocks[i].bbox
        assert a is not None
        if any(
            j != i
            and y_overlap(a, blocks[j].bbox) >= 0.5  # type: ignore[arg-type]
            and (blocks[j].bbox[0] >= a[2] or blocks[j].bbox[2] <= a[0])  # type: ignore[index]
            for j in members
        ):
            n += 1
    return n // 2


def blocks_grid(blocks: list[Block], members: list[int], page: int) -> TableGrid | None:
    """The grid of a loose table from its blocks' positions (module docstring), or None (fewer than
    2 rows x 2 columns)."""
    cells = [i for i in members if blocks[i].kind is not BlockKind.EQUATION and blocks[i].text.strip()]
    if not cells:
        return None
    top = min(cells, key=lambda i: blocks[i].bbox[1])  # type: ignore[index]
    top_line = {i for i in cells if y_overlap(blocks[i].bbox, blocks[top].bbox) >= 0.5}  # type: ignore[arg-type]
    starts = _starts([blocks[i].bbox[0] for i in cells if i not in top_line])  # type: ignore[index]
    if len(starts) < 2:
        starts, top_line = _starts([blocks[i].bbox[0] for i in cells]), set()  # type: ignore[index]
    if len(starts) < 2:
        return None

    def by_start(i: int) -> int:
        x = blocks[i].bbox[0]  # type: ignore[index]
        return max(k for k, s in enumerate(starts) if x >= s - 1e-6) if x >= starts[0] - 1e-6 else 0

    # a column's extent from its body blocks; a header above it may be centred over it
    extents: dict[int, tuple[float, float]] = {}
    for i in cells:
        if i not in top_line:
            k, b = by_start(i), blocks[i].bbox
            lo, hi = extents.get(k, (b[0], b[2]))  # type: ignore[index]
            extents[k] = (min(lo, b[0]), max(hi, b[2]))  # type: ignore[index]

    def col_of(i: int) -> int:
        b = blocks[i].bbox
        assert b is not None
        if i not in top_line or any(abs(b[0] - s) <= COLUMN_GAP for s in starts):
            return by_start(i)
        # most overlap; on a tie the column starting nearest left of it
        return max(
            extents,
            key=lambda k: (round(min(b[2], extents[k][1]) - max(b[0], extents[k][0]), 4), starts[k] <= b[0], starts[k]),
        )

    cols = {i: col_of(i) for i in cells}

    def col(i: int) -> int:
        return cols[i]

    others = sorted(blocks[i].bbox[1] for i in cells if cols[i] != 0)  # type: ignore[index]

    order = sorted(cells, key=lambda i: (blocks[i].bbox[1], blocks[i].bbox[0]))  # type: ignore[index]
    rows: list[list[list[int]]] = []
    tops: list[float] = []
    for i in order:
        box = blocks[i].bbox
        assert box is not None
        if col(i) == 0:
            if rows and rows[-1][0] and _stacked(blocks[rows[-1][0][-1]], blocks[i], others):
                rows[-1][0].append(i)
                continue
            rows.append([[] for _ in starts])
            rows[-1][0].append(i)
            tops.append(box[1])
            continue
        k = max((r for r, t in enumerate(tops) if t <= box[1] + 0.005), default=None)
        if k is None:
            rows.insert(0, [[] for _ in starts])
            tops.insert(0, box[1])
            k = 0
        rows[k][col(i)].append(i)
    text_rows = [[join_pieces([blocks[i].text for i in cell]) for cell in row] for row in rows]
    boxes: list[BBox | None] = [union([blocks[i].bbox for cell in row for i in cell]) for row in rows]  # type: ignore[misc]
    if len(text_rows) < 2:
        return None
    n_head = 1 if _is_header(text_rows[0]) else 0
    title, header = split_title(text_rows[:n_head])
    body = text_rows[n_head:]
    return TableGrid(
        title=title,
        header_rows=header,
        body_rows=body,
        body_row_pages=[page] * len(body),
        body_row_bboxes=boxes[n_head:],
        grid_source="parser_blocks",
    )


def _is_header(row: list[str]) -> bool:
    """A first row of column names: at least two short cells, none a list item or a sentence."""
    cells = [c for c in row if c.strip()]
    return len(cells) >= 2 and all(
        len(c) <= MAX_HEADER_CHARS and c.lstrip()[:1] not in "•▪●-–" and not c.rstrip().endswith((".", ":"))
        for c in cells
    )


def _starts(lefts: list[float]) -> list[float]:
    """Column starts: clusters of left edges closer than COLUMN_GAP, each named by its leftmost edge."""
    xs = sorted(lefts)
    if not xs:
        return []
    starts, prev = [xs[0]], xs[0]
    for x in xs[1:]:
        if x - prev > COLUMN_GAP:
            starts.append(x)
        prev = x
    return starts


def _stacked(upper: Block, lower: Block, other_tops: list[float]) -> bool:
    """``lower`` continues the label ``upper`` of the leftmost column (module docstring): close below
    it, and running on from it or with no cell of another column starting between them."""
    a, b = upper.bbox, lower.bbox
    assert a is not None and b is not None
    if b[1] - a[3] > STACK_GAP:
        return False
    text = lower.text.lstrip()
    if text[:1].islower() or text[:1] == "(" or _RUNS_ON_END.search(upper.text.rstrip()):
        return True
    short = len(upper.text) <= MAX_HEADER_CHARS and len(text) <= MAX_HEADER_CHARS
    touching = b[1] - a[3] <= TOUCH_GAP
    return short and touching and not any(a[3] - 0.003 < t <= b[1] + 0.003 for t in other_tops)


def with_label_column(grid: TableGrid, blocks: list[Block], members: list[int]) -> TableGrid:
    """``grid`` (read from the text layer) with the region's row labels it left out put back as its
    first column: the member blocks left of every row's box (a label column without cell rules next to a
    ruled body), each joined to the body row it lies on; labels above the first row name the column.
    A first body row left without a label then is a header row (column names under a spanning one)."""
    boxes = [b for b in grid.body_row_bboxes if b is not None]
    if not boxes or len(boxes) != len(grid.body_rows):
        return grid
    gx0 = min(b[0] for b in boxes)
    left = [
        i
        for i in members
        if blocks[i].kind is not BlockKind.EQUATION and blocks[i].text.strip() and blocks[i].bbox[2] <= gx0 + 0.005  # type: ignore[index]
    ]
    if not left:
        return grid
    head: list[int] = []
    labels: list[list[int]] = [[] for _ in boxes]
    for i in sorted(left, key=lambda i: blocks[i].bbox[1]):  # type: ignore[index]
        box = blocks[i].bbox
        assert box is not None
        k = max(range(len(boxes)), key=lambda r: y_overlap(box, boxes[r]))  # type: ignore[arg-type]
        if box[1] < boxes[0][1] - 0.005:  # type: ignore[index]
            head.append(i)
        elif y_overlap(box, boxes[k]) > 0:  # type: ignore[arg-type]
            labels[k].append(i)
    body = [[join_pieces([blocks[i].text for i in labels[r]]), *row] for r, row in enumerate(grid.body_rows)]
    header = [
        [join_pieces([blocks[i].text for i in head]) if n == 0 else "", *row] for n, row in enumerate(grid.header_rows)
    ]
    row_boxes: list[BBox | None] = [
        union([b, *(blocks[i].bbox for i in labels[r])]) if b is not None else None  # type: ignore[misc]
        for r, b in enumerate(grid.body_row_bboxes)
    ]
    pages = list(grid.body_row_pages)
    while body and not body[0][0] and header and len(body) > 1:
        header.append(body.pop(0))
        row_boxes.pop(0)
        if pages:
            pages.pop(0)
    if not header and head:
        header = [[join_pieces([blocks[i].text for i in head]), *([""] * (len(body[0]) - 1))]]
    return grid.model_copy(
        update={"header_rows": header, "body_rows": body, "body_row_bboxes": row_boxes, "body_row_pages": pages}
    )


__all__ = ["DataRegion", "blocks_grid", "find_data_region", "loose_blocks_below", "with_label_column"]
