"""A row's outline cut to the columns of its own lines where its box holds other rows' lines.

A table whose cells are printed at staggered heights (a short cell centred beside a wrapped one, a brand name on
the line under its generic name) is often read by the parser, or rebuilt from the text layer, one printed line a
row: a row then holds the lines of some columns while the other columns print, at the same height, lines that
another row holds. Its box, as wide as the table, shows them as if they were the row's; and a line of the row
printed a little lower than the rest (its dose's second line) may reach past its box. Where the lines of other
rows are at least :data:`FOREIGN_SHARE` of the characters under a row's box (stretched to hold its own lines
whole), the box is cut into pieces, one round each column span of the row's own lines (a line of another row
stacked in the same column, above or below them, stays out): the first is the row's box, the others its cell
boxes (``body_row_cell_bboxes``: the unit points at them too). Only when the pieces leave out nearly all of the
other rows' lines (:data:`LEFT_SHARE`); a row whose cells the page prints mixed with another's stays whole.
Header rows the unit builder reads as body rows (:mod:`..tables.header_trim`) are cut the same way. Boxes are
0..1 of the displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable

from structaware_readers.models import BBox, Block, TableGrid
from structaware_readers.table_recovery.merged_cells import centre_in
from structaware_readers.table_recovery.text_lines import TextLine
from structaware_readers.tables.header_trim import rows_to_body

__all__ = ["FOREIGN_SHARE", "cut_to_own_columns", "has_row_boxes"]

#: Share of the characters under a row's box, in lines of other rows (:data:`OWN_SHARE`), from which it is cut.
FOREIGN_SHARE = 0.25
#: Share of those characters the pieces may still hold for the cut to be made.
LEFT_SHARE = 0.1
#: A run is the row's when at least this share of its characters are in words the row holds.
OWN_SHARE = 0.5
#: Padding (share of the page) around a piece's lines.
PAD = 0.004

Cells = list[tuple[int, int, BBox]]


def cut_to_own_columns(
    block: Block,
    pages: list[int],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
) -> Block:
    """``block`` with the boxes of its body rows (on ``pages``) and of the header rows read as body rows cut to
    their own columns (module docstring); ``block`` itself when no row is cut."""
    grid: TableGrid = block.table  # type: ignore[assignment]
    update: dict = {}
    read: dict[int, list[TextLine]] = {}

    def lines_of(page: int) -> list[TextLine]:
        if page not in read:
            read[page] = page_lines(page)
        return read[page]

    n = len(grid.body_rows)
    if len(grid.body_row_bboxes) == n and len(pages) == n:
        cells = _cells(grid.body_row_cell_bboxes, n)
        boxes = list(grid.body_row_bboxes)
        if _cut_rows(grid.body_rows, pages, boxes, cells, lines_of, words):
            update.update(body_row_bboxes=boxes, body_row_cell_bboxes=cells)
    moved = rows_to_body(grid)
    keep = len(grid.header_rows) - moved
    if moved and len(grid.header_row_bboxes) == len(grid.header_rows) and pages:
        head_cells = _cells(grid.header_row_cell_bboxes, len(grid.header_rows))
        head_boxes = list(grid.header_row_bboxes)
        rows = grid.header_rows[keep:]
        sub_boxes, sub_cells = head_boxes[keep:], head_cells[keep:]
        if _cut_rows(rows, [pages[0]] * moved, sub_boxes, sub_cells, lines_of, words):
            update.update(
                header_row_bboxes=head_boxes[:keep] + sub_boxes, header_row_cell_bboxes=head_cells[:keep] + sub_cells
            )
    if not update:
        return block
    return block.model_copy(update={"table": grid.model_copy(update=update)})


def has_row_boxes(block: Block) -> bool:
    """A table block some of whose body rows or header rows have boxes."""
    grid = block.table
    return grid is not None and any(b is not None for b in (*grid.body_row_bboxes, *grid.header_row_bboxes))


def _cells(known: list[Cells], n: int) -> list[Cells]:
    return [list(c) for c in known] if len(known) == n else [[] for _ in range(n)]


def _cut_rows(
    rows: list[list[str]],
    pages: list[int],
    boxes: list[BBox | None],
    cells: list[Cells],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
) -> bool:
    """Cut ``boxes`` (in place) of ``rows`` printed on ``pages``, adding the further pieces to ``cells``; whether
    any was cut."""
    changed = False
    for r, (row, page, box) in enumerate(zip(rows, pages, boxes)):
        if box is None:
            continue
        cell_words = ["".join(words(cell)) for cell in row]
        pieces = column_pieces(box, cell_words, page_lines(page))
        if pieces is None:
            continue
        (first, _), *rest = pieces
        boxes[r] = first
        cells[r].extend((col, page, piece) for piece, col in rest if (col, page, piece) not in cells[r])
        changed = True
    return changed


def column_pieces(box: BBox, cell_words: list[str], lines: list[TextLine]) -> list[tuple[BBox, int]] | None:
    """The pieces of ``box`` (each with the column whose cell holds its lines) for a row whose cells' words, run
    together, are ``cell_words``, among the page's ``lines``; ``None`` when the box is to stay whole."""
    own_text = "".join(cell_words)
    own = [ln for ln in lines if centre_in(ln, box) and _is_own(ln, own_text)]
    if not own:
        return None
    level = [ln for ln in own if ln.x1 - ln.x0 >= ln.y1 - ln.y0]  # a merged cell printed sideways stretches no box
    whole = (box[0], min([box[1], *(ln.y0 for ln in level)]), box[2], max([box[3], *(ln.y1 for ln in level)]))
    inside = [ln for ln in lines if centre_in(ln, whole)]  # its own lines whole: those they reach beside them
    foreign = sum(_chars(ln) for ln in inside if not _is_own(ln, own_text))
    if foreign < FOREIGN_SHARE * sum(_chars(ln) for ln in inside):
        return None
    spans: list[list[float]] = []  # x0, y0, x1, y1 of each column span of its own lines
    for ln in sorted(own, key=lambda x: x.x0):
        if spans and ln.x0 - PAD <= spans[-1][2]:
            last = spans[-1]
            last[1], last[2], last[3] = min(last[1], ln.y0), max(last[2], ln.x1 + PAD), max(last[3], ln.y1)
        else:
            spans.append([ln.x0 - PAD, ln.y0, ln.x1 + PAD, ln.y1])
    pieces = [
        (max(box[0], a), max(y0 - PAD, whole[1]), min(box[2], b), min(y1 + PAD, whole[3])) for a, y0, b, y1 in spans
    ]
    grown = (box[0], min(box[1], *(p[1] for p in pieces)), box[2], max(box[3], *(p[3] for p in pieces)))
    others = [ln for ln in lines if centre_in(ln, grown) and not _is_own(ln, own_text)]
    left = sum(_chars(ln) for ln in others if any(centre_in(ln, p) for p in pieces))
    if left > LEFT_SHARE * sum(_chars(ln) for ln in others):
        return None
    return [(p, _column(p, own, cell_words)) for p in pieces]


def _column(piece: BBox, own: list[TextLine], cell_words: list[str]) -> int:
    """The column whose cell holds the lines of ``piece`` (the first non-empty cell when none does)."""
    for ln in own:
        if centre_in(ln, piece):
            text = "".join(ln.words)
            for c, cell in enumerate(cell_words):
                if text and text in cell:
                    return c
    return next((c for c, cell in enumerate(cell_words) if cell), 0)


def _is_own(line: TextLine, own_text: str) -> bool:
    total = _chars(line)
    return total > 0 and sum(len(w) for w in line.words if w in own_text) >= OWN_SHARE * total


def _chars(line: TextLine) -> int:
    return sum(len(w) for w in line.words)
