"""Stage 8: where each body row of a table lies on the page, from the PDF's text layer, and where the merged
cells it shares are printed (:mod:`.merged_cells`). Boxes are 0..1 of the page as displayed, origin top-left.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import Any

from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.table_recovery.beside_rows import cut_beside_rows
from structaware_readers.table_recovery.between_rows import row_between
from structaware_readers.table_recovery.cell_chains import continued_row
from structaware_readers.table_recovery.cells_apart import outline_cells_apart
from structaware_readers.table_recovery.echo_rows import box_echo_rows
from structaware_readers.table_recovery.free_lines import free_lines
from structaware_readers.table_recovery.header_body_cells import row_cell_boxes
from structaware_readers.table_recovery.header_lines import above_first_row
from structaware_readers.table_recovery.header_words import under_header
from structaware_readers.table_recovery.merged_cells import TextLine as _Line
from structaware_readers.table_recovery.merged_cells import centre_in, merged_cells
from structaware_readers.table_recovery.nested_rows import cut_nested_rows
from structaware_readers.table_recovery.own_columns import cut_to_own_columns, has_row_boxes
from structaware_readers.table_recovery.pdfium_text import PdfiumText, runs_in
from structaware_readers.table_recovery.runless_rows import runless_rows
from structaware_readers.table_recovery.said_runs import only_taker, reached_first, still_owed
from structaware_readers.table_recovery.shuffled_cells import unshuffled_view, with_cells_of
from structaware_readers.table_recovery.sideways_runs import across
from structaware_readers.table_recovery.turned_rows import column_boxes
from structaware_readers.tables.header_trim import rows_to_body

log = logging.getLogger(__name__)

__all__ = ["KEY_WORDS", "MIN_LINE_SHARE", "MIN_ROWS_FOUND", "add_row_boxes", "needs_row_boxes"]

#: Share of a line's words that must be the row's own words for the line to start or continue the row.
MIN_LINE_SHARE = 0.6
#: Words of a row's key cell its first line must hold, in order.
KEY_WORDS = 2
#: Share of a region's rows that must be found for any of them to get a box.
MIN_ROWS_FOUND = 0.5
#: A run of words several rows hold joins the nearest row's runs when it is this many of its own
#: heights from them at most, and its gap to them at most this share of its gap to the next row's.
NEAR_LINES, CLEARLY_NEARER = 1.5, 0.8
#: A row's run out of page order is dropped when it holds at most this many words (a header's word, a
#: note's); a longer one is the row's text, printed across other rows by a layout the parser's rows misread.
STRAY_WORDS = 2
#: Passes over the shared runs: each may place the line next to those placed by the one before.
SHARED_PASSES = 12
_WORD = re.compile(r"[^\W_]+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]")


def needs_row_boxes(block: Block) -> bool:
    """A table block with a bbox and body rows of which some have no box yet (a table continued
    across pages may have one part rebuilt from the text layer, with boxes, and one from markup), or
    whose merged cells have no boxes yet, or whose header rows read as body rows have none."""
    return _needs_body_boxes(block) or _needs_header_boxes(block)


def _grid(block: Block) -> TableGrid | None:
    """The block's grid when it is a table with a bbox and body rows (stage 8 can box its rows)."""
    grid = block.table
    ok = block.kind is BlockKind.TABLE and block.bbox is not None and grid is not None and bool(grid.body_rows)
    return grid if ok else None


def _needs_body_boxes(block: Block) -> bool:
    grid = _grid(block)
    if grid is None:
        return False
    known = grid.body_row_bboxes
    if len(known) != len(grid.body_rows) or any(b is None for b in known):
        return True
    return not grid.body_row_cell_bboxes and bool(merged_cells(grid))


def _needs_header_boxes(block: Block) -> bool:
    """Header rows the unit builder reads as body rows (an overlong header: :mod:`..tables.header_trim`),
    their boxes unknown."""
    grid = _grid(block)
    if grid is None:
        return False
    return len(grid.header_row_bboxes) != len(grid.header_rows) and rows_to_body(grid) > 0


def _pages(block: Block) -> list[int]:
    grid: TableGrid = block.table  # type: ignore[assignment]
    n = len(grid.body_rows)
    return list(grid.body_row_pages) if len(grid.body_row_pages) == n else [block.page] * n


