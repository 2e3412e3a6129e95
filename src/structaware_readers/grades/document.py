"""Document-level grading signals: is this a guideline, which grading system, which default grade.

Recommendation wording and ambiguous grades (``Level 1``, ``Class I``, ``Strong``) count only inside
a guideline; a financial filing's ``Level 1`` is none. A document is a guideline when its text
carries a grading legend, two unambiguously graded statements, two numbered recommendations, or a
guideline title with recommendation wording. One that grades five or more statements
*grades its recommendations*: there ungraded wording is discussion, not a recommendation.

Document context also sets the system: NCCN's "category 2A unless otherwise indicated" default,
USPSTF letters, ESC class/level, and KDIGO's ``1B`` grades only in a document graded by KDIGO.
:meth:`DocumentGrading.grades` caches :func:`find_grades` per distinct text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.grades.detect import GradeMatch, TextGrades, grade_from_cells, read_grades
from structaware_readers.grades.normalise import normalize_grade_text
from structaware_readers.grades.wording import has_recommendation_wording
from structaware_readers.models import BlockKind, Grade, ParsedDocument

__all__ = ["DocumentGrading", "profile_document"]

_LEGEND = re.compile(
    r"(?i)\bstrength\s+of\s+(?:the\s+)?recommendations?\b|\bclass(?:es)?\s+of\s+recommendations?\b|"
    r"\blevels?\s+of\s+evidence\b|\b(?:quality|certainty)\s+of\s+(?:the\s+)?evidence\b|"
    r"\bgrading\s+of\s+recommendations\b|\bGRADE\s+(?:approach|methodology|system|framework|working\s+group)\b|"
    r"\bcategories\s+of\s+evidence\s+and\s+consensus\b|\bgrades?\s+of\s+recommendations?\b|"
    r"\bUSPSTF\b|\bU\.?\s?S\.?\s+Preventive\s+Services\s+Task\s+Force\b|"
    r"证据(?:等级|级别|质量|水平)|推荐(?:等级|级别|强度|分级)"
)
_NUMBERING = re.compile(
    r"(?i)^\W*(?:(?:key\s+)?recommendations?|practice\s+point|statement)\s+\d+(?:\.\d+)*[a-z]?\b|"
    r"^\W*推荐(?:意见)?\s*\d+(?:\.\d+)*"
)
_TITLE = re.compile(
    r"(?i)\bguide(?:lines?)?\b|\bconsensus\s+(?:statement|report|recommendations?)\b|\bposition\s+statement\b|"
    r"\bpractice\s+(?:parameter|advisory)\b|\brecommendations\s+(?:for|on)\b|指南|共识|诊疗规范"
)
_DEFAULT_NCCN = re.compile(
    r"(?i)\ball\s+recommendations\s+are\s+(?:NCCN\s+)?category\s+(2A|2B|1|3)\s+unless\s+otherwise\s+"
    r"(?:indicated|noted|specified|stated)|除(?:非)?另有(?:说明|标注)外?[，,]?\s*(?:所有|均|本指南)?[^。]{0,12}?(2A|2B|1|3)\s*类"
)
# "ESC" alone is also embryonic stem cells: the society's name, its guidelines or a joint "ESC/EAS"
_ESC = re.compile(r"\bEuropean\s+Society\s+of\s+Cardiology\b|\bESC(?:/[A-Z]{2,}|\s+[Gg]uidelines?\b)")
_ESC_CLASSES = frozenset({"I", "IIa", "IIb", "III"})
_KDIGO = re.compile(r"\bKDIGO\b|\bKidney\s+Disease:?\s+Improving\s+Global\s+Outcomes\b")
# a KDIGO grading table's title: "KDIGO nomenclature and description for grading recommendations"
_KDIGO_GRADING = re.compile(r"(?i)\b(?:nomenclature|grading|rating|grades?)\b[^.]{0,60}\brecommendations?\b")
#: Longest line (characters) read as a title or a grading table's title by the KDIGO test.
TITLE_LINE_CHARS = 250
_KDIGO_NUMLETTER = re.compile(r"[12][A-D]")
_FOOTNOTE_MARK = re.compile(r"\^\w+|[*†‡]+")  # a header's footnote mark: "Class^a", "Level*"
_TASK_FORCE = re.compile(r"(?i)\bUSPSTF\b|\btask\s+force\b(?!\s+on\s+climate)")
_GRADED_MIN = 2
_NUMBERED_MIN = 2
_WORDING_MIN = 3
#: Graded statements of recommendation wording that make a guideline one that grades its recommendations.
GRADED_WORDING_MIN = 5


@dataclass
class DocumentGrading:
    """What a document's own text says about its grades (see the module docstring)."""

    is_guideline: bool = False
    reasons: list[str] = field(default_factory=list)  # "legend", "graded", "numbering", "title"
    default_grade: Grade | None = None
    uspstf: bool = False
    esc: bool = False  # the document names the ESC: shared class/level forms are ESC grades
    kdigo: bool = False  # the document is graded by KDIGO: numeric-letter grades (1A..2D) are KDIGO grades
    grades_recommendations: bool = False  # it grades the recommendations it makes (module docstring)
    _cache: dict[str, TextGrades] = field(default_factory=dict, repr=False)

    def _read(self, text: str) -> TextGrades:
        found = self._cache.get(text)
        if found is None:
            found = read_grades(text)
            if self.uspstf:
                found = TextGrades([self._relabel(m) for m in found.labels], *self._relabel_whole(found))
            if self.esc:
                whole = _esc(found.whole) if found.whole else None
                labels = [GradeMatch(m.start, m.end, _esc(m.grade), m.explicit) for m in found.labels]
                found = TextGrades(labels, whole, found.whole_explicit)
            if self.kdigo:
                whole = _kdigo(found.whole) if found.whole else None
                labels = [GradeMatch(m.start, m.end, _kdigo(m.grade), m.explicit) for m in found.labels]
                found = TextGrades(labels, whole, found.whole_explicit)
            self._cache[text] = found
        return found

    def grades(self, text: str) -> list[GradeMatch]:
        """The grade labels of ``text`` (:func:`find_grades`) with this document's letter system; one scan per text."""
        return self._read(text).labels

    def accepted(self, text: str) -> list[GradeMatch]:
        """The grade labels of ``text`` that count here: unambiguous ones always, ambiguous ones in a guideline."""
        return [m for m in self._read(text).labels if m.explicit or self.is_guideline]

    def grade(self, text: str, source: str = "sentence") -> Grade | None:
        """All grade signals of ``text`` combined (a table row: :func:`detect_grade`), or None when
        there are none or only ambiguous ones outside a guideline."""
        found = self._read(text)
        if found.whole is None or not (found.whole_explicit or self.is_guideline):
            return None
        return found.whole if found.whole.source == source else found.whole.model_copy(update={"source": source})

    def _relabel(self, m: GradeMatch) -> GradeMatch:
        if m.grade.system != "letter" or not m.grade.grade:
            return m
        return GradeMatch(m.start, m.end, _uspstf(m.grade), explicit=True)

    def _relabel_whole(self, found: TextGrades) -> tuple[Grade | None, bool]:
        whole = found.whole
        if whole is None or whole.system != "letter" or not whole.grade:
            return whole, found.whole_explicit
        return _uspstf(whole), True


