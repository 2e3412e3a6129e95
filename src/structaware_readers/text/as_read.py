"""The one pass that writes every text field of a parsed document as a reader sees it.

Applied by :func:`structaware_readers.load.loader.prepare_document` to every reader's output, so unit
text and context hold no parser artefacts: inline markup becomes text
(:func:`structaware_readers.text.inline_markup.plain_text`) and glyphs without a name are repaired
(:func:`structaware_readers.text.glyphs.repair_glyphs`). Fields: each block's ``text``, ``caption``,
``footnote``, list ``items``, and its table grid's title and cells.
"""

from __future__ import annotations

from structaware_readers.models import Block, ParsedDocument, TableGrid
from structaware_readers.text.glyphs import has_bad_glyphs, repair_glyphs
from structaware_readers.text.inline_markup import has_markup, plain_text


def as_read(text: str) -> str:
    """``text`` with its markup and unnamed glyphs written as a reader sees them (module docstring);
    ``text`` itself when it holds neither."""
    if not text:
        return text
    if has_markup(text):
        text = plain_text(text)
    return repair_glyphs(text) if has_bad_glyphs(text) else text


def _needs(text: str) -> bool:
    return bool(text) and (has_markup(text) or has_bad_glyphs(text))


def _grid(grid: TableGrid) -> TableGrid | None:
    rows = [*grid.header_rows, *grid.body_rows]
    if not _needs(grid.title) and not any(_needs(c) for row in rows for c in row):
        return None
    return grid.model_copy(
        update={
            "title": as_read(grid.title),
            "header_rows": [[as_read(c) for c in row] for row in grid.header_rows],
            "body_rows": [[as_read(c) for c in row] for row in grid.body_rows],
        }
    )


def _block(b: Block) -> Block:
    update: dict[str, object] = {}
    for name in ("text", "caption", "footnote"):
        value = getattr(b, name)
        if _needs(value):
            update[name] = as_read(value)
    if any(_needs(it) for it in b.items):
        update["items"] = [as_read(it) for it in b.items]
    if b.table is not None:
        grid = _grid(b.table)
        if grid is not None:
            update["table"] = grid
    return b.model_copy(update=update) if update else b


def read_as_printed(doc: ParsedDocument) -> ParsedDocument:
    """``doc`` with every text field written by :func:`as_read` (module docstring); ``doc`` itself
    when no field changes."""
    blocks = [_block(b) for b in doc.blocks]
    if all(new is old for new, old in zip(blocks, doc.blocks)):
        return doc
    return doc.model_copy(update={"blocks": blocks})


__all__ = ["as_read", "read_as_printed"]
