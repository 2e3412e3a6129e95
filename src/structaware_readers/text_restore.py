"""A block's text given back the spaces and hyphens its PDF prints (from the PDF's text layer).

Parsers lose what the page shows: MinerU's flash tier glues the words of a wrapped table cell
(``Elizabeth ReesAtayde``, ``control ofasthma``) and drops a hyphen ending a line
(``angiotensinconverting``), or keeps one with the line's space (``patient- centered``). Where the
PDF is known, each text field of a block is compared with the text layer of the block's pages
(:mod:`structaware_readers.text_layer`) and mended, word by word:

* a word the page does not print, which the page prints across a line-end hyphen, is written as
  the writer meant it (:func:`~structaware_readers.text_layer.meant`: ``angiotensin-converting``;
  ``recommendations`` stays joined);
* ``x- y`` where the page breaks the line after ``x-`` is written the same way
  (``patient-centered``, ``asso- ciated`` -> ``associated``), except before ``and``/``or``/``to``
  (``short- and long-term`` stays). A hyphen the parser kept without a space stays
  (``Sub-topic``: a narrow cell's break, whose first half is no word elsewhere);
* a word the page does not print, which is 2+ words the page prints next to each other, gets its
  spaces back (``ofasthma`` -> ``of asthma``). A word the page prints is never cut
  (``methylprednisolone``), nor one whose pieces do not stand side by side on the page;
* a run holding figures the page does not print, which is 2+ runs the page prints one after the
  other, gets its spaces back (the two lines of a dose cell ``80-240`` / ``80-160`` glued into
  ``80-24080-160``; ``≥4years`` -> ``≥4 years``); a number the PDF breaks over two lines
  (``0.`` / ``71``) is never cut (:func:`~structaware_readers.text_layer.split_figures`).

No character is changed, added or dropped other than those spaces and hyphens.
Text of pages without a text layer (scans read by OCR) is left as it is.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from structaware_readers.models import Block, ParsedDocument, TableGrid
from structaware_readers.text_layer import WORD, PageWords, PdfTextLayer, merge, normal, split_figures, split_glued

log = logging.getLogger(__name__)

_KEPT_HYPHEN = re.compile(rf"({WORD.pattern})- ({WORD.pattern})")
_RUN = re.compile(r"\S+")
_FIGURE = re.compile(r"\d")
_EDGE = "()[]{};:,."


def _as_meant(word: str, value: str) -> str:
    """``word`` (the joined halves, in its own case) written as ``value`` (lower case) says."""
    cut = value.find("-")
    if cut < 0:
        return word
    rest = value[cut + 1 :]
    return word[:cut] + "-" + (" " if rest.startswith(" ") else "") + word[cut:]


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

    out = _KEPT_HYPHEN.sub(kept, text) if "- " in text else text

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
        return " ".join(pieces) if pieces else w

    out = WORD.sub(word, out)

    def figures(m: re.Match[str]) -> str:
        run = m.group(0)
        core = run.strip(_EDGE)
        if not core or not _FIGURE.search(core):
            return run
        pieces = split_figures(core, page)
        if not pieces:
            return run
        at = run.index(core)
        return run[:at] + " ".join(pieces) + run[at + len(core) :]

    out = _RUN.sub(figures, out)
    return text if out == text else out


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
    """``doc`` with every block's text fields mended against ``pdf``'s text layer (module
    docstring); ``doc`` itself when nothing changes.

    Raises:
        InputNotFoundError, MalformedInputError: ``pdf`` is missing or PDFium cannot open it
            (field ``pdf``).
    """
    layer = pdf if isinstance(pdf, PdfTextLayer) else PdfTextLayer(pdf)
    blocks = [_block(b, layer) for b in doc.blocks]
    changed = sum(1 for new, old in zip(blocks, doc.blocks) if new is not old)
    if not changed:
        return doc
    log.debug("%s: %d blocks mended from the PDF text layer", doc.name, changed)
    return doc.model_copy(update={"blocks": blocks})


__all__ = ["restore_from_text_layer", "restore_text"]
