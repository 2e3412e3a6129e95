"""Boxes of merged cells: a cell spanning several body rows, printed once, outlined with every row it covers.

A grid repeats a spanning cell's text in each row it covers (:class:`~structaware_readers.models.TableGrid`);
the page prints it once, centred across the rows or on the first row's lines, so it lies outside the
boxes of the other rows. This pass finds the printed lines of each such cell in the PDF's text layer
and gives each covered row whose own box does not hold them a further box: the cell's lines. Boxes are
0..1 of the displayed page, origin top-left; pages 1-based.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.broken_runs import joined_runs
from structaware_readers.table_recovery.cell_foot import foot_band
from structaware_readers.table_recovery.line_pieces import piece_of_other_line
from structaware_readers.table_recovery.repeated_cells import printed_per_row
from structaware_readers.table_recovery.text_lines import TextLine
from structaware_readers.table_recovery.whole_cell_lines import whole_cell_lines

__all__ = ["MIN_CELL_SHARE", "TextLine", "cell_boxes", "centre_in", "merged_cells"]

#: Share of a merged cell's characters its lines found on the page must hold for the cell to get a box.
MIN_CELL_SHARE = 0.5
#: Share of a merged cell's characters a row's own box must hold to count as printing the cell itself.
HOLDS_CELL = 0.9
#: Share of a line's height a row's box must hold for the row to print the line (a merged cell's line printed
#: on the border of two rows, centred across them, is neither's).
HOLDS_LINE = 0.75
#: Share of a row's own cells' characters its box cut above the rows below it must still hold.
HOLDS_OWN = 0.9
#: A group of a merged cell's lines standing apart from the rest, holding less than this share of the
#: characters, is another column's.
STRAY_SHARE = 0.2
#: Margin round a merged cell's lines, in line heights (the width of a turned line).
PAD = 0.2


@dataclass(frozen=True)
class MergedCell:
    """Column ``col`` holds the same text in body rows ``first``..``last`` (inclusive)."""

    col: int
    first: int
    last: int


def merged_cells(grid: TableGrid) -> list[MergedCell]:
    """The cells repeated in two or more consecutive body rows (a table continued on the next page
    may repeat a merged cell there or print it once, on one of the pages), and the first body row's cells
    a header row's cell of the column repeats (a form's label spanning a header row and the first body row,
    printed once beside both: :func:`_header_boxes` puts the header's lines in its band)."""
    out = []
    rows = grid.body_rows
    for col in range(max((len(r) for r in rows), default=0)):
        start = 0
        for r in range(1, len(rows) + 1):
            if r < len(rows) and _cell(rows[r], col) and _cell(rows[r], col) == _cell(rows[start], col):
                continue
            if r - start >= 2 and _cell(rows[start], col):
                out.append(MergedCell(col, start, r - 1))
            elif start == 0 and r == 1 and _cell(rows[0], col) and _heads(grid, col):
                out.append(MergedCell(col, 0, 0))
            start = r
    return out


def _heads(grid: TableGrid, col: int) -> bool:
    """A header row's cell of column ``col`` says the first body row's cell (the same cell spanning both)."""
    return any(_cell(row, col) == _cell(grid.body_rows[0], col) for row in grid.header_rows)


