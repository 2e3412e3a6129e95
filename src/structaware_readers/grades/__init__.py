"""Evidence grades as guideline writers print them, in English and Chinese: one module per grading system.

Entry points: :func:`detect_grade` (the grade of a paragraph, row or cell), :func:`find_grades`
(every grade label with its span), :func:`grade_from_cells` (a recommendation table's grade
columns), :func:`parse_class_level` (class and level cells), :func:`is_recommendation` /
:func:`has_recommendation_wording`, :func:`normalize_grade_text`, :func:`profile_document`
(:mod:`.document`: is the document a guideline, its default grade).

One module per system of :data:`GRADE_SYSTEMS` (``nccn``, ``acc_aha``, ``cn``, ``acip``, ``sign``,
``oxford``, ``uspstf``, ``csco``, ``gradewg``, ``kdigo``, ``chinese``, ``letters``) over shared
:mod:`.normalise`, :mod:`.signals`, :mod:`.combine`, :mod:`.detect`. Unambiguous labels fire
anywhere, ambiguous ones (``Level 2``, ``Class I``) only in a label position, disease
classifications (NYHA, ``grade 3 hypertension``) never.
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