def add_row_boxes(doc: ParsedDocument, pdf: Any) -> ParsedDocument:
    """``doc`` with ``body_row_bboxes`` (0..1 of the displayed page, origin top-left) set for its tables' rows found
    in the PDF's text layer, a box over other rows' lines cut to its own columns (:mod:`.own_columns`); ``doc``
    itself when no table needs them or the page count differs. Raises
    ``InputNotFoundError``, ``MalformedInputError`` (field ``pdf``).
    """
    targets = [i for i, b in enumerate(doc.blocks) if needs_row_boxes(b)]
    boxed = [i for i, b in enumerate(doc.blocks) if _grid(b) is not None]
    if not targets and not any(has_row_boxes(doc.blocks[i]) for i in boxed):
        return doc
    blocks = list(doc.blocks)
    text = pdf if isinstance(pdf, PdfiumText) else PdfiumText(pdf)
    try:
        if len(text) != doc.page_count:
            return doc
        lines: dict[tuple[int, BBox], list[_Line]] = {}

        def region_runs(page: int, region: BBox) -> list[_Line]:
            inside = [_Line(_words(r.text), r.x0, r.y0, r.x1, r.y1) for r in runs_in(text.runs(page), region)]
            return [ln for ln in inside if ln.words]

        def region_lines(page: int, region: BBox) -> list[_Line]:
            if (page, region) not in lines:
                lines[page, region] = _group_lines(region_runs(page, region))
            return lines[page, region]

        def page_runs(page: int) -> list[_Line]:
            return [ln for r in text.runs(page) if (ln := _Line(_words(r.text), r.x0, r.y0, r.x1, r.y1)).words]

        for i in targets:
            original = blocks[i]  # boxes are found on the cells as the text restore will write them
            blocks[i] = unshuffled_view(original, _pages(original), text.text)
            if _needs_header_boxes(blocks[i]):
                blocks[i] = _with_header_boxes(blocks[i], region_runs)
            block = blocks[i]
            if block is not original:
                blocks[i] = with_cells_of(block, original)
            if not _needs_body_boxes(block):
                continue
            boxes = _row_boxes(block, region_runs, region_lines)
            if any(b is not None for b in boxes):
                grid: TableGrid = block.table  # type: ignore[assignment]
                pages = _pages(block)  # a box is read with its page
                if grid.grid_source == "pdf_text_layer":  # ruled rows: none lies inside another
                    boxes = cut_nested_rows(grid, pages, boxes, page_runs, _words)
                    boxes = cut_beside_rows(grid, pages, boxes)
                    boxes = box_echo_rows(grid, pages, boxes, page_runs, _words)
                # may cut a box stretched over merged rows; a header row read as a body row shares merged cells too
                update = row_cell_boxes(grid, pages, boxes, page_runs, _words, _regions(block))
                if any(getattr(grid, k) != v for k, v in update.items()):
                    found = block.model_copy(update={"table": grid.model_copy(update=update)})
                    blocks[i] = with_cells_of(found, original) if block is not original else found
        for i in boxed:  # a row's box over other rows' lines: cut to its own columns; cells it misses, found apart
            if has_row_boxes(blocks[i]):
                cut = cut_to_own_columns(blocks[i], pages := _pages(blocks[i]), page_runs, _words)
                blocks[i] = outline_cells_apart(cut, pages, _regions(cut), page_runs, _words)
    finally:
        if text is not pdf:
            text.close()
    return doc.model_copy(update={"blocks": blocks})


def _with_header_boxes(block: Block, region_runs: Any) -> Block:
    """``block`` with a box for each header row the unit builder reads as a body row, found as body
    rows are, among the runs no body row's known box holds (a body row's words repeated in such a
    header row stay the body row's); the rows kept as column headers get none. ``block`` itself when
    too few are found (:data:`MIN_ROWS_FOUND`)."""
    grid: TableGrid = block.table  # type: ignore[assignment]
    moved = rows_to_body(grid)
    keep = len(grid.header_rows) - moved
    pages = _pages(block)
    n = len(grid.body_rows)
    known = list(grid.body_row_bboxes) if len(grid.body_row_bboxes) == n else [None] * n
    taken = [(p, b) for p, b in zip(pages, known) if b is not None]

    def free_runs(page: int, region: BBox) -> list[_Line]:
        return [run for run in region_runs(page, region) if not any(p == page and centre_in(run, b) for p, b in taken)]

    view = grid.model_copy(
        update={
            "header_rows": grid.header_rows[:keep],
            "body_rows": grid.header_rows[keep:] + grid.body_rows,
            "body_row_pages": [pages[0]] * moved + pages,
            "body_row_bboxes": [None] * moved + known,
            "body_row_cell_bboxes": [],
        }
    )
    found = _row_boxes(block.model_copy(update={"table": view}), free_runs, lambda p, r: _group_lines(free_runs(p, r)))[
        :moved
    ]
    if not any(b is not None for b in found):
        return block
    boxes: list[BBox | None] = [None] * keep + found
    return block.model_copy(update={"table": grid.model_copy(update={"header_row_bboxes": boxes})})