def cell_boxes(
    grid: TableGrid,
    pages: list[int],
    boxes: list[BBox | None],
    page_lines: Callable[[int], list[TextLine]],
    words: Callable[[str], list[str]],
    regions: dict[int, BBox] | None = None,
) -> list[list[tuple[int, int, BBox]]]:
    """For each body row, ``(column, page, box)`` of each merged cell it covers that its own box
    (``boxes``, one per row, on ``pages``) does not hold: the cell's lines among ``page_lines(page)``
    between the top and bottom of the boxes of the rows it covers on that page (and of the header rows whose cell
    of the column says it, on the first page: a column header reaching down beside the rows, :func:`_header_boxes`),
    the lines whose words are the cell's and no other cell's of those rows. Equal cells each row prints a copy of
    are the rows' own, no merged cell (:mod:`.repeated_cells`); a cell printed in every row (equal values one under
    the other, no row's box reaching over another's) adds nothing; one printed on each page it
    is on gets a box on each. The box of a row printing the cell that holds lines of the other rows it covers (a box
    stretched to the cell's height) is cut to the row's own lines in ``boxes``, and the row gets the cell's box
    too; so is the box of any row stretched over lines of its merged cells beyond its own lines
    (:func:`_cut_to_own_lines`). A cell beside the last rows boxed on a page is sought down to the foot of the
    table's region there (``regions``: page -> box, :mod:`.cell_foot`)."""
    out: list[list[tuple[int, int, BBox]]] = [[] for _ in grid.body_rows]
    cell_of: dict[tuple[int, int], list[tuple[int, int, BBox]]] = {}  # (row, column): the cell's boxes
    merged = [  # equal cells each row prints itself are the rows' own (:mod:`.repeated_cells`)
        m
        for m in merged_cells(grid)
        if not printed_per_row(
            list(range(m.first, m.last + 1)), pages, boxes, page_lines, "".join(words(grid.body_rows[m.first][m.col]))
        )
    ]
    shared = [{m.col for m in merged if m.first <= r <= m.last} for r in range(len(grid.body_rows))]
    for cell in merged:
        covered = [r for r in range(cell.first, cell.last + 1) if boxes[r] is not None]
        text = "".join(words(grid.body_rows[cell.first][cell.col]))
        if len(text) < 2 or not covered:
            continue
        printed: dict[int, tuple[BBox, list[TextLine]]] = {}
        for page in sorted({pages[r] for r in covered}):
            there = [r for r in covered if pages[r] == page]
            band = [boxes[r] for r in there] + (_header_boxes(grid, cell) if page == pages[0] else [])
            band += foot_band(there, pages, boxes, page, (regions or {}).get(page))
            lines = _cell_lines(grid, cell, there, band, page_lines(page), text, words)  # type: ignore[arg-type]
            if _share(text, lines) >= MIN_CELL_SHARE:
                pad = PAD * max(min(ln.y1 - ln.y0, ln.x1 - ln.x0) for ln in lines)  # a line's thickness, turned or not
                box = (
                    max(0.0, min(ln.x0 for ln in lines) - pad),
                    max(0.0, min(ln.y0 for ln in lines) - pad),
                    min(1.0, max(ln.x1 for ln in lines) + pad),
                    min(1.0, max(ln.y1 for ln in lines) + pad),
                )
                printed[page] = (box, lines)
        if not printed:
            continue
        holding = {
            r
            for r in covered
            if pages[r] in printed and _share(text, _held(printed[pages[r]][1], boxes[r])) >= HOLDS_CELL  # type: ignore[arg-type]
        }
        if len(holding) == len(covered) and not _over_others(covered, pages, boxes):  # type: ignore[arg-type]
            continue  # printed in every row
        for r in sorted(holding):  # the row printing the cell, its box stretched over the rows below: its own lines
            lines = page_lines(pages[r])
            band = _own_band(grid, r, shared, [x for x in covered if x != r], boxes[r], lines, text, words)  # type: ignore[arg-type]
            if band is None and _share(text, printed[pages[r]][1]) >= HOLDS_CELL:  # the cell's own box holds it
                below = [boxes[x] for x in covered if x != r and pages[x] == pages[r]]
                band = _above_rows_below(grid, r, shared[r], below, boxes[r], lines, words)  # type: ignore[arg-type]
            if band is not None:
                boxes[r] = band
                holding.discard(r)
        for r in covered:
            here = [p for p in printed if p == pages[r]] or list(printed)
            cell_of[r, cell.col] = [(cell.col, p, printed[p][0]) for p in here]
            if r not in holding:
                out[r].extend(cell_of[r, cell.col])
    for r, box in enumerate(boxes):
        cols = {c: [b for _, p, b in cell_of[r, c] if p == pages[r]] for row, c in cell_of if row == r}
        band = _cut_to_own_lines(grid, r, shared[r], cols, box, page_lines(pages[r]), words) if cols and box else None
        if band is not None:
            boxes[r] = band
            for c in sorted(cols):
                out[r].extend(x for x in cell_of[r, c] if x not in out[r])
    return out


