"""The normalised text the grade patterns match on, and the way back to the original characters."""

from __future__ import annotations

import unicodedata

__all__ = ["NormalisedText", "normalize_grade_text"]

_FIXED = {
    "【": "[", "】": "]", "〔": "[", "〕": "]", "〖": "[", "〗": "]", "「": "[", "」": "]",
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u3000": " ", "\u00a0": " ",
    "*": "", "\u200b": "", "\u200c": "", "\u200d": "", "\ufeff": "",
}  # fmt: skip


class _Table(dict[int, str]):
    """``str.translate`` table: code point -> replacement, computed on first sight of a character."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        rep = _FIXED.get(ch)
        if rep is None:
            rep = unicodedata.normalize("NFKC", ch) if code > 127 else ch
        self[code] = rep
        return rep


_TABLE = _Table()


class NormalisedText:
    """``text`` and its normalised form ``norm``; :meth:`original` maps a span of ``norm`` back."""

    __slots__ = ("_index", "_same", "norm", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.norm = text.translate(_TABLE)
        self._index: list[int] | None = None
        self._same: bool | None = None  # every character kept its length (decided once, on first use)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of ``text`` that ``norm[start:end]`` was made from (``end`` exclusive)."""
        if self._same is None:
            self._same = len(self.norm) == len(self.text) and all(len(_TABLE[ord(c)]) == 1 for c in set(self.text))
        if self._same:
            return start, end  # every character kept its length: positions are the same
        if self._index is None:
            index: list[int] = []
            for i, ch in enumerate(self.text):
                index.extend([i] * len(_TABLE[ord(ch)]))
            self._index = index
        return self._index[start], self._index[end - 1] + 1


def normalize_grade_text(text: str) -> str:
    """The normalised form the grade patterns match on (NFKC, ``Ⅱ``->``II``, ``【】``->``[]``, no ``*``)."""
    return text.translate(_TABLE)
