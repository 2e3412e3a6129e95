"""``recommendation`` units: graded statements, and recommendation wording inside a guideline.

Source: the reference paper, section 2.3 (graded recommendations); grades come from
:mod:`structaware_readers.grades` and the document's own signals from
:mod:`structaware_readers.grades.document` (computed once per document by the builder).

Rules, in order, for a paragraph or list item (references, footnotes, code and equations never
hold recommendations; neither does a bibliography entry that cites "strong recommendation"):

1. **Several graded statements** in one text become one unit each, with its own grade. Each grade
   label closes the statement before it: the most recent sentence with recommendation wording
   ("we recommend", "推荐", an imperative) plus everything after it up to the label. Text between
   the previous label and that sentence (a ``Note: ...``) belongs to the previous recommendation;
   so does text after the last label that starts with ``Note``/``Remark``/注. Other trailing text
   is a further (ungraded) recommendation when it has wording in a guideline, else section text.
2. **A grade line after a recommendation** (a text that is only a grade, WHO style:
   ``Strong recommendation, moderate quality of evidence``) attaches to the ungraded
   recommendation emitted just before it, with ``Grade.source = "next_paragraph"``.
3. **Ungraded wording** is a recommendation only when the document is a guideline; it then takes
   the document default grade if there is one (NCCN "category 2A unless otherwise indicated").
The parent section is the context; a recommendation's text is not repeated inside its section unit.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from structaware_readers.grades import has_recommendation_wording, normalize_grade_text
from structaware_readers.grades.detect import GradeMatch
from structaware_readers.models import Block, BlockKind, Grade, UnitType

if TYPE_CHECKING:
    from structaware_readers.units.context import EmitContext

_KINDS = {BlockKind.PARAGRAPH, BlockKind.LIST}
# a bibliography entry: "[1] Doe J, Roe R. Title. J Rhythm Stud. 2024;12:101-9", "12. Smith AB, et al."
_CITATION = re.compile(
    r"^\W{0,3}(?:\[\d+\]|\d+\.)\s+\S.*?(?:\b(?:19|20)\d\d\s*;\s*\d+|\bet\s+al\.|\bdoi\s*:|\bPMID\b)",
    re.IGNORECASE | re.DOTALL,
)
# where a grade label ends: its closing brackets and the sentence end after it
_LABEL_TAIL = re.compile(r"[\s)\]）】]*[.。;；]?\s*")
# sentence starts inside a segment: after . ! ? (and Chinese ends), before a bullet or an "a)" item
_SENTENCE_START = re.compile(
    r"(?<=[.!?])[\"”’)\]]*\s+(?=\S)|(?<=[。！？；])\s*(?=\S)|\s+(?=[•▪●■◦]\s)|\s+(?=[a-z]\)\s)"
)
_NOTE = re.compile(r"(?i)^\W*(?:notes?|remarks?|comments?|rationale|注|说明|备注)\b|^\W*(?:注|说明|备注)")
_GRADE_LINE_MAX_WORDS = 4  # "Strength of recommendation: strong; quality of evidence: low" leaves label words only
_LABEL_WORDS = re.compile(
    r"(?i)\b(?:strength|quality|certainty|level|grade|class|of|the|evidence|recommendations?|and|rating)\b|"
    r"推荐|证据|等级|强度|级别|质量"
)


def _wording(text: str) -> bool:
    return has_recommendation_wording(normalize_grade_text(text))


def _statement_start(text: str, lo: int, hi: int) -> int:
    """Start of the most recent sentence in ``text[lo:hi]`` that has recommendation wording, else ``lo``.

    Each sentence is tested on its own, so the search is linear in ``hi - lo``."""
    starts = [lo] + [m.end() for m in _SENTENCE_START.finditer(text, lo, hi)]
    ends = [*starts[1:], hi]
    for s, e in zip(reversed(starts), reversed(ends)):
        if _wording(text[s:e]):
            return s
    return lo


def _pieces(text: str, matches: list[GradeMatch]) -> tuple[list[tuple[int, int, Grade]], int]:
    """Statement spans ``(start, end, grade)`` closed by each grade label, and where the trailing text starts.

    The first statement starts at the start of the text; a later one at its latest sentence with
    wording, the text before that (a ``Note: ...``) extending the statement before it."""
    spans: list[tuple[int, int, Grade]] = []
    prev_end = 0
    for m in matches:
        start = _statement_start(text, prev_end, m.start) if spans else 0
        if spans and start > prev_end:
            spans[-1] = (spans[-1][0], start, spans[-1][2])
        prev_end = _LABEL_TAIL.match(text, m.end).end()
        spans.append((start, prev_end, m.grade))
    return spans, prev_end


def _is_grade_line(text: str, matches: list[GradeMatch]) -> bool:
    """True when ``text`` is one grade label and label words ("Strength of recommendation: ...")."""
    if len(matches) != 1:
        return False
    rest = text[: matches[0].start] + " " + text[matches[0].end :]
    return len(re.findall(r"\w+", _LABEL_WORDS.sub(" ", rest))) <= _GRADE_LINE_MAX_WORDS


def emit_if_recommendation(builder: EmitContext, block: Block, text: str) -> bool:
    """Emit ``text`` (from ``block``) as recommendation unit(s) when it holds any; True when all of
    ``text`` was taken (False: the caller keeps it as section text)."""
    if block.kind not in _KINDS or _CITATION.match(text):
        return False
    grading = builder.grading
    matches = grading.accepted(text)
    if not matches:
        if not (grading.is_guideline and _wording(text)):
            return False
        builder.emit(
            UnitType.RECOMMENDATION,
            text,
            builder.section_context(),
            [block],
            grade=grading.default_grade,
        )
        return True
    if _is_grade_line(text, matches) and builder.attach_grade_line(block, text, matches[0].grade):
        return True
    spans, tail = _pieces(text, matches)
    context = builder.section_context()
    trailing = text[tail:].strip()
    if trailing and _NOTE.match(trailing):
        s0, _, g0 = spans[-1]
        spans[-1], trailing = (s0, len(text), g0), ""
    for start, end, grade in spans:
        builder.emit(
            UnitType.RECOMMENDATION,
            text[start:end],
            context,
            [block],
            grade=grade,
            extra=f"s{start}" if start else "",
        )
    if trailing:
        if grading.is_guideline and _wording(trailing):
            builder.emit(
                UnitType.RECOMMENDATION,
                trailing,
                context,
                [block],
                grade=grading.default_grade,
                extra=f"s{tail}",
            )
        else:
            builder.add_section_text(block, trailing)
    return True
