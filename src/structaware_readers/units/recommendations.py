"""``recommendation`` units: graded statements, and recommendation wording inside a guideline.

For a paragraph or list item, in order:

1. several graded statements in one text become one unit each, every grade label closing (or opening) its own;
2. a grade line alone grades the ungraded recommendation just before it (``Grade.source = "next_paragraph"``);
3. a grade in the heading over a statement grades the first paragraph under it (``"heading"``);
4. ungraded wording is a recommendation only in a guideline, and in one that grades its recommendations only
   when a grade line follows; quoted wording and grade definitions never.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from structaware_readers.grades import has_recommendation_wording, normalize_grade_text
from structaware_readers.grades.detect import GradeMatch
from structaware_readers.models import Block, BlockKind, Grade, Unit, UnitType
from structaware_readers.units.grade_marks import grade_context, strip_marks

if TYPE_CHECKING:
    from structaware_readers.grades.document import DocumentGrading
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
# recommendation wording quoted, trailing off into an ellipsis, or saying what a grade means ("The 1A
# grade means that most patients should receive ..."): a grade's definition, not a recommendation
_DEFINITION = re.compile(
    r"(?i)[“\"][^“”\"]{0,80}?\b(?:recommend|suggest)\w*\b[^“”\"]*[”\"]|"
    r"\b(?:recommend|suggest)\w*\b[^.!?…]{0,60}(?:…|\.\.\.)|"
    r"\b(?:grade|recommendation|class|level|category|strength|certainty)\b[^.;:]{0,40}"
    r"\b(?:means|indicates|implies|denotes)\s+that\b"
)
# only bullets, brackets or numbering before a grade label that opens its statement ("Practice Point 1.3.1: ...")
_LABEL_FIRST = re.compile(r"[\s•▪●■◦\-–(\[]*")
# what a statement graded by the line after it talks about (rule 2)
_STATEMENT = re.compile(r"(?i)\b(?:recommend|suggest)|\binsufficient\s+evidence\b|推荐|建议")
# a section printing an evidence table or an earlier version's recommendations (VA/DoD "Appendix D:
# 2014 Recommendation Categorization Table"): restated or old recommendations, none of this guideline's
_NOT_OWN_SECTION = re.compile(r"(?i)\bevidence\s+tables?\b|\brecommendation\s+categori[sz]ation\s+table\b")
_MAX_LIST_ITEMS = 12  # list items between a statement and the grade line that closes them (rule 2)
_BULLET = re.compile(r"^\s*[•▪●■◦\-–]\s")  # a list item a parser typed as a paragraph ("• Peer linkage")
_STRENGTH_WORD = re.compile(r"(?i)\b(?:strong|weak|conditional|neither)|强推荐|弱推荐")
_GRADE_LINE_MAX_WORDS = 4  # "Strength of recommendation: strong; quality of evidence: low" leaves label words only
_WORD = re.compile(r"[\u3400-\u9fff]|[^\W\u3400-\u9fff]+")  # a Chinese character is a word of its own
_LABEL_WORDS = re.compile(
    r"(?i)\b(?:strength|quality|certainty|level|grade|class|of|the|evidence|recommendations?|and|rating)\b|"
    r"推荐|证据|等级|强度|级别|质量"
)


_OPTION_MAX_WORDS = 12  # an NCCN option line names a regimen, not a sentence
_ALTERNATIVE = re.compile(r"(?i)^[\s)\]）】]*(?:[,;]?\s*(?:or|and|and/or)\s*)?[.;,]?$")


def _nccn_option(text: str, matches: list[GradeMatch]) -> bool:
    """One line naming an option and closing with its NCCN category: ``Olaparib (category 1,
    preferred)``, ``Bevacizumab (category 2B), or``: a recommendation though it has no verb."""
    if len(matches) != 1 or matches[0].grade.system != "NCCN":
        return False
    head = text[: matches[0].start].strip(" \t([（【")
    return bool(head) and len(head.split()) <= _OPTION_MAX_WORDS and bool(_ALTERNATIVE.match(text[matches[0].end :]))


def _default_option(builder: EmitContext, text: str) -> bool:
    """An ungraded option line among graded NCCN options (``Rucaparib`` after ``Olaparib (category 1),
    or``) in a document whose default grade is NCCN's ("All recommendations are category 2A unless
    otherwise indicated"): the default applies to it."""
    default, prev = builder.grading.default_grade, builder.previous
    if default is None or default.system != "NCCN" or prev is None or prev.kind is not BlockKind.PARAGRAPH:
        return False
    line = text.strip()
    if (
        "\n" in line
        or len(line.split()) > _OPTION_MAX_WORDS
        or re.search(r"[.:!?](?:\s|$)", line)
        or not re.search(r"\w", line)
    ):
        return False
    prev_text = prev.text.strip()
    return _nccn_option(prev_text, builder.grading.accepted(prev_text)) or bool(re.search(r"(?i),?\s+or$", prev_text))


