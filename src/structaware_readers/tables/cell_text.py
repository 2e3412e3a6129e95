r"""The text of one HTML table cell: inline markup turned into plain text without gluing words.

Entities are decoded; ``<br>`` and block elements start a new line (never ``45-75Stool``); a
``<sup>`` glued to a word becomes ``^x`` (``metformin^b``, ``m^2``); ``<sub>`` and other inline tags
add their text in place (``CHA2DS2-VASc``). A ``<sub>`` holding words of two letters or more is a line or
words a parser took for a subscript (MinerU: ``kg/m<sup>2</sup> <sub>with</sub>``, ``2009<sub>Grade</sub>``
for ``2009`` over ``Grade``): it keeps the space before it, and a capitalised word is set apart from the
figure or word it is glued to (``2009 Grade``); a lower-case one glued stays glued (``T<sub>max</sub>``,
``Tmax``). MinerU's ``<eq>x</eq>`` becomes ``$x$``, and a formula
that is plain once a few symbols are written as text loses its dollars (:func:`plain_math`:
``≥ 140/90 mmHg``). Nested tables give one line per row; spaces collapse, blank lines go.
"""

from __future__ import annotations

import re

_WS = re.compile(r"[ \t\r\f\v\u00a0\u2002\u2003\u2009\u3000]+")
_EQ_MARKER = re.compile(r"^\^\s*\{?\s*([A-Za-z]|\d{1,2}|[*†‡§¶#]{1,3})\s*\}?$")
_BLOCK_TAGS = {"p", "div", "li", "tr", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6"}
#: longest ``<sup>`` text written as ``^x``; longer superscripts are set apart by a space instead
_MAX_SUP = 6
#: A ``<sub>`` read as words, not as a script (module docstring); ``_LINE`` the capitalised word of a line.
_SUB_WORDS = re.compile(r"[^\W\d_]{2,}(?:[ /-][^\W\d_]+)*[.,;:]?")
_LINE = re.compile(r"[A-Z][a-z]+\b")


def cell_text(cell, *, math: bool = True) -> str:
    """Plain text of an lxml ``<td>``/``<th>`` element (see the module docstring); ``math=False``
    leaves ``$x$`` formulas as they are (:func:`plain_math` not applied)."""
    parts: list[str] = []
    _collect(cell, parts, is_root=True)
    lines = [_WS.sub(" ", plain_math(ln) if math else ln).strip() for ln in "".join(parts).split("\n")]
    return "\n".join(ln for ln in lines if ln)


_SYMBOLS = {
    r"\geq": "≥", r"\leq": "≤", r"\ge": "≥", r"\le": "≤", r"\neq": "≠", r"\times": "×", r"\pm": "±",
    r"\cdot": "·", r"\%": "%", r"\approx": "≈", r"\sim": "~", r"\mu": "µ", r"\alpha": "α", r"\beta": "β",
}  # fmt: skip
_SYMBOL = re.compile("|".join(re.escape(k) + r"(?![A-Za-z])" for k in sorted(_SYMBOLS, key=len, reverse=True)))
_POWER = re.compile(r"\^\s*\{?\s*([0-9+\-])\s*\}?")
_SUPERSCRIPT = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
_INLINE_MATH = re.compile(r"\$([^$]+)\$")
_MATHY = re.compile(r"\\[A-Za-z%]|\^|^\s*[<>=]")  # a command, a power, or a leading relation


def plain_math(text: str) -> str:
    """``$x$`` formula spans (holding a ``\\command``, a ``^`` or a leading ``<``/``>``/``=``; currency
    such as ``$5 and $6`` is left alone) that are plain text once symbols and one-character powers are
    written out lose their dollars; a formula with anything else left (``\\frac``, braces, ``_``)
    stays ``$x$``."""

    def one(m: re.Match[str]) -> str:
        if not _MATHY.search(m.group(1)):
            return m.group(0)  # currency ("$5 and $6"), not a formula
        inner = _SYMBOL.sub(lambda s: _SYMBOLS[s.group(0)], m.group(1))
        inner = _POWER.sub(lambda p: p.group(1).translate(_SUPERSCRIPT), inner)
        inner = " ".join(inner.split())
        return inner if not re.search(r"[\\{}^_$]", inner) else m.group(0)

    return _INLINE_MATH.sub(one, text)


def _last_char(parts: list[str]) -> str:
    return next((p[-1] for p in reversed(parts) if p), "")


def _attach(parts: list[str]) -> None:
    """Drop the spaces (not line breaks) between a word and the short sub/superscript that follows
    it: a script is set against the glyph before it (``CHA <sub>2</sub>DS`` -> ``CHA2DS``)."""
    k = len(parts) - 1
    while k >= 0 and parts[k].strip(" \u00a0") == "" and "\n" not in parts[k]:
        k -= 1
    if k < 0 or "\n" in parts[k][len(parts[k].rstrip(" \u00a0")) :]:
        return
    stripped = parts[k].rstrip(" \u00a0")
    if stripped and stripped[-1].isalnum():
        parts[k] = stripped
        del parts[k + 1 :]


def _collect(el, parts: list[str], *, is_root: bool = False) -> None:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag == "br":
        parts.append("\n")
    elif tag == "eq":
        inner = " ".join("".join(el.itertext()).split())
        marker = _EQ_MARKER.match(inner)
        if marker:
            parts.append(f"^{marker.group(1)}")
        elif inner:
            parts.append(f" ${inner}$ ")
    elif tag == "sup":
        inner = " ".join("".join(el.itertext()).split())
        if inner:
            if len(inner) <= _MAX_SUP:
                _attach(parts)
            last = _last_char(parts)
            if last.isalnum() or (last and last in ")]%"):
                parts.append(f"^{inner}" if len(inner) <= _MAX_SUP else f" {inner} ")
            else:  # "(<sup>a</sup>)" -> "(a)"; never glued to the word after it
                parts.append(inner if last in ("(", "[") else f" {inner} ")
    elif tag == "sub" and _SUB_WORDS.fullmatch(" ".join("".join(el.itertext()).split())):
        inner = " ".join("".join(el.itertext()).split())
        last = _last_char(parts)
        if _LINE.match(inner) and (last.isalnum() or last in ")]%"):
            parts.append(" ")
        parts.append(inner)
    elif tag == "sub" and 0 < len("".join(el.itertext()).strip()) <= _MAX_SUP:
        _attach(parts)
        parts.append(" ".join("".join(el.itertext()).split()))
    elif tag in ("script", "style") or not tag:
        pass  # comments and processing instructions have a non-string tag; their tail is kept below
    else:
        if tag in _BLOCK_TAGS and not is_root:
            parts.append("\n")
        if el.text:
            parts.append(el.text)
        for child in el:
            _collect(child, parts)
        if tag in ("td", "th") and not is_root:
            parts.append(" ")
        if tag in _BLOCK_TAGS and not is_root:
            parts.append("\n")
    if not is_root and el.tail:
        parts.append(el.tail)


__all__ = ["cell_text", "plain_math"]
