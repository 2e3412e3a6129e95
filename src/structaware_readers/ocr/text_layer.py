"""Whether a page's text layer can be read: the share of its characters no reader can use.

A born-digital page can carry text that prints right but extracts as garbage: fonts embedded
without a Unicode map (no ``ToUnicode``, a custom encoding), so PDFium hands back the font's
character codes (``!"#$``, control characters, ``ÄÅÇÉ``) instead of the characters drawn. Such a
page reads as the OCR route reads a scan (:mod:`structaware_readers.load.pdf_route`).

A character is **unreadable** when

* PDFium says its font gave it no Unicode value (``FPDFText_HasUnicodeMapError``; checked on at
  most :data:`MAP_SAMPLES` characters spread over the page, which keeps the check cheap on long
  files), or
* it is a control character (C0/C1 other than tab and line breaks), a private-use code point, the
  replacement character U+FFFD, or part of a ``(cid:N)`` placeholder (how pdfminer-based tools
  write an unmapped glyph), or
* it is one of a run (no space inside) of at least :data:`MOJIBAKE_RUN` characters from the
  Latin-1 supplement / Latin Extended / spacing-modifier blocks (U+0080..U+02FF), the punctuation
  Western code pages add (U+2013..U+203A: dashes, quotes, daggers, ``…``, ``‰``; ``€``, ``™``) or
  control characters, holding at least two letters or symbols of the Latin blocks: what CJK bytes
  decoded as a Western code page look like (``ÑÖÜáàâ``, ``¥“å``). Words of European languages mix
  such letters with ASCII ones (``Ärzte``, ``ações``), so their runs are short and rare, and Chinese
  punctuation runs (``……``, ``——“``) hold no Latin letter.

A page is **garbled** when it holds at least :data:`MIN_CHARS` non-space characters and at least
:data:`GARBLED_SHARE` of them are unreadable (the larger of the two estimates: the text's own and
PDFium's sampled map errors). On the development PDFs (VA/DoD, multi-publisher and Chinese
guidelines, 2,051 pages; company filings, 6,497 more) no page reaches 0.45 and all but one stay
under 0.08 (the one: a page whose table alone is set in a font without a Unicode map, named in a
warning), while every page of a Chinese standard set in fonts without a Unicode map is at 0.96 or
more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GARBLED_SHARE", "MAP_SAMPLES", "MIN_CHARS", "MOJIBAKE_RUN", "SUSPECT_SHARE", "TextLayerQuality", "page_quality", "text_quality",
]

#: A page with at least this share of unreadable characters is read by OCR ...
GARBLED_SHARE = 0.5
#: ... when it holds at least this many non-space characters (fewer: too little to judge).
MIN_CHARS = 16
#: A page kept from its text layer with at least this share unreadable is named in a warning.
SUSPECT_SHARE = 0.1
#: Characters per page checked for PDFium's "no Unicode value" flag (spread evenly over the page).
MAP_SAMPLES = 256
#: A run of this many Latin-1 / Latin Extended / code-page punctuation / control characters (two of
#: them Latin letters or symbols) is mojibake.
MOJIBAKE_RUN = 2

_CID = re.compile(r"\(cid:\d+\)")
_SPACE = frozenset(" \t\r\n\u00a0\u3000\ufffe")  # U+FFFE: PDFium's mark for a soft hyphen at a line end
_SPACE_CODES = frozenset({0, *map(ord, _SPACE)})


@dataclass(frozen=True)
class TextLayerQuality:
    """How much of a page's text layer can be read.

    Attributes:
        chars: non-space characters in the text layer.
        unreadable: how many of them are unreadable (module docstring): the text's own count.
        map_errors: share (0..1) of the sampled characters PDFium could not map to Unicode.
    """

    chars: int
    unreadable: int
    map_errors: float = 0.0

    @property
    def unreadable_share(self) -> float:
        """Share (0..1) of unreadable characters: the larger of the text's count and PDFium's map errors."""
        own = self.unreadable / self.chars if self.chars else 0.0
        return max(own, self.map_errors)

    @property
    def garbled(self) -> bool:
        """Too much of the page is unreadable to read it from its text layer (see the module docstring)."""
        return self.chars >= MIN_CHARS and self.unreadable_share >= GARBLED_SHARE

    @property
    def suspect(self) -> bool:
        """A notable share unreadable (:data:`SUSPECT_SHARE`), not enough to be garbled: worth a warning."""
        return self.chars >= MIN_CHARS and SUSPECT_SHARE <= self.unreadable_share < GARBLED_SHARE


def _bad_char(o: int) -> bool:
    """A control character (tab and line breaks excepted), a private-use code point or U+FFFD."""
    return (o < 32 and o not in (9, 10, 13)) or 0x7F <= o <= 0x9F or 0xE000 <= o <= 0xF8FF or o >= 0xF0000 or o == 0xFFFD


def _run_char(o: int) -> bool:
    """Latin-1 supplement, Latin Extended-A/B, IPA, spacing modifiers, Western code-page punctuation,
    or a control character."""
    return 0x80 <= o <= 0x2FF or 0x2013 <= o <= 0x203A or o in (0x20AC, 0x2122) or (o < 32 and o not in (9, 10, 13))


def text_quality(text: str) -> TextLayerQuality:
    """Unreadable characters of ``text`` (module docstring), without PDFium's map errors."""
    chars = sum(1 for ch in text if ch not in _SPACE)
    bad = sum(len(m.group()) for m in _CID.finditer(text))
    text = _CID.sub(" ", text)
    run: list[int] = []
    for ch in [*text, " "]:
        o = ord(ch)
        if ch not in _SPACE and _run_char(o):
            run.append(o)
            continue
        if len(run) >= MOJIBAKE_RUN and sum(1 for r in run if 0xA0 <= r <= 0x2FF) >= 2:
            bad += len(run)
        else:
            bad += sum(1 for r in run if _bad_char(r))
        run = []
        if ch not in _SPACE and _bad_char(o):
            bad += 1
    return TextLayerQuality(chars, bad)


def page_quality(textpage: Any, count: int | None = None) -> TextLayerQuality:
    """:func:`text_quality` of a ``pypdfium2.PdfTextPage``, with PDFium's map errors sampled.

    ``count`` is the page's ``count_chars()`` when the caller already has it.
    """
    import pypdfium2.raw as pdfium_c

    n = textpage.count_chars() if count is None else count
    quality = text_quality(textpage.get_text_range() if n else "")
    if not n:
        return quality
    step = max(1, n // MAP_SAMPLES)
    seen = errors = 0
    for i in range(0, n, step):
        if pdfium_c.FPDFText_GetUnicode(textpage.raw, i) in _SPACE_CODES:
            continue  # spaces and line breaks (PDFium generates them) carry no font mapping
        seen += 1
        errors += pdfium_c.FPDFText_HasUnicodeMapError(textpage.raw, i) == 1
    return TextLayerQuality(quality.chars, quality.unreadable, errors / seen if seen else 0.0)