def _evidence_note(m: GradeMatch) -> bool:
    """A Chinese consensus evidence level alone (``（1b证据等级）`` after a trial's results): it grades
    the evidence a discussion cites, not a recommendation (those carry ``Ⅱa类推荐``)."""
    g = m.grade
    return g.system == "CN" and g.grade == g.certainty and not (g.strength or g.direction)


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


def _label_first_pieces(text: str, matches: list[GradeMatch]) -> tuple[list[tuple[int, int, Grade]], int] | None:
    """Statements whose grade label opens them (``Practice Point 1.3.1: ...``, ``[I, A] ...``): each
    runs from its label to the next; None when the first label does not open the text."""
    first = matches[0]
    if _LABEL_FIRST.fullmatch(text, 0, first.start) is None or not text[first.end :].strip(" :.;,)]"):
        return None
    ends = [m.start for m in matches[1:]] + [len(text)]
    return [(m.start if k else 0, e, m.grade) for k, (m, e) in enumerate(zip(matches, ends))], len(text)


def _is_grade_line(text: str, matches: list[GradeMatch]) -> bool:
    """True when ``text`` is one grade label and label words ("Strength of recommendation: ...")."""
    if len(matches) != 1:
        return False
    rest = text[: matches[0].start] + " " + text[matches[0].end :]
    return len(_WORD.findall(_LABEL_WORDS.sub(" ", rest))) <= _GRADE_LINE_MAX_WORDS


def _ungraded_counts(builder: EmitContext, text: str) -> bool:
    """Ungraded ``text`` is a recommendation here (rule 4 of the module docstring)."""
    grading = builder.grading
    if not (grading.is_guideline and _wording(text)) or _DEFINITION.search(text):
        return False
    return not grading.grades_recommendations or _grade_line_follows(builder)


def _heading_grade(builder: EmitContext) -> Grade | None:
    """Rule 3: the grade whose label closes the heading just before (``Blood stage infection (2024 –
    good practice statement)``), with ``source="heading"``; None when the block before is no heading
    or its labels are not one closing label."""
    head = builder.previous
    if head is None or head.kind is not BlockKind.HEADING:
        return None
    matches = builder.grading.accepted(head.text)
    if len(matches) != 1 or head.text[matches[0].end :].strip(" \t)]）】.:;"):
        return None
    return matches[0].grade.model_copy(update={"source": "heading"})


def _grade_line_follows(builder: EmitContext) -> bool:
    nxt = builder.following
    if nxt is None or nxt.kind not in _KINDS:
        return False
    return _is_grade_line(nxt.text, builder.grading.accepted(nxt.text))


def _grade_statement_before(builder: EmitContext, block: Block, text: str, grade: Grade) -> bool:
    """Rule 2 without an open recommendation: the statement just before, still section text (a
    paragraph, or a lead-in and the list items after it: "we recommend one of the following: • ...
    • ..."), and this grade line become one recommendation unit; False when there is no statement."""
    parts = builder.pending
    if not parts or parts[-1].block is not builder.previous:
        return False
    k = len(parts) - 1
    while k >= 0 and len(parts) - k <= _MAX_LIST_ITEMS and parts[k].block.kind in _KINDS:
        if _STATEMENT.search(parts[k].text):
            break
        if parts[k].block.kind is not BlockKind.LIST and not _BULLET.match(parts[k].text):
            return False  # prose that is no statement
        k -= 1
    else:
        return False
    statement = "\n".join(p.text for p in parts[k:])
    if _DEFINITION.search(statement) or builder.grading.accepted(statement):
        return False
    blocks = list(dict.fromkeys(p.block.block_id for p in parts[k:]))
    by_id = {p.block.block_id: p.block for p in parts[k:]}
    del parts[k:]
    grade = grade.model_copy(update={"source": "next_paragraph"})
    builder.emit(
        UnitType.RECOMMENDATION,
        statement,
        grade_context(builder.section_context(discussed=False), grade),
        [*(by_id[b] for b in blocks), block],
        grade=grade,
    )
    return True


