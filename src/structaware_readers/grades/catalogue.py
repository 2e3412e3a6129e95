"""The grading systems :func:`~structaware_readers.grades.detect_grade` recognises, with examples.

``SYSTEM_PRECEDENCE`` decides ``Grade.system`` when the signals of one statement mix systems
(the most specific first: ``NCCN > ACC/AHA > ESC > ESMO/ESC > CN > SIGN > Oxford > USPSTF > CDC/ACIP >
CSCO > GRADE > KDIGO > zh > consensus > letter``).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DIRECTIONS", "GRADE_SYSTEMS", "RANK", "STRENGTHS", "SYSTEM_PRECEDENCE", "GradeSystem"]


class GradeSystem(NamedTuple):
    """One grading system the lexicon recognises: its ``Grade.system`` name, what it is, examples."""

    name: str
    description: str
    examples: tuple[str, ...]


#: The grading systems :func:`detect_grade` recognises, in :data:`SYSTEM_PRECEDENCE` order.
GRADE_SYSTEMS: tuple[GradeSystem, ...] = (
    GradeSystem(
        "NCCN",
        "NCCN categories of evidence and consensus 1, 2A, 2B, 3 (also the Chinese 2A类推荐).",
        ("Category 1", "(category 2B)", "NCCN category 2A", "2A类推荐", "（2A类）"),
    ),
    GradeSystem(
        "ACC/AHA",
        "Class (strength) of recommendation I/IIa/IIb/III or 1/2a/2b/3 (Harm, No Benefit) with level "
        "of evidence A, B-R, B-NR, C-LD, C-EO. A labelled roman class with level A/B/C in a document "
        "that names the ESC is read as ESC (:mod:`.document`).",
        (
            "Class I, Level A",
            "Class III (Harm)",
            "COR 1",
            "LOE B-R",
            "Level of Evidence: C-LD",
        ),
    ),
    GradeSystem(
        "ESC",
        "ESC class of recommendation I/IIa/IIb/III with level of evidence A/B/C: printed in the last "
        "columns of a recommendation table (flattened after the statement: '... patient. I B', "
        "'IIa' and 'C' on lines of their own, glued 'IA'), or labelled in a document naming the ESC.",
        ("... are recommended. I A", "IIa\nC", "IIaB"),
    ),
    GradeSystem(
        "ESMO/ESC",
        "Bracketed roman level/class with a letter grade/level, kept whole as e.g. 'I-A'.",
        ("[I, A]", "[II, B]", "【Ⅰ，A】"),
    ),
    GradeSystem(
        "CN",
        "Chinese consensus and cardiology classes Ⅰ/Ⅱa/Ⅱb/Ⅲ类推荐 with evidence levels 1a-5 "
        "(证据等级, Oxford-derived) or A/B/C级证据.",
        ("（Ⅱa类推荐）", "（Ⅱ a 类推荐）", "Ⅰ类推荐，A级证据", "（2a证据等级）"),
    ),
    GradeSystem(
        "SIGN",
        "SIGN levels of evidence 1++, 1+, 1-, 2++, 2+, 2-, grades A-D when labelled SIGN, good practice point.",
        ("1++", "Level of evidence 2+", "SIGN grade B", "Good practice point"),
    ),
    GradeSystem(
        "Oxford",
        "Oxford CEBM levels of evidence 1a-5.",
        ("Level 1a", "LoE 2b", "Level of evidence: 3"),
    ),
    GradeSystem(
        "USPSTF",
        "USPSTF letter grades A, B, C, D and the I statement when the text or document names the USPSTF / Task Force.",
        ("USPSTF Grade A recommendation", "I statement"),
    ),
    GradeSystem(
        "CDC/ACIP",
        "CDC recommendation categories A/B (ACIP-adapted GRADE; A = strong, B = conditional) with evidence types 1-4.",
        ("(recommendation category: A; evidence type: 3)", "recommendation category B"),
    ),
    GradeSystem(
        "CSCO",
        "CSCO recommendation levels Ⅰ/Ⅱ/Ⅲ级推荐 (also OCR-damaged: l级推荐, Ill级推荐) and evidence "
        "categories 1A/1B/2A/2B/3类证据.",
        ("Ⅰ级推荐", "Ⅱ级推荐（1A类证据）", "2B类证据", "Ill级推荐"),
    ),
    GradeSystem(
        "GRADE",
        "GRADE strength (strong / conditional / weak) and certainty (high / moderate / low / very low), "
        "in words, in Chinese (强推荐, 高质量证据) or as ⊕ symbols; WHO good practice statements "
        "(ungraded by design: strength 'good practice statement'); the CHEST/UpToDate numeric-letter "
        "form 1A-2D (1 = strong, 2 = weak; A-D = high..very low) outside a document graded by KDIGO.",
        (
            "Strong recommendation; high-quality evidence",
            "Conditional recommendation, low certainty of evidence",
            "Strong for",
            "certainty: very low",
            "⊕⊕⊕⊝",
            "（强推荐，高质量证据）",
            "推荐强度：弱",
            "Good practice statement",
            "Grade 1A",
            "We suggest ... (2C)",
        ),
    ),
    GradeSystem(
        "KDIGO",
        "KDIGO (1A-2D, practice points): graded recommendations 1A-2D (1 = strong 'We recommend', "
        "2 = weak 'We suggest'; A-D = high..very low certainty) in a document graded by KDIGO "
        "(:mod:`.document`), and ungraded practice points.",
        ("Practice Point 1.2.1: Consider ...", "(ungraded practice point)"),
    ),
    GradeSystem(
        "zh",
        "Chinese labelled grades without a named system: 证据等级/证据级别/推荐等级/推荐级别 with a letter "
        "or roman value, A级推荐, A级证据, 【A级】, 专家共识.",
        (
            "证据等级：A",
            "证据级别 B",
            "推荐级别：Ⅰ",
            "A级推荐",
            "【A级】",
            "（专家共识）",
        ),
    ),
    GradeSystem(
        "consensus",
        "English expert-consensus / expert-opinion grades when labelled or bracketed; a bare "
        "'Practice point:' label outside a document graded by KDIGO.",
        ("Grade: expert opinion", "(expert consensus)", "Practice point: Offer ..."),
    ),
    GradeSystem(
        "letter",
        "Labelled letter grades and levels with no named system.",
        (
            "[Grade A]",
            "Grade B",
            "Grade: A",
            "Strength of recommendation (A)",
            "Level of evidence: B",
        ),
    ),
)

#: System names from most to least specific; decides ``Grade.system`` when signals mix.
SYSTEM_PRECEDENCE: tuple[str, ...] = tuple(s.name for s in GRADE_SYSTEMS)
RANK = {name: i for i, name in enumerate(SYSTEM_PRECEDENCE)}

#: ``Grade.strength`` values the systems are read into (``""``: not stated): GRADE's words, KDIGO 1/2
#: and the Chinese 强/弱 as strong/weak, ACC/AHA class IIa and class III (No Benefit) as moderate; a
#: GRADE/WHO good practice statement, ungraded by design, as ``good practice statement``.
STRENGTHS: tuple[str, ...] = ("strong", "moderate", "conditional", "weak", "good practice statement")
#: ``Grade.direction`` values (``""``: not stated); ``neither`` is VA/DoD's "Neither for nor against".
DIRECTIONS: tuple[str, ...] = ("for", "against", "neither")
