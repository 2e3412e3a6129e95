"""The abbreviations a document defines, and the long forms of those a text uses.

Readers ask in the long form what the document writes short. :func:`find_abbreviations` reads the
document's definitions: ``long form (SF)`` in running text (Schwartz and Hearst, PSB 2003) and the
rows of an abbreviation table; the first definition wins. :func:`attach_expansions` sets, per unit,
the long forms of the short forms it uses unspelt (``Unit.expansions``), which BM25 indexes and no
reader is handed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from structaware_readers.models import BlockKind, ParsedDocument, Unit

__all__ = ["attach_expansions", "expansions", "find_abbreviations", "long_form"]

_IN_BRACKETS = re.compile(r"\(([^()]{2,12})\)")
_SHORT = re.compile(r"^[A-Za-z0-9][\w.&/-]*(?: [\w.&/-]+)?$")
_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
_ABBR_HEADER = re.compile(r"(?i)^\s*(?:abbreviations?|acronyms?|abbr\.?)\s*:?\s*$")
_DEF_HEADER = re.compile(
    r"(?i)^\s*(?:definitions?|terms?|meanings?|full (?:name|term)|descriptions?|expansions?)\s*:?\s*$"
)
_MAX_LONG_CHARS = 120
#: words a long form never starts with (``acceptance and commitment therapy (ACT)``: not ``and ...``)
_NOT_FIRST = frozenset({"a", "an", "and", "as", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"})


def long_form(short: str, before: str) -> str | None:
    """The long form of ``short`` at the end of ``before`` (the text up to the bracket), or ``None``.

    Schwartz-Hearst: the characters of ``short`` (letters and digits) matched right to left in
    the last ``min(len(short) + 5, 2 * len(short))`` words, the first one at the start of a word.
    """
    chars = [c.lower() for c in short if c.isalnum()]
    if len(chars) < 2 or not any(c.isupper() for c in short):
        return None
    words = list(_WORD.finditer(before))
    window = words[-min(len(chars) + 5, 2 * len(chars)) :]
    if not window:
        return None
    start = window[0].start()
    text = before[start:].rstrip()
    low = text.lower()
    i = len(low) - 1
    for j in range(len(chars) - 1, -1, -1):
        c = chars[j]
        while i >= 0 and (
            low[i] != c or (j == 0 and ((i > 0 and low[i - 1].isalnum()) or _first_word(low, i) in _NOT_FIRST))
        ):
            i -= 1
        if i < 0:
            return None
        i -= 1
    found = text[i + 1 :].strip(" ,;:")
    if not found or len(found) > _MAX_LONG_CHARS or found.lower() == short.lower() or len(found) <= len(short):
        return None
    return found


def _first_word(low: str, i: int) -> str:
    m = _WORD.match(low, i)
    return m.group(0) if m else ""


def _from_text(text: str) -> Iterable[tuple[str, str]]:
    for m in _IN_BRACKETS.finditer(text):
        short = m.group(1).strip()
        if not _SHORT.match(short):
            continue
        found = long_form(short, text[: m.start()])
        if found:
            yield short, found


def _from_tables(doc: ParsedDocument) -> Iterable[tuple[str, str]]:
    for block in doc.blocks:
        grid = block.table
        if block.kind is not BlockKind.TABLE or grid is None or not grid.header_rows:
            continue
        header = grid.header_rows[-1]
        a = next((i for i, h in enumerate(header) if _ABBR_HEADER.match(h)), None)
        d = next((i for i, h in enumerate(header) if _DEF_HEADER.match(h)), None)
        if a is None or d is None:
            continue
        for row in grid.body_rows:
            if max(a, d) < len(row):
                short, full = row[a].strip(), " ".join(row[d].split())
                if _SHORT.match(short) and full and len(full) <= _MAX_LONG_CHARS and full.lower() != short.lower():
                    yield short, full


def find_abbreviations(doc: ParsedDocument) -> dict[str, str]:
    """``{short form: long form}`` of the abbreviations ``doc`` defines (see the module docstring),
    the first definition of each short form, in document order (abbreviation lists first)."""
    out: dict[str, str] = {}
    for short, full in _from_tables(doc):
        out.setdefault(short, full)
    for block in doc.blocks:
        if block.is_furniture or block.kind is BlockKind.REFERENCE:
            continue
        for short, full in _from_text(block.text):
            out.setdefault(short, full)
    return out


def expansions(text: str, abbreviations: Mapping[str, str]) -> list[str]:
    """Long forms of the short forms of ``abbreviations`` that ``text`` uses as whole words and does
    not already spell out, in order of first use."""
    low = text.lower()
    out: list[str] = []
    for token in dict.fromkeys(re.findall(r"[A-Za-z0-9][\w&/-]*[\w]|[A-Za-z]", text)):
        full = abbreviations.get(token)
        if full and full.lower() not in low and full not in out:
            out.append(full)
    return out


def attach_expansions(doc: ParsedDocument, units: list[Unit]) -> None:
    """Set each unit's ``expansions`` to :func:`expansions` of its context and text under the
    abbreviations ``doc`` defines (in place; units of a document that defines none are unchanged)."""
    defined = find_abbreviations(doc)
    if defined:
        for unit in units:
            unit.expansions = expansions(f"{unit.context}\n{unit.text}", defined)