def _cell_lines(
    grid: TableGrid,
    cell: MergedCell,
    rows: list[int],
    boxes: list[BBox],
    lines: list[TextLine],
    text: str,
    words: Callable[[str], list[str]],
) -> list[TextLine]:
    """The lines of ``lines`` printing the merged cell (words ``text`` run together) beside ``rows``: the
    lines between the rows' top and bottom holding the cell's words and no other cell's of those rows,
    then those holding words of other cells too whose middle lies across the first ones (the cell's column:
    without a stray line of another column whose words the cell holds, :func:`_column`; a line's thickness
    either side for a cell printed sideways, whose lines stand side by side, and any turned line less than a
    thickness beside: a next line whose words other cells say too, its middle further off)."""
    own = _cell(grid.body_rows[cell.first], cell.col)
    others = [
        "".join(words(c))
        for r in rows
        for k, c in enumerate(grid.body_rows[r])
        if k != cell.col and c.strip() and _cell(grid.body_rows[r], k) != own  # the same cell spanning columns
    ]
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    candidates = [
        ln
        for ln in lines
        if top <= (ln.y0 + ln.y1) / 2 <= bottom and len(joined := "".join(ln.words)) >= 2 and joined in text
    ]
    sure = _sure_lines(candidates, others, text)
    band = [ln for ln in lines if top <= (ln.y0 + ln.y1) / 2 <= bottom]
    joined = [ln for ln in joined_runs(band, text) if len("".join(ln.words)) >= 2]
    if _share(text, sure_joined := _sure_lines(joined, others, text)) > _share(text, sure):
        candidates, sure = joined, sure_joined  # a line read as several runs (``5`` | ``days*``), put together
    if not sure:
        return []
    sure = _column(sure)  # not a line of another column whose words the cell happens to hold
    left, right = min(ln.x0 for ln in sure), max(ln.x1 for ln in sure)
    if all(_turned(ln) for ln in sure):  # printed sideways: its next line, turned too, stands beside,
        thick = max(ln.x1 - ln.x0 for ln in sure)  # less than a line's thickness from it
        beside = [ln for ln in candidates if _turned(ln) and ln.x0 <= right + thick and ln.x1 >= left - thick]
        return [
            ln
            for ln in candidates
            if ln in sure or ln in beside or left - thick <= (ln.x0 + ln.x1) / 2 <= right + thick
        ]
    across = [ln for ln in candidates if ln not in sure and left <= (ln.x0 + ln.x1) / 2 <= right]
    return [ln for ln in candidates if ln in sure or (ln in across and not piece_of_other_line(ln, lines, text))]


def _turned(ln: TextLine) -> bool:
    """A line printed sideways: taller than wide."""
    return ln.y1 - ln.y0 > ln.x1 - ln.x0


def _over_others(rows: list[int], pages: list[int], boxes: list[BBox]) -> bool:
    """The box of one of ``rows`` reaches over the middle of another's on its page: a box stretched to the height
    of a merged cell holds it though the cell is printed once, on the other row's line."""
    return any(
        r != x and pages[r] == pages[x] and centre_in(TextLine([], *boxes[x]), boxes[r]) for r in rows for x in rows
    )


def _sure_lines(candidates: list[TextLine], others: list[str], text: str) -> list[TextLine]:
    """The lines of ``candidates`` holding the cell's words and no other cell's (``others``), else the lines
    saying the whole cell (:func:`.whole_cell_lines`: a short cell whose words other cells say too)."""
    sure = [ln for ln in candidates if not any("".join(ln.words) in o for o in others)]
    return sure or whole_cell_lines(candidates, text)


def _own_band(
    grid: TableGrid,
    r: int,
    shared: list[set[int]],
    others: list[int],
    box: BBox,
    lines: list[TextLine],
    text: str,
    words: Callable[[str], list[str]],
) -> BBox | None:
    """``box`` cut to the lines of row ``r``'s own cells (not the merged ones: ``shared``, the merged columns of
    each row) when it holds lines of the rows ``others`` and none of theirs lies between its own lines;
    ``None`` when it holds none of theirs or cannot be cut."""
    own = "".join(w for k, c in enumerate(grid.body_rows[r]) if k not in shared[r] for w in words(c))
    theirs = [
        "".join(w for k, c in enumerate(grid.body_rows[o]) if k not in shared[o] for w in words(c)) for o in others
    ]
    spanning = ["".join(words(grid.body_rows[r][k])) for k in shared[r] if k < len(grid.body_rows[r])]
    mine, foreign = [], []
    for ln in _inside(lines, box):
        joined = "".join(ln.words)
        if len(joined) < 2 or any(joined in t for t in spanning):
            continue
        if joined in own:
            mine.append(ln)
        elif any(joined in t for t in theirs):
            foreign.append(ln)
    if not mine or not foreign:
        return None
    pad = PAD * max(ln.y1 - ln.y0 for ln in mine)
    y0, y1 = max(box[1], min(ln.y0 for ln in mine) - pad), min(box[3], max(ln.y1 for ln in mine) + pad)
    if any(y0 <= (ln.y0 + ln.y1) / 2 <= y1 for ln in foreign):
        return None
    return (box[0], y0, box[2], y1)


