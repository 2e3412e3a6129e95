"""A recommendation table the parser gave as loose blocks, read from its header row down.

Two-column journal guidelines often come with the header (``Recommendations``, ``Class``,
``Level``) as separate blocks, each statement as paragraphs and each grade as tiny blocks. Columns
are the header blocks' ranges; the region runs down until a legend, a heading, another table, a
block crossing columns or a gap over :data:`MAX_GAP`. Each line of grade blocks is one row; the
statement pieces between two grade lines are cut where a new statement starts (a block holding two
statements is cut at its text-layer lines). Each body row keeps its bbox (0..1 of the page) and
1-based page.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from structaware_readers.loose_tables.anchors import (
    centre_x,
    centre_y,
    header_role,
    is_legend,
    is_numbered_heading,
    is_piece,
    is_stamp,
    is_table_caption,
    union,
    y_overlap,
)
from structaware_readers.models import BBox, Block, BlockKind, TableGrid

#: A gap larger than this (share of the page height) below the last member ends the region.
MAX_GAP = 0.04
#: A grade cell's centre lies at most this far (page width) right of the last header's right edge.
EDGE = 0.01
#: A grade cell holds at most this many characters.
MAX_GRADE_CHARS = 24
#: A cut where a statement opens is taken when it centres the row within this much (page height) of the best cut.
OPEN_SLACK = 0.015
#: Header blocks on one line overlap vertically by at least this share of the lower one.
SAME_LINE = 0.5

#: ``lines(block)`` -> the block's text-layer lines ``(text, bbox)`` top to bottom, or [] when unknown.
LineReader = Callable[[Block], list[tuple[str, BBox]]]

_RUNS_ON = re.compile(r"(?:[:,;]|\b(?:or|and|with|to|of|in|the|a|an))\s*$", re.IGNORECASE)
_STARTS = re.compile(r"^[A-Z0-9\u3400-\u9fff]")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_SENTENCE_END = re.compile(r"(?<=[.;。；])\s+(?=[A-Z\u3400-\u9fff])|(?<=[。；])")


@dataclass
class Piece:
    """A statement's text with its box: a whole block, or one line / sentence of one."""

    text: str
    bbox: BBox
    block: int


@dataclass
class RecRegion:
    """One recommendation table found on a page: member block indices and the grid built from them."""

    header: list[int]
    members: list[int] = field(default_factory=list)
    grid: TableGrid | None = None
    bbox: BBox = (0.0, 0.0, 0.0, 0.0)


def header_rows(blocks: list[Block]) -> list[list[int]]:
    """Index lists (left to right) of the header rows of recommendation tables among one page's blocks:
    a recommendation column name and at least one grade column name on one line, no other block
    between them on that line."""
    named = [
        i for i, b in enumerate(blocks) if is_piece(b) and b.kind is not BlockKind.EQUATION and header_role(b.text)
    ]
    rows: list[list[int]] = []
    used: set[int] = set()
    for i in named:
        if i in used or header_role(blocks[i].text) != "rec":
            continue
        line = [j for j in named if j not in used and y_overlap(blocks[i].bbox, blocks[j].bbox) >= SAME_LINE]  # type: ignore[arg-type]
        roles = [header_role(blocks[j].text) for j in line]
        if roles.count("rec") != 1 or not {"class", "level"} & set(roles):
            continue
        line.sort(key=lambda j: blocks[j].bbox[0])  # type: ignore[index]
        rows.append(line)
        used.update(line)
    return rows


def _column(x: float, starts: list[float]) -> int:
    k = 0
    for j, s in enumerate(starts):
        if x >= s - 0.01:
            k = j
    return k


