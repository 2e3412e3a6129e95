"""Alternative text descriptions of algorithms -> numbered boxes and directed, labelled edges.

Guidelines that publish an algorithm as an image (VA/DoD) also print an outline of it box by box
for screen readers (Section 508 alternative text). This module reads that wording, with no layout:
starts (``Module A begins with Box 1 ...``), edges (``Box 1 connects to Box 2 ...``), branches
(``If the answer is "Yes" to Box 2, then Box 3 ...``), lone boxes and the study-flow form
(``a. Right to Box 2``). A box's text is the quoted text after its shape; the first description of
a box wins. Box numbers are the node ids.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["DescribedBox", "DescribedEdge", "Description", "parse_alt_text"]

_Q_OPEN = '"“”„'  # an opening quote as printed (a closing ” is sometimes used to open)
_Q_CLOSE = '"”“'
_BOX = r"Box\s+(\d{1,3})"
_LABEL = r"[\"“”](?P<label>[^\"“”]{1,80})[\"“”]"

#: Statements, each at the place it starts; ``tgt`` is the box the statement's shape and text describe.
_STATEMENTS = re.compile(
    r"(?P<start>(?:(?:Module\s+[A-Z0-9]+|[Tt]he\s+(?:algorithm|module)|Algorithm)\s+(?:begins|starts)\s+with|Beginning\s+at)\s+"
    + _BOX.replace("(", "(?P<s_tgt>", 1)
    + r")"
    r"|(?P<branch>If\s+the\s+(?:answer\s+(?:is\s+)?)?"
    + _LABEL
    + r"\s+(?:to|for)\s+"
    + _BOX.replace("(", "(?P<b_src>", 1)
    + r",?\s+then\s+(?:(?:continue|proceed|go)\s+(?:on\s+)?)?(?:to\s+)?"
    + _BOX.replace("(", "(?P<b_tgt>", 1)
    + r")"
    r"|(?P<connect>"
    + _BOX.replace("(", "(?P<c_src>", 1)
    + r",?\s+(?:then\s+|also\s+)?connects\s+(?:back\s+)?(?:to\s+)?"
    + _BOX.replace("(", "(?P<c_tgt>", 1)
    + r")"
    r"|(?P<back>This\s+(?:then\s+)?connects\s+(?:back\s+)?to\s+" + _BOX.replace("(", "(?P<k_tgt>", 1) + r")"
    r"|(?P<step>(?:Right|Down|Left|Up)\s+to\s+" + _BOX.replace("(", "(?P<t_tgt>", 1) + r")"
    r"|(?P<define>(?<![Tt]o\s)(?<![Tt]hen\s)"
    + _BOX.replace("(", "(?P<d_tgt>", 1)
    + r"(?:(?=,?\s+in\s+the\s+shape\s+of)|:))"
)
_SHAPE = re.compile(
    r"\A[,.]?\s*(?:which\s+is\s+)?in\s+the\s+shape\s+of\s+(?:an?\s+)?(?P<shape>[a-z][a-z ]{1,30}?)\s*(?=[,:;\"“”]|$|\s(?:and\s+)?(?:which\s+)?asks)",
    re.I,
)
_QUESTION = re.compile(r"\A[,.]?\s*(?:and\s+)?(?:which\s+)?asks?\s+the\s+question\s*", re.I)
#: A list marker left at the end of a box text whose closing quote the outline dropped (``... 4 weeks) 1.``).
_TRAILING_MARKER = re.compile(r"\s+(?:[0-9]{1,2}|[a-z]|[ivx]{1,5})[.)]\s*$")


@dataclass
class DescribedBox:
    """One numbered box: its number, shape (``"hexagon"``, ``"rounded rectangle"``, ...; ``""`` when
    not said), text (``""`` when never quoted), whether the outline says it asks a question, and
    ``start``/``end``: the character span of the statement its text was read from (``0, 0`` when
    never quoted)."""

    number: str
    shape: str = ""
    text: str = ""
    question: bool = False
    start: int = 0
    end: int = 0


@dataclass
class DescribedEdge:
    """One directed edge ``source -(label)-> target`` (box numbers); ``start``/``end``: the
    character span of the statement that gives it in the parsed text."""

    source: str
    target: str
    label: str = ""
    start: int = 0
    end: int = 0


@dataclass
class Description:
    """What an outline says: boxes by number (in order of first mention) and edges in text order
    (an edge stated twice is kept once, at its first statement)."""

    boxes: dict[str, DescribedBox] = field(default_factory=dict)
    edges: list[DescribedEdge] = field(default_factory=list)

    def box(self, number: str) -> DescribedBox:
        return self.boxes.setdefault(number, DescribedBox(number))


def _clean(text: str) -> str:
    return " ".join(text.split())


def _box_text(text: str, pos: int, limit: int, *, colon: bool) -> tuple[str, str, bool, int]:
    """Shape, quoted text, question flag and end position of the box description at ``pos``
    (up to ``limit``, the start of the next statement); ``colon``: the statement is ``Box N:`` or
    ``Right to Box N:`` (study-flow form), whose text is not quoted."""
    shape, question = "", False
    rest = text[pos:limit]
    m = _SHAPE.match(rest)
    offset = 0
    if m:
        shape = _clean(m.group("shape")).lower()
        offset = m.end()
    q = _QUESTION.match(rest[offset:].lstrip(", "))
    if q:
        question = True
    # the quoted text: the first opening quote after the shape, within a short gap (no new sentence)
    gap = rest[offset : offset + 80]
    open_at = next((i for i, ch in enumerate(gap) if ch in _Q_OPEN), -1)
    if open_at < 0 or re.search(r"[.;]\s", gap[:open_at]):
        if colon and not shape:  # study-flow form, "Box 1: 16,492 citations identified": unquoted
            body = rest.lstrip(": ")
            return "", _clean(_TRAILING_MARKER.sub("", body.rstrip())), False, limit
        return shape, "", question, pos + offset
    body_start = offset + open_at + 1
    close_at = next((i for i in range(body_start, len(rest)) if rest[i] in _Q_CLOSE), -1)
    if close_at < 0:  # closing quote dropped: the text runs to the next statement
        body = _TRAILING_MARKER.sub("", rest[body_start:].rstrip())
        return shape, _clean(body), question, limit
    return shape, _clean(rest[body_start:close_at]), question, pos + close_at + 1


def parse_alt_text(text: str) -> Description:
    """Read the boxes and edges an algorithm's alternative-text outline states (module docstring)."""
    desc = Description()
    matches = list(_STATEMENTS.finditer(text))
    last_target = ""  # the box the previous statement led to ("This connects back to Box 26")
    opened = ""  # the box opened by "Box N:" (study-flow form)
    seen: set[tuple[str, str, str]] = set()
    resume = 0
    for i, m in enumerate(matches):
        if m.start() < resume:  # inside the quoted text of an earlier box ("... re-enter at Box 7 or Box 18")
            continue
        limit = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        source, label = "", ""
        if m.group("start"):
            target = m.group("s_tgt")
        elif m.group("branch"):
            source, target, label = m.group("b_src"), m.group("b_tgt"), _clean(m.group("label"))
        elif m.group("connect"):
            source, target = m.group("c_src"), m.group("c_tgt")
        elif m.group("back"):
            source, target = last_target, m.group("k_tgt")
        elif m.group("step"):
            source, target = opened, m.group("t_tgt")
        else:
            target = m.group("d_tgt")
            if m.group("define").endswith(":"):
                opened = target
        box = desc.box(target)
        colon = m.group(0).endswith(":") or text.startswith(":", m.end())
        shape, box_text, question, end = _box_text(text, m.end(), limit, colon=colon)
        if shape and not box.shape:
            box.shape = shape
        if box_text and (not box.text or box_text.startswith(box.text)) and box_text != box.text:
            box.text = box_text  # the first text, or a longer one that completes it
            box.start, box.end = m.start(), max(end, m.end())
        box.question = box.question or question
        # a statement's quote may hold "Box 7" words: skip statements inside it, unless one starts a
        # new list item (the outline dropped the closing quote)
        resume = end if end < limit else m.end()
        if source and source != target:
            desc.box(source)
            key = (source, target, label)
            if key not in seen:
                seen.add(key)
                desc.edges.append(DescribedEdge(source, target, label, m.start(), max(end, m.end())))
        last_target = target
    return desc
