"""Glyphs a PDF's text layer cannot name, written as a reader sees them.

A Symbol/Wingdings bullet in the Private Use Area where a bullet stands becomes ``▪`` (elsewhere it
is dropped: without its font its meaning is unknown); control characters become spaces; pdfminer's
``(cid:N)`` and ``U+FFFD`` are dropped; PDFium's line-end hyphen (``U+0002``/``U+FFFE``) between
letters becomes ``-`` (whether it belongs to the word is :mod:`structaware_readers.text.restore`'s
call). Text without any of these is returned unchanged.
"""

from __future__ import annotations

import re

_SUSPECT = re.compile("[\ue000-\uf8ff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe]|\\(cid:\\d+\\)")
#: PDFium's line-end hyphen between two letters: the printed hyphen.
_LINE_END_HYPHEN = re.compile(r"(?<=[^\W\d_])[\x02\ufffe](?=[^\W\d_])")
_PUA = "\ue000-\uf8ff"
#: A Private Use Area glyph where a bullet stands: at the start of a word (after a line start, a space
#: or ":"/";"), before a space, punctuation, the end, or a letter (a bullet set against its item).
_PUA_BULLET = re.compile(rf"(?:^|(?<=[\s:;]))[{_PUA}](?=[\s\W]|$|(?P<letter>[^\W\d_]))", re.MULTILINE)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CID = re.compile(r"\(cid:\d+\)")
BULLET = "▪"


def has_bad_glyphs(text: str) -> bool:
    """True when ``text`` holds a glyph :func:`repair_glyphs` would change."""
    return _SUSPECT.search(text) is not None


def repair_glyphs(text: str) -> str:
    """``text`` with the glyphs of the module docstring written as a reader sees them; ``text``
    itself when it holds none."""
    if not text or not has_bad_glyphs(text):
        return text
    text = _LINE_END_HYPHEN.sub("-", text).replace("\ufffe", "")
    text = _PUA_BULLET.sub(lambda m: BULLET + " " if m.group("letter") else BULLET, text)
    text = re.sub(f"[{_PUA}]", "", text)
    text = _CID.sub("", text)
    return _CONTROL.sub(" ", text)


__all__ = ["BULLET", "has_bad_glyphs", "repair_glyphs"]