def _above_rows_below(
    grid: TableGrid,
    r: int,
    shared: set[int],
    below: list[BBox | None],
    box: BBox,
    lines: list[TextLine],
    words: Callable[[str], list[str]],
) -> BBox | None:
    """``box`` cut where the first of the boxes ``below`` (of the other rows the merged cell spans) starts, when
    they lie inside it (a ruled row whose merged cells reach down over the rows they span, those rows boxed on
    their own lines) and the lines left in it hold :data:`HOLDS_OWN` of the characters of row ``r``'s own cells
    (not its merged ones, ``shared``); ``None`` otherwise. Used when :func:`_own_band` cannot tell the row's lines
    from the others' (short lines such as ``BD`` or ``5 days`` are the words of many rows)."""
    inside = [
        b
        for b in below
        if b is not None and box[1] < b[1] and (b[1] + b[3]) / 2 < box[3] and box[0] <= (b[0] + b[2]) / 2 <= box[2]
    ]
    own = [w for k, c in enumerate(grid.body_rows[r]) if k not in shared for w in words(c)]
    if not inside or not own:
        return None
    cut = (box[0], box[1], box[2], min(b[1] for b in inside))
    held = "".join(w for ln in _inside(lines, cut) for w in ln.words)
    if sum(len(w) for w in own if w in held) < HOLDS_OWN * sum(len(w) for w in own):
        return None
    return cut


def _cut_to_own_lines(
    grid: TableGrid,
    r: int,
    shared: set[int],
    outlined: dict[int, list[BBox]],
    box: BBox,
    lines: list[TextLine],
    words: Callable[[str], list[str]],
) -> BBox | None:
    """``box`` cut to the lines of row ``r``'s own cells (not its merged ones, ``shared``) when it holds lines
    of its merged cells more than a line above or below them (a box stretched to the height of the cells
    the row shares, as a ruled grid gives the last row a merged cell covers); ``None`` when it holds none,
    or when it would lose more than lines of merged cells lying in their own boxes (``outlined``: column ->
    the cell's boxes on the row's page) and of other rows (a line whose words are no cell's, or the row's
    own and a merged cell's, keeps it whole; a line of a merged cell's words outside its boxes too, unless it is
    one word other rows' cells not shared with this row hold, as a conjunction a long note cell happens to
    hold). A line of words both the row's own cells and a merged cell say is the row's own when it lies outside
    that cell's boxes (:func:`_off_cells`: the last line of a wrapped cell, one word long, beside a note that says
    the word too)."""
    row = grid.body_rows[r]
    own = "".join(w for k, c in enumerate(row) if k not in shared for w in words(c))
    spanning = {k: "".join(words(row[k])) for k in shared if k < len(row)}
    others = ["".join(w for c in o for w in words(c)) for k, o in enumerate(grid.body_rows) if k != r]
    unshared = [  # other rows' cells but those they share with this row
        "".join(w for j, c in enumerate(o) if not (j < len(row) and _cell(o, j) == _cell(row, j)) for w in words(c))
        for k, o in enumerate(grid.body_rows)
        if k != r
    ]
    mine: list[TextLine] = []
    rest: list[tuple[TextLine, set[int] | None]] = []  # a line off the row's own: its merged columns, or None
    for ln in _inside(lines, box):
        joined = "".join(ln.words)
        if len(joined) < 2:
            continue
        cols = {k for k, t in spanning.items() if joined in t}
        if joined in own and (not cols or _off_cells(ln, cols, outlined)):
            mine.append(ln)
        elif cols and joined not in own:
            rest.append((ln, cols))
        elif not cols and any(joined in t for t in others):
            rest.append((ln, set()))
        else:
            rest.append((ln, None))
    if not mine:
        return None
    height = max(ln.y1 - ln.y0 for ln in mine)
    top, bottom = min(ln.y0 for ln in mine), max(ln.y1 for ln in mine)
    cut = [(ln, cols) for ln, cols in rest if not top - height <= (ln.y0 + ln.y1) / 2 <= bottom + height]
    if not any(cols for _, cols in cut):
        return None
    for ln, cols in cut:
        if cols is None:
            return None
        outside = cols and not any(_within(ln, b) for k in cols for b in outlined.get(k, []))
        short = len(ln.words) == 1 and any(ln.words[0] in t for t in unshared)  # a word of another row (``OR``)
        if outside and not short:
            return None
    return (box[0], max(box[1], top - PAD * height), box[2], min(box[3], bottom + PAD * height))


