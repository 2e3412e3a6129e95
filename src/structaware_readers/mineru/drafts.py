"""Shared building blocks of the MinerU format readers: the draft element and its helpers."""

from __future__ import annotations

import html
import logging
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from structaware_readers.errors import MalformedInputError
from structaware_readers.mermaid import find_flowchart_source
from structaware_readers.models import BBox, BlockKind, TableGrid
from structaware_readers.tables import parse_html_table

log = logging.getLogger(__name__)


@dataclass
class Draft:
    """One parser element before it becomes a :class:`Block`: 1-based ``page``, ``bbox`` 0..1 (top-left origin).

    ``j`` is the 0-based position among all elements of the page in the parser's order (furniture and merged-away
    items included), so ``block_id = f"p{page}-e{j}"`` is stable.
    """

    page: int
    j: int
    kind: BlockKind
    source_type: str
    text: str = ""
    bbox: BBox | None = None
    level: int | None = None
    table: TableGrid | None = None
    caption: str = ""
    footnote: str = ""
    items: list[str] = field(default_factory=list)
    mermaid: str | None = None
    continues_prev: bool = False
    ghost: bool = False
    extra_pages: list[int] = field(default_factory=list)
    extra_bboxes: list[BBox | None] = field(default_factory=list)
    extra_ids: list[str] = field(default_factory=list)

    @property
    def block_id(self) -> str:
        return f"p{self.page}-e{self.j}"

    @property
    def is_furniture(self) -> bool:
        return self.kind.is_furniture


@dataclass
class Extracted:
    """What a format module hands to the assembler."""

    drafts: list[Draft]
    input_format: str
    parser_version: str = ""
    page_count: int | None = None
    page_sizes: list[tuple[float, float] | None] = field(default_factory=list)
    title: str = ""
    metadata_title: str = ""
    merge_by_position: bool = True
    markdown_text: bool = False


# ------------------------------------------------------------------ type mapping

#: MinerU page-furniture type names (content_list aux types, v2 ``page_*``, middle types).
FURNITURE_TYPES: dict[str, BlockKind] = {
    "header": BlockKind.HEADER,
    "page_header": BlockKind.HEADER,
    "footer": BlockKind.FOOTER,
    "page_footer": BlockKind.FOOTER,
    "page_number": BlockKind.PAGE_NUMBER,
    "aside_text": BlockKind.ASIDE,
    "page_aside_text": BlockKind.ASIDE,
}

_PAGE_NUMBER_RE = re.compile(
    r"^[-–—·.\s]*(?:page\s*|p\.\s*|第\s*)?(\d{1,4}|[ivxlcdm]{1,7})\s*页?\s*"
    r"(?:(?:/|of|共)\s*(\d{1,4}|[ivxlcdm]{1,7})\s*页?)?[-–—·.\s]*$",
    re.IGNORECASE,
)


def classify_discarded(text: str, bbox: BBox | None) -> BlockKind:
    """Furniture kind for a MinerU ``discarded`` element: PAGE_NUMBER for a text that reads as one (``- 3 -``,
    ``Page 3 of 20``, ``第 1 页 共 20 页``, ``xii``), else HEADER / FOOTER when its vertical centre is in the top /
    bottom 12 % of the page, else ASIDE.
    """
    t = unicodedata.normalize("NFKC", text or "").strip()
    if t and _PAGE_NUMBER_RE.match(t):
        return BlockKind.PAGE_NUMBER
    if bbox is not None:
        cy = (bbox[1] + bbox[3]) / 2
        if cy < 0.12:
            return BlockKind.HEADER
        if cy > 0.88:
            return BlockKind.FOOTER
    return BlockKind.ASIDE


# --------------------------------------------------------------------- geometry


def norm_bbox(raw: Any, sx: float, sy: float, *, path: str | None, fld: str) -> BBox | None:
    """Normalise a raw ``[x0, y0, x1, y1]`` box by dividing by ``(sx, sy)``; clamp to 0..1."""
    if raw is None:
        return None
    if not isinstance(raw, (list, tuple)) or len(raw) != 4:
        raise MalformedInputError(f"bbox must be a list of 4 numbers, got {raw!r}"[:200], path=path, field=fld)
    vals: list[float] = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise MalformedInputError(f"bbox must be a list of 4 numbers, got {raw!r}"[:200], path=path, field=fld)
        vals.append(float(v))
    if sx <= 0 or sy <= 0:
        return None
    x0, y0, x1, y1 = vals[0] / sx, vals[1] / sy, vals[2] / sx, vals[3] / sy
    if min(x0, y0, x1, y1) < -0.05 or max(x0, y0, x1, y1) > 1.05 or x1 < x0 or y1 < y0:
        return None
    c = lambda v: min(1.0, max(0.0, v))
    return (c(x0), c(y0), c(x1), c(y1))