def _regions(block: Block) -> dict[int, BBox]:
    regions = {block.page: block.bbox} if block.bbox is not None else {}
    if len(block.extra_bboxes) == len(block.extra_pages):
        for page, box in zip(block.extra_pages, block.extra_bboxes):
            if box is not None:
                regions.setdefault(page, box)
    return regions  # type: ignore[return-value]


def _row_boxes(block: Block, region_runs: Any, region_lines: Any) -> list[BBox | None]:
    grid: TableGrid = block.table  # type: ignore[assignment]
    n = len(grid.body_rows)
    pages = _pages(block)
    out: list[BBox | None] = list(grid.body_row_bboxes) if len(grid.body_row_bboxes) == n else [None] * n
    regions = _regions(block)
    for page, region in regions.items():
        rows = [r for r in range(n) if pages[r] == page and out[r] is None]
        if not rows:
            continue
        runs = region_runs(page, region)
        found = _own_runs(grid, rows, runs)
        own = {r: _row_words(grid.body_rows[r]) for r in rows}
        columns = column_boxes(rows, own, found, runs, region)
        if columns:  # the parser read the table turned: its rows are the printed columns
            for r, box in columns.items():
                out[r] = box
            continue
        lines = region_lines(page, region)
        printed = across(runs, list(own.values()))
        if len(printed) < len(runs):  # a merged cell printed sideways is no row's own line
            runs, found, lines = printed, _own_runs(grid, rows, printed), _group_lines(printed)
        inside = runs
        by_lines = _match(grid, rows, lines) if len(found) < len(rows) else {}
        if len(found) < MIN_ROWS_FOUND * len(rows):
            inside, found = lines, by_lines
            if sum(1 for r in rows if found.get(r)) < MIN_ROWS_FOUND * len(rows):
                continue
        else:  # a row of shared words only (``5 | QoL, mortality`` beside ``6 | mortality, QoL``): its free lines
            spans = [(min(x.y0 for x in got), max(x.y1 for x in got)) for got in found.values()]
            keys = {r: row_lines[0] for r, row_lines in by_lines.items() if row_lines}
            for r, row_lines in by_lines.items():
                others = [line for q, line in keys.items() if q < r]  # the rows above it
                free = free_lines(lines, row_lines, spans, own[r], others) if row_lines else []
                if r not in found and free:
                    found[r] = free
        for r, row_lines in found.items():
            if row_lines:
                out[r] = _box(row_lines, region, inside)
    return out


def _own_runs(grid: TableGrid, rows: list[int], runs: list[_Line]) -> dict[int, list[_Line]]:
    """The text runs of each of ``rows`` among ``runs``, matched by text."""
    own = {r: _row_words(grid.body_rows[r]) for r in rows}
    header = {_row_words([cell]) for row in grid.header_rows for cell in row}
    anchored: dict[int, list[_Line]] = {r: [] for r in rows}
    shared: list[tuple[_Line, list[int]]] = []
    for run in runs:
        text = "".join(run.words)
        if len(text) < 2 or text in header:  # a column header's run ("职责") is no body row's
            continue
        holders = [r for r in rows if text in own[r]]
        if len(holders) == 1:
            anchored[holders[0]].append(run)
        elif holders:
            shared.append((run, holders))
    anchored, shared = under_header(anchored, shared, sorted(h for h in header if h))  # a header cell's lines
    anchored = above_first_row(anchored, sorted(h for h in header if h))  # a longer one, said by a later row
    found = _in_page_order(anchored)
    found, shared = runless_rows(found, shared)  # a row of shared words only: its runs between the rows around it
    cells = {r: ["".join(_words(cell)) for cell in grid.body_rows[r]] for r in rows}
    for _ in range(SHARED_PASSES):  # a row's shared first line placed, its shared second line is next to it
        spans = {r: (min(x.y0 for x in got), max(x.y1 for x in got)) for r, got in found.items() if got}
        left = []
        for run, holders in reached_first(shared, spans):  # a row's own copy counted before another copy is placed
            owed = still_owed(run, holders, found, own)  # not a row given every copy of the words its cells say
            r = _holder(run, owed, spans)
            if r is None and len(owed) < len(holders):
                r = only_taker(run, owed, spans)
            if r is None:  # a wrapped cell's line two rows say, as near to both: the row whose cell it continues
                r = continued_row(run, holders, found, cells)
            if r is None:  # a row of shared lines only: the one holder printed between the rows around the run
                r = row_between(run, holders, spans)
            if r is None:
                left.append((run, holders))
            else:
                found[r].append(run)
        if len(left) == len(shared):
            break
        shared = left
    return {r: got for r, got in found.items() if got}


