"""Stage 6: a parser's table markup checked against the PDF's text layer, replaced when it garbles words.

A parser-markup grid is read again from the text layer when fewer than :data:`MIN_HEADER_WORDS_FOUND` of its
header words are there, when a header row is a data row, when it was read turned round, when a cell holds a piece
of a word the region prints whole or figures the region prints apart glued into one (:func:`cuts_printed`: a
column boundary cut the words of the page), or when it may hold stacked items. The new grid is used only if it
keeps the body's figures (:data:`MIN_FIGURES_KEPT`; not those it glued or cut, each at most as often as the region
prints it), loses no row (fewer body rows only
when the markup holds a figure the region does not print and each parser row is found in the new grid,
:func:`~.row_accounting.keeps_rows`: a wrapped label read as one row, a column-header row the parser put in
the body) and reads the document's own words at least as well (:func:`known_share`; a word the page prints
whole on the lines it read counts as the document's own). Its last rows lying wholly below the parser's region
(the top of a footnote the padding reaches) are dropped first (:func:`without_rows_below`), and so are its first
body rows lying wholly above it (the last row of the block above, :func:`without_rows_above`). Whichever grid
is kept, a phrase the page prints whole that its column borders cut (a period header spanning two columns,
``Three month3`` | ``s ended June0,``) is given back whole to the cells it spans (:mod:`.cut_phrases`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Collection
from typing import Any

from structaware_readers.models import Block, TableGrid
from structaware_readers.table_recovery.cut_phrases import mend_cut_phrases, printed_lines
from structaware_readers.table_recovery.grid_rules import is_data_row_cells
from structaware_readers.table_recovery.pdf_text_layer import PAD, grid_from_region
from structaware_readers.table_recovery.pdfium_text import TextRun, runs_in
from structaware_readers.table_recovery.reading_direction import region_words
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.table_recovery.row_accounting import figure_runs, glued_figures, keeps_rows
from structaware_readers.table_recovery.rows_outside import without_rows_above, without_rows_below
from structaware_readers.table_recovery.shown_page import shown_page
from structaware_readers.table_recovery.stacked_rows import may_hold_stacked_rows, splits_names
from structaware_readers.tables import grid_to_text

__all__ = [
    "MIN_FIGURES_KEPT",
    "MIN_HEADER_WORDS_FOUND",
    "MIN_WORDS_KEPT",
    "check_markup",
    "check_merged_parts",
    "check_parser_markup",
    "check_parts",
    "cuts_printed",
    "document_words",
    "keeps_data",
    "known_share",
]

log = logging.getLogger(__name__)

#: A header whose words are found in the PDF region at this share or more is right as it is.
MIN_HEADER_WORDS_FOUND = 0.9
#: The rebuilt grid must keep at least this share of the parser body's figures.
MIN_FIGURES_KEPT = 0.95
#: ... and of the parser grid's words that the document's text holds (a grid that cuts words loses them).
MIN_WORDS_KEPT = 0.95

#: The region widening for PDFium's runs (share of the page; about :data:`~.pdf_text_layer.PAD` points).
RUN_PAD = 0.004

_WORD = re.compile(r"[A-Za-z]{3,}")
_LETTERS = re.compile(r"[A-Za-z]+")


def check_parser_markup(rec: Recovery, page_number: int, page: Any) -> None:
    """Check the parser-markup tables of ``page_number`` (stage 1's ``checks``; ``page``: its
    ``pdfplumber.page.Page``) and give each whose header garbles words, or whose rows stack items,
    the text layer's grid when that keeps the data (``rec.vocabulary``: the document's own words).
    With ``rec.text`` (PDFium's text runs) a header whose words are all there is passed without
    parsing the page with pdfplumber."""
    runs = rec.text.runs(page_number) if rec.text is not None else None
    for i in rec.on_page(rec.checks, page_number):
        if not rec.taken(i):
            others = [(b.bbox, b.text) for j, b in enumerate(rec.blocks) if j != i and b.page == page_number and b.bbox]
            rec.blocks[i] = _checked_block(rec.blocks[i], page, rec.vocabulary, runs, others)


def check_merged_parts(rec: Recovery, plumber: Any) -> None:
    """Check the tables merged across pages that may stack items in a row or were read turned round
    (stage 1's ``parts``), part by part (``plumber``: the open ``pdfplumber.PDF``), after the pages
    are done (:func:`check_parts`)."""
    for i, b in enumerate(rec.blocks):
        if b.block_id in rec.parts and i not in rec.absorbed:
            rec.blocks[i] = _checked_parts(b, plumber, rec.vocabulary)


def check_markup(
    block: Block,
    page: Any,
    vocabulary: Counter[str] | None = None,
    runs: list[TextRun] | None = None,
    others: list[tuple[tuple[float, float, float, float], str]] | None = None,
) -> TableGrid | None:
    """The text layer's grid of ``block``'s region when the parser's header garbles words (module docstring), else
    ``None`` (keep the parser's grid). ``others``: the regions (0..1, top-left) and texts of the page's other
    blocks, whose rows the rebuild's padding may reach above ``block`` (:func:`without_rows_above`).
    """
    grid = block.table
    assert grid is not None and block.bbox is not None
    printed = _printed(page, block.bbox, runs)
    garbled = grid.turned or _header_garbled(grid, page, block.bbox, runs) or cuts_printed(grid, *printed)
    if not garbled and not may_hold_stacked_rows(grid.body_rows):
        return None
    rebuilt = grid_from_region(page, block.bbox, page_number=block.page)
    if rebuilt is None or rebuilt.n_cols < 2:
        return None
    rebuilt = without_rows_above(without_rows_below(rebuilt, block.bbox), block.bbox, others or [])
    if len(rebuilt.body_rows) < len(grid.body_rows) and not (
        garbled and _alters_figures(grid, printed[1]) and keeps_rows(grid, rebuilt)
    ):
        return None  # fewer rows, not explained by rows read together or moved to the header
    if not garbled and not splits_names(grid.body_rows, rebuilt.body_rows):
        return None  # the parser's header is right and no stacked items were cut apart
    words = printed[0] | _row_words(rebuilt, runs)
    return rebuilt if keeps_data(grid, rebuilt, vocabulary, printed[1], words) else None


def check_parts(block: Block, pages: list[Any], vocabulary: Counter[str] | None = None) -> TableGrid | None:
    """The text layer's grid of a table merged across pages, read part by part, or ``None``."""
    grid = block.table
    assert grid is not None and block.bbox is not None
    regions = [(block.page, block.bbox), *zip(block.extra_pages, block.extra_bboxes)]
    read: dict[int, TableGrid] = {}

    def part(k: int) -> TableGrid | None:
        if k not in read:
            p, bbox = regions[k]
            got = grid_from_region(pages[k], bbox, page_number=p)
            if got is None or got.n_cols < 2 or any(other.n_cols != got.n_cols for other in read.values()):
                return None
            read[k] = got
        return read[k]

    if not grid.turned:
        first = _stacked_parts(grid, [p for p, _ in regions])
        if first:
            if any(part(k) is None for k in first):
                return None
            candidates = [row for k in first for row in (*read[k].header_rows, *read[k].body_rows)]
            on_pages = {regions[k][0] for k in first}
            rows_there = [row for row, p in zip(grid.body_rows, grid.body_row_pages) if p in on_pages]
            if not splits_names(rows_there, candidates):
                return None  # no names cut where they are printed: the other pages cannot change that
    if any(part(k) is None for k in range(len(regions))):  # in page order: the first that fails ends the check
        return None
    parts = [read[k] for k in range(len(regions))]
    first_part = parts[0]
    body: list[list[str]] = []
    pages_of: list[int] = []
    boxes: list[Any] = []
    for k, got in enumerate(parts):
        extra = got.header_rows if k and got.header_rows != first_part.header_rows else []
        body += [*extra, *got.body_rows]
        pages_of += [regions[k][0]] * len(extra) + got.body_row_pages
        boxes += [regions[k][1]] * len(extra) + got.body_row_bboxes
    rebuilt = first_part.model_copy(update={"body_rows": body, "body_row_pages": pages_of, "body_row_bboxes": boxes})
    if grid.turned:  # a part read turned round: the text layer's reading, if it loses no row
        if len(rebuilt.body_rows) < len(grid.body_rows):
            return None
    elif len(rebuilt.body_rows) <= len(grid.body_rows) or not splits_names(grid.body_rows, rebuilt.body_rows):
        return None
    return rebuilt if keeps_data(grid, rebuilt, vocabulary) else None


def _stacked_parts(grid: TableGrid, part_pages: list[int]) -> list[int]:
    """The indices of the parts (``part_pages``: each part's 1-based page) holding a body row that may
    hold stacked items; ``[]`` when the grid does not say which page each row is on."""
    if len(grid.body_row_pages) != len(grid.body_rows):
        return []
    pages = {p for row, p in zip(grid.body_rows, grid.body_row_pages) if may_hold_stacked_rows([row])}
    return [k for k, p in enumerate(part_pages) if p in pages]


def keeps_data(
    grid: TableGrid,
    rebuilt: TableGrid,
    vocabulary: Counter[str] | None,
    printed: set[str] | Counter[str] | None = None,
    printed_words: set[str] | None = None,
) -> bool:
    """``rebuilt`` may replace the parser's ``grid``: no header row of it is a data row, it keeps at
    least :data:`MIN_FIGURES_KEPT` of the parser's figures (with repeats; ``printed``, the region's
    figure runs, given: not counting a run that is 2+ of them glued, ``55321,209`` for ``553`` and
    ``21,209``, which no grid of the page holds; given with the times each is printed, as
    :func:`_printed` gives them: nor a piece the markup cut out of a printed figure, ``018`` of
    ``2018``, and a printed figure only as often as the region prints it, since a cell the markup
    wrote twice is no datum the text layer's grid can keep), and (``vocabulary`` given)
    it reads the document's own words at least as well (:func:`known_share`) and keeps at least
    :data:`MIN_WORDS_KEPT` of the parser grid's words that the document's text holds (a grid whose
    cells cut words, ``M e N S`` for ``Module``, loses them). ``printed_words``, the region's letter runs
    (lower case), given: a word the region prints whole counts as the document's own in both grids (a
    column header's ``Thereafter`` that no paragraph uses, which a markup gluing the header into figures
    lost, is no worse a reading than the parser's)."""
    if any(is_data_row_cells(row) for row in rebuilt.header_rows):
        return False
    before = _figures([row for row in grid.header_rows if is_data_row_cells(row)] + grid.body_rows)
    if printed is not None:  # figures printed apart and glued by the parser are not the parser's to keep
        before = Counter({f: n for f, n in before.items() if f in printed or not glued_figures(f, printed)})
    if isinstance(printed, Counter):  # nor the pieces it cut out of printed ones, nor a cell it wrote twice
        before = Counter(
            {f: min(n, printed[f]) if f in printed else n for f, n in before.items() if not _cut_from(f, printed)}
        )
    after = _figures([*rebuilt.header_rows, *rebuilt.body_rows])
    kept = sum(min(n, after[f]) for f, n in before.items())
    if before and kept < MIN_FIGURES_KEPT * sum(before.values()):
        return False
    if vocabulary is None:
        return True
    parser_known = {w for w in _words_of(_cells(grid)) if vocabulary[w] > 0}
    lost = parser_known - set(_words_of(_cells(rebuilt)))
    if len(lost) > (1 - MIN_WORDS_KEPT) * len(parser_known):
        return False
    if printed_words:
        vocabulary = vocabulary + Counter(printed_words)
    return known_share(_cells(rebuilt), vocabulary) >= known_share(_cells(grid), vocabulary)


def _header_garbled(
    grid: TableGrid, page: Any, bbox: tuple[float, float, float, float], runs: list[TextRun] | None = None
) -> bool:
    """A header row is a data row, or fewer than :data:`MIN_HEADER_WORDS_FOUND` of the header's words
    are in the region's text layer (first looked up among PDFium's ``runs`` of the region, when given:
    found there, the header is right; else pdfplumber's words of the region decide)."""
    if any(is_data_row_cells(row) for row in grid.header_rows):
        return True
    header_words = [w.lower() for row in grid.header_rows for cell in row for w in _WORD.findall(cell)]
    if not header_words:
        return False
    if runs is not None and _found(header_words, _run_words(runs, bbox)):
        return False
    pdf_words = _region_words(page, bbox)
    if not pdf_words:
        return False
    return not _found(header_words, pdf_words)


def cuts_printed(grid: TableGrid, words: set[str], figures: Collection[str]) -> bool:
    """A cell of ``grid`` holds a piece of a word the region prints whole (``onth`` of ``months``: 3+
    letters, printed in the region only inside a longer word), or a figure run the region does not
    print that reads as 2+ runs it does print (``55321,209`` for ``553`` and ``21,209``): a column
    boundary cut the page's words, or a cell took two lines of figures as one. ``words``: the
    region's letter runs (lower case); ``figures``: its figure runs (:func:`_printed`). Letters and
    figures the region does not print at all (another spelling, a misread) say nothing."""
    if not words and not figures:
        return False
    for cell in _cells(grid):
        for w in _WORD.findall(cell):
            low = w.lower()
            if low not in words and any(low in p for p in words if len(p) > len(low)):
                return True
        for f in figure_runs([cell]):
            if f not in figures and glued_figures(f, figures):
                return True
    return False


def _cut_from(figure: str, printed: Collection[str]) -> bool:
    """``figure`` is not among the ``printed`` figure runs but is a piece of a longer one (``018`` of ``2018``)."""
    return figure not in printed and any(figure in p for p in printed if len(p) > len(figure))


def _alters_figures(grid: TableGrid, figures: Collection[str]) -> bool:
    """A cell of ``grid`` holds a figure run the region does not print (``202`` of ``2022`` cut at a column
    boundary, two runs glued): the markup changes a number, which a grid read with fewer rows may mend."""
    return any(f not in figures for f in _figures([*grid.header_rows, *grid.body_rows]))


def _printed(
    page: Any, bbox: tuple[float, float, float, float], runs: list[TextRun] | None
) -> tuple[set[str], Counter[str]]:
    """The letter runs (lower case) and figure runs (with the times each is printed) of the region's text layer: PDFium's ``runs``
    whose centre lies in ``bbox`` widened by :data:`RUN_PAD`, else pdfplumber's words of the region."""
    texts = _run_texts(runs, bbox) if runs is not None else [w["text"] for w in _page_words(page, bbox)]
    words = {w.lower() for t in texts for w in _LETTERS.findall(t)}
    return words, Counter(figure_runs(texts))


def _row_words(rebuilt: TableGrid, runs: list[TextRun] | None) -> set[str]:
    """The letter runs (lower case) of PDFium's ``runs`` whose centre lies in a row box of ``rebuilt``: the
    words printed whole on the lines the rebuild read (its header may lie in the region's padding, above
    the parser's box)."""
    if runs is None:
        return set()
    boxes = [b for b in (*rebuilt.header_row_bboxes, *rebuilt.body_row_bboxes) if b is not None]
    return {w.lower() for b in boxes for run in runs_in(runs, b) for w in _LETTERS.findall(run.text)}


def _found(header_words: list[str], pdf_words: set[str]) -> bool:
    return sum(1 for w in header_words if w in pdf_words) >= MIN_HEADER_WORDS_FOUND * len(header_words)


def _run_texts(runs: list[TextRun], bbox: tuple[float, float, float, float]) -> list[str]:
    """The texts of the runs whose centre lies in ``bbox`` widened by :data:`RUN_PAD`."""
    region = (bbox[0] - RUN_PAD, bbox[1] - RUN_PAD, bbox[2] + RUN_PAD, bbox[3] + RUN_PAD)
    return [run.text for run in runs_in(runs, region)]


def _run_words(runs: list[TextRun], bbox: tuple[float, float, float, float]) -> set[str]:
    """The words (3+ letters, lower case) of :func:`_run_texts`."""
    return {w.lower() for text in _run_texts(runs, bbox) for w in _WORD.findall(text)}


def document_words(texts: list[str]) -> Counter[str]:
    """For each word (3+ letters, lower case) of ``texts`` (one text per block), the number of texts
    holding it: a document's own words, as its parser read them."""
    out: Counter[str] = Counter()
    for text in texts:
        out.update(set(_words_of([text])))
    return out


def known_share(cells: list[str], vocabulary: Counter[str]) -> float:
    """The share of the distinct words (3+ letters) of ``cells`` that ``vocabulary`` holds; 1.0 when
    the cells hold no word."""
    words = set(_words_of(cells))
    return sum(1 for w in words if vocabulary[w] > 0) / len(words) if words else 1.0


def _words_of(texts: list[str]) -> list[str]:
    return [w.lower() for t in texts for w in _WORD.findall(t)]


def _cells(grid: TableGrid) -> list[str]:
    return [grid.title, *(c for row in [*grid.header_rows, *grid.body_rows] for c in row)]


def _region_words(page: Any, bbox: tuple[float, float, float, float]) -> set[str]:
    words = _page_words(page, bbox)
    return {w.lower() for word in words for w in _WORD.findall(word["text"])}


def _page_words(page: Any, bbox: tuple[float, float, float, float]) -> list[dict[str, Any]]:
    """pdfplumber's words of the region ``bbox`` (0..1 of the page) widened by :data:`PAD` points."""
    px0, ptop, px1, pbottom = (float(v) for v in page.bbox)
    width, height = px1 - px0, pbottom - ptop
    region = (
        max(px0, px0 + bbox[0] * width - PAD),
        max(ptop, ptop + bbox[1] * height - PAD),
        min(px1, px0 + bbox[2] * width + PAD),
        min(pbottom, ptop + bbox[3] * height + PAD),
    )
    if region[2] - region[0] < 1 or region[3] - region[1] < 1:
        return []
    return region_words(page.crop(region, strict=False), x_tolerance=3, y_tolerance=3)


def _figures(rows: list[list[str]]) -> Counter[str]:
    return Counter(figure_runs(cell for row in rows for cell in row))


def _checked_block(
    block: Block,
    page: Any,
    vocabulary: Any,
    runs: list[TextRun] | None = None,
    others: list[tuple[tuple[float, float, float, float], str]] | None = None,
) -> Block:
    """``block`` with the text layer's grid when its markup garbles the header and the text layer reads
    the document's words as well (:mod:`.markup_check`)."""
    try:
        grid = check_markup(block, page, vocabulary, runs, others)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    mended = _mended(grid or block.table, block.bbox, runs)
    grid = mended or grid
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})


def _mended(grid: TableGrid | None, bbox: Any, runs: list[TextRun] | None) -> TableGrid | None:
    """``grid`` with the phrases its column borders cut given back whole from PDFium's ``runs`` of the region
    (:func:`~.cut_phrases.mend_cut_phrases`), or ``None`` when it cuts none."""
    if grid is None or runs is None or bbox is None:
        return None
    region = (bbox[0] - RUN_PAD, bbox[1] - RUN_PAD, bbox[2] + RUN_PAD, bbox[3] + RUN_PAD)
    return mend_cut_phrases(grid, printed_lines(runs_in(runs, region)))


def _checked_parts(block: Block, plumber: Any, vocabulary: Any) -> Block:
    """``block`` (a table merged across pages) with the text layer's grid, read part by part, when that
    cuts stacked items into rows of their own (:func:`~.markup_check.check_parts`)."""
    pages = [shown_page(plumber, p) for p in (block.page, *block.extra_pages)]
    try:
        grid = check_parts(block, pages, vocabulary)
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many types on broken content streams
        log.debug("page %d: text layer of %s cannot be read: %s", block.page, block.block_id, exc)
        grid = None
    finally:
        for page in pages:
            page.root_page.close()
    if grid is None:
        return block
    return block.model_copy(update={"table": grid, "text": grid_to_text(grid)})
