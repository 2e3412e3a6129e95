"""Heading depth from the heading's own numbering.

Parsers' heading levels are unreliable, while guideline headings are numbered. The depth is read
from the numbering prefix after NFKC (``2.1.3`` -> 3, ``Chapter 3``/``第三章``/``Annex A`` -> 1,
``（一）`` -> 2, ``(1)`` -> 3, ``①`` -> 4); :func:`heading_levels` then places a document's headings
relative to each other with a stack of open numbering styles, which is what readers use.

Quantities are no numbering: a first number of three or more digits (a year), a number followed by
a unit, ``%`` or a range dash (``5 mg``, ``5-FU``), or glued to a letter or a CJK measure word
(``3D``, ``2型``) gives ``None``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

_CN_NUM = "零〇一二三四五六七八九十百千两"
#: CJK measure words and units: a number glued to one is a quantity (``2型糖尿病``, ``3级``, ``13价``).
_CJK_COUNTERS = "年月日岁天周时分秒次个例名人倍型类期级度号种项位代线价联剂针片粒支毫克升组层元万亿千百米厘公磅"
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
_CIRCLED = re.compile(r"^[\u2460-\u2473\u3251-\u325f\u32b1-\u32bf]")  # ① .. ⑳, ㉑ .. ㊿
_BACK_MATTER = re.compile(
    r"^(?:references?|bibliography|literature cited|acknowledge?ments?|参考文献|致谢|致\s*谢)\s*$", re.IGNORECASE
)


def numbering_depth(text: str) -> int | None:
    """Depth (1 = top level) implied by the numbering at the start of a heading, or ``None`` (also for a quantity such
    as ``5 mg``): ``"2.1.3 Foo"`` -> 3, ``"（一）适用范围"`` -> 2, ``"A.1 Scope"`` -> 2, ``"2019 data show"`` -> ``None``.
    """
    found = numbering_style(text)
    return found[2] if found is not None else None


def numbering_style(text: str) -> tuple[str, float, int] | None:
    """``(style, rank, depth)`` of the numbering at the start of a heading, or ``None``. Two headings of one
    ``style`` are siblings; ``rank`` orders styles, smaller = higher: ``第X章 > 第X节 > 一、 > （一） > 1. > (1) > ①``
    and ``5 > 5.1 > 5.1.1``.
    """
    if not text:
        return None
    if _CIRCLED.match(text.lstrip().lstrip("#").lstrip()):  # before NFKC, which turns ① into 1
        return "circled", 6.0, 4
    s = unicodedata.normalize("NFKC", text).lstrip().lstrip("#").lstrip()
    if not s:
        return None

    m = _CN_CHAPTER.match(s)
    if m:
        unit = m.group(1)
        if unit == "节":
            return "cn_section", 1.0, 2
        if unit == "条":
            return "cn_article", 5.0, 3
        return "cn_chapter", 0.0, 1
    m = _LETTER_DOTTED.match(s)
    if m:
        parts = 1 + m.group(2).count(".")
        return f"decimal{parts}", 4 + 0.1 * (parts - 1), min(6, parts)
    if _ANNEX_CN.match(s) or _ANNEX_WORD.match(s):
        return "annex", 0.0, 1
    if _CHAPTER_WORD.match(s):
        return "chapter", 0.0, 1
    m = _SECTION_WORD.match(s)
    if m:
        parts = m.group(1).count(".") + 1
        return f"decimal{parts}", 4 + 0.1 * (parts - 1), min(6, parts)
    if _CN_ENUM.match(s):
        return "cn_enum", 2.0, 1
    if _CN_PAREN.match(s):
        return "cn_paren", 3.0, 2
    if _NUM_PAREN.match(s):
        return "num_paren", 5.0, 3
    if _ROMAN_DOT.match(s):
        return "roman", 1.5, 1

    m = _DECIMAL.match(s)
    if m:
        rest = m.group("rest")
        if _is_quantity(rest, has_dot=bool(m.group("dot"))):
            return None
        parts = m.group("num").count(".") + 1
        return f"decimal{parts}", 4 + 0.1 * (parts - 1), min(6, parts)
    return None


def heading_levels(headings: Sequence[tuple[str, int | None]], *, parser_levels_fixed: bool = False) -> list[int]:
    """Levels (1 = top) of a document's headings, in reading order, from their numbering in context."""
    stack: list[tuple[str, float, int]] = []  # open numbering: (style, rank, level)
    levels: list[int] = []
    for text, parser_level in headings:
        found = numbering_style(text)
        given = parser_level if isinstance(parser_level, int) and parser_level >= 1 else None
        if parser_levels_fixed and given is not None:
            while stack and stack[-1][2] >= given:
                stack.pop()
            stack.append((found[0], found[1], given) if found else ("", -1.0, given))
            levels.append(given)
        elif found is not None:
            style, rank, depth = found
            open_styles = [st for st, _, _ in stack]
            if style in open_styles:
                del stack[open_styles.index(style) :]
            else:
                while stack and stack[-1][1] >= rank:
                    stack.pop()
            parent = stack[-1][2] if stack else 0
            # a decimal "4.2" is at least at depth 2 even when "4" was never seen (an excerpt)
            level = max(parent + 1, depth if style.startswith("decimal") else 1)
            stack.append((style, rank, level))
            levels.append(level)
        elif _BACK_MATTER.match(unicodedata.normalize("NFKC", text).strip()):
            stack.clear()
            levels.append(1)
        else:
            levels.append(max(given or 1, (stack[-1][2] if stack else 0) + 1))
    return levels


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
        if after[0] in _CJK_COUNTERS and not has_dot:
            return True  # "4 类要素": a count written with a space
        return bool(_UNIT_AFTER.match(after)) and not has_dot
    if has_dot:
        # "2.Introduction" (missing space after the dot) still reads as numbering
        return not (first.isalpha() or _is_cjk(first))
    if _is_cjk(first):
        return first in _CJK_COUNTERS
    if first.isalpha():
        return True  # 3D imaging, 2nd line
    # punctuation such as ":" or ")" is handled by the other rules; "%" and dashes are quantities
    return first in "%‰-–—~/×,"


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


__all__ = ["heading_levels", "numbering_depth", "numbering_style"]