def _in_page_order(anchored: dict[int, list[_Line]]) -> dict[int, list[_Line]]:
    """Each row's runs (``anchored``: rows in order, top to bottom) without those printed above an earlier
    row's or below a later row's middle (the median of its runs' middles, each run weighing its characters):
    a word one row's cells hold but printed elsewhere on the page, such as a column header's word (``Class``)
    or a note's, is not the row's line and would stretch its box over the rows between (a run of more than
    :data:`STRAY_WORDS` words stays). A row whose middle is out of order keeps its runs.
    """
    middles = {r: _median(got) for r, got in anchored.items() if got}
    out = {}
    for r, got in anchored.items():
        above = max((m for k, m in middles.items() if k < r), default=float("-inf"))
        below = min((m for k, m in middles.items() if k > r), default=float("inf"))
        if r in middles and above < middles[r] < below:
            got = [x for x in got if len(x.words) > STRAY_WORDS or above < (x.y0 + x.y1) / 2 < below]
        out[r] = list(got)
    return out


def _median(runs: list[_Line]) -> float:
    """The middle (top to bottom) of ``runs`` that half their characters reach: a row's long lines
    outweigh a stray word of it."""
    weighted = sorted(((x.y0 + x.y1) / 2, len("".join(x.words))) for x in runs)
    half, seen = sum(w for _, w in weighted) / 2, 0
    for middle, weight in weighted:
        seen += weight
        if seen >= half:
            return middle
    return weighted[-1][0]


def _holder(run: _Line, holders: list[int], spans: dict[int, tuple[float, float]]) -> int | None:
    """The row among ``holders`` a shared run belongs to: the one whose runs (``spans``: top and
    bottom of each row's runs so far) reach over its middle; else the row whose runs are nearest
    when they are within :data:`NEAR_LINES` of the run's height and clearly nearer than any other
    row's (a row's first or last line, shared with another row's words); else none (a merged cell
    printed once across the rows it covers is as near to both, and a run reaching into two rows'
    runs, a merged cell printed sideways, is neither's: :mod:`.merged_cells` outlines it)."""
    if len(_reached(run, spans)) >= 2:
        return None
    middle = (run.y0 + run.y1) / 2
    reach = [r for r in holders if r in spans and spans[r][0] <= middle <= spans[r][1]]
    if reach:
        return reach[0] if len(reach) == 1 else None
    if any(top <= middle <= bottom for top, bottom in spans.values()):
        return None  # inside another row
    gaps = sorted((max(top - middle, middle - bottom), r) for r, (top, bottom) in spans.items())
    if not gaps or gaps[0][1] not in holders or gaps[0][0] > NEAR_LINES * (run.y1 - run.y0):
        free = [r for r in holders if r not in spans]
        return free[0] if len(free) == 1 and not gaps else None
    if len(gaps) > 1 and gaps[0][0] > CLEARLY_NEARER * gaps[1][0]:
        return None
    return gaps[0][1]


def _reached(run: _Line, spans: dict[int, tuple[float, float]]) -> list[int]:
    """The rows whose runs (``spans``: top and bottom of each row's runs) reach into ``run`` by more than
    half its thickness (its height, or its width when it is printed sideways)."""
    half = 0.5 * min(run.y1 - run.y0, run.x1 - run.x0)
    return [r for r, (top, bottom) in spans.items() if min(bottom, run.y1) - max(top, run.y0) > half]