def read_rec_region(blocks: list[Block], header: list[int], lines: LineReader | None = None) -> RecRegion | None:
    """The recommendation table under ``header`` (indices of its header blocks, left to right) among
    one page's ``blocks``; None when no grade line is found under it."""
    heads = [blocks[j] for j in header]
    boxes = [h.bbox for h in heads]
    roles = [header_role(h.text) for h in heads]
    rec_col = roles.index("rec")
    starts = [b[0] for b in boxes]  # type: ignore[index]
    left, right = min(starts) - 0.02, max(b[2] for b in boxes) + EDGE  # type: ignore[index]
    if rec_col == len(heads) - 1:
        right = 1.0  # statements at the right run to the text's edge, past their header
    head_bottom = max(b[3] for b in boxes)  # type: ignore[index]
    # the recommendation column's own range: a statement never reaches into a grade column
    rec_lo = starts[rec_col] - 0.01 if rec_col else left
    rec_hi = starts[rec_col + 1] + 0.01 if rec_col + 1 < len(heads) else right
    members: list[int] = []
    last_bottom = head_bottom
    order = sorted(
        (
            i
            for i, b in enumerate(blocks)
            if i not in header and b.bbox is not None and b.bbox[1] >= head_bottom - 0.005
        ),
        key=lambda i: blocks[i].bbox[1],  # type: ignore[index]
    )
    for i in order:
        b = blocks[i]
        box = b.bbox
        assert box is not None
        if not (left <= centre_x(box) <= right) or b.is_furniture or is_stamp(b):
            continue
        if box[1] - last_bottom > MAX_GAP:
            break
        if not is_piece(b) or is_legend(b.text) or is_numbered_heading(b) or is_table_caption(b.text):
            break
        if box[0] < left - 0.01 or box[2] > right + 0.01:
            break  # full-width text under the table
        col = _column(centre_x(box), starts)
        crosses = col == rec_col and (box[0] < rec_lo or box[2] > rec_hi)
        if (
            crosses
            or (col != rec_col and len(b.text.strip()) > MAX_GRADE_CHARS)
            or (col != rec_col and header_role(b.text))
        ):
            break
        members.append(i)
        last_bottom = max(last_bottom, box[3])
    grid = _grid(blocks, heads, members, starts, rec_col, lines)
    if grid is None:
        return None
    region = RecRegion(header, members, grid)
    region.bbox = union([blocks[i].bbox for i in [*header, *members]])  # type: ignore[misc]
    return region


def _grade_lines(blocks: list[Block], cells: list[int]) -> list[list[int]]:
    """Grade cells grouped into lines (overlapping vertically), top to bottom."""
    out: list[list[int]] = []
    for i in sorted(cells, key=lambda i: centre_y(blocks[i].bbox)):  # type: ignore[arg-type]
        if out and any(y_overlap(blocks[i].bbox, blocks[j].bbox) >= SAME_LINE for j in out[-1]):  # type: ignore[arg-type]
            out[-1].append(i)
        else:
            out.append([i])
    return out


def _grid(
    blocks: list[Block],
    heads: list[Block],
    members: list[int],
    starts: list[float],
    rec_col: int,
    lines: LineReader | None,
) -> TableGrid | None:
    cols = {i: _column(centre_x(blocks[i].bbox), starts) for i in members}  # type: ignore[arg-type]
    grade_cells = [i for i in members if cols[i] != rec_col and blocks[i].kind is not BlockKind.EQUATION]
    glines = _grade_lines(blocks, grade_cells)
    if not glines:
        return None
    ys = [sum(centre_y(blocks[i].bbox) for i in g) / len(g) for g in glines]  # type: ignore[arg-type]
    pieces = _pieces(
        blocks, [i for i in members if cols[i] == rec_col and blocks[i].kind is not BlockKind.EQUATION], ys, lines
    )
    rows_of = _assign(pieces, ys)
    body: list[list[str]] = []
    row_boxes: list[BBox | None] = []
    for k, g in enumerate(glines):
        cells = [""] * len(heads)
        for i in sorted(g, key=lambda i: blocks[i].bbox[0]):  # type: ignore[index]
            c = cols[i]
            cells[c] = f"{cells[c]} {blocks[i].text.strip()}".strip()
        own = [p for p, r in zip(pieces, rows_of) if r == k]
        cells[rec_col] = join_pieces([p.text for p in own])
        body.append(cells)
        row_boxes.append(union([*(p.bbox for p in own), *(blocks[i].bbox for i in g)]))  # type: ignore[misc]
    page = heads[0].page
    return TableGrid(
        header_rows=[[h.text.strip() for h in heads]],
        body_rows=body,
        body_row_pages=[page] * len(body),
        body_row_bboxes=row_boxes,
        grid_source="parser_blocks",
    )