def _uspstf(grade: Grade) -> Grade:
    """A labelled letter grade in a document that names the USPSTF: a USPSTF grade (D = against)."""
    update = {"system": "USPSTF"}
    if grade.grade == "D" and not grade.direction:
        update["direction"] = "against"
    return grade.model_copy(update=update)


def _esc(grade: Grade) -> Grade:
    """An ACC/AHA grade in the form ESC shares (roman class, level A/B/C, no COR/LOE label): ESC."""
    if grade.system != "ACC/AHA" or grade.grade not in _ESC_CLASSES or grade.certainty not in ("", "A", "B", "C"):
        return grade
    if re.search(r"\b(?:COR|LOE)\b", grade.raw):
        return grade
    return grade.model_copy(update={"system": "ESC"})


def _kdigo(grade: Grade) -> Grade:
    """A numeric-letter GRADE grade (``1B``) or a bare practice point in a document graded by KDIGO: a KDIGO grade."""
    numletter = grade.system == "GRADE" and _KDIGO_NUMLETTER.fullmatch(grade.grade) is not None
    if not (numletter or (grade.system == "consensus" and grade.grade == "practice point")):
        return grade
    return grade.model_copy(update={"system": "KDIGO"})


def _graded_by_kdigo(doc: ParsedDocument, texts: list[tuple[BlockKind, int, str]]) -> bool:
    """The document says it is graded by KDIGO (module docstring): a title line on pages 1-2 naming
    KDIGO and a guideline, or a heading, caption or table title naming KDIGO's grading."""
    captions = {b.caption.strip() for b in doc.body_blocks() if b.kind is BlockKind.TABLE}
    for kind, page, text in [(BlockKind.HEADING, 1, doc.title), *texts]:
        if kind is BlockKind.TABLE and text not in captions:
            continue  # a table's row: a comparison of guidelines may name KDIGO's grading
        line = " ".join(text.split())
        if len(line) > TITLE_LINE_CHARS or not _KDIGO.search(line):
            continue
        title_line = kind in (BlockKind.HEADING, BlockKind.PARAGRAPH) and not line.endswith((".", "!", "?"))
        if page <= 2 and title_line and _TITLE.search(line):
            return True
        if kind in (BlockKind.HEADING, BlockKind.CAPTION, BlockKind.TABLE) and _KDIGO_GRADING.search(line):
            return True
    return False


