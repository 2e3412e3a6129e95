"""Glyphs a PDF's text layer cannot name, written as a reader sees them.

Text extracted from PDFs (by MinerU, pdfminer/pdfplumber, Unstructured) carries code points that
are no text:

* **Symbol-font bullets**: Word writes list bullets in Symbol / Wingdings / Wingdings 2, whose glyphs
  sit in the Private Use Area at ``U+F000 + code`` (the VA/DoD guidelines' square second-level bullet
  is Wingdings 2 ``0xA1``, extracted as ``U+F0A1``; a form's empty check box is another). A Private
  Use Area glyph where a bullet stands (at the start of a word: after a line start, a space, ``:``
  or ``;``; before a space, punctuation or a letter; also bullets of list items run into one line,
  and a bullet a text layer set against its item: ``\uf0a1Symptoms`` -> ``▪ Symptoms``) is written
  ``▪``. One set after a word or before a figure is dropped: without its font, its meaning cannot
  be told (Symbol's ``0xA3`` is ``≤``, Wingdings 2's a box).
* **Control characters** (C0 and C1, other than tab, newline and carriage return): a font that maps
  its space glyph to ``U+0003`` (``二〇二五\\x03年``) or stray ``U+0000``; each is a space.
* **pdfminer's** ``(cid:N)`` for a glyph without a Unicode map: dropped.
* ``U+FFFD`` (a decoder's replacement character): dropped.
* **PDFium's line-end hyphen**: PDFium drops the line break after a hyphen that ends a line and
  writes the hyphen ``U+0002`` (``get_text_bounded``, its character API) or ``U+FFFE``
  (``get_text_range``): between two letters it is the hyphen the page prints
  (``angiotensin\x02converting`` -> ``angiotensin-converting``; whether the writer meant it, or a
  syllable break, is the text layer's to tell: :mod:`structaware_readers.text.restore`); elsewhere
  a ``U+FFFE`` is dropped.

Text without any of these is returned unchanged (one regex search).
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
