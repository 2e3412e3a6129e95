"""A recommendation's statement without its grade marks, and the grade named in the unit's context."""

from __future__ import annotations

import re

from structaware_readers.models import Grade

__all__ = ["grade_context", "strip_marks"]

_PAIRS = {"(": ")", "[": "]", "（": "）", "【": "】", "〔": "〕", "［": "］"}
_PUNCT = ".,;:!?。，；：！？)]）】"


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` widened over the brackets it leaves open (a label of several bracketed parts,
    ``(Strong ...; high ...) [Grade A]``, is matched from inside the first to inside the last), and
    then to the brackets that enclose exactly it (spaces inside allowed)."""
    a, b = start, end
    while a > 0 and text[a - 1] in " \t":
        a -= 1
    while b < len(text) and text[b] in " \t":
        b += 1
    piece = text[start:end]
    opens = sum(piece.count(o) for o in _PAIRS)
    closes = sum(piece.count(c) for c in _PAIRS.values())
    if closes > opens and a > 0 and text[a - 1] in _PAIRS:
        start, a, opens = a - 1, a - 1, opens + 1
    if opens > closes and b < len(text) and text[b] in _PAIRS.values():
        end, b = b + 1, b + 1
    if a > 0 and b < len(text) and _PAIRS.get(text[a - 1]) == text[b]:
        return a - 1, b + 1
    return start, end


def _join(left: str, right: str) -> str:
    """Two pieces either side of a removed mark: no space before punctuation or a line end, one
    space between two words."""
    if not right.strip(" \t") or right.lstrip(" \t")[:1] in _PUNCT or right.lstrip(" \t")[:1] == "\n":
        return left.rstrip(" \t") + right.lstrip(" \t")
    if left.endswith((" ", "\t", "\n")) or not left:
        return left + right.lstrip(" \t")
    return left + " " + right.lstrip(" \t") if right[:1] in " \t" else left + right


def strip_marks(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the grade marks at ``spans`` (character offsets into ``text``, end exclusive),
    stripped. Returns ``text`` stripped when removing the marks would leave nothing but punctuation
    (a text that is only a grade)."""
    kept = ""
    pos = 0
    for s, e in sorted(spans):
        s, e = _widen(text, max(s, pos), max(e, pos))
        kept = _join(kept, text[pos:s]) if kept else text[pos:s]
        pos = max(pos, e)
    kept = _join(kept, text[pos:]) if kept else text[pos:]
    kept = kept.strip()
    if not re.search(r"\w", kept):
        return text.strip()
    return kept


def grade_context(context: str, grade: Grade | None) -> str:
    """``context`` with a ``Grade (<system>): <marks as printed>`` part (``" | "``-joined);
    unchanged for no grade or a grade without printed marks (a document default)."""
    if grade is None or not grade.raw.strip() or grade.source == "document_default":
        return context
    part = f"Grade ({grade.system}): {' '.join(grade.raw.split())}"
    return f"{context} | {part}" if context else part
