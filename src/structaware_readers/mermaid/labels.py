"""Node and edge label text as a reader sees it: Markdown strings and HTML markup removed, Mermaid
and HTML entities decoded, ``fa:fa-icon`` names dropped, one line (:func:`clean_label`)."""

from __future__ import annotations

import re

__all__ = ["clean_label", "unquote"]

_BR = re.compile(r"<\s*br\s*/?\s*>", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_MERMAID_ENTITY = re.compile(r"#([A-Za-z][A-Za-z0-9]{1,31}|[0-9]{1,7});")
_FA_ICON = re.compile(r"\bfa[bsr]?:fa-[\w-]+")
_MD_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_EM = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")


# html (with its entity tables) is imported where a label is cleaned: the data model imports this
# package for its flowchart type, and a process that only reads units never cleans a label


def _entity(m: re.Match[str]) -> str:
    import html.entities

    name = m.group(1)
    if name.isdigit():
        return f"&#{name};"
    if name + ";" in html.entities.html5:
        return f"&{name};"
    return m.group(0)


def clean_label(text: str) -> str:
    """Label text as a reader sees it: Markdown/HTML markup removed, entities decoded, one line."""
    import html

    text = text.strip()
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":  # Markdown string
        text = text[1:-1]
        text = _MD_STRONG.sub(r"\2", text)
        text = _MD_EM.sub(r"\2", text)
    text = _BR.sub(" ", text)
    text = _TAG.sub("", text)
    text = _FA_ICON.sub("", text)
    text = _MERMAID_ENTITY.sub(_entity, text)
    text = html.unescape(text)
    return " ".join(text.split())


def unquote(text: str) -> str:
    """``text`` without one pair of surrounding double or single quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
