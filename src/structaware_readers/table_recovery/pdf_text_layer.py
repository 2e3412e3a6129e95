"""A table region of a PDF page -> :class:`TableGrid`, from the page's text layer (pdfplumber). Each body row keeps its
bbox (0..1 of the page, origin top-left) and 1-based page.
"""

from __future__ import annotations

from typing import Any

from structaware_readers.models import BBox, TableGrid
from structaware_readers.table_recovery.grid_rules import (
    RIGHT_SYMBOLS,
    Box,
    Line,
    Phrase,
    build_grid,
    header_count,
    is_value,
    split_title,
    starts_new_cell,
)
from structaware_readers.table_recovery.reading_direction import (
    cell_lines,
    reading_text,
    reading_words,
    table_cell_chars,
)
from structaware_readers.table_recovery.row_width import row_width
from structaware_readers.table_recovery.ruling import visible_rules
from structaware_readers.table_recovery.stacked_rows import split_stacked_items

#: Words closer than this many font sizes on one line are one phrase (a space is ~0.25-0.3 em).
PHRASE_GAP = 0.6
#: A ruled table (drawn cell borders) is used when it holds at least this share of the region's words.
MIN_RULED_SHARE = 0.8
#: Text lower than this share of the median text height is a footnote mark, not a line of its own.
SMALL_TEXT = 0.85
#: Padding (PDF points) added around the parser's region before cropping: its boxes are often a
#: point or two tight.
PAD = 2.0


def grid_from_region(page: Any, bbox: BBox, *, page_number: int, ruled: bool = True) -> TableGrid | None:
    """Rebuild the grid of the table inside ``bbox`` on a pdfplumber ``page``; ``ruled=False`` reads it as a
    borderless table even where ruling lines frame most of its words (rules that frame only part of it,
    shading bands under its body, leave the header lines above them and the rows below them out)."""
    px0, ptop, px1, pbottom = (float(v) for v in page.bbox)
    width, height = px1 - px0, pbottom - ptop
    if width <= 0 or height <= 0:
        return None
    region = (
        max(px0, px0 + bbox[0] * width - PAD),
        max(ptop, ptop + bbox[1] * height - PAD),
        min(px1, px0 + bbox[2] * width + PAD),
        min(pbottom, ptop + bbox[3] * height + PAD),
    )
    if region[2] - region[0] < 1 or region[3] - region[1] < 1:
        return None
    crop = page.crop(region, strict=False)
    words = reading_words(whole_glyphs(page, region), x_tolerance=3, y_tolerance=3, extra_attrs=["size"])
    if len(words) < 4:
        return None
    by_rules = _ruled_grid(crop, words) if ruled else None
    if by_rules is not None and _rows_in_one_cell([*by_rules[0], *by_rules[1]]):
        built = _text_grid(words) or by_rules  # row shading, not cell borders: the text lines, if they read
    else:
        built = by_rules or _text_grid(words)
    if built is None:
        return None
    header, body, body_boxes, header_boxes = built
    title, kept = split_title(header)
    header_boxes = header_boxes[len(header) - len(kept) :]  # a title row taken out takes its box along
    to_page = lambda b: (
        _clamp((b[0] - px0) / width),
        _clamp((b[1] - ptop) / height),
        _clamp((b[2] - px0) / width),
        _clamp((b[3] - ptop) / height),
    )
    return TableGrid(
        title=title,
        header_rows=kept,
        body_rows=body,
        body_row_pages=[page_number] * len(body),
        body_row_bboxes=[to_page(b) for b in body_boxes],
        header_row_bboxes=[to_page(b) for b in header_boxes],
        grid_source="pdf_text_layer",
    )


#: Glyphs of one line at most this far apart (PDF points) are one word, as the words are read (pdfplumber's
#: ``x_tolerance``).
WORD_GAP = 3.0


def whole_glyphs(page: Any, region: Box) -> list[dict[str, Any]]:
    """The glyphs of ``page`` that lie in ``region`` (PDF points, origin top-left), each with its whole
    box: a crop clips a glyph to its edge, and a line so clipped to a sliver reads as part of the line
    below it (``July 29, 202`` | ``3``), its figures cut by that line's glyphs. A word the region's left
    or right edge cuts (a glyph across the edge) is read whole: the glyphs of its line that follow (or
    precede) it, each within :data:`WORD_GAP` of the last, come along up to a space glyph (``1,234``
    whole, never the ``1`` inside the edge); the words past that space stay out."""
    x0, top, x1, bottom = region
    band = [ch for ch in page.chars if float(ch["bottom"]) > top and float(ch["top"]) < bottom]
    inside = [float(ch["x1"]) > x0 and float(ch["x0"]) < x1 for ch in band]
    cut = [i for i, ok in enumerate(inside) if ok and (float(band[i]["x0"]) < x0 or float(band[i]["x1"]) > x1)]
    for i in cut:
        for step in (-1, 1):
            at = i
            while (at := _next_on_line(band, at, step)) is not None and not inside[at]:
                inside[at] = True
                if band[at]["text"].isspace():
                    break  # a space comes along, to part the word from the next one (that stays out)
    return [ch for ch, ok in zip(band, inside) if ok]


