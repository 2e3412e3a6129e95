"""Helpers shared by the unit builders: sentence ends and context titles."""

from __future__ import annotations

import re

#: Where a sentence ends: Latin ``. ! ? ;`` (closing quotes and brackets may follow) before
#: white space, or a CJK full stop, which needs none. A dot inside a number (``1.73``, ``0.71``)
#: or an abbreviation (``i.e.``) is followed by no space, so no cut falls there.
SENTENCE_END = re.compile(r"(?<=[.!?;][\"'”’)\]])\s+|(?<=[.!?;])\s+|(?<=[。！？；])\s*")
NUMBER = re.compile(r"\d")
_TITLE_MAX_CHARS = 160


#: Abbreviations whose dot ends no sentence (unless a capital letter follows: "... et al. The").
_NO_CUT_BEFORE = re.compile(
    r"(?:\b(?:e\.g|i\.e|cf|vs|viz|al|approx|Fig|Figs|No|Nos|Ref|Refs|Dr|St|Vol|pp|p)\.|\b[A-Z]\.)[\"'”’)\]]?$"
)


def sentences(text: str) -> list[str]:
    """``text`` cut after each sentence end (:data:`SENTENCE_END`), every piece a slice of it.

    The pieces keep their trailing white space, so ``"".join(sentences(t)) == t``: a unit built
    from them holds the text exactly as the parser gave it (no space inserted after ``0.``).
    """
    pieces, start = [], 0
    for m in SENTENCE_END.finditer(text):
        if _NO_CUT_BEFORE.search(text, 0, m.start()) and (
            m.start() == len(text) or not text[m.end() : m.end() + 1].isupper()
        ):
            continue  # "e.g. the", "Fig. 3": an abbreviation, not a sentence end
        if (
            text[m.start() - 1 : m.start()] == "."
            and text[m.start() - 2 : m.start() - 1].isdigit()
            and text[m.end() : m.end() + 1].isdigit()
        ):
            continue  # "0.\n72": a number the parser broke over two lines
        if m.end() > start and m.end() < len(text):
            pieces.append(text[start : m.end()])
            start = m.end()
    if start < len(text) or not pieces:
        pieces.append(text[start:])
    return pieces


def title(caption: str) -> str:
    """A caption shortened for a context string: its first sentence, at most 160 characters.

    Parsers sometimes glue a following paragraph onto a caption; the context must stay a title.
    """
    caption = " ".join(caption.split())
    if len(caption) <= _TITLE_MAX_CHARS:
        return caption
    first = ""
    for piece in sentences(caption):  # "Figure 1." alone is a label, not a title
        first += piece
        if len(first.strip()) >= 24:
            break
    first = first.strip()
    if len(first) > _TITLE_MAX_CHARS:
        first = caption[:_TITLE_MAX_CHARS].rsplit(" ", 1)[0]
    return first.rstrip()
