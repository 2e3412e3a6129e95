"""What opens and what ends a table the parser gave as loose blocks.

:func:`is_table_caption`: a block starting with a table label (``Table 4``, ``Table D-1``,
``Recommendation Table 3``, ``表1``) followed by a title, not a sentence citing it.
:func:`header_role`: the recommendation-table column names (``Recommendations``, ``Class``/``COR``,
``Level``/``LOE``, ``推荐意见``...), footnote marks ignored. :func:`is_legend` and
:func:`is_numbered_heading`: the blocks that end a region. Bboxes are 0..1 of the page, origin
top-left.
"""

from __future__ import annotations

import re

from structaware_readers.models import BBox, Block, BlockKind
from structaware_readers.structure.headings import numbering_depth

#: Kinds whose blocks can be pieces of a loose table (a parser types a grade cell ``IIa`` as a heading).
TEXT_KINDS = frozenset({BlockKind.PARAGRAPH, BlockKind.HEADING, BlockKind.CAPTION, BlockKind.FOOTNOTE, BlockKind.LIST})

_LABEL = re.compile(
    r"^\s*(?:(?:recommendations?\s+)?(?:table|tab\.)\s*[A-Z]?[.\-–]?\d+(?:[.\-–]\d+)*|表\s*[A-Z]?\d+(?:[.\-–]\d+)*)",
    re.IGNORECASE,
)
# after the label: a title (upper case, digit, CJK, opening bracket) or title punctuation, or nothing
_TITLE_START = re.compile(r"^(?:\s*$|\s*[.:：—–\-|]|\s+[A-Z0-9(\[\"“]|\s*[\u3400-\u9fff（])")
_MARKS = re.compile(r"<sup>.*?</sup>|\^\{?[^\s}]{1,3}\}?|\$\^\{?[^$]*\}?\$|[*†‡§¶]+")
_REC = re.compile(r"(?i)^(?:recommendations?(?:\s+statements?)?|statements?|推荐意见|推荐内容)$")
_CLASS = re.compile(
    r"(?i)^(?:class|cor|class\s+of\s+recommendations?|recommendation\s+class|strength(?:\s+of\s+recommendations?)?"
    r"|grade|推荐等级|推荐级别|推荐强度)$"
)
_LEVEL = re.compile(
    r"(?i)^(?:level|loe|level\s+of\s+evidence|evidence\s+level|quality(?:\s+of\s+evidence)?"
    r"|certainty(?:\s+of\s+evidence)?|证据等级|证据级别|证据质量)$"
)
#: A block this many times taller than wide holds text set vertically.
STAMP_RATIO = 2.5
_ABBREVIATIONS = re.compile(r"^[A-Z][\w\-/()]{0,14}, [a-z][^;]{2,80};")
_FOOTNOTE_KEY = re.compile(r"^(?:[a-h]|\*|†)\s+[A-Z][a-z]+(?:\s+[a-z]+){0,6}[.:]")


def clean_header(text: str) -> str:
    """A header cell's words without footnote marks (``Class^a`` -> ``Class``)."""
    return " ".join(_MARKS.sub(" ", text).split()).strip(" :")


def header_role(text: str) -> str | None:
    """``"rec"``, ``"class"`` or ``"level"`` for a recommendation table's column name, else None."""
    clean = clean_header(text)
    if _REC.match(clean):
        return "rec"
    if _CLASS.match(clean):
        return "class"
    if _LEVEL.match(clean):
        return "level"
    return None


def is_table_caption(text: str) -> bool:
    """A table's caption (module docstring): its label, then a title rather than running text."""
    flat = " ".join(text.split())
    m = _LABEL.match(flat)
    return m is not None and _TITLE_START.match(flat[m.end() :]) is not None


def is_recommendation_caption(text: str) -> bool:
    """A caption that names a recommendation table (``Recommendation Table 2 — ...``)."""
    return is_table_caption(text) and bool(re.match(r"(?i)^\s*recommendations?\s+table", text))


def is_legend(text: str) -> bool:
    """A table legend: an abbreviation list or a footnote key (module docstring)."""
    flat = " ".join(text.split())
    return bool(_ABBREVIATIONS.match(flat) or _FOOTNOTE_KEY.match(flat))


def is_numbered_heading(b: Block) -> bool:
    """A heading that opens a numbered section (``5. Combination therapy``): no table piece."""
    words = b.text.split()
    return (
        b.kind is BlockKind.HEADING
        and numbering_depth(b.text) is not None
        and any(ch.isalpha() for w in words[1:] for ch in w)  # ``3 21`` (a row's numbers) opens none
    )


def is_piece(b: Block) -> bool:
    """A block that may be a piece of a loose table: text of a text kind, or an empty equation (a
    shaded cell the parser read as a formula and dropped)."""
    if b.bbox is None or b.is_furniture or b.extra_ids:
        return False
    if b.kind is BlockKind.EQUATION:
        return True
    return b.kind in TEXT_KINDS and bool(b.text.strip())


def is_stamp(b: Block) -> bool:
    """A side stamp in a table's margin, no cell: a lone copyright sign, or text set vertically (a
    block at least :data:`STAMP_RATIO` times taller than wide, holding no grade-sized text)."""
    text = b.text.strip()
    if text in {"©", "®", "™", "(c)"}:
        return True
    box = b.bbox
    if box is None:
        return False
    w, h = box[2] - box[0], box[3] - box[1]
    return w > 0 and h > STAMP_RATIO * w and len(text) > 4 and " " in text


def y_overlap(a: BBox, b: BBox) -> float:
    """Vertical overlap of two boxes as a share of the lower one's height (0..1)."""
    inter = min(a[3], b[3]) - max(a[1], b[1])
    h = min(a[3] - a[1], b[3] - b[1])
    return max(0.0, inter) / h if h > 0 else 0.0


def centre_x(b: BBox) -> float:
    return (b[0] + b[2]) / 2


def centre_y(b: BBox) -> float:
    return (b[1] + b[3]) / 2


def union(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


__all__ = [
    "TEXT_KINDS",
    "centre_x",
    "centre_y",
    "clean_header",
    "header_role",
    "is_legend",
    "is_numbered_heading",
    "is_piece",
    "is_recommendation_caption",
    "is_stamp",
    "is_table_caption",
    "union",
    "y_overlap",
]
