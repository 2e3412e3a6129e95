"""Table regions the parser split into pieces or missed, found from the blocks' layout on a page.

A parser may give one borderless table as a table block plus small paragraphs per number or label,
figures as an image beside paragraph labels, an empty equation region, or two stacked table blocks.
:func:`find_split_regions` groups a page's anchors (tables, images, text-less equations, blocks of
figures only) that lie within :data:`GAP_Y`/:data:`GAP_X` of each other into regions, and adds the
short labels on their rows and the column headers just above. The caller keeps a region only when
the text layer's grid holds the pieces' text. Bboxes are 0..1 of the page, origin top-left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.models import BBox, Block, BlockKind
from structaware_readers.table_recovery.grid_rules import (
    FIGURE,
    LEFT_SYMBOLS,
    is_data_row_cells,
)
from structaware_readers.table_recovery.parser_text import grid_from_aligned_text

#: Anchors at most this far apart vertically (share of the page height) are one table.
GAP_Y = 0.012
#: Anchors on the same or neighbouring rows at most this far apart across (share of the page width).
GAP_X = 0.1
#: Image and equation blocks (and a table beside them) are one table only when at most this far apart across.
BLOCK_GAP_X = 0.03
#: A region made only of figure fragments needs this many of them.
MIN_FRAGMENTS = 3
#: A label block holds at most this many characters, unless it is narrower than MAX_LABEL_WIDTH.
MAX_LABEL_CHARS = 100
MAX_LABEL_WIDTH = 0.42
#: ... and when at least this share of its words start in upper case.
MIN_LABEL_CAPITALS = 0.15
#: A label beside a region overlaps its band by at least this share of the label's height.
BESIDE = 0.5
#: Labels join a region from its left only when the anchors' words are at least this share figures.
MIN_FIGURE_SHARE = 0.5
#: A column header above a region starts right of this share of the region's width.
HEADER_INDENT = 0.25

_TEXT_KINDS = {BlockKind.PARAGRAPH, BlockKind.FOOTNOTE, BlockKind.HEADING, BlockKind.HEADER}
#: Kinds that join a region only as labels on its rows (beside it), never above or below it.
_BESIDE_ONLY = {BlockKind.HEADING, BlockKind.HEADER}
_NON_FIGURE = {"nm", "n/a", "na"}
#: A block holding only one of these is a cell of a table too (a currency sign, a dash for nil).
_LONE_CELLS = {*LEFT_SYMBOLS, "—", "–", "-"}
_SENTENCE_END = re.compile(r"[a-z]{3,}[.;] [A-Z]")


@dataclass
class SplitRegion:
    """Indices (into the page's block list) of the pieces of one table, in reading order, and their union box."""

    members: list[int] = field(default_factory=list)
    bbox: BBox = (0.0, 0.0, 0.0, 0.0)
    #: the anchors hold a table of figures (see ``_figures``): labels may join it from its left
    figures: bool = False
    #: other anchors or row labels joined the first anchor (not only column headers above it)
    rows_added: bool = False
    #: top of the anchors' box (labels above it are column headers)
    anchor_top: float = 0.0


def is_figure_fragment(text: str) -> bool:
    """A text whose words are all figures or currency signs (``$``, ``(282,411) $``, ``10.9 %``, ``nm``)."""
    words = text.split()
    return (
        bool(words)
        and any(ch.isdigit() for ch in text)
        and all(
            FIGURE.match(w) or w in LEFT_SYMBOLS or w in {"%", ")", "%)"} or w.lower() in _NON_FIGURE for w in words
        )
    )


def _is_anchor(b: Block) -> bool:
    if b.kind is BlockKind.TABLE:
        return True
    if b.kind is BlockKind.FIGURE:
        return b.source_type == "image"
    if b.kind is BlockKind.EQUATION:
        return not b.text.strip()
    return b.kind in _TEXT_KINDS and (is_figure_fragment(b.text) or b.text.strip() in _LONE_CELLS)


def _figures(blocks: list[Block], members: list[int]) -> bool:
    """The anchors hold a table of figures: at least two body rows of their grids (or of a table's
    space-aligned text) are labelled figures, or most words of their text are figures (the labels
    are elsewhere)."""
    rows = [row for i in members for row in _body_rows(blocks[i])]
    if sum(1 for row in rows if is_data_row_cells(row)) >= 2:
        return True
    return figure_share(" ".join(blocks[i].text for i in members)) >= MIN_FIGURE_SHARE


def _body_rows(b: Block) -> list[list[str]]:
    """Body rows of a table block's grid, or of its space-aligned text (MinerU flash) when it has none."""
    if b.kind is not BlockKind.TABLE:
        return []
    grid = b.table if _has_cells(b) else grid_from_aligned_text(b.text, page_number=b.page)
    return grid.body_rows if grid is not None else []


def _has_cells(b: Block) -> bool:
    grid = b.table
    return grid is not None and grid.n_cols >= 2 and len(grid.header_rows) + len(grid.body_rows) >= 2


def _is_label(b: Block) -> bool:
    text = b.text.strip()
    if b.kind not in _TEXT_KINDS or not text or b.bbox is None:
        return False
    if len(text) <= MAX_LABEL_CHARS:
        return True
    # a column of row labels read as one block: narrow, no sentence at its end, and many labels starting
    # in upper case (``Tax credits Stock-based compensation (1) Domestic ...``); prose has few capitals
    words = text.split()
    capitals = sum(1 for w in words if w.lstrip("(")[:1].isupper()) / len(words)
    return (
        b.bbox[2] - b.bbox[0] <= MAX_LABEL_WIDTH
        and not text.endswith(".")
        and _SENTENCE_END.search(text) is None
        and capitals >= MIN_LABEL_CAPITALS
    )


def figure_share(text: str) -> float:
    """Share of the words of ``text`` that are figures or currency signs (0.0 for no words)."""
    words = [w for w in text.split() if w != "|"]  # a grid's cell separator
    return sum(1 for w in words if is_figure_fragment(w) or w in LEFT_SYMBOLS) / len(words) if words else 0.0


def _piece(b: Block) -> bool:
    # MinerU types the top rows of a table at the top of a page as page headers (Verizon p25, p93)
    return b.bbox is not None and (not b.is_furniture or b.kind is BlockKind.HEADER) and not b.extra_pages


def _gap(a0: float, a1: float, b0: float, b1: float) -> float:
    """Distance between two intervals (negative: they overlap by that much)."""
    return max(a0, b0) - min(a1, b1)


def _near(a: Block, b: Block) -> bool:
    """Pieces of one table: closer than GAP_Y vertically and, across, than GAP_X when one is a figure
    fragment (numbers of one row), overlapping when both are table blocks (two tables side by side in
    two text columns are two tables), else closer than BLOCK_GAP_X (image pieces of one table)."""
    ab, bb = a.bbox, b.bbox
    assert ab is not None and bb is not None
    if a.kind is BlockKind.TABLE and b.kind is BlockKind.TABLE:
        across = 0.0  # two table blocks side by side are two tables (two text columns)
    elif a.kind in _TEXT_KINDS or b.kind in _TEXT_KINDS:
        across = GAP_X
    else:
        across = BLOCK_GAP_X
    return _gap(ab[1], ab[3], bb[1], bb[3]) <= GAP_Y and _gap(ab[0], ab[2], bb[0], bb[2]) <= across


def union_box(boxes: list[BBox]) -> BBox:
    """The smallest box holding ``boxes``."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _beside(label: BBox, region: SplitRegion, texts: list[BBox]) -> bool:
    """On the region's rows: inside its band by BESIDE of its height, across it, or left of a region
    of figures (a column of row labels) when no running text (``texts``: boxes of text blocks that
    are no labels) lies left of the region on its rows (a two-column page: the text column beside a
    table is not its labels)."""
    box = region.bbox
    if _band_overlap(label, box) < BESIDE * (label[3] - label[1]) or label[0] >= box[2]:
        return False
    if label[2] > box[0]:
        return True
    return region.figures and not any(t[2] <= box[0] and _band_overlap(t, box) > 0 for t in texts)


def _band_overlap(a: BBox, b: BBox) -> float:
    return min(a[3], b[3]) - max(a[1], b[1])


def _just_below(label: BBox, region: BBox) -> bool:
    """Right under the region (a row label without figures: ``Liabilities``), inside its width."""
    return -GAP_Y / 2 <= label[1] - region[3] <= GAP_Y and region[0] - GAP_X / 2 <= label[0] < region[2]


def _header_above(label: BBox, region: BBox) -> bool:
    below = region[1] - label[3]
    return (
        -GAP_Y / 2 <= below <= GAP_Y
        and label[0] >= region[0] + HEADER_INDENT * (region[2] - region[0])
        and label[2] <= region[2] + GAP_X / 2
    )


def find_split_regions(blocks: list[Block]) -> list[SplitRegion]:
    """The split or partly missed tables among one page's ``blocks`` (module docstring)."""
    anchors = [i for i, b in enumerate(blocks) if _piece(b) and _is_anchor(b)]
    parent = {i: i for i in anchors}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for k, i in enumerate(anchors):
        for j in anchors[k + 1 :]:
            if _near(blocks[i], blocks[j]):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in anchors:
        groups.setdefault(root(i), []).append(i)
    regions: list[SplitRegion] = []
    for members in groups.values():
        kinds = [blocks[i].kind for i in members]
        if all(k in _TEXT_KINDS for k in kinds) and len(members) < MIN_FRAGMENTS:
            continue  # a lone number in running text is no table
        box = union_box([blocks[i].bbox for i in members])  # type: ignore[misc]
        figures = _figures(blocks, members)
        regions.append(SplitRegion(sorted(members), box, figures, len(members) > 1, box[1]))
    taken = {i for r in regions for i in r.members}
    labels = [i for i, b in enumerate(blocks) if i not in taken and _piece(b) and _is_label(b)]
    label_set = set(labels)
    texts = [
        b.bbox
        for i, b in enumerate(blocks)
        if b.bbox is not None
        and not b.is_furniture
        and b.text.strip()
        and i not in taken
        and i not in label_set
        and b.kind is not BlockKind.HEADING
    ]
    changed = True
    while changed:
        changed = False
        for i in labels:
            if i in taken:
                continue
            box = blocks[i].bbox
            assert box is not None
            heading = blocks[i].kind in _BESIDE_ONLY
            for r in regions:
                rows = _beside(box, r, texts) or (not heading and r.figures and _just_below(box, r.bbox))
                if rows or (not heading and _header_above(box, r.bbox)):
                    # a label beside column headers above a table (``(in billions)``) adds no row
                    r.rows_added = r.rows_added or (rows and box[1] >= r.anchor_top - GAP_Y / 2)
                    r.members.append(i)
                    r.bbox = union_box([r.bbox, box])
                    taken.add(i)
                    changed = True
                    break
        regions = _merge_overlapping(regions, blocks)
    out = [
        r
        for r in regions
        if (len(r.members) >= 2 and (r.rows_added or not _has_cells(blocks[r.members[0]])))
        or _is_empty_equation(blocks[r.members[0]])
    ]
    for r in out:
        r.members.sort()
    return out


def _is_empty_equation(b: Block) -> bool:
    return b.kind is BlockKind.EQUATION and not b.text.strip()


def _merge_overlapping(regions: list[SplitRegion], blocks: list[Block]) -> list[SplitRegion]:
    """Regions that overlap or touch (closer than GAP_Y, overlapping across), grown by their labels,
    are one region (``Assets`` under a table block joins it to the figure fragments below); two
    regions that each hold a ``table`` block are not (a title between two tables is no row)."""
    out: list[SplitRegion] = []
    has_table = lambda r: any(blocks[i].kind is BlockKind.TABLE for i in r.members)
    for r in regions:
        for o in out:
            if has_table(r) and has_table(o):
                continue
            if (
                _gap(r.bbox[1], r.bbox[3], o.bbox[1], o.bbox[3]) <= GAP_Y
                and _gap(r.bbox[0], r.bbox[2], o.bbox[0], o.bbox[2]) < 0
            ):
                o.members.extend(r.members)
                o.bbox = union_box([o.bbox, r.bbox])
                o.figures = o.figures or r.figures
                o.rows_added = True
                o.anchor_top = min(o.anchor_top, r.anchor_top)
                break
        else:
            out.append(r)
    return out


_WORD = re.compile(r"[^\W_]+")


def word_counts(text: str) -> dict[str, int]:
    """Lower-case words and numbers of ``text`` (thousands separators dropped), with their counts."""
    out: dict[str, int] = {}
    text = re.sub(r"<[^>]*>", " ", text)  # inline markup of the parser's text (``<sup>a</sup>``)
    for w in _WORD.findall(re.sub(r"(?<=\d),(?=\d{3})", "", text).lower()):
        out[w] = out.get(w, 0) + 1
    return out


def covered_share(pieces: str, grid: str) -> float:
    """Share of the words of ``pieces`` (with their counts) that ``grid`` holds too; 1.0 when there are none."""
    want = word_counts(pieces)
    have = word_counts(grid)
    total = sum(want.values())
    if not total:
        return 1.0
    return sum(min(n, have.get(w, 0)) for w, n in want.items()) / total


__all__ = ["SplitRegion", "covered_share", "find_split_regions", "is_figure_fragment", "union_box", "word_counts"]
