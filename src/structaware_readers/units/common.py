"""Helpers shared by the unit builders: sentence ends and context titles."""

from __future__ import annotations

import re

SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*")
NUMBER = re.compile(r"\d")
_TITLE_MAX_CHARS = 160


def title(caption: str) -> str:
    """A caption shortened for a context string: its first sentence, at most 160 characters.

    Parsers sometimes glue a following paragraph onto a caption; the context must stay a title.
    """
    caption = " ".join(caption.split())
    if len(caption) <= _TITLE_MAX_CHARS:
        return caption
    first = ""
    for piece in SENTENCE_END.split(caption):  # "Figure 1." alone is a label, not a title
        first = f"{first} {piece}".strip()
        if len(first) >= 24:
            break
    if len(first) > _TITLE_MAX_CHARS:
        first = caption[:_TITLE_MAX_CHARS].rsplit(" ", 1)[0]
    return first.rstrip()
