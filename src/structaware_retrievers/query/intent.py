"""What a question asks for, read from its wording: here, whether it asks for a recommendation's grade.

A question that asks how firmly a guideline recommends something (``How strongly does ... recommend``,
``what class and level``, ``推荐级别``) is answered by a graded ``recommendation`` unit: a discussion holding
more of the question's words cannot say the grade. :func:`asks_for_grade` tells the searcher so; it then adds a
BM25 prefetch among recommendation units to the fusion (``SearchOptions.grade_focus``).
"""

from __future__ import annotations

import re

__all__ = ["asks_for_grade"]

#: Wordings that ask for a grade: how firmly / strongly, what grade or strength, what class or level (not ``what
#: class of antibiotic``), class and level, a grading's own terms (level of evidence, strength of recommendation,
#: evidence type), ``grade`` or ``graded`` (not a disease's ``grade 3``, ``investment-grade``, ``downgrade``);
#: Chinese: 推荐级别 / 等级 / 强度, 证据级别 / 等级 / 类别, 几级推荐, 哪一类推荐.
_ASKS_FOR_GRADE = re.compile(
    r"(?i)\bhow\s+(?:firmly|strongly|strong)\b|\b(?:what|which)\s+(?:grade|strength)\b|"
    r"\b(?:what|which)\s+(?:class|level)\b(?!\s+of\s+(?!evidence|recommendation))|\bclass\s*(?:and|/)\s*level\b|"
    r"\bstrength\s+of\s+(?:the\s+|this\s+|that\s+)?recommendation|\blevel\s+of\s+evidence|\bevidence\s+type\b|"
    r"(?<![-\w])grade[ds]?\b(?!\s*[-–]?\s*(?:\d|[IVX]+\b))|"
    r"推荐(?:级别|等级|强度)|证据(?:级别|等级|类别)|几级推荐|哪一类推荐"
)


def asks_for_grade(question: str) -> bool:
    """Whether ``question`` asks how firmly something is recommended (module docstring)."""
    return _ASKS_FOR_GRADE.search(question) is not None