def _pieces(blocks: list[Block], stmt: list[int], ys: list[float], lines: LineReader | None) -> list[Piece]:
    """The statement blocks as pieces; a block straddling two grade lines cut into lines or sentences."""
    out: list[Piece] = []
    for i in sorted(stmt, key=lambda i: blocks[i].bbox[1]):  # type: ignore[index]
        b = blocks[i]
        box = b.bbox
        assert box is not None
        inside = [y for y in ys if box[1] < y < box[3]]
        if len(inside) < 2:
            out.append(Piece(b.text.strip(), box, i))
            continue
        got = lines(b) if lines is not None else []
        if got:
            out += [Piece(t, bb, i) for t, bb in got]
        else:
            out += _sentences(b, i)
    return out


def _sentences(b: Block, i: int) -> list[Piece]:
    """``b`` cut at its sentence ends, each sentence given the share of the block's height its
    characters take (no text layer at hand)."""
    box = b.bbox
    assert box is not None
    text = b.text.strip()
    parts = [p for p in _SENTENCE_END.split(text) if p.strip()]
    total = sum(len(p) for p in parts) or 1
    out: list[Piece] = []
    done = 0
    for p in parts:
        top = box[1] + (box[3] - box[1]) * done / total
        done += len(p)
        bottom = box[1] + (box[3] - box[1]) * done / total
        out.append(Piece(p.strip(), (box[0], top, box[2], bottom), i))
    return out


def _assign(pieces: list[Piece], ys: list[float]) -> list[int]:
    """The grade line (row) of each piece (module docstring, **Rows**); ``pieces`` top to bottom."""
    rows = [len(ys) - 1] * len(pieces)
    start = 0  # first piece of row k
    i = 0  # first piece whose middle lies below grade line k
    for k in range(len(ys) - 1):
        while i < len(pieces) and centre_y(pieces[i].bbox) <= ys[k]:
            i += 1
        j = i
        while j < len(pieces) and centre_y(pieces[j].bbox) <= ys[k + 1]:
            j += 1
        cut = _best_cut(pieces, start, list(range(i, j + 1)), ys[k])
        for idx in range(start, cut):
            rows[idx] = k
        start = max(start, cut)
        i = max(i, cut)
    return rows


def _best_cut(pieces: list[Piece], start: int, options: list[int], y: float) -> int:
    """Where the row whose grades sit at ``y`` ends: the index (one of ``options``) of the first piece
    of the next statement; a cut where a statement opens is preferred, then the one that centres the
    row on its grades."""
    opens = [c for c in options if start < c < len(pieces) and _opens(pieces, c)]
    pool = [c for c in options if c > start] or options

    def miss(c: int) -> float:
        own = pieces[start:c]
        if not own:
            return 1.0
        top, bottom = min(p.bbox[1] for p in own), max(p.bbox[3] for p in own)
        return abs((top + bottom) / 2 - y)

    best = min(pool, key=miss)
    best_open = min(opens, key=miss, default=None)
    return best_open if best_open is not None and miss(best_open) <= miss(best) + OPEN_SLACK else best


def _opens(pieces: list[Piece], c: int) -> bool:
    """Piece ``c`` starts a new statement: it starts like one and the piece before does not run on."""
    text, before = pieces[c].text.lstrip(), pieces[c - 1].text.rstrip()
    return bool(_STARTS.match(text)) and not _RUNS_ON.search(before)


def join_pieces(texts: list[str]) -> str:
    """Statement pieces in reading order as one text: a bullet starts a line of its own, other pieces
    join with a space (a line ending in a hyphen before a lower-case start, and CJK lines, join without one)."""
    out = ""
    for t in texts:
        t = t.strip()
        if not t:
            continue
        if not out:
            out = t
        elif t[0] in "•▪●◦-–" or t.startswith("▪"):
            out = f"{out}\n{t}"
        elif (out.endswith("-") and t[:1].islower()) or (_CJK.match(out[-1]) and _CJK.match(t[0])):
            out = f"{out}{t}"
        else:
            out = f"{out} {t}"
    return out


__all__ = ["LineReader", "MAX_GAP", "RecRegion", "header_rows", "join_pieces", "read_rec_region"]