def _next_on_line(chars: list[dict[str, Any]], i: int, step: int) -> int | None:
    """The glyph of ``chars`` nearest right (``step`` 1) or left (-1) of glyph ``i`` on its line (their
    heights overlap by half), when it stands within :data:`WORD_GAP` of it; ``None`` otherwise."""
    a = chars[i]
    best, best_gap = None, WORD_GAP
    for j, b in enumerate(chars):
        if j == i:
            continue
        overlap = min(float(a["bottom"]), float(b["bottom"])) - max(float(a["top"]), float(b["top"]))
        if overlap <= 0.5 * min(float(a["bottom"]) - float(a["top"]), float(b["bottom"]) - float(b["top"])):
            continue
        gap = float(b["x0"]) - float(a["x1"]) if step > 0 else float(a["x0"]) - float(b["x1"])
        ahead = float(b["x0"]) > float(a["x0"]) if step > 0 else float(b["x1"]) < float(a["x1"])
        if ahead and gap <= best_gap:
            best, best_gap = j, gap
    return best


def _ruled_grid(
    crop: Any, words: list[dict[str, Any]]
) -> tuple[list[list[str]], list[list[str]], list[Box], list[Box]] | None:
    """The grid of a table drawn with ruling lines (pdfplumber's default ``lines`` strategy):
    ``(header_rows, body_rows, body_boxes, header_boxes)``."""
    tables = visible_rules(crop).find_tables()
    if not tables:
        return None
    best = max(tables, key=lambda t: len(t.cells))
    bx0, btop, bx1, bbottom = best.bbox
    inside = sum(
        1 for w in words if bx0 <= (w["x0"] + w["x1"]) / 2 <= bx1 and btop <= (w["top"] + w["bottom"]) / 2 <= bbottom
    )
    if inside < MIN_RULED_SHARE * len(words):
        return None
    col_x0 = sorted({float(c[0]) for c in best.cells})
    col_x1 = [*col_x0[1:], float(bx1)]
    rows: list[list[str]] = []
    boxes: list[Box] = []
    reach_down: list[float] = [float("-inf")] * len(col_x0)  # bottom of the last cell seen in each column
    seen: list[tuple[Box, list[dict[str, Any]]]] = []  # the cells of the rows above, with their glyphs
    for r, (cell_chars, row) in enumerate(zip(table_cell_chars(best), best.rows)):
        last = r == len(best.rows) - 1
        if last and r and sum(c is not None for c in row.cells) == 1 and _runs_out(row.bbox, (bx0, bx1), words):
            continue  # a footnote printed across the page over the last row, cut at the table's border: no row
        x0, x1 = row_width(row, seen)
        seen.extend((c, ch or []) for c, ch in zip(row.cells, cell_chars) if c is not None)
        values = [None if ch is None else reading_text(ch) for ch in cell_chars]
        found = split_stacked_items([None if ch is None else cell_lines(ch) for ch in cell_chars]) if r else None
        stacked = None if found is None else found[0]
        tops = [float(row.bbox[1])] + ([] if found is None else found[1][1:])
        for k, item in enumerate(stacked or [values]):
            cells = _fill_covered(item, row.cells, col_x1, reach_down, rows[-1] if rows else None)
            if any(cells):
                rows.append(cells)
                bottom = tops[k + 1] if k + 1 < len(tops) else float(row.bbox[3])
                boxes.append((x0, tops[k], x1, bottom))
        for c, cell in enumerate(row.cells):
            if cell is not None and c < len(reach_down):
                reach_down[c] = float(cell[3])
    n_cols = max((len(r) for r in rows), default=0)
    keep = [c for c in range(n_cols) if any(c < len(r) and r[c] for r in rows)]
    rows = [[r[c] if c < len(r) else "" for c in keep] for r in rows]
    if len(rows) < 2 or len(keep) < 2:
        return None
    n_head = header_count(rows)
    return rows[:n_head], rows[n_head:], boxes[n_head:], boxes[:n_head]


#: How far (PDF points) a word must reach over a ruled table's side, and start inside it, to run out of the table.
OUT_REACH = 1.0


def _runs_out(row: Box, sides: tuple[float, float], words: list[dict[str, Any]]) -> bool:
    """True when a word whose middle lies in ``row`` (its box) reaches over the left or right side of the table
    (``sides``: its x0 and x1): the line runs on past the table's border, and its cells would cut the word
    (``year 202`` of ``year 2022,``). Asked only of a table's last row when one cell spans it (a footnote line):
    a region cutting a table through its columns has figures reach over its side in rows that are rows."""
    for w in words:
        if not row[1] <= (float(w["top"]) + float(w["bottom"])) / 2 < row[3]:
            continue
        x0, x1 = float(w["x0"]), float(w["x1"])
        if any(x0 < side - OUT_REACH and x1 > side + OUT_REACH for side in sides):
            return True
    return False


