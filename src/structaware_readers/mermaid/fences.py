"""Mermaid source inside other text: ```` ```mermaid ```` fences in Markdown (CommonMark rules),
and the flowchart source a parser's code or figure text holds."""

from __future__ import annotations

import re

__all__ = ["fenced_blocks", "find_flowchart_source", "find_mermaid_blocks", "is_mermaid_info", "unwrap_fence"]

_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t]*$")


def find_mermaid_blocks(markdown: str) -> list[str]:
    """The contents of every ```` ```mermaid ```` / ``~~~mermaid`` fenced block, in order. Raises ``TypeError``."""
    if not isinstance(markdown, str):
        raise TypeError(f"find_mermaid_blocks expects str, got {type(markdown).__name__}")
    return [content for info, content in fenced_blocks(markdown) if is_mermaid_info(info)]


_SOURCE_FENCE = re.compile(r"```[ \t]*mermaid[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_SOURCE_START = re.compile(
    r"^\s*(?:flowchart|graph)(?:[ \t]+(?:TB|TD|BT|RL|LR)\b|[ \t]*(?:;|\n|$)|[ \t]+[^\n]*?(?:--|==|-\.))",
    re.IGNORECASE,
)


def find_flowchart_source(text: str) -> str | None:
    """Mermaid flowchart source held by a parser's code or figure text, or ``None``: the first
    ```` ```mermaid ```` fence, else the whole text when it starts with a ``flowchart``/``graph``
    header (a direction, ``;``, a line end, or a link on the same line: one-line charts such as
    ``graph LR A-->B`` count; ``graph = build()`` does not)."""
    if not text:
        return None
    if m := _SOURCE_FENCE.search(text):
        return m.group(1).strip("\n").strip() or None
    if _SOURCE_START.match(text):
        return text.strip()
    return None


def is_mermaid_info(info: str) -> bool:
    """Whether a fence's info string names Mermaid (first word ``mermaid``, any case; MyST ``{mermaid}``)."""
    word = info.split()[0] if info.split() else ""
    return word.strip("{}").lower() == "mermaid"


def fenced_blocks(markdown: str) -> list[tuple[str, str]]:
    """Every fenced block of ``markdown`` as ``(info string, content)``, in order (see :func:`find_mermaid_blocks`)."""
    lines = markdown.splitlines()
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        body: list[str] = []
        i += 1
        while i < len(lines) and not close.match(lines[i]):
            line = lines[i]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            i += 1
        i += 1  # the closing fence (or past the end)
        blocks.append((info, "\n".join(body)))
    return blocks


def unwrap_fence(src: str) -> str:
    """The content of the first ``mermaid`` fence (else of the first fence) when ``src`` starts with a fence; else ``src``."""
    stripped = src.lstrip()
    if not stripped.startswith(("```", "~~~")):
        return src
    blocks = fenced_blocks(src)
    mermaid = [content for info, content in blocks if is_mermaid_info(info)]
    if mermaid:
        return mermaid[0]
    return blocks[0][1] if blocks else src
