"""Heading depth from the heading's own numbering.

Parsers' heading levels are unreliable (MinerU's ``text_level`` is 1 or 2 in practice, see
``research/formats-mineru-unstructured.md`` §6), while guideline headings are numbered. The
depth is read from the numbering prefix of the heading text (after Unicode NFKC, so full-width
digits and brackets count).

Mapping (fixed, independent of the rest of the document):

=================================================  =====
prefix                                             depth
=================================================  =====
``2`` / ``2.`` / ``2 Title``                       1
``2.1`` / ``2.1.3`` / ``3.1节``                     number of parts (2, 3, 2), max 6
``Chapter 3``, ``Part II``, ``第三章``, ``第3章``     1
``Section 2.1``                                    number of parts (``Section 4`` -> 1)
``Annex A``, ``Appendix 1``, ``附录A``               1
``A.1``, ``A.1.2``                                 1 + numeric parts (2, 3)
``I.``, ``IV.`` (Roman numeral + ``.``)            1
``一、`` (Chinese numeral + 、)                       1
``第一节``, ``（一）``, ``(一)``                       2
``（1）``, ``(1)``, ``1）``, ``1)``                   3
``第一条``                                          3
=================================================  =====

The Chinese rows follow the usual official-document convention 一、 > （一） > 1. > （1）,
kept simple: ``1.`` stays depth 1 (the decimal rule), so a document that nests ``1.`` under
``（一）`` gets depth 1 for it, which a caller can correct from context.

Guards against false positives (this is applied to heading text, but headings sometimes
start with quantities): the first number has at most two digits (so years such as
``2019 data show`` give ``None``), every later part at most three; a number directly followed
by a digit, ``%``, a range dash or a unit (``5 mg``, ``2.5 mL``, ``140 mmHg``, ``3 years``) gives
``None``; a number glued to a Latin letter (``3D imaging``) gives ``None``.
"""

from __future__ import annotations

import re
import unicodedata

_CN_NUM = "零〇一二三四五六七八九十百千两"
_ROMAN = r"(?:X{0,3})(?:IX|IV|V?I{0,3})"

_UNITS = (
    "mg|g|kg|mcg|µg|μg|ug|ng|ml|mL|l|L|dl|dL|mmol|mol|mmhg|mmHg|cm|mm|m|km|kcal|cal|iu|IU|u|"
    "h|hr|hrs|hours?|min|mins|minutes?|s|sec|seconds?|d|days?|wk|weeks?|mo|months?|y|yr|yrs|years?|"
    "°c|°C|°f|°F|℃|bpm|times|x|fold|percent|per|mmol/l|mg/dl|ppm|kda|kDa"
)

_DECIMAL = re.compile(
    r"""^(?P<num>\d{1,2}(?:\.\d{1,3})*)   # 2 | 2.1 | 2.1.3
        (?P<dot>\.)?                      # optional trailing dot
        (?![\d.])                         # the number really ends here
        (?P<rest>.*)$""",
    re.VERBOSE | re.DOTALL,
)
_UNIT_AFTER = re.compile(rf"^\s*(?:{_UNITS})(?![A-Za-z])", re.IGNORECASE)
_CN_CHAPTER = re.compile(rf"^第\s*[{_CN_NUM}\d]+\s*([章篇部编节条])")
_CN_ENUM = re.compile(rf"^[{_CN_NUM}]+\s*[、，,]")
_CN_PAREN = re.compile(rf"^\(\s*[{_CN_NUM}]+\s*\)")
_NUM_PAREN = re.compile(r"^(?:\(\s*\d{1,2}\s*\)|\d{1,2}\))")
_CHAPTER_WORD = re.compile(
    rf"^(?:chapter|part|book)\s+(?:\d{{1,3}}|(?=[IVX]){_ROMAN}|[A-Z]|one|two|three|four|five|six|seven|eight|nine|ten)\b",
    re.IGNORECASE,
)
_SECTION_WORD = re.compile(r"^(?:section|sect\.|§)\s*(\d{1,2}(?:\.\d{1,3})*)\b", re.IGNORECASE)
_ANNEX_WORD = re.compile(r"^(?:annex|appendix|supplement)\s+(?:[A-Z]|\d{1,2}|[IVX]+)\b(?!\.\d)", re.IGNORECASE)
_ANNEX_CN = re.compile(rf"^附\s*录\s*(?:[A-Z]|\d{{1,2}}|[{_CN_NUM}]+)(?![.\d])")
_LETTER_DOTTED = re.compile(r"^(?:(?:annex|appendix)\s+|附\s*录\s*)?([A-Z])((?:\.\d{1,3})+)\.?(?![\d.])", re.IGNORECASE)
_ROMAN_DOT = re.compile(rf"^(?=[IVX])({_ROMAN})\.\s+\S")


def numbering_depth(text: str) -> int | None:
    """Depth (1 = top level) implied by the numbering at the start of a heading, or ``None``.

    Args:
        text: the heading text as the parser wrote it (leading whitespace and Markdown ``#``
            marks are ignored).

    Returns:
        ``1..6`` per the table in the module docstring, or ``None`` when the text does not
        start with a recognised numbering (or starts with a quantity such as ``5 mg``).

    Examples:
        ``"2.1.3 Foo"`` -> 3, ``"第三章 总则"`` -> 1, ``"（一）适用范围"`` -> 2, ``"Annex A"`` -> 1,
        ``"A.1 Scope"`` -> 2, ``"Background"`` -> ``None``, ``"2019 data show"`` -> ``None``.
    """
    if not text:
        return None
    s = unicodedata.normalize("NFKC", text).lstrip().lstrip("#").lstrip()
    if not s:
        return None

    m = _CN_CHAPTER.match(s)
    if m:
        return {"章": 1, "篇": 1, "部": 1, "编": 1, "节": 2, "条": 3}[m.group(1)]
    m = _LETTER_DOTTED.match(s)
    if m:
        return min(6, 1 + m.group(2).count("."))
    if _ANNEX_CN.match(s) or _ANNEX_WORD.match(s) or _CHAPTER_WORD.match(s):
        return 1
    m = _SECTION_WORD.match(s)
    if m:
        return min(6, m.group(1).count(".") + 1)
    if _CN_ENUM.match(s):
        return 1
    if _CN_PAREN.match(s):
        return 2
    if _NUM_PAREN.match(s):
        return 3
    if _ROMAN_DOT.match(s):
        return 1

    m = _DECIMAL.match(s)
    if m:
        rest = m.group("rest")
        if _is_quantity(rest, has_dot=bool(m.group("dot"))):
            return None
        return min(6, m.group("num").count(".") + 1)
    return None


def _is_quantity(rest: str, *, has_dot: bool) -> bool:
    """True when what follows a number shows it is a quantity or a glued word, not a numbering."""
    if not rest:
        return False
    first = rest[0]
    if first.isspace():
        after = rest.lstrip()
        if not after:
            return False
        if after[0] in "%‰-–—~/×x" and not has_dot:
            return True
        return bool(_UNIT_AFTER.match(after)) and not has_dot
    if has_dot:
        # "2.Introduction" (missing space after the dot) still reads as numbering
        return not (first.isalpha() or _is_cjk(first))
    if _is_cjk(first):
        return first in "年月日岁天周时分秒次个例名人倍"
    if first.isalpha():
        return True  # 3D imaging, 2nd line
    # punctuation such as ":" or ")" is handled by the other rules; "%" and dashes are quantities
    return first in "%‰-–—~/×,"


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


__all__ = ["numbering_depth"]
