"""Reference lists (bibliographies) recognised and typed REFERENCE.

A bibliography entry can hold the words a recommendation detector looks for, so it must never
become a recommendation. :func:`mark_references` retypes (``kind`` only) every PARAGRAPH or LIST
under a bibliography heading until the next heading or running prose, a LIST of mostly citations,
and a PARAGRAPH or FOOTNOTE that is one citation (a reference number, a year and a bibliographic
mark). The unit builder makes ``reference`` units of them, left out of search unless asked.
"""

from __future__ import annotations

import re
import unicodedata

from structaware_readers.models import Block, BlockKind, ParsedDocument

__all__ = ["is_citation", "mark_references"]

_BIB_HEADING = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2})*\.?\s+)?(?:references?(?: cited)?|bibliography|literature cited|works cited|"
    r"参考文献|参 考 文 献|引用文献)\s*[:：]?$",
    re.IGNORECASE,
)
_REF_NUMBER = re.compile(r"^\s*(?:\[\d{1,4}\]|\d{1,4}[.)]\s|\d{1,3}\s+(?=[A-Z]))")
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_BIB_MARK = re.compile(
    r"\bet al\b|\bdoi\b|10\.\d{4,}/|\d{4}\s*;\s*\d+|\d+\s*\(\d+\)\s*:\s*\d+|\d+\s*:\s*\d+\s*[-–]\s*\d+|\bJ\b|journal|等\.",
    re.IGNORECASE,
)
_CITATION_SHARE = 0.6
_PROSE_MIN_CHARS = 120  # characters
_CANDIDATES = {BlockKind.PARAGRAPH, BlockKind.LIST, BlockKind.FOOTNOTE}


def is_citation(text: str) -> bool:
    """Whether ``text`` looks like one bibliography entry (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text).strip()
    return bool(_REF_NUMBER.match(t) and _YEAR.search(t) and _BIB_MARK.search(t))


def mark_references(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with bibliography blocks typed REFERENCE; ``doc`` itself when none changes."""
    changed: dict[int, Block] = {}
    bib_level: int | None = None  # level of the open bibliography heading
    for i, b in enumerate(doc.blocks):
        if b.kind is BlockKind.HEADING:
            level = b.level or 1
            if bib_level is not None and level <= bib_level:
                bib_level = None
            if _BIB_HEADING.match(unicodedata.normalize("NFKC", b.text).strip()):
                bib_level = level
            continue
        if b.kind not in _CANDIDATES:
            continue
        if bib_level is not None and _is_prose(b):
            bib_level = None  # prose after the list (an appendix the parser left without a heading) ends it
        if bib_level is not None or _looks_like_citations(b):
            changed[i] = b.model_copy(update={"kind": BlockKind.REFERENCE})
    if not changed:
        return doc
    return doc.model_copy(update={"blocks": [changed.get(i, b) for i, b in enumerate(doc.blocks)]})


def _is_prose(b: Block) -> bool:
    """A paragraph of running text, not an entry: long, with neither a year nor a bibliographic mark."""
    text = unicodedata.normalize("NFKC", b.text).strip()
    return (
        b.kind is BlockKind.PARAGRAPH
        and len(text) >= _PROSE_MIN_CHARS
        and not _YEAR.search(text)
        and not _BIB_MARK.search(text)
    )


def _looks_like_citations(b: Block) -> bool:
    if b.kind is BlockKind.LIST and b.items:
        return sum(is_citation(item) for item in b.items) >= max(1, _CITATION_SHARE * len(b.items))
    return is_citation(b.text)