# ------------------------------------------------------------------------- text


def as_text(value: Any, *, path: str | None, fld: str) -> str:
    """A text field that must be a string when present (``None`` -> ``""``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    raise MalformedInputError(f"expected a string, got {type(value).__name__}", path=path, field=fld)


def join_texts(value: Any, *, path: str | None, fld: str, sep: str = " ") -> str:
    """Caption/footnote fields: a string (magic-pdf < 0.9) or a list of strings (later)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        parts = []
        for i, v in enumerate(value):
            if isinstance(v, str):
                parts.append(v.strip())
            elif isinstance(v, dict):  # v2/structured-content captions: spans or {bbox, content}
                parts.append(spans_text(v.get("content"), path=path, fld=f"{fld}[{i}].content"))
            elif v is not None:
                raise MalformedInputError(f"expected strings, got {type(v).__name__}", path=path, field=f"{fld}[{i}]")
        return sep.join(p for p in parts if p)
    raise MalformedInputError(f"expected a string or a list, got {type(value).__name__}", path=path, field=fld)


def spans_text(spans: Any, *, path: str | None, fld: str) -> str:
    """Text of a list of inline spans (content_list_v2 / docvortex middle), joined as MinerU renders them."""
    if spans is None:
        return ""
    if isinstance(spans, str):
        return spans.strip()
    if not isinstance(spans, list):
        raise MalformedInputError(f"expected a list of spans, got {type(spans).__name__}", path=path, field=fld)
    return _spans(spans, path, fld).strip()


#: A plain span of figures and separators only (``,6``): between two superscript spans, MinerU lost its style.
_FIGURES_ONLY = re.compile(r"^[\d,\u2013\-]+$")


def _style(sp: Any) -> str:
    """``"superscript"``, ``"subscript"`` or ``""`` for a text span."""
    if not isinstance(sp, dict) or sp.get("type", "text") != "text":
        return ""
    styles = sp.get("styles") or ()
    return "superscript" if "superscript" in styles else "subscript" if "subscript" in styles else ""


def _scripts(spans: list) -> list[str]:
    """The script style of each span; a plain span of figures only between two superscript spans is
    one with them: MinerU styles a reference list ``53,60,61,64`` as ``53`` / ``,6`` / ``0`` / ``,6`` /
    ``1`` ..., and a caret inside it would read ``6^0``."""
    styles = [_style(sp) for sp in spans]
    for i in range(1, len(spans) - 1):
        sp = spans[i]
        if (
            styles[i] == ""
            and styles[i - 1] == styles[i + 1] == "superscript"
            and isinstance(sp, dict)
            and sp.get("type", "text") == "text"
            and isinstance(sp.get("content"), str)
            and _FIGURES_ONLY.match(sp["content"])
        ):
            styles[i] = "superscript"
    return styles


def _spans(spans: list, path: str | None, fld: str) -> str:
    pieces: list[tuple[str, bool]] = []  # (text, is an inline equation)
    scripts = _scripts(spans)
    for i, sp in enumerate(spans):
        if isinstance(sp, str):
            pieces.append((sp, False))
            continue
        if not isinstance(sp, dict):
            raise MalformedInputError(
                f"span must be an object, got {type(sp).__name__}", path=path, field=f"{fld}[{i}]"
            )
        t = sp.get("type", "text")
        content = sp.get("content")
        if isinstance(content, list):  # hyperlink: the text of its children
            pieces.append((_spans(content, path, f"{fld}[{i}].content"), False))
            continue
        if content is None:
            continue
        if not isinstance(content, str):
            raise MalformedInputError("span content must be a string", path=path, field=f"{fld}[{i}].content")
        if t in ("equation_inline", "inline_equation"):
            pieces.append((f"${content.strip()}$", True))
        elif t == "code_inline":
            pieces.append((f"`{content}`", False))
        elif (
            scripts[i]
            and i > 0
            and scripts[i - 1] == scripts[i]
            and pieces
            and pieces[-1][0].endswith(f"</{scripts[i][:3]}>")
        ):
            tag = scripts[i][:3]  # one mark in two spans: one tag
            pieces[-1] = (pieces[-1][0][: -len(f"</{tag}>")] + f"{content}</{tag}>", False)
        else:
            if scripts[i] == "superscript":
                content = f"<sup>{content}</sup>"
            elif scripts[i] == "subscript":
                content = f"<sub>{content}</sub>"
            pieces.append((content, False))
    out = ""
    prev_eq = False
    for text, is_eq in pieces:
        if not text:
            continue
        # inline equations get a space on each side, as MinerU's content_list writes them
        if out and (is_eq or prev_eq) and not out[-1].isspace() and not text[0].isspace():
            out += " "
        out += text
        prev_eq = is_eq
    return out


