"""``recommendation`` units: a paragraph or list item that carries an evidence grade or recommendation wording.

Source: the reference paper, section 2.3 (graded recommendations); the lexicon is
:mod:`structaware_readers.grades`. The parent section is the context; such a paragraph is not repeated
inside its section unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from structaware_readers import grades
from structaware_readers.models import Block, UnitType

if TYPE_CHECKING:
    from structaware_readers.units.builder import UnitBuilder


def emit_if_recommendation(builder: UnitBuilder, block: Block, text: str) -> bool:
    """Emit ``text`` (from ``block``) as a recommendation unit when it is one; True when emitted."""
    grade = grades.detect_grade(text)
    if grade is None and not grades.has_recommendation_wording(grades.normalize_grade_text(text)):
        return False
    builder.emit(UnitType.RECOMMENDATION, text, builder.section_context(), [block], grade=grade)
    return True