def _graded_table_rows(doc: ParsedDocument) -> int:
    """Rows of the document's tables with recommendation wording and a grade in their grade columns
    (``Recommendations | Class^a | Level^b`` over ``... should be considered ... | IIa | C``)."""
    count = 0
    for b in doc.body_blocks():
        grid = b.table
        if b.kind is not BlockKind.TABLE or grid is None or not grid.header_rows or not grid.body_rows:
            continue
        headers = [" ".join(_FOOTNOTE_MARK.sub("", h).split()) for h in grid.column_headers()]
        for row in grid.body_rows:
            if len(row) != len(headers) or grade_from_cells(headers, row) is None:
                continue
            count += has_recommendation_wording(normalize_grade_text(" | ".join(c for c in row if c)))
    return count


def _texts(doc: ParsedDocument) -> list[tuple[BlockKind, int, str]]:
    out: list[tuple[BlockKind, int, str]] = []
    for b in doc.body_blocks():
        if b.kind is BlockKind.TABLE and b.table is not None:
            for row in b.table.header_rows + b.table.body_rows:
                out.append((b.kind, b.page, " | ".join(c for c in row if c)))
            out.append((b.kind, b.page, b.caption))
        elif b.kind is BlockKind.LIST and b.items:
            out.extend((b.kind, b.page, item) for item in b.items)
        else:
            out.append((b.kind, b.page, b.text))
    return [(k, p, t.strip()) for k, p, t in out if t and t.strip()]


def _count_wording(texts: list[str], enough: int) -> int:
    count = 0
    for norm in texts:
        if has_recommendation_wording(norm):
            count += 1
            if count >= enough:
                break
    return count


def profile_document(doc: ParsedDocument) -> DocumentGrading:
    """Read ``doc``'s guideline signals, letter system and default grade (one pass over its texts)."""
    texts = _texts(doc)
    profile = DocumentGrading()
    profile.uspstf = any(_TASK_FORCE.search(t) for _, _, t in texts)
    profile.esc = any(_ESC.search(t) for _, _, t in texts)
    profile.kdigo = _graded_by_kdigo(doc, texts)
    legend = graded = numbered = graded_wording = 0
    title = False
    prose: list[str] = []  # normalised paragraphs and list items, for the wording count of the title signal
    for kind, page, text in texts:
        norm = normalize_grade_text(text)
        if profile.default_grade is None and (m := _DEFAULT_NCCN.search(norm)):
            value = (m.group(1) or m.group(2)).upper()
            profile.default_grade = Grade(system="NCCN", grade=value, source="document_default", raw=m.group(0))
        if kind in (
            BlockKind.HEADING,
            BlockKind.TABLE,
            BlockKind.CAPTION,
            BlockKind.PARAGRAPH,
        ) and _LEGEND.search(norm):
            legend += 1
        if kind is BlockKind.REFERENCE:
            continue
        if kind is BlockKind.HEADING:
            title = title or (page <= 2 and bool(_TITLE.search(norm)))
            continue
        if any(m.explicit for m in profile.grades(text)):
            graded += 1
            graded_wording += has_recommendation_wording(norm)
        if _NUMBERING.search(norm):
            numbered += 1
        if kind in (BlockKind.PARAGRAPH, BlockKind.LIST):
            prose.append(norm)
    if legend:
        profile.reasons.append("legend")
    if graded >= _GRADED_MIN:
        profile.reasons.append("graded")
    if numbered >= _NUMBERED_MIN:
        profile.reasons.append("numbering")
    if title and not profile.reasons and _count_wording(prose, _WORDING_MIN) >= _WORDING_MIN:
        profile.reasons.append("title")
    profile.is_guideline = bool(profile.reasons)
    if graded_wording < GRADED_WORDING_MIN:
        graded_wording += _graded_table_rows(doc)
    profile.grades_recommendations = graded_wording >= GRADED_WORDING_MIN and profile.default_grade is None
    return profile