def _fill_covered(
    values: list[str | None], cells: list[Any], col_x1: list[float], reach_down: list[float], above: list[str] | None
) -> list[str]:
    """One row's texts with each covered cell (``None``) given the text of the merged cell over it:
    the nearest cell to its left that reaches over it, else the cell above that reaches down over it."""
    out: list[str] = []
    row_bottom = max((float(c[3]) for c in cells if c is not None), default=0.0)
    for c, value in enumerate(values):
        if value is None:
            left = next((j for j in range(c - 1, -1, -1) if cells[j] is not None), None)
            if left is not None and c < len(col_x1) and float(cells[left][2]) >= col_x1[c] - 1.0:
                value = out[left]
            elif above is not None and c < len(above) and c < len(reach_down) and reach_down[c] >= row_bottom - 1.0:
                value = above[c]
            else:
                value = ""
        out.append(" ".join(value.split()))
    return out


def _rows_in_one_cell(rows: list[list[str]]) -> bool:
    """Most rows hold their label and figures in one cell (``Notional value settled 13,077 13,755``):
    the rules were row shading, not cell borders, so the ruled cells are no columns (the region is read
    as a borderless table instead, when that gives a grid)."""

    def mixed(cell: str) -> bool:
        words = cell.split()
        last = words[-2:] if len(words) >= 3 and words[-1] in RIGHT_SYMBOLS else words[-1:]  # ``12.5 %``
        return (
            len(words) > len(last) and is_value(" ".join(last)) and any(ch.isalpha() for ch in cell)
            and not is_value(cell)
        )  # fmt: skip

    return sum(1 for r in rows if any(mixed(c) for c in r)) * 2 >= len(rows)


def _text_grid(words: list[dict[str, Any]]) -> tuple[list[list[str]], list[list[str]], list[Box], list[Box]] | None:
    """The grid of a borderless table: the region's text lines, then :func:`build_grid`."""
    return build_grid(_lines(_phrases(words)))


def _clamp(v: float) -> float:
    return min(1.0, max(0.0, v))


def _phrases(words: list[dict[str, Any]]) -> list[Phrase]:
    """Join words of one line closer than :data:`PHRASE_GAP` font sizes into phrases."""
    out: list[Phrase] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        size = float(w.get("size") or (w["bottom"] - w["top"]) or 8.0)
        last = out[-1] if out else None
        same_line = last is not None and abs(last.top - w["top"]) <= 0.4 * size
        close = last is not None and same_line and 0 <= w["x0"] - last.x1 <= PHRASE_GAP * size
        if close and not starts_new_cell(last.text, w["text"]):
            last.text = f"{last.text} {w['text']}"
            last.x1 = max(last.x1, w["x1"])
            last.bottom = max(last.bottom, w["bottom"])
            continue
        out.append(Phrase(w["text"], w["x0"], w["x1"], w["top"], w["bottom"]))
    return out


def _lines(phrases: list[Phrase]) -> list[Line]:
    """Text lines, top to bottom: a phrase whose vertical middle lies in a recent line's band joins it,
    else it starts a new line. Small raised or lowered text (footnote marks such as ``(a)``: under
    :data:`SMALL_TEXT` of the median height) joins the line it overlaps most, appended to the phrase
    just left of it."""
    if not phrases:
        return []
    heights = sorted(p.bottom - p.top for p in phrases)
    small = SMALL_TEXT * heights[len(heights) // 2]
    lines: list[Line] = []
    marks: list[Phrase] = []
    for ph in sorted(phrases, key=lambda p: (p.top, p.x0)):
        if ph.bottom - ph.top < small:
            marks.append(ph)
            continue
        mid = (ph.top + ph.bottom) / 2
        line = next((ln for ln in reversed(lines[-3:]) if ln.top - 0.5 <= mid <= ln.bottom + 0.5), None)
        if line is None:
            lines.append(Line(ph.top, ph.bottom, [ph]))
        else:
            line.phrases.append(ph)
    for ph in marks:
        overlap = lambda ln: min(ph.bottom, ln.bottom) - max(ph.top, ln.top)  # noqa: B023 - used in this iteration only
        best = max(lines, key=overlap, default=None)
        if best is not None and overlap(best) > 0:
            left = [q for q in best.phrases if q.x1 <= ph.x0 + 1.0]
            host = max(left, key=lambda q: q.x1, default=None)
            if host is not None and ph.x0 - host.x1 <= 3 * (ph.bottom - ph.top):
                host.text = f"{host.text} {ph.text}"  # the mark belongs to the word it follows
            else:
                best.phrases.append(ph)
        else:
            lines.append(Line(ph.top, ph.bottom, [ph]))
    return sorted(lines, key=lambda ln: ln.top)