def _match(grid: TableGrid, rows: list[int], lines: list[_Line]) -> dict[int, list[_Line]]:
    """The lines of each of ``rows`` (body row indices, in order) among ``lines`` (top to bottom)."""
    starts: dict[int, int] = {}
    cursor = 0
    for r in rows:
        own = _row_words(grid.body_rows[r])
        key = _key_words(grid, r)
        for j in range(cursor, len(lines)):
            words = lines[j].words
            if words and _share(words, own) >= MIN_LINE_SHARE and _holds(words, key):
                starts[r] = j
                cursor = j + 1
                break
    found: dict[int, list[_Line]] = {}
    ordered = [r for r in rows if r in starts]
    for a, r in enumerate(ordered):
        start = starts[r]
        if a + 1 < len(ordered):
            found[r] = lines[start : starts[ordered[a + 1]]]
            continue
        own = _row_words(grid.body_rows[r])
        end = start + 1
        while end < len(lines) and _share(lines[end].words, own) >= MIN_LINE_SHARE:
            end += 1
        found[r] = lines[start:end]
    return found


def _box(row_lines: list[_Line], region: BBox, lines: list[_Line]) -> BBox:
    top = min(ln.y0 for ln in row_lines)
    bottom = max(ln.y1 for ln in row_lines)
    height = max(ln.y1 - ln.y0 for ln in row_lines)
    above = max((ln.y1 for ln in lines if ln.y1 <= top + 1e-6 and ln not in row_lines), default=region[1])
    below = min((ln.y0 for ln in lines if ln.y0 >= bottom - 1e-6 and ln not in row_lines), default=region[3])
    y0 = max(top - height, (top + above) / 2, region[1])  # half way to the line above: the row's cell border
    y1 = min(bottom + height, (bottom + below) / 2, region[3])
    return (region[0], y0, region[2], y1)


def _words(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        out.extend(list(word) if _CJK.search(word) else [word])
    return out


def _row_words(cells: list[str]) -> str:
    """The row's words run together: a line's word is the row's when it occurs in it, so a word the
    parser's markup split (``Ch ronic``, ``mm Hg``) still counts."""
    return "".join(w for cell in cells for w in _words(cell))


def _key_words(grid: TableGrid, r: int) -> list[str]:
    """The first :data:`KEY_WORDS` words of the leftmost non-empty cell of row ``r`` that differs from
    the rows above and below, else from the row above: the words a row's first line holds, run together
    (a wrapped cell's later lines do not hold them, nor does a merged cell's text, printed once and
    often centred across the rows it covers)."""
    rows = grid.body_rows
    row = rows[r]

    def differs(c: int, other: list[str] | None) -> bool:
        return other is None or c >= len(other) or other[c].strip() != row[c].strip()

    above = rows[r - 1] if r > 0 else None
    below = rows[r + 1] if r + 1 < len(rows) else None
    for near in ((above, below), (above,)):
        for c, cell in enumerate(row):
            if cell.strip() and all(differs(c, other) for other in near):
                return _words(cell)[:KEY_WORDS]
    return []


def _holds(words: list[str], key: list[str]) -> bool:
    """``key`` appears in ``words`` run together (an empty key always does; split words still match)."""
    return "".join(key) in "".join(words)


def _share(words: list[str], own: str) -> float:
    return sum(1 for w in words if w in own) / len(words) if words else 0.0


def _group_lines(runs: list[_Line]) -> list[_Line]:
    """Runs that overlap vertically by half the smaller height form one line (left to right)."""
    lines: list[list[_Line]] = []
    for run in sorted(runs, key=lambda r: ((r.y0 + r.y1) / 2, r.x0)):
        if lines:
            last = lines[-1]
            top, bottom = min(r.y0 for r in last), max(r.y1 for r in last)
            overlap = min(bottom, run.y1) - max(top, run.y0)
            if overlap >= 0.5 * min(bottom - top, run.y1 - run.y0):
                last.append(run)
                continue
        lines.append([run])
    out = []
    for group in lines:
        group.sort(key=lambda r: r.x0)
        out.append(
            _Line(
                [w for r in group for w in r.words],
                min(r.x0 for r in group),
                min(r.y0 for r in group),
                max(r.x1 for r in group),
                max(r.y1 for r in group),
            )
        )
    return out