def _off_cells(ln: TextLine, cols: set[int], outlined: dict[int, list[BBox]]) -> bool:
    """Each merged cell of ``cols`` is outlined on the page (``outlined``: column -> its boxes) and ``ln``'s middle
    lies in none of its boxes: the line is printed elsewhere than the cells whose words it says."""
    return all(outlined.get(k) for k in cols) and not any(centre_in(ln, b) for k in cols for b in outlined[k])


def _column(lines: list[TextLine]) -> list[TextLine]:
    """The lines of ``lines`` without those standing apart from the rest (more than half a line's height to
    their side, a line's width for a turned line) that hold under :data:`STRAY_SHARE` of their characters:
    a word of another column the cell happens to hold. Lines side by side (a cell printed sideways, words
    apart on one line) stay."""
    groups: list[list[TextLine]] = []
    right = 0.0
    for ln in sorted(lines, key=lambda ln: ln.x0):
        turned = ln.y1 - ln.y0 > ln.x1 - ln.x0  # a turned cell's lines lie a line apart, words a space apart
        if groups and ln.x0 <= right + (ln.x1 - ln.x0 if turned else 0.5 * (ln.y1 - ln.y0)):
            groups[-1].append(ln)
        else:
            groups.append([ln])
        right = max(right, ln.x1) if len(groups[-1]) > 1 else ln.x1
    size = [sum(len("".join(ln.words)) for ln in g) for g in groups]
    return [ln for g, n in zip(groups, size) if n >= STRAY_SHARE * sum(size) or n == max(size) for ln in g]


def _header_boxes(grid: TableGrid, cell: MergedCell) -> list[BBox]:
    """The boxes of the header rows whose cell of the column says the merged cell: a column header reaching down
    over the rows (a form's label beside the rows it heads), printed once from the header's top."""
    if len(grid.header_row_bboxes) != len(grid.header_rows):
        return []
    own = _cell(grid.body_rows[cell.first], cell.col)
    return [
        box
        for row, box in zip(grid.header_rows, grid.header_row_bboxes)
        if box is not None and _cell(row, cell.col) == own
    ]


def _cell(row: list[str], col: int) -> str:
    return " ".join(row[col].split()) if col < len(row) else ""


def _inside(lines: list[TextLine], box: BBox | None) -> list[TextLine]:
    if box is None:
        return []
    return [ln for ln in lines if centre_in(ln, box)]


def centre_in(ln: TextLine, box: BBox) -> bool:
    """The middle of ``ln`` lies in ``box``."""
    return box[0] <= (ln.x0 + ln.x1) / 2 <= box[2] and box[1] <= (ln.y0 + ln.y1) / 2 <= box[3]


def _within(ln: TextLine, box: BBox) -> bool:
    """``ln`` lies in ``box`` from end to end (within a tenth of its height)."""
    slack = 0.1 * (ln.y1 - ln.y0)
    return box[0] - slack <= ln.x0 and ln.x1 <= box[2] + slack and box[1] - slack <= ln.y0 and ln.y1 <= box[3] + slack


def _held(lines: list[TextLine], box: BBox) -> list[TextLine]:
    """The lines of ``lines`` whose middle lies in ``box``: a line printed across (wider than tall) when the box
    holds :data:`HOLDS_LINE` of its height (a merged cell's line centred across two rows, on their border, is
    held by neither box, though its middle touches both), a line printed sideways only when it lies in it from
    end to end, within half its width (one printed across several rows is held by none of their boxes, though
    its middle lies in one)."""
    out = []
    for ln in _inside(lines, box):
        width, height = ln.x1 - ln.x0, ln.y1 - ln.y0
        if height <= width:
            held = min(ln.y1, box[3]) - max(ln.y0, box[1]) >= HOLDS_LINE * height
        else:
            held = box[1] - width / 2 <= ln.y0 and ln.y1 <= box[3] + width / 2
        if held:
            out.append(ln)
    return out


def _share(text: str, lines: list[TextLine]) -> float:
    """Share of ``text``'s characters the lines' words cover (each line once, by length)."""
    got = sum(len("".join(ln.words)) for ln in lines)
    return min(1.0, got / len(text)) if text else 0.0
