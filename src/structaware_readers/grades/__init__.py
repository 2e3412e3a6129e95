"""Evidence grades as guideline writers print them, in English and Chinese: one module per grading system.

Unambiguous labels fire anywhere, ambiguous ones (``Level 2``, ``Class I``) only in a label position, disease
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
