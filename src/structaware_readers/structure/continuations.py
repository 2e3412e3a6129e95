"""Paragraphs broken by a page or column break, joined back into one block.

:func:`join_continued_paragraphs` joins a PARAGRAPH that ends its page or column without ending a
sentence to the next body PARAGRAPH (next page, or the next column) when that starts a lower-case
Latin word or both meet between CJK characters; furniture and footnotes between them are skipped.
The joined block keeps the first id; the second's page, bbox and id go to ``extra_pages``,
``extra_bboxes`` and ``extra_ids``. Latin halves are joined with a space, CJK halves with nothing; a word
hyphenated where the first half ends (``e-`` / ``commerce``) is written as ``hyphen`` says the writer meant it
(:meth:`~structaware_readers.text.layer.PdfTextLayer.line_end_hyphen`: ``e-commerce``, ``manufactured``, or
``short- and``), and keeps the hyphen and the space without it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from structaware_readers.models import Block, BlockKind, ParsedDocument

__all__ = ["join_continued_paragraphs"]

_SENTENCE_END = re.compile(r"[.!?:;。！？：；…][\"'”’)）\]」』]*\s*$")
_LOWER_START = re.compile(r"^[\"'“‘(]?[a-z]")
_SKIP = {BlockKind.FOOTNOTE}
#: A Latin word and the hyphen ending a paragraph's half; the word starting the next half.
_HYPHEN_END = re.compile(r"([^\W\d_]+)-$")
_WORD_START = re.compile(r"[^\W\d_]+")
#: Says what a line-end hyphen between two words means, lower case (``"e-commerce"``, ``"manufactured"``).
Hyphen = Callable[[str, str], str]


def join_continued_paragraphs(doc: ParsedDocument, hyphen: Hyphen | None = None) -> ParsedDocument:
    """Return ``doc`` with continued paragraphs joined (see the module docstring); ``doc``
    itself when nothing is joined. Blocks must be in reading order."""
    blocks = doc.blocks
    out: list[Block] = []
    joined = False
    i = 0
    while i < len(blocks):
        para = blocks[i]
        i += 1
        between: list[Block] = []  # furniture and footnotes met inside the paragraph: put after it
        while para.kind is BlockKind.PARAGRAPH:
            k = i
            while k < len(blocks) and (blocks[k].is_furniture or blocks[k].kind in _SKIP):
                k += 1
            if k >= len(blocks) or not _continues(para, blocks[k]):
                break
            between.extend(blocks[i:k])
            para = _join(para, blocks[k], hyphen)
            joined = True
            i = k + 1
        out.append(para)
        out.extend(between)
    if not joined:
        return doc
    return doc.model_copy(update={"blocks": out})


def _continues(a: Block, b: Block) -> bool:
    if b.kind is not BlockKind.PARAGRAPH:
        return False
    last_page = max([a.page, *a.extra_pages])
    if b.page == last_page + 1:
        pass
    elif b.page == last_page and _next_column(a, b):
        pass
    else:
        return False
    first, second = a.text.rstrip(), b.text.lstrip()
    if not first or not second or _SENTENCE_END.search(first):
        return False
    if _LOWER_START.match(second):
        return True
    return _is_cjk(first[-1]) and _is_cjk(second[0])


def _next_column(a: Block, b: Block) -> bool:
    """``b`` starts a column to the right of where ``a`` (its last part) lies, higher on the page."""
    box = a.extra_bboxes[-1] if a.extra_pages and a.extra_bboxes else a.bbox
    if box is None or b.bbox is None:
        return False
    return b.bbox[0] >= box[2] - 0.02 and b.bbox[1] < box[1]


def _join(a: Block, b: Block, hyphen: Hyphen | None = None) -> Block:
    first, second = a.text.rstrip(), b.text.lstrip()
    sep = "" if _is_cjk(first[-1]) and _is_cjk(second[0]) else " "
    end, start = _HYPHEN_END.search(first), _WORD_START.match(second)
    if hyphen is not None and end is not None and start is not None:
        left, right = end.group(1), start.group(0)
        value = hyphen(left, right)
        if value == f"{left}-{right}".lower():
            sep = ""
        elif value == f"{left}{right}".lower():
            first, sep = first[:-1], ""
    n = len(a.extra_pages)
    ids = a.extra_ids if len(a.extra_ids) == n else [""] * n
    boxes = a.extra_bboxes if len(a.extra_bboxes) == n else [None] * n
    return a.model_copy(
        update={
            "text": first + sep + second,
            "extra_pages": [*a.extra_pages, b.page, *b.extra_pages],
            "extra_bboxes": [*boxes, b.bbox, *(b.extra_bboxes or [None] * len(b.extra_pages))],
            "extra_ids": [*ids, b.block_id, *(b.extra_ids or [""] * len(b.extra_pages))],
            "parser_ids": [*a.parser_ids, *b.parser_ids],
        }
    )


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\u3040" <= ch <= "\u30ff"
