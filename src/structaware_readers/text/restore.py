"""A block's text given back the spaces and hyphens its PDF prints (from the PDF's text layer).

Each word is checked against the text layer of the block's pages and mended: a line-end hyphen written as the
writer meant it, and as printed (``option- development``) where the parser joined it to a word of another line
than the one the page continues it on (a block of two columns read as one), lost spaces between words or figures
put back, an unnamed dash put back, raised reference figures written with a caret (``2019.^12``), and so a raised
mark of letters glued to its word (``Lantern^TM``, where the page sets a small ``TM`` above the end of ``Lantern``),
the hyphen of a compound a table cell wraps put back (``Blended-yield``, where the page prints ``Blended-`` ending
a run), a fraction set small set apart from the number it follows (``2.33 1/3``), overlapped lines put in line
order, figures of cells printed one above the other set apart (:mod:`~structaware_readers.text.stacked_figures`),
a figure and the word a cell prints under it set apart (:mod:`~structaware_readers.text.line_wraps`), a word the
parser glued to the raised mark before it set apart (``m^2 with``).
No other character is changed, added or dropped; a word the page prints is never cut; pages without a text layer
(OCR) are left as they are.
Two mends give back words the parser dropped, both only where the page prints them so: a short block whose glued
word hides dropped words is read from its box (:mod:`~structaware_readers.text.box_reread`), and contents lines
get the titles the parser set apart as headings (:mod:`~structaware_readers.text.contents_titles`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from structaware_readers.models import Block, ParsedDocument, TableGrid
from structaware_readers.text.box_reread import reread_glued
from structaware_readers.text.contents_titles import give_contents_titles
from structaware_readers.text.layer import (
    WORD,
    PageWords,
    PdfTextLayer,
    merge,
    normal,
    split_figures,
    split_glued,
    split_grouped,
)
from structaware_readers.text.line_wraps import split_wrapped
from structaware_readers.text.overlapped_lines import unshuffle
from structaware_readers.text.stacked_figures import split_stacked

log = logging.getLogger(__name__)

_KEPT_HYPHEN = re.compile(rf"({WORD.pattern})- ({WORD.pattern})")
_RUN = re.compile(r"\S+")
_FIGURE = re.compile(r"\d")
_SLASH = re.compile(r"\d[/\u2044]\d")
_EDGE = "()[]{};:,."
_EDGE_BUT_BRACKETS = "[]{};:,."


def _as_meant(word: str, value: str) -> str:
    """``word`` (the joined halves, in its own case) written as ``value`` (lower case) says."""
    cut = value.find("-")
    if cut < 0:
        return word
    rest = value[cut + 1 :]
    return word[:cut] + "-" + (" " if rest.startswith(" ") else "") + word[cut:]


def _foreign_continuation(word: str, page: PageWords, later: str) -> int:
    """Where ``word`` (NFKC, lower case; no word of the page) is a word the page prints before a line-end hyphen
    glued to a word of the page that the page does not print after that hyphen, while ``later`` (the text after
    ``word``) holds the one it does (``optiondevelopment ... pricing``: ``option-`` ends a line, ``pricing`` starts
    the next, ``development`` a line of the column beside it, which a parser reading both columns as one block
    put after ``option-``): the length of the first; 0 when no such cut is, or more than one. The hyphen's
    continuation was read elsewhere, so the text is written as printed (``option- development``), no word made
    up; a continuation the parser dropped is left to :mod:`~structaware_readers.text.box_reread`."""
    heads = [(k, page.heads[word[:k]]) for k in range(2, len(word) - 1) if word[:k] in page.heads]
    if not heads:
        return 0
    after = {w.lower() for w in WORD.findall(normal(later))}
    cuts = [
        k for k, next_words in heads if word[k:] in page.words and next_words & after and word[k:] not in next_words
    ]
    return cuts[0] if len(cuts) == 1 else 0


def restore_text(text: str, page: PageWords) -> str:
    """``text`` with the spaces and hyphens of ``page`` given back (module docstring); ``text``
    itself when nothing changes."""
    if not text:
        return text

    def kept(m: re.Match[str]) -> str:
        a, b = m.group(1), m.group(2)
        value = page.breaks.get(normal(a + b).lower())
        if value is None or len(normal(a + b)) != len(a + b):
            return m.group(0)
        return _as_meant(a + b, value) if "-" in value else a + b

    out = unshuffle(text, page)
    out = _KEPT_HYPHEN.sub(kept, out) if "- " in out else out

    def word(m: re.Match[str]) -> str:
        w = m.group(0)
        if len(w) < 4:
            return w
        low = normal(w).lower()
        if low in page.words or len(low) != len(w):
            return w
        value = page.breaks.get(low)
        if value is not None:
            return _as_meant(w, value) if "-" in value and value.replace("-", "").replace(" ", "") == low else w
        pieces = split_glued(w, page)
        if pieces:
            return " ".join(pieces)
        mark = page.raised_mark(low)
        if mark:
            return f"{w[:-mark]}^{w[-mark:]}"
        cut = page.dangling_cut(low)
        if cut:
            return f"{w[:cut]}-{w[cut:]}"
        cut = _foreign_continuation(low, page, m.string[m.end() :])
        return f"{w[:cut]}- {w[cut:]}" if cut else w

    out = WORD.sub(word, out)

    def figures(m: re.Match[str]) -> str:
        run = m.group(0)
        core = run.strip(_EDGE)
        if not core or not _FIGURE.search(core):
            return run
        at = run.index(core)
        if core not in page.tokens and core in page.dashless:
            return run[:at] + page.dashless[core] + run[at + len(core) :]
        if core not in page.tokens and _SLASH.search(core):
            printed = page.fraction(core)
            if printed is not None:
                return run[:at] + printed + run[at + len(core) :]
        pieces = split_figures(core, page) or split_grouped(core, page) or split_wrapped(core, page)
        if not pieces:
            core = run.strip(_EDGE_BUT_BRACKETS)  # ``(4.0)(17.7)``: each piece keeps its brackets
            at = run.index(core) if core else 0
            pieces = split_stacked(core, page) if core else None
        if not pieces:
            return run
        return run[:at] + " ".join(pieces) + run[at + len(core) :]

    out = _RUN.sub(figures, out)
    out = _mark_raised(out, page)
    out = _MARK_THEN_WORD.sub(lambda m: _word_after_mark(m, page), out) if "^" in out else out
    return text if out == text else out


#: A raised mark of figures (with a grade letter and sign: ``^1A+,2B``) and a lower-case word glued after it.
_MARK_THEN_WORD = re.compile(r"\^((?:\d+[A-Z]?[+-]?,)*\d+[A-Z]?[+-]?)([a-z]{2,})\b")


def _word_after_mark(m: re.Match[str], page: PageWords) -> str:
    """``^2 with`` for ``^2with`` where the page prints the word but never glued to the mark (``kg/m2 with``):
    the parser dropped the space after a raised mark; the mark itself is left as it is."""
    mark, word = m.group(1), m.group(2)
    if word not in page.words or normal(mark + word) in page.text:
        return m.group(0)
    return f"^{mark} {word}"


#: Most runs of a text one raised mark may have been cut into.
_MAX_PIECES = 4
#: A run ending as a number does (``2021.``, ``S7``, ``40,5``): a space after it and a figure
#: reads as two numbers, or as one number with a space, where the page prints one run.
_IN_NUMBER_LEFT = re.compile(r"\d[.,]?$")


def _printed_apart(text: str, runs: list[re.Match[str]], i: int, j: int, page: PageWords) -> bool:
    """True when the page prints runs ``i..j`` of ``text`` apart as the text does, with the runs
    next to them (white space of any kind between)."""
    start = runs[max(i - 1, 0)].start()
    end = runs[min(j + 1, len(runs) - 1)].end()
    pieces = text[start:end].replace("^", "").split()
    return re.search(r"\s+".join(re.escape(p) for p in pieces), page.text) is not None


def _mark_raised(text: str, page: PageWords) -> str:
    """``text`` with runs set apart by single spaces, which the page prints as one run with raised
    figures, written as that run marked (module docstring)."""
    if not page.marks or not _FIGURE.search(text):
        return text
    runs = list(_RUN.finditer(text))
    out, at, i = [], 0, 0
    while i < len(runs):
        joined, found, inside = runs[i].group(0).replace("^", ""), None, False
        for j in range(i + 1, min(i + _MAX_PIECES, len(runs))):
            if text[runs[j - 1].end() : runs[j].start()] != " ":
                break
            left, right = runs[j - 1].group(0), runs[j].group(0)
            joined += right.replace("^", "")
            if not (_FIGURE.search(left[-1:]) or _FIGURE.search(right[:1])):
                break  # the space stands next to no figure
            inside = inside or (_IN_NUMBER_LEFT.search(left) is not None and right[:1].isdigit())
            if not inside:
                continue  # the space reads as no number's: ``adults. 7`` is left as it is
            if _printed_apart(text, runs, i, j, page):
                continue
            core = joined.strip(_EDGE)
            marked = page.raised(core) if core and core in page.text else None  # glyphs read only then
            if marked is not None:
                lead = joined[: joined.index(core)]
                found = (j, lead + marked + joined[len(lead) + len(core) :])
        if found is None:
            i += 1
            continue
        j, new = found
        out.append(text[at : runs[i].start()] + new)
        at, i = runs[j].end(), j + 1
    return "".join(out) + text[at:] if out else text


def _grid(grid: TableGrid, page: PageWords) -> TableGrid | None:
    header = [[restore_text(c, page) for c in row] for row in grid.header_rows]
    body = [[restore_text(c, page) for c in row] for row in grid.body_rows]
    title = restore_text(grid.title, page)
    if header == grid.header_rows and body == grid.body_rows and title == grid.title:
        return None
    return grid.model_copy(update={"title": title, "header_rows": header, "body_rows": body})


def _block(b: Block, layer: PdfTextLayer) -> Block:
    numbers = {b.page, *b.extra_pages, *(b.table.body_row_pages if b.table is not None else [])}
    pages = [p for p in (layer.page(n) for n in sorted(numbers)) if p is not None]
    if not pages:
        return b
    page = merge(pages)
    update: dict[str, object] = {}
    for name in ("text", "caption", "footnote"):
        value = getattr(b, name)
        new = restore_text(value, page)
        if new != value:
            update[name] = new
    items = [restore_text(it, page) for it in b.items]
    if items != b.items:
        update["items"] = items
    if b.table is not None:
        grid = _grid(b.table, page)
        if grid is not None:
            update["table"] = grid
    return b.model_copy(update=update) if update else b


def restore_from_text_layer(doc: ParsedDocument, pdf: str | Path | bytes | PdfTextLayer) -> ParsedDocument:
    """``doc`` with every block's text fields mended against ``pdf``'s text layer (module docstring), short blocks
    whose glued words hide dropped ones read from their boxes (:mod:`~structaware_readers.text.box_reread`) and
    contents lines given the titles a parser set apart (:mod:`~structaware_readers.text.contents_titles`); ``doc``
    itself when nothing changes. Raises ``InputNotFoundError``.
    """
    layer = pdf if isinstance(pdf, PdfTextLayer) else PdfTextLayer(pdf)
    mended = reread_glued([_block(b, layer) for b in doc.blocks], layer)
    changed = sum(1 for new, old in zip(mended, doc.blocks) if new is not old)  # same blocks, some mended
    blocks = give_contents_titles(mended, layer)
    if not changed and blocks is mended:
        return doc
    log.debug("%s: %d blocks mended from the PDF text layer", doc.name, changed + len(mended) - len(blocks))
    return doc.model_copy(update={"blocks": blocks})


__all__ = ["restore_from_text_layer", "restore_text"]
