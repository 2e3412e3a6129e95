"""Column-aware reading order of a page's blocks, restored from their bounding boxes.

A recursive X-Y cut: boxes are split at whitespace gaps into columns (left to right) or bands (top to bottom),
each part ordered recursively; captions travel with their figure or table, an inset figure is read after the text
beside it, furniture goes above or below the body, blocks without a bbox keep their index. Bboxes are
``(x0, y0, x1, y1)`` in 0..1 of the page, origin top-left.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from structaware_readers.models import BBox, Block, BlockKind

__all__ = ["CAPTION_TARGETS", "caption_target", "restore_reading_order"]

#: Block kinds a caption can belong to.
CAPTION_TARGETS = frozenset(
    {BlockKind.TABLE, BlockKind.FIGURE, BlockKind.FLOWCHART, BlockKind.CODE, BlockKind.EQUATION}
)

#: Tolerance (page fractions) under which two projections count as touching, not overlapping:
#: annotation and detection boxes of neighbouring blocks often overlap by a few pixels.
_X_TOL = 0.004
_Y_TOL = 0.004
#: Largest vertical gap (page fraction) between a caption and its figure/table above or below it.
_CAPTION_MAX_VGAP = 0.06
#: Largest horizontal gap for a caption beside its target: equation numbers sit at the margin,
#: far from a centred equation; a caption beside a figure or table sits close to it.
_CAPTION_MAX_HGAP_EQUATION = 0.8
_CAPTION_MAX_HGAP = 0.05
#: Two targets whose gaps to a caption differ by less than this are equally near: the caption
#: (e.g. "Figure 3" centred under sub-figures a and b) is then bound to neither.
_CAPTION_AMBIGUITY = 0.01
#: Kinds that make a column "float material" (read after the text columns beside it).
_FLOAT_KINDS = frozenset({BlockKind.FIGURE, BlockKind.CAPTION, BlockKind.FOOTNOTE})
#: How far (page fraction) below the text columns' top a figure column must start to be an inset.
_INSET_DROP = 0.05


def restore_reading_order(blocks: list[Block]) -> list[Block]:
    """Return ``blocks`` in layout reading order, page by page (recursive X-Y cut, see module doc)."""
    by_page: dict[int, list[Block]] = {}
    for block in blocks:
        by_page.setdefault(block.page, []).append(block)
    ordered: list[Block] = []
    for page in sorted(by_page):
        ordered.extend(_order_page(by_page[page]))
    return ordered


def caption_target(caption: Block, candidates: Sequence[Block], others: Iterable[Block] = ()) -> Block | None:
    """The figure/table/equation/code block a caption belongs to, from geometry alone: the nearest candidate on its
    page aligned above, below or beside it with nothing of ``others`` in between; two equally near bind neither.
    """
    if caption.bbox is None:
        return None
    blockers = [b.bbox for b in others if b.bbox is not None and b.kind is not BlockKind.CAPTION]
    found_all: list[tuple[float, int, Block]] = []
    for i, cand in enumerate(candidates):
        if cand is caption or cand.bbox is None or cand.page != caption.page:
            continue
        if cand.kind not in CAPTION_TARGETS:
            continue
        max_hgap = _CAPTION_MAX_HGAP_EQUATION if cand.kind is BlockKind.EQUATION else _CAPTION_MAX_HGAP
        found = _caption_gap(caption.bbox, cand.bbox, max_hgap)
        if found is None:
            continue
        gap, between = found
        if between is not None and any(
            _intersects(between, bb) for bb in blockers if bb != cand.bbox and bb != caption.bbox
        ):
            continue
        found_all.append((gap, i, cand))
    if not found_all:
        return None
    found_all.sort(key=lambda f: (f[0], f[1]))
    if len(found_all) > 1 and found_all[1][0] - found_all[0][0] < _CAPTION_AMBIGUITY:
        return None
    return found_all[0][2]


# --------------------------------------------------------------------------------------------
# page ordering


def _order_page(blocks: list[Block]) -> list[Block]:
    boxed = [b for b in blocks if b.bbox is not None]
    if len(boxed) <= 1:
        return list(blocks)
    top: list[Block] = []
    bottom: list[Block] = []
    body: list[Block] = []
    for b in boxed:
        if not b.is_furniture:
            body.append(b)
        elif b.kind is BlockKind.HEADER or (
            b.kind is not BlockKind.FOOTER and _center(b.bbox)[1] < 0.5  # type: ignore[arg-type]
        ):
            top.append(b)
        else:
            bottom.append(b)
    sequence = (
        _sorted_yx(top)
        + [b for group in _order_groups(_caption_groups(body)) for b in group.members]
        + _sorted_yx(bottom)
    )
    # blocks without a bbox keep their slot; the others fill the remaining slots in order
    it = iter(sequence)
    return [b if b.bbox is None else next(it) for b in blocks]


def _sorted_yx(blocks: list[Block]) -> list[Block]:
    return sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))  # type: ignore[index]


@dataclass
class _Group:
    """One unit of the X-Y cut: a block, or a figure/table with its captions."""

    members: list[Block]
    bbox: BBox


def _caption_groups(body: list[Block]) -> list[_Group]:
    captions = [b for b in body if b.kind is BlockKind.CAPTION]
    targets = [b for b in body if b.kind in CAPTION_TARGETS]
    attached: dict[int, list[Block]] = {}
    bound: set[int] = set()
    if captions and targets:
        for cap in captions:
            target = caption_target(cap, targets, body)
            if target is not None:
                attached.setdefault(id(target), []).append(cap)
                bound.add(id(cap))
    groups: list[_Group] = []
    for b in body:
        if id(b) in bound:
            continue
        caps = attached.get(id(b), [])
        if not caps:
            groups.append(_Group([b], b.bbox))  # type: ignore[arg-type]
            continue
        tb = b.bbox
        assert tb is not None
        above = [c for c in caps if _center(c.bbox)[1] < tb[1]]  # type: ignore[arg-type]
        rest = [c for c in caps if c not in above]
        members = _sorted_yx(above) + [b] + _sorted_yx(rest)
        groups.append(_Group(members, _union([m.bbox for m in members])))  # type: ignore[misc]
    return groups


# --------------------------------------------------------------------------------------------
# recursive X-Y cut


def _order_groups(groups: list[_Group]) -> list[_Group]:
    """X-Y cut of the groups, with container boxes (a background picture holding the centres of
    two or more other boxes) set aside and put back just before the first box they contain."""
    containers = [g for g in groups if sum(1 for o in groups if o is not g and _contains(g.bbox, _center(o.bbox))) >= 2]
    if not containers:
        return _xy_cut(groups)
    rest = [g for g in groups if not any(g is c for c in containers)]
    ordered = _xy_cut(rest) if rest else []
    for c in sorted(containers, key=lambda g: -_area(g.bbox)):
        at = next((i for i, g in enumerate(ordered) if _contains(c.bbox, _center(g.bbox))), len(ordered))
        ordered.insert(at, c)
    return ordered


def _xy_cut(groups: list[_Group]) -> list[_Group]:
    if len(groups) <= 1:
        return list(groups)
    columns = _parallel_columns(groups)
    if columns is not None:
        return [g for col in _floats_last(columns) for g in _xy_cut(col)]
    bands = _split(groups, axis=1, tol=_Y_TOL)
    if len(bands) == 1:
        # overlapping boxes, no whitespace cut: plain top-to-bottom, left-to-right
        return sorted(groups, key=lambda g: (g.bbox[1], g.bbox[0]))
    merged: list[list[_Group]] = [bands[0]]
    for band in bands[1:]:
        candidate = merged[-1] + band
        if _parallel_columns(candidate) is not None:
            merged[-1] = candidate
        else:
            merged.append(band)
    return [g for part in merged for g in _xy_cut(part)]


def _floats_last(columns: list[list[_Group]]) -> list[list[_Group]]:
    """Move inset figure columns after the text columns they are set into."""
    text_cols = [c for c in columns if not _is_float(c)]
    if not text_cols or len(text_cols) == len(columns):
        return columns
    text_top = min(g.bbox[1] for c in text_cols for g in c)
    late = [c for c in columns if _is_float(c) and min(g.bbox[1] for g in c) > text_top + _INSET_DROP]
    if not late:
        return columns
    return [c for c in columns if not any(c is x for x in late)] + late


def _is_float(groups: list[_Group]) -> bool:
    kinds = {m.kind for g in groups for m in g.members}
    return BlockKind.FIGURE in kinds and kinds <= _FLOAT_KINDS


def _parallel_columns(groups: list[_Group]) -> list[list[_Group]] | None:
    """Vertical cut of ``groups`` into columns, if it has one whose sides run in parallel."""
    parts = _split(groups, axis=0, tol=_X_TOL)
    if len(parts) < 2:
        return None
    for left, right in zip(parts, parts[1:]):
        if _any_y_overlap(left, right):
            return parts
    return None


def _any_y_overlap(a: list[_Group], b: list[_Group]) -> bool:
    for ga in a:
        for gb in b:
            lo = max(ga.bbox[1], gb.bbox[1])
            hi = min(ga.bbox[3], gb.bbox[3])
            if hi - lo > _Y_TOL:
                return True
    return False


def _split(groups: list[_Group], *, axis: int, tol: float) -> list[list[_Group]]:
    """Split at the gaps of the projection on ``axis`` (0 = x, 1 = y); parts in axis order."""
    order = sorted(groups, key=lambda g: (g.bbox[axis], g.bbox[axis + 2]))
    parts: list[list[_Group]] = [[order[0]]]
    reach = order[0].bbox[axis + 2]
    for g in order[1:]:
        start, end = g.bbox[axis], g.bbox[axis + 2]
        if start >= reach - tol:
            parts.append([g])
        else:
            parts[-1].append(g)
        reach = max(reach, end)
    if len(parts) > 1:
        # keep each part in its incoming order so that ties stay stable
        pos = {id(g): i for i, g in enumerate(groups)}
        parts = [sorted(p, key=lambda g: pos[id(g)]) for p in parts]
    return parts


# --------------------------------------------------------------------------------------------
# geometry helpers


def _union(boxes: Iterable[BBox]) -> BBox:
    xs0, ys0, xs1, ys1 = zip(*boxes)
    return (min(xs0), min(ys0), max(xs1), max(ys1))


def _center(b: BBox) -> tuple[float, float]:
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def _area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _contains(b: BBox, point: tuple[float, float]) -> bool:
    return b[0] <= point[0] <= b[2] and b[1] <= point[1] <= b[3]


def _intersects(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 1e-6 and min(a[3], b[3]) - max(a[1], b[1]) > 1e-6


def _caption_gap(cap: BBox, tgt: BBox, max_hgap: float) -> tuple[float, BBox | None] | None:
    """(distance, gap rectangle) when ``cap`` is aligned with ``tgt``, else ``None``."""
    x_overlap = min(cap[2], tgt[2]) - max(cap[0], tgt[0])
    y_overlap = min(cap[3], tgt[3]) - max(cap[1], tgt[1])
    options: list[tuple[float, BBox | None]] = []
    min_w = max(1e-6, min(cap[2] - cap[0], tgt[2] - tgt[0]))
    min_h = max(1e-6, min(cap[3] - cap[1], tgt[3] - tgt[1]))
    if x_overlap > 0.3 * min_w:
        gap = max(0.0, tgt[1] - cap[3], cap[1] - tgt[3])
        if gap <= _CAPTION_MAX_VGAP:
            x0, x1 = max(cap[0], tgt[0]), min(cap[2], tgt[2])
            upper, lower = (cap, tgt) if cap[1] < tgt[1] else (tgt, cap)
            between = (x0, upper[3], x1, lower[1]) if gap > 0 else None
            options.append((gap, between))
    if y_overlap > 0.5 * min_h:
        gap = max(0.0, tgt[0] - cap[2], cap[0] - tgt[2])
        if gap <= max_hgap:
            y0, y1 = max(cap[1], tgt[1]), min(cap[3], tgt[3])
            left, right = (cap, tgt) if cap[0] < tgt[0] else (tgt, cap)
            between = (left[2], y0, right[0], y1) if gap > 0 else None
            options.append((gap, between))
    return min(options, key=lambda o: o[0]) if options else None
