"""Evidence grades as guideline writers print them, in English and Chinese: one module per grading system.

Public API:

* :func:`detect_grade` ``(text, *, source="sentence") -> Grade | None``: the grade stated in a
  paragraph, list item, table row or cell (every signal of the text combined).
* :func:`find_grades` ``(text) -> list[GradeMatch]``: every grade label with its span, to split a
  paragraph that holds several graded statements.
* :func:`grade_from_cells` ``(headers, cells) -> Grade | None``: the grade of a recommendation-table
  row read from its grade columns (``COR``/``LOE``, ``Class``/``Level``, ``推荐等级``...), with
  ``source="table_column"``.
* :func:`parse_class_level` ``(class_text, level_text="", *, system="") -> Grade | None``: an
  ESC / ACC/AHA recommendation table's class and level cells (``IIa`` + ``B``, glued ``IA``,
  ``2a`` + ``B-NR``) as one grade with ``source="table_column"`` (:mod:`.class_level`).
* :func:`is_recommendation` / :func:`has_recommendation_wording`: recommendation wording.
* :func:`normalize_grade_text`: the normalised text patterns match on.
* :func:`profile_document` ``(doc) -> DocumentGrading``: the document's own signals (guideline or
  not, NCCN default grade, USPSTF letters); the unit builder accepts ambiguous grades and ungraded
  recommendation wording only in a guideline (:mod:`.document`).

Systems (:data:`GRADE_SYSTEMS`, one module each): :mod:`.nccn`, :mod:`.acc_aha` (ACC/AHA, ESC,
ESMO), :mod:`.cn` (Chinese consensus Ⅱa类推荐), :mod:`.acip` (CDC recommendation category/evidence type), :mod:`.sign`, :mod:`.oxford`, :mod:`.uspstf`, :mod:`.csco`, :mod:`.gradewg` (GRADE, WHO
wording of strength/certainty, VA/DoD status), :mod:`.kdigo` (1A..2D, practice points),
:mod:`.chinese`, :mod:`.letters`. Shared machinery: :mod:`.normalise`, :mod:`.signals`,
:mod:`.combine`, :mod:`.detect`. Precision rules (what fires where) are in each module's docstring:
unambiguous labels (``Category 2A``, ``COR 1``, ``LOE B-NR``, ``1++``, ``Grade 1A``, ``[I, A]``,
``I级推荐``, ``强推荐``, ``⊕⊕⊕⊝``) fire anywhere; ambiguous ones (``Level 2``, ``Class I``, a
certainty phrase, ``Strong for``) only in a label position; disease classifications (NYHA, Child-Pugh,
``grade 3 hypertension``, ``Ⅱ期``) never.
"""

from structaware_readers.grades.catalogue import (
    GRADE_SYSTEMS,
    SYSTEM_PRECEDENCE,
    GradeSystem,
)
from structaware_readers.grades.class_level import parse_class_level
from structaware_readers.grades.detect import (
    GRADE_SOURCES,
    GradeMatch,
    detect_grade,
    find_grades,
    grade_from_cells,
)
from structaware_readers.grades.document import DocumentGrading, profile_document
from structaware_readers.grades.normalise import normalize_grade_text
from structaware_readers.grades.wording import (
    RECOMMENDATION_PATTERNS,
    has_recommendation_wording,
    is_recommendation,
)

__all__ = [
    "GRADE_SOURCES",
    "GRADE_SYSTEMS",
    "RECOMMENDATION_PATTERNS",
    "SYSTEM_PRECEDENCE",
    "DocumentGrading",
    "GradeMatch",
    "GradeSystem",
    "detect_grade",
    "find_grades",
    "grade_from_cells",
    "has_recommendation_wording",
    "is_recommendation",
    "normalize_grade_text",
    "parse_class_level",
    "profile_document",
]
