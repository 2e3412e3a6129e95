"""Whether a page's text layer can be read: the share of its characters no reader can use.

Fonts embedded without a Unicode map print right but extract as codes; such a page is read by OCR
(:mod:`structaware_readers.load.pdf_route`). A character is unreadable when PDFium reports a map
error for it (sampled, :data:`MAP_SAMPLES`), when it is a control, private-use or replacement
character or part of ``(cid:N)``, or when it lies in a run of at least :data:`MOJIBAKE_RUN`
Latin-1/Latin Extended characters (CJK bytes decoded as a Western code page). A page is garbled
when it has at least :data:`MIN_CHARS` characters and :data:`GARBLED_SHARE` of them are unreadable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "GARBLED_SHARE",
    "MAP_SAMPLES",
    "MIN_CHARS",
    "MOJIBAKE_RUN",
    "SUSPECT_SHARE",
    "TextLayerQuality",
    "page_quality",
    "text_quality",
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
    """How much of a page's text layer can be read."""

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
    return (
        (o < 32 and o not in (9, 10, 13)) or 0x7F <= o <= 0x9F or 0xE000 <= o <= 0xF8FF or o >= 0xF0000 or o == 0xFFFD
    )


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
