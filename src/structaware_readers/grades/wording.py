"""Recommendation wording, in English and Chinese: "we recommend", "is not recommended", "should be offered",
NICE-style imperatives, ``推荐意见 2.1：``, ``不建议…``.
"""

from __future__ import annotations

import re

from structaware_readers.grades.detect import detect_grade
from structaware_readers.grades.normalise import normalize_grade_text

__all__ = ["RECOMMENDATION_PATTERNS", "has_recommendation_wording", "is_recommendation"]

# decisions about care, not procedural steps: "should be offered" is a recommendation, "blood pressure
# should be measured twice" / "should be performed" stay in their section
_CLINICAL_PARTICIPLES = (
    "offered|given|considered|used|prescribed|administered|initiated|started|continued|discontinued|stopped|"
    "avoided|withheld|treated|screened|tested|referred|vaccinated|counsell?ed|advised|encouraged|preferred|"
    "switched|titrated|added|combined|hospitali[sz]ed|admitted|isolated|excluded|restricted|implemented"
)
#: English recommendation wording recognised by :func:`is_recommendation`, by name (matched on the
#: normalised text, case-insensitively).
RECOMMENDATION_PATTERNS: dict[str, re.Pattern[str]] = {
    "label": re.compile(r"(?i)^\W*(?:key\s+)?recommendations?\s*(?:(?:\d+(?:\.\d+)*[a-z]?|[IVX]+)\s*[:.)\-]|:\s*\w)"),
    "good_practice_label": re.compile(r"(?i)^\W*good\s+practice\s+(?:statement|point)\b"),
    "we_recommend": re.compile(r"(?i)\bwe\s+(?:also\s+)?(?:strongly\s+|conditionally\s+)?(?:recommend|suggest)\b"),
    "body_recommends": re.compile(
        r"(?i)\b(?:panel|GDG|committee|task\s+force|guideline|working\s+group|society|expert\s+group|"
        r"experts|consensus|authors|college|association|USPSTF)\s+(?:also\s+)?"
        r"(?:strongly\s+|conditionally\s+)?(?:recommends|suggests|advises)\b"
    ),
    "is_recommended": re.compile(
        r"(?i)\b(?:is|are)\s+(?:(?:also|not|strongly|generally|therefore|now|usually|only)\s+)*"
        r"(?:recommended|suggested|advised|contraindicated|indicated\s+(?:for|in|when|if))\b"
    ),
    "should_be_done": re.compile(
        r"(?i)\bshould\s+(?:(?:not|always|routinely|also|only|generally|ideally|usually|then)\s+)*be\s+"
        r"(?:(?:routinely|promptly|regularly|carefully|immediately|also)\s+)?(?:" + _CLINICAL_PARTICIPLES + r")\b"
    ),
    "should_act": re.compile(
        r"(?i)\bshould\s+(?:(?:not|always|routinely|also|only)\s+)*(?:receive|undergo|avoid|ensure|assure)\b"
    ),
    # CDC style: the clinician is the subject ("clinicians should prescribe the lowest effective dosage")
    "clinicians_should": re.compile(
        r"(?i)\b(?:clinicians|physicians|prescribers)\s+should\s+(?:(?:not|always|routinely|also|only|carefully|"
        r"generally|ideally|first)\s+)*(?!be\b|have\b|know\b|note\b|understand\b|remember\b|recogni[sz]e\b|"
        r"be\s+aware\b)[a-z]+"
    ),
    "imperative": re.compile(
        r"(?i)^\W*(?:\d+(?:\.\d+)*\.?\s+)?(?:offer|consider|do\s+not\s+(?:offer|use|routinely|give|prescribe|"
        r"start|perform)|advise|refer(?!\s+to\b)|measure|ensure|give|use(?!\s+of\b)|avoid|discuss|assess)\s+\w"
    ),
}

_ZH_RECOMMEND_LABEL = re.compile(r"(?:^\W*推荐(?:意见)?\s*[:]|推荐意见\s*[0-9]+(?:\.[0-9]+)*\s*[:.]?|^\W*推荐意见)")
_ZH_RECOMMEND_VERB = re.compile(
    r"(?:^|[\s,;:.!?。、()\[\]]|者|患者|人群|儿童|成人|孕妇|指南|专家组|工作组|委员会|我们|本共识|应|可|均|也|则|时|后|前|中|仍|首先|优先|一般)"
    r"(?:不|不常规|强烈|可|一般|首先|优先)?"
    r"(?:推荐|建议)"
    r"(?!意见|等级|级别|强度|类别|分级|理由|依据|说明|剂量|用量|摄入量|量|值|的|者|信|书|稿|人|表|范围|标准|方案|内容|"
    r"[\s,;:.!?。、)\]]|$)"
)


def is_recommendation(text: str) -> bool:
    """True when ``text`` carries an evidence grade or explicit recommendation wording ("we recommend", "is
    recommended" but not "the recommended dose", "should be <care decision>" but not "should be measured", NICE
    imperatives, 推荐/建议 as a verb). Raises ``TypeError``.
    """
    if not isinstance(text, str):
        raise TypeError(f"is_recommendation expects str, got {type(text).__name__}")
    if not text.strip():
        return False
    if detect_grade(text) is not None:
        return True
    return has_recommendation_wording(normalize_grade_text(text))


def has_recommendation_wording(norm: str) -> bool:
    """True when the normalised text ``norm`` (:func:`normalize_grade_text`) has recommendation
    wording (the English patterns of :data:`RECOMMENDATION_PATTERNS` or the Chinese label/verb);
    grades are not looked at."""
    if any(p.search(norm) for p in RECOMMENDATION_PATTERNS.values()):
        return True
    return bool(_ZH_RECOMMEND_LABEL.search(norm) or _ZH_RECOMMEND_VERB.search(norm))
