"""Signs that a block a parser typed as a heading is no heading.

One false heading puts every later unit under a wrong section path. :func:`not_a_heading` names
the first sign a real section title does not show, ``""`` when none: ``grade`` (only grade tokens),
``header_cell`` (a table column header such as ``Class^a``), ``numbered_cell``, ``sentence``,
``fragment`` (a line piece starting lower-case or ending with a comma), ``people`` (a list of names
or one name with credentials), ``caption``. :func:`beside_another` tells a heading that shares its
line with another block in its column (a table row).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.headings import numbering_style

__all__ = ["CAPTION", "beside_another", "not_a_heading"]

_MARKS = re.compile(r"\^(?:\{[^}]*\}|[\w*†‡§,]+)|[*†‡§¶#]+")
_GRADE_TOKEN = r"(?:(?:[IVX]{1,4}|[Ⅰ-Ⅻ])[abc]?\s*类?|[A-E][+\-]?|[1-4][A-D]|[A-D][1-3])"
_GRADES = re.compile(rf"^{_GRADE_TOKEN}(?:\s*[/,;、]?\s*{_GRADE_TOKEN})*$")
_HEADER_WORDS = re.compile(
    r"(?i)^(?:class|level|grade|loe|coe|cor|strength|quality|certainty|"
    r"(?:class|strength) of recommendations?|(?:level|quality|certainty) of evidence)$"
)
#: A footnote mark of letters or symbols at the end (``Level^b``); a digit is a citation (``Statins^9``).
_ENDS_WITH_MARK = re.compile(r"\^(?:\{[a-z*†‡§,\s]*\}|[a-z*†‡§,]+)\s*$")
_BACK_MATTER = re.compile(r"(?i)^(?:references?|bibliography|resources|acknowledge?ments?|abbreviations)$")
_NUMBERED_CELL = re.compile(r"^\d{1,2}\s+\S.*[≤≥<>]\s*\d")
_CN_CLAUSE = re.compile(r"[，,；;：:]")
_TWO_SENTENCES = re.compile(r"[a-z]{2}[.!?]\s+[A-Z]")
_LOWER_WORD = re.compile(r"^[a-z]{2,}\b(?![.)])")
_LEADING_MARK = re.compile(r"^[*†‡§,;]")
_ROLE_LABEL = re.compile(
    r"^(?:[A-Z][\w/-]*\s+){0,3}(?:authors?|members?|reviewers?|contributors?|writers?|panel|committee)\s*:\s*\S",
    re.IGNORECASE,
)
_PERSON_ITEM = re.compile(r"^(?:[A-Z][\w'’.-]*\.?\s+){1,3}[A-Z][\w'’-]+(?:\s*[*†‡§\d]+)?$")
#: A name, then two credentials or more in capitals (``Renee Redden, PMHCNS, BC``).
_NAME_CAPS = re.compile(r"^(?:[A-Z][a-z'’-]+\.?\s+){1,3}[A-Z][a-z'’-]+(?:\s*,\s*[A-Z]{2,7}(?:-[A-Z]{1,3})?){2,}$")
#: A table, figure or box caption's label at the start of a text (``Table 3``, ``Fig. 5.``, ``表 1``).
CAPTION = re.compile(r"(?i)^(?:table|figure|fig\.|box|chart)\s*[A-Z]?\d+[A-Za-z]?(?:[.\-–]\d+)*\b|^[表图]\s*\d+")
#: Words (Latin) from which a heading ending with a full stop is a sentence.
SENTENCE_WORDS = 12


def not_a_heading(text: str) -> str:
    """The kind of non-heading ``text`` is (module docstring), ``""`` for a plausible heading."""
    t = " ".join(unicodedata.normalize("NFKC", text).split())
    if not t:
        return ""
    bare = " ".join(_MARKS.sub(" ", t).split())
    if bare and _GRADES.match(bare):
        return "grade"
    if _BACK_MATTER.match(bare):
        return ""
    if bare and (_HEADER_WORDS.match(bare) or (_ENDS_WITH_MARK.search(t) and len(bare.split()) <= 3)):
        return "header_cell"
    if _NUMBERED_CELL.match(t) and len(t.split()) <= 8:
        return "numbered_cell"
    if _is_sentence(t):
        return "sentence"
    if _LOWER_WORD.match(t) or _LEADING_MARK.match(t) or t.endswith((",", "，", ";", "；")):
        return "fragment"
    if _is_people(t):
        return "people"
    if CAPTION.match(t):
        return "caption"
    return ""


def _is_sentence(t: str) -> bool:
    if t.endswith("。"):
        return numbering_style(t) is not None or bool(_CN_CLAUSE.search(t[:-1]))
    if t.endswith("."):
        return len(t.split()) >= SENTENCE_WORDS or bool(_TWO_SENTENCES.search(t[:-1]))
    return False


def _is_people(t: str) -> bool:
    if _ROLE_LABEL.match(t) or _NAME_CAPS.match(t):
        return True
    items = [re.sub(r"\([^()]*\)", " ", p).strip() for p in t.split(",")]
    items = [" ".join(p.split()) for p in items if p.strip()]
    if len(items) < 3:
        return False
    people = sum(bool(_PERSON_ITEM.match(p)) for p in items)
    return people >= 3 and people * 2 > len(items)


def beside_another(blocks: Sequence[Block], i: int) -> bool:
    """Block ``i`` shares its line with another block of the same column, or lies inside a table's box."""
    b = blocks[i]
    if b.bbox is None:
        return False
    x0, y0, x1, y1 = b.bbox
    h = y1 - y0
    for j, o in enumerate(blocks):
        if j == i or o.page != b.page or o.bbox is None or o.is_furniture:
            continue
        if o.kind is not BlockKind.TABLE and not o.text.strip():  # an image or a formula beside a title
            continue
        ox0, oy0, ox1, oy1 = o.bbox
        if o.kind is BlockKind.TABLE:
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            if ox0 <= cx <= ox1 and oy0 <= cy <= oy1:
                return True
            continue
        overlap = min(y1, oy1) - max(y0, oy0)
        if overlap <= 0.5 * min(h, oy1 - oy0) or overlap <= 0:
            continue
        if min(x1, ox1) > max(x0, ox0):  # they overlap horizontally: not side by side
            continue
        if not ((x1 <= 0.5 <= ox0) or (ox1 <= 0.5 <= x0)):  # not in the two columns of a journal page
            return True
    return False