def emit_if_recommendation(builder: EmitContext, block: Block, text: str) -> bool:
    """Emit ``text`` (from ``block``) as recommendation unit(s) when it holds any; True when all of
    ``text`` was taken (False: the caller keeps it as section text)."""
    if (
        block.kind not in _KINDS
        or _CITATION.match(text)
        or any(_NOT_OWN_SECTION.search(h) for h in builder.section_path)
    ):
        return False
    grading = builder.grading
    matches = [m for m in grading.accepted(text) if not _evidence_note(m)]
    if not matches:
        heading_grade = _heading_grade(builder)
        if heading_grade is not None and _wording(text) and not _DEFINITION.search(text):
            head = builder.previous
            take_head = head is not None and builder.pending_heading is head and not builder.pending
            if take_head:
                builder.pending_heading = None  # the heading's element goes with the statement it grades
            builder.emit(
                UnitType.RECOMMENDATION,
                text,
                grade_context(builder.section_context(discussed=False), heading_grade),
                [head, block] if take_head and head is not None else [block],
                grade=heading_grade,
            )
            return True
        if not (_ungraded_counts(builder, text) or _default_option(builder, text)):
            return False
        builder.emit(
            UnitType.RECOMMENDATION,
            text,
            builder.section_context(discussed=False),
            [block],
            grade=grading.default_grade,
        )
        return True
    if any(len({w.lower() for w in _STRENGTH_WORD.findall(text[m.start : m.end])}) > 1 for m in matches):
        return False  # a legend listing the scheme's strengths
    grade_line = matches[0].grade
    if _is_grade_line(text, matches) and not _nccn_option(text, matches):
        if builder.attach_grade_line(block, text, grade_line) or _grade_statement_before(
            builder, block, text, grade_line
        ):
            return True
        if not _wording(text):
            return False  # a grade alone states nothing: section text
    if default := grading.default_grade:
        if default.raw and default.raw in text:
            return False  # "All recommendations are category 2A unless otherwise indicated": the default itself
    label_first = _label_first_pieces(text, matches)
    spans, tail = label_first or _pieces(text, matches)
    context = builder.section_context(discussed=False)
    trailing = text[tail:].strip()
    if trailing and (_NOTE.match(trailing) or _ALTERNATIVE.match(trailing)):  # a note, or ", or" before the next option
        s0, _, g0 = spans[-1]
        spans[-1], trailing = (s0, len(text), g0), ""
    for (start, end, grade), m in zip(spans, matches):
        statement = text[start:end]
        if label_first is None:  # a label that opens its statement names it ("Practice Point 1.3.1: ..."): kept
            statement = strip_marks(statement, [(m.start - start, m.end - start)])
        builder.emit(
            UnitType.RECOMMENDATION,
            statement,
            grade_context(context, grade),
            [block],
            grade=grade,
            extra=f"s{start}" if start else "",
        )
    if trailing:
        if _ungraded_counts(builder, trailing):
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


def add_element(unit: Unit, block: Block) -> None:
    """Give ``unit`` the provenance of ``block`` too: its element id, bbox and 1-based page(s)."""
    if block.block_id not in unit.element_ids:
        unit.element_ids.append(block.block_id)
        unit.bboxes.append(block.bbox)
        unit.element_pages.append(block.page)
    unit.pages = sorted({*unit.pages, block.page, *block.extra_pages})


def takes_body(unit: Unit, block: Block, text: str, body_block: str, grading: DocumentGrading) -> bool:
    """Append ``text`` (from ``block``) to the graded recommendation ``unit`` emitted just before it when the statement
    ends with a colon ("Practice Point 1.2: Factors to consider before using an SGLT2i:"): what it announces, the
    next paragraph or list (every item of it: ``body_block`` is the block already taken), is its body.
    """
    if unit.unit_type is not UnitType.RECOMMENDATION or unit.grade is None or block.kind not in _KINDS:
        return False
    if not (unit.text.rstrip().endswith(":") or block.block_id == body_block) or grading.accepted(text):
        return False
    unit.text = f"{unit.text}\n{text}"
    add_element(unit, block)
    return True