_MATH_SPLIT = re.compile(r"(\$\$.*?\$\$|(?<!\\)\$[^$\n]+?(?<!\\)\$)", re.DOTALL)
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)\)")
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|~$<>&])")


def markdown_inline_to_plain(text: str) -> str:
    """Undo the Markdown inline escaping of MinerU 4.x renderings (content_list, content_list_v2, structured_content
    are rendered from the middle JSON as Markdown), outside ``$..$`` math.
    """
    if not text or not any(ch in text for ch in "[\\&"):
        return text
    parts = _MATH_SPLIT.split(text)
    for i in range(0, len(parts), 2):  # even indexes are outside math
        seg = _MD_LINK.sub(lambda m: m.group(1) or m.group(2), parts[i])
        seg = _MD_ESCAPE.sub(r"\1", seg)
        parts[i] = html.unescape(seg) if "&" in seg else seg
    return "".join(parts)


def equation_text(latex: str) -> str:
    """Display equation as ``$$latex$$`` (MinerU content_list style); ``""`` stays ``""``."""
    s = latex.strip()
    if not s:
        return ""
    if s.startswith("$$") and s.endswith("$$") and len(s) >= 4:
        return s
    return f"$$\n{s}\n$$"


# ------------------------------------------------------------------- flowcharts


def find_mermaid(content: str) -> str | None:
    """Mermaid source in an image/chart ``content`` or code body: a ```` ```mermaid ```` fence,
    or a bare ``flowchart TD``/``graph LR`` text (:func:`~structaware_readers.mermaid.find_flowchart_source`).
    ``None`` when there is none."""
    return find_flowchart_source(content)


def code_mermaid(body: str, guess_lang: Any) -> str | None:
    """Mermaid source of a code block: a ```` ```mermaid ```` fence, ``guess_lang == "mermaid"``
    (MinerU 4.x code blocks), or a bare ``flowchart``/``graph`` header; else ``None``."""
    found = find_mermaid(body)
    if found is not None:
        return found
    if isinstance(guess_lang, str) and guess_lang.strip().lower() == "mermaid" and body.strip():
        return body.strip().strip("`").strip()
    return None


def visual_kind(sub_type: Any, content: str) -> tuple[BlockKind, str | None]:
    """FIGURE, or FLOWCHART when ``sub_type == "flowchart"`` or the content holds Mermaid."""
    mermaid = find_mermaid(content)
    if mermaid is not None or (isinstance(sub_type, str) and sub_type.lower() == "flowchart"):
        return BlockKind.FLOWCHART, mermaid
    return BlockKind.FIGURE, None


# ------------------------------------------------------------------------ tables


def table_from_body(body: str, *, path: str | None, fld: str) -> tuple[TableGrid | None, str]:
    """Parse a table body; returns ``(grid, fallback_text)``."""
    if not body.strip():
        return None, ""
    try:
        return parse_html_table(body, path=path, field=fld), ""
    except MalformedInputError as exc:
        log.debug("%s: kept as text", exc)
        return None, re.sub(r"<[^>]+>", " ", body).strip()


#: Deepest heading level kept (deeper parser levels are clamped to it).
MAX_LEVEL = 100


def int_level(value: Any) -> int | None:
    """A parser heading level as a positive int (at most :data:`MAX_LEVEL`), else ``None`` (0 / missing = body text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 3:
        value = int(value)
    if isinstance(value, (int, float)) and math.isfinite(value) and value >= 1:
        return min(int(value), MAX_LEVEL)
    return None


__all__ = [
    "Draft",
    "Extracted",
    "FURNITURE_TYPES",
    "as_text",
    "classify_discarded",
    "code_mermaid",
    "equation_text",
    "find_mermaid",
    "int_level",
    "join_texts",
    "markdown_inline_to_plain",
    "norm_bbox",
    "spans_text",
    "table_from_body",
    "visual_kind",
]
