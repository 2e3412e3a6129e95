"""Inline markup in a block's text turned into the text a reader sees.

Parsers leave ``<sup>a</sup>``, ``<sub>2</sub>``, ``&lt;``, ``<b>`` or ``<br>`` in plain text; unit
text must hold none of it. The rules are those of table cells
(:mod:`structaware_readers.tables.cell_text`), so a paragraph and a table row write a footnote mark
alike: ``<sup>`` against a word is ``^x``, other inline tags (:data:`INLINE_TAGS`) keep their text,
block tags break the line, entities with their semicolon are decoded; ``AT&T`` and ``<140/90`` stay.
Lines without ``<`` or ``&`` are returned unchanged.
"""

from __future__ import annotations

import re

#: Tags read as inline markup (any other ``<...>`` is text: ``<140``, ``<b and c>`` are not tags).
INLINE_TAGS = (
    "sup", "sub", "b", "i", "u", "s", "em", "strong", "span", "small", "big", "mark", "font", "a",
    "ins", "del", "code", "kbd", "var", "cite", "abbr", "br", "p", "div", "li", "ul", "ol", "eq",
)  # fmt: skip
_TAG = re.compile(
    r"</?(?:"
    + "|".join(INLINE_TAGS)
    + r")(?:\s+[a-zA-Z_:][-\w:.]*\s*=\s*(?:\"[^\"<>]*\"|'[^'<>]*'|[^\s\"'<>=`]+))*\s*/?>",
    re.IGNORECASE,
)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_MARKUP = re.compile(f"{_TAG.pattern}|{_ENTITY.pattern}", re.IGNORECASE)


def has_markup(text: str) -> bool:
    """True when ``text`` holds an inline tag of :data:`INLINE_TAGS` or an entity with its semicolon."""
    return ("<" in text or "&" in text) and _MARKUP.search(text) is not None


def plain_text(text: str) -> str:
    """``text`` with its inline markup turned into plain text (module docstring); ``text`` itself
    when it holds none."""
    if not text or not has_markup(text):
        return text
    return "\n".join(_plain_line(line) if has_markup(line) else line for line in text.split("\n"))


def _plain_line(line: str) -> str:
    from lxml import html as lxml_html

    from structaware_readers.tables.cell_text import cell_text

    pieces: list[str] = []
    pos = 0
    for m in _MARKUP.finditer(line):
        pieces.append(_escape(line[pos : m.start()]))
        pieces.append(m.group(0))
        pos = m.end()
    pieces.append(_escape(line[pos:]))
    try:
        root = lxml_html.fragment_fromstring("".join(pieces), create_parent="td")
    except Exception:  # noqa: BLE001 - lxml refuses the fragment (control characters): decode entities only
        import html

        return _ENTITY.sub(lambda m: html.unescape(m.group(0)), _TAG.sub("", line))
    return cell_text(root, math=False)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


__all__ = ["INLINE_TAGS", "has_markup", "plain_text"]
