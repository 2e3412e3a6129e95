"""Graded statements printed in a shaded box that the parser read as a picture: paragraphs again.

As a ``figure`` a boxed recommendation is never a ``recommendation`` unit. A caption-less figure
whose text is short prose (:data:`MAX_STATEMENT_CHARS`, :data:`MAX_LINES`,
:data:`MIN_MEAN_LINE_CHARS`) with recommendation wording and an unambiguous grade label closing or
opening it becomes a paragraph of its lines joined by spaces. No character of a line changes.
"""

from __future__ import annotations

import re

from structaware_readers.grades import find_grades, has_recommendation_wording, normalize_grade_text
from structaware_readers.models import Block, BlockKind, ParsedDocument

__all__ = ["MAX_LINES", "MAX_STATEMENT_CHARS", "MIN_MEAN_LINE_CHARS", "is_boxed_statement", "read_boxed_statements"]

#: Longest figure text (characters) read as a boxed statement.
MAX_STATEMENT_CHARS = 1200
#: Most lines of a figure text read as a boxed statement.
MAX_LINES = 14
#: Shortest mean line (characters) of a boxed statement: prose, not a chart's box labels.
MIN_MEAN_LINE_CHARS = 25
# what may follow the label that closes the statement: brackets and the sentence end
_CLOSING = re.compile(r"[\s)\]）】]*[.。;；]?\s*")
# what may stand before a label that opens the statement: bullets, brackets
_OPENING = re.compile(r"[\s•▪●■◦\-–(\[]*")


def is_boxed_statement(text: str) -> bool:
    """True when a caption-less figure's ``text`` is a boxed graded statement (module docstring)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines or len(lines) > MAX_LINES:
        return False
    joined = " ".join(lines)
    if len(joined) > MAX_STATEMENT_CHARS or sum(map(len, lines)) / len(lines) < MIN_MEAN_LINE_CHARS:
        return False
    if not has_recommendation_wording(normalize_grade_text(joined)):
        return False
    if sum(1 for ln in lines if find_grades(ln)) > 1:
        return False  # a grade on several lines: a recommendation table pictured (loose_tables reads it)
    labels = [m for m in find_grades(joined) if m.explicit]
    if not labels:
        return False
    closes = _CLOSING.fullmatch(joined, labels[-1].end) is not None
    opens = _OPENING.fullmatch(joined, 0, labels[0].start) is not None
    return closes or opens


def _as_paragraph(block: Block) -> Block:
    lines = [ln.strip() for ln in block.text.splitlines() if ln.strip()]
    return block.model_copy(update={"kind": BlockKind.PARAGRAPH, "text": " ".join(lines)})


def read_boxed_statements(doc: ParsedDocument) -> ParsedDocument:
    """``doc`` with each caption-less figure that is a boxed graded statement made a paragraph;
    ``doc`` itself when there is none."""
    changed = False
    blocks: list[Block] = []
    for block in doc.blocks:
        if block.kind is BlockKind.FIGURE and not block.caption.strip() and is_boxed_statement(block.text):
            block, changed = _as_paragraph(block), True
        blocks.append(block)
    return doc.model_copy(update={"blocks": blocks}) if changed else doc
