"""Cells a row's outline misses, outlined where the page prints them on their own.

A form printed as two independent halves (a patient card: the patient's details on the left, an overview on the
right, each half with its own line pitch) is read by the parser as one grid whose rows zip the two halves: a row
holds a left cell printed on one line and a right cell printed lines above or below it, and cells spanning rows
that match neither. Boxes found row by row (:mod:`.stage8_row_boxes`, :mod:`.merged_cells`) then hold only part
of such a row, or nothing (a row whose every cell is also another row's: no run is its alone).

Here a row whose outline (its box and cell boxes) holds less than :data:`HELD` of its characters gets a box for
each cell it misses, found on its own among the runs of the table's region: grown from the cell's longest run
that no other cell of the table says and that the region prints once, nearest run first, each run a piece of the
cell still unaccounted for (each word of the cell taken once: a ``Date:`` printed on the line above is not the
``date`` of ``quit date`` once that run is taken). A cell printed in several places (the parser merged them) gets
a box for each. The cell is outlined when its boxes hold at least :data:`MIN_FOUND` of its characters and little
else (:data:`MAX_FOREIGN`). A box the row had that lies over other rows' lines more than its own is dropped when
the rest hold the row; a row left without a box takes its first cell's box as its own. Boxes are 0..1 of the
displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable

from structaware_readers.models import BBox, Block, TableGrid
from structaware_readers.table_recovery.merged_cells import centre_in
from structaware_readers.table_recovery.split_regions import union_box
from structaware_readers.table_recovery.text_lines import TextLine

__all__ = ["HELD", "MAX_FOREIGN", "MIN_FOUND", "outline_cells_apart"]

#: Share of a row's characters its outline must hold to be left as it is.
HELD = 0.9
#: Share of a cell's characters its found runs must hold for the cell to be outlined.
MIN_FOUND = 0.9
#: Share of the characters under a cell's boxes that may be no word of the row.
MAX_FOREIGN = 0.3
#: Characters a run must hold to start a cell's box.
MIN_SEED = 4
#: A run joins a cell's box when it is at most this many line heights above or below it ...
NEAR_LINES = 1.0
#: ... and at most this share of the page's width beside it.
NEAR_WIDTH = 0.1
#: Margin round a cell's runs (share of the page).
PAD = 0.004
_TAKEN = "\x00"


def outline_cells_apart(
    block: Block,
    pages: list[int],
    regions: dict[int, BBox],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
) -> Block:
    """``block`` with a box for each cell its body rows' outlines miss (module docstring), found among
    ``page_lines(page)`` inside ``regions`` (page -> the table's region there); ``block`` itself when none is."""
    grid: TableGrid = block.table  # type: ignore[assignment]
    n = len(grid.body_rows)
    if len(grid.body_row_bboxes) != n or len(pages) != n:
        return block
    boxes = list(grid.body_row_bboxes)
    cells = (
        [list(c) for c in grid.body_row_cell_bboxes] if len(grid.body_row_cell_bboxes) == n else [[] for _ in range(n)]
    )
    texts = {t for row in grid.body_rows for cell in row if (t := "".join(words(cell)))}
    changed = False
    for page, region in regions.items():
        runs = [ln for ln in page_lines(page) if centre_in(ln, region) and len("".join(ln.words)) >= 2]
        for r in (r for r in range(n) if pages[r] == page):
            outline = ([boxes[r]] if boxes[r] is not None else []) + [b for _, p, b in cells[r] if p == page]
            own = _distinct(grid.body_rows[r], words)
            held = _held(own, runs, outline)
            total = sum(len(text) for _, text in own)
            if not total or sum(held) >= HELD * total:
                continue
            row_text = _TAKEN.join(text for _, text in own)
            added = [
                (col, box)
                for (col, text), got in zip(own, held)
                if got < MIN_FOUND * len(text)
                for box in _cell_boxes(text, runs, texts - {text}, row_text)
            ]
            if not added:
                continue
            kept = [b for b in outline if not _foreign(b, runs, row_text)]  # a box over other rows' lines is
            if sum(_held(own, runs, kept + [b for _, b in added])) < HELD * total:  # dropped when the rest hold the row
                kept = outline
            row_box = boxes[r] if boxes[r] in kept else None
            cells[r] = [c for c in cells[r] if c[1] != page or c[2] in kept]
            for col, box in added:
                if row_box is None:
                    row_box = box
                elif (col, page, box) not in cells[r]:
                    cells[r].append((col, page, box))
            boxes[r] = row_box
            changed = True
    if not changed:
        return block
    update = {"body_row_bboxes": boxes, "body_row_cell_bboxes": cells}
    return block.model_copy(update={"table": grid.model_copy(update=update)})


def _distinct(row: list[str], words: Callable[[str], list[str]]) -> list[tuple[int, str]]:
    """The row's cells (column, words run together) each said once: a cell spanning columns is repeated in each."""
    out: list[tuple[int, str]] = []
    for col, cell in enumerate(row):
        text = "".join(words(cell))
        if len(text) >= 2 and all(text != t for _, t in out):
            out.append((col, text))
    return out


def _held(own: list[tuple[int, str]], runs: list[TextLine], outline: list[BBox]) -> list[int]:
    """Characters of each of the row's cells (``own``: column, words run together) the runs inside ``outline`` say."""
    inside = [ln for ln in runs if any(centre_in(ln, b) for b in outline)]
    return [_taken(text, inside) for _, text in own]


def _taken(text: str, runs: list[TextLine]) -> int:
    """Characters of ``text`` the runs' words account for, longest run first, each piece of ``text`` once."""
    owed = text
    for ln in sorted(runs, key=lambda x: -len("".join(x.words))):
        owed = _take(owed, "".join(ln.words))
    return owed.count(_TAKEN)


def _take(owed: str, piece: str) -> str:
    at = owed.find(piece) if piece else -1
    return owed if at < 0 else owed[:at] + _TAKEN * len(piece) + owed[at + len(piece) :]


def _cell_boxes(text: str, runs: list[TextLine], others: set[str], row_text: str) -> list[BBox]:
    """The boxes of the places the cell (words run together: ``text``) is printed among ``runs``, each grown from a
    seed run no cell of ``others`` says; ``[]`` when they hold less than :data:`MIN_FOUND` of it, or a box holds
    more than :data:`MAX_FOREIGN` of characters that are no word of the row (``row_text``)."""
    pieces = {id(ln): "".join(ln.words) for ln in runs}
    seeds = [  # long enough, no other cell's, printed once in the region; longest first
        ln
        for ln in runs
        if len(piece := pieces[id(ln)]) >= MIN_SEED
        and piece in text
        and not any(piece in other for other in others)
        and sum(1 for x in runs if piece in pieces[id(x)]) == 1
    ]
    seeds.sort(key=lambda x: -len(pieces[id(x)]))
    owed, out, used = text, [], set()
    for seed in seeds:
        if id(seed) in used or pieces[id(seed)] not in owed:
            continue
        cluster = [seed]
        owed = _take(owed, pieces[id(seed)])
        used.add(id(seed))
        while True:
            box = _line_box(cluster)
            reach = NEAR_LINES * max(x.y1 - x.y0 for x in cluster)
            near = [
                (-len(pieces[id(ln)]), x_gap + y_gap, k)
                for k, ln in enumerate(runs)
                if id(ln) not in used
                and pieces[id(ln)] in owed
                and (x_gap := _gap(ln.x0, ln.x1, box[0], box[2])) <= NEAR_WIDTH
                and (y_gap := _gap(ln.y0, ln.y1, box[1], box[3])) <= reach
            ]
            if not near:
                break
            nearest = runs[min(near)[2]]  # the longest piece, then the nearest
            cluster.append(nearest)
            owed = _take(owed, pieces[id(nearest)])
            used.add(id(nearest))
        x0, y0, x1, y1 = _line_box(cluster)
        out.append((max(0.0, x0 - PAD), max(0.0, y0 - PAD), min(1.0, x1 + PAD), min(1.0, y1 + PAD)))
    if owed.count(_TAKEN) < MIN_FOUND * len(text):
        return []
    return [] if any(_foreign(box, runs, row_text) for box in out) else out


def _foreign(box: BBox, runs: list[TextLine], row_text: str) -> bool:
    """More than :data:`MAX_FOREIGN` of the characters under ``box`` are no word of the row (``row_text``)."""
    under = ["".join(ln.words) for ln in runs if centre_in(ln, box)]
    return sum(len(p) for p in under if p not in row_text) > MAX_FOREIGN * sum(len(p) for p in under)


def _gap(a0: float, a1: float, b0: float, b1: float) -> float:
    """The gap between spans ``a0..a1`` and ``b0..b1`` (0 when they overlap)."""
    return max(b0 - a1, a0 - b1, 0.0)


def _line_box(lines: list[TextLine]) -> BBox:
    return union_box([(x.x0, x.y0, x.x1, x.y1) for x in lines])
