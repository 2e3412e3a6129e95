"""Evidence-grade lexicon: find the evidence grade a recommendation carries, in English and Chinese.

Paper section 2.3 builds *recommendation units* from paragraphs that carry an evidence grade, and
section 4.3 measures that its Chinese regex fired on 2.7% of units against 6.6% for English. This
module is the bilingual lexicon that closes that gap. Two public functions:

* :func:`detect_grade` ``(text) -> Grade | None``: the grade found in ``text`` (one
  :class:`~structaware_readers.models.Grade`, several signals combined), or ``None``.
* :func:`is_recommendation` ``(text) -> bool``: ``text`` carries a grade **or** explicit
  recommendation wording.

Systems covered (:data:`GRADE_SYSTEMS` lists them with examples): NCCN categories, GRADE
strength/certainty (words in both languages and the ⊕ symbols), ACC/AHA (and ESC) class of
recommendation / level of evidence, ESMO/ESC bracketed ``[I, A]``, Oxford CEBM levels, SIGN
levels and grades, USPSTF and other labelled letter grades, CSCO ``I级推荐`` / ``1A类证据``, and
the Chinese labelled forms (``证据等级：A``, ``推荐强度：弱``, ``（强推荐，高质量证据）``, ``【A级】``,
``专家共识``).

Normalisation
    Matching runs on a normalised copy of the text: NFKC per character (full-width ``（：，Ａ``
    become ``(:,A``; the Unicode roman numerals ``Ⅰ Ⅱ Ⅲ Ⅳ`` become ``I II III IV``), ``【】〔〕``
    become ``[]``, dashes ``‐‑‒–—`` become ``-``, and Markdown ``*`` is dropped. ``Grade.raw`` is
    cut from the **original** text (an index map is kept), so it shows the span as printed.

What fires where (precision rules)
    Unambiguous labels fire anywhere: ``Category 2A``, ``Class IIa`` next to level or
    recommendation wording, ``COR 1``, ``LOE B-NR``, ``LoE 2b``, ``1++``, ``[Grade A]``,
    ``Grade 1A``, ``[I, A]``, ``I级推荐``, ``1A类证据``, ``A级推荐``, ``强推荐``, ``⊕⊕⊕⊝``,
    ``Strong recommendation`` (not after an article, not plural: "A strong recommendation
    means ..." is a definition).
    Ambiguous ones fire only in a *label position* (delimited by brackets, ``, ; :``, sentence
    ends or the ends of the text) or after an explicit label (``Quality of evidence:``,
    ``证据等级：``): a bare GRADE certainty phrase (``very low quality of evidence`` fires in
    ``(Strong recommendation, very low quality of evidence)`` but not in "there is very low
    quality of evidence showing that ..."; ``缺乏高质量证据`` does not fire), ``Strong for``,
    a bare ``Level 2``/``Level 1b`` (``facility level 1b National level`` is a heading, not a
    grade), ``Class I`` alone, a letter after ``Grade``/``Level``, the KDIGO-style ``(1A)`` (only
    after "recommend"/"suggest"/推荐/建议 wording). A cell that
    is only ``very low quality`` or ``Strong`` (WHO recommendation tables) fires. A class or grade
    preceded by a disease classification (NYHA, ASA, Killip, Child-Pugh, Los Angeles, ...) never
    fires; disease grades with digits or roman numerals after ``grade`` (``grade 3
    hypertension``, ``grade II``) never fire; ``A级公路``, ``Ⅱ期临床试验``, ``Ⅰ类切口``,
    ``3级高血压`` do not fire because the Chinese patterns require ``推荐``/``证据`` or a label.

Combining several signals (precedence)
    Every pattern that matches yields a *signal* (system, recommendation grade, evidence level,
    strength, certainty word, span); spans already claimed by a more specific pattern are not
    matched again. Signals are ranked by system precedence :data:`SYSTEM_PRECEDENCE`
    (``NCCN > ACC/AHA > ESMO/ESC > SIGN > Oxford > USPSTF > CSCO > GRADE > zh > consensus >
    letter``) and then by position. The result takes

    * ``system`` from the best-ranked signal;
    * ``grade`` = the first recommendation grade/class/category in rank order, else the first
      evidence level (so ``Level 1a`` alone gives grade ``"1a"``);
    * ``strength`` = the first stated strength (``strong``/``conditional``/``weak``; Chinese
      强/弱/有条件 map to the same words; strength is never inferred from a class);
    * ``certainty`` = the first GRADE certainty word (``high``/``moderate``/``low``/``very
      low``), else the first evidence level label (``"B-R"``, ``"1A"``, ``"2++"``).

    So ``(Strong recommendation; high-quality evidence) [Grade A]`` gives
    ``Grade(system="GRADE", grade="A", strength="strong", certainty="high")`` and
    ``（强推荐，高质量证据）【A级】`` gives the same. ``raw`` is the original text from the first to
    the last contributing span (joined with `` … `` when they lie more than 120 characters apart),
    widened to the brackets that enclose it (``"(category 2B)"``).

Label conventions
    Grades keep the document's numeral style (``Class I`` -> ``"I"``, ``COR 2a`` -> ``"2a"``);
    ACC/AHA class 3 qualifiers become ``"III: Harm"`` / ``"3: No Benefit"``; NCCN categories are
    upper-cased (``"2A"``); Oxford levels are lower-cased (``"1a"``); the ESMO/ESC pair ``[I, A]``
    (or a cell ``IA``) is kept whole as ``"I-A"`` because ESMO reads it (level, grade) and ESC
    (class, level); KDIGO/CHEST ``1A``..``2D`` give grade ``"1A"`` with strength (1 = strong,
    2 = weak) and certainty (A..D = high..very low); good practice points/statements and expert
    consensus/opinion become ``"good practice point"``, ``"good practice statement"``,
    ``"expert consensus"``, ``"expert opinion"``. GRADE wording alone leaves ``grade`` empty
    (strength and certainty carry the information).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from structaware_readers.models import Grade

__all__ = [
    "GRADE_SYSTEMS",
    "SYSTEM_PRECEDENCE",
    "RECOMMENDATION_PATTERNS",
    "GradeSystem",
    "detect_grade",
    "is_recommendation",
    "normalize_grade_text",
]


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
        "of evidence A, B-R, B-NR, C-LD, C-EO; also ESC and Chinese cardiology (Ⅰ类推荐，A级证据).",
        ("Class I, Level A", "Class III (Harm)", "COR 1", "LOE B-R", "Level of Evidence: C-LD", "Ⅱa类推荐"),
    ),
    GradeSystem(
        "ESMO/ESC",
        "Bracketed roman level/class with a letter grade/level, kept whole as e.g. 'I-A'.",
        ("[I, A]", "[II, B]", "【Ⅰ，A】"),
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
        "USPSTF letter grades A, B, C, D, I when the text names the USPSTF / Task Force.",
        ("USPSTF Grade A recommendation",),
    ),
    GradeSystem(
        "CSCO",
        "CSCO recommendation levels Ⅰ/Ⅱ/Ⅲ级推荐 and evidence categories 1A/1B/2A/2B/3类证据.",
        ("Ⅰ级推荐", "Ⅱ级推荐（1A类证据）", "2B类证据"),
    ),
    GradeSystem(
        "GRADE",
        "GRADE strength (strong / conditional / weak) and certainty (high / moderate / low / very low), "
        "in words, in Chinese (强推荐, 高质量证据) or as ⊕ symbols; WHO good practice statements; the "
        "KDIGO/CHEST numeric-letter form 1A-2D (1 = strong, 2 = weak; A-D = high..very low).",
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
        "zh",
        "Chinese labelled grades without a named system: 证据等级/证据级别/推荐等级/推荐级别 with a letter "
        "or roman value, A级推荐, A级证据, 【A级】, 专家共识.",
        ("证据等级：A", "证据级别 B", "推荐级别：Ⅰ", "A级推荐", "【A级】", "（专家共识）"),
    ),
    GradeSystem(
        "consensus",
        "English expert-consensus / expert-opinion grades when labelled or bracketed.",
        ("Grade: expert opinion", "(expert consensus)"),
    ),
    GradeSystem(
        "letter",
        "Labelled letter grades and levels with no named system.",
        ("[Grade A]", "Grade B", "Grade: A", "Strength of recommendation (A)", "Level of evidence: B"),
    ),
)

#: System names from most to least specific; decides ``Grade.system`` when signals mix.
SYSTEM_PRECEDENCE: tuple[str, ...] = tuple(s.name for s in GRADE_SYSTEMS)
_RANK = {name: i for i, name in enumerate(SYSTEM_PRECEDENCE)}

# ---------------------------------------------------------------------------------------------
# normalisation

_CHAR_MAP = {
    "【": "[", "】": "]", "〔": "[", "〕": "]", "〖": "[", "〗": "]", "「": "[", "」": "]",
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u3000": " ", "\u00a0": " ",
}
_DROP = {"*", "\u200b", "\u200c", "\u200d", "\ufeff"}


def _normalise(text: str) -> tuple[str, list[int]]:
    """Normalised text and, per normalised character, the index of its source character."""
    out: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch in _DROP:
            continue
        rep = _CHAR_MAP.get(ch)
        if rep is None:
            rep = unicodedata.normalize("NFKC", ch) if ord(ch) > 127 else ch
        for c in rep:
            out.append(c)
            index.append(i)
    return "".join(out), index


def normalize_grade_text(text: str) -> str:
    """The normalised form the lexicon matches on (NFKC, ``Ⅱ``->``II``, ``【】``->``[]``, no ``*``)."""
    return _normalise(text)[0]


# ---------------------------------------------------------------------------------------------
# signals


@dataclass
class _Signal:
    system: str
    start: int
    end: int
    grade: str = ""  # recommendation grade / class / category
    level: str = ""  # evidence level label
    strength: str = ""
    certainty: str = ""  # GRADE certainty word

    @property
    def rank(self) -> tuple[int, int]:
        return (_RANK[self.system], self.start)


@dataclass
class _Scan:
    norm: str
    signals: list[_Signal] = field(default_factory=list)
    claimed: list[tuple[int, int]] = field(default_factory=list)

    def free(self, s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in self.claimed)

    def add(self, sig: _Signal) -> None:
        self.signals.append(sig)
        self.claimed.append((sig.start, sig.end))


_OPENERS = "([{,;:|/\n"
_CLOSERS = ")]},;:.|/\n?!"
_SENTENCE_END = ".!?"


def _standalone(norm: str, s: int, e: int) -> bool:
    """True when ``norm[s:e]`` is a label: delimited on both sides (see module docstring)."""
    before = norm[max(0, s - 40) : s].rstrip(" \t")
    after = norm[e : e + 40].lstrip(" \t")
    ok_before = not before or before[-1] in _OPENERS or before[-1] in _SENTENCE_END or before[-1] in "。、"
    ok_after = not after or after[0] in _CLOSERS or after[0] in "。、"
    return ok_before and ok_after


def _whole(norm: str, s: int, e: int) -> bool:
    """True when ``norm[s:e]`` is all the text there is, apart from punctuation and spaces."""
    rest = norm[:s] + norm[e:]
    return not re.search(r"\w", rest)


_DISEASE_CLASSIFIERS = re.compile(
    r"(?i)(?:NYHA|ASA|Killip|Child[- ]?Pugh|Pugh|Mallampati|Los\s+Angeles|\bLA|Forrest|Fontaine|"
    r"Rutherford|Spetzler(?:-Martin)?|House[- ]Brackmann|functional|WHO|CTCAE|Gleason|Fisher|"
    r"Hunt(?:\s+and\s+Hess)?|ISUP|FIGO|Clavien(?:-Dindo)?|Dindo|Tanner|Kellgren(?:-Lawrence)?|"
    r"CCS|Vaughan[- ]Williams|Angle|Kennedy|Sanders|Gustilo|Tumou?r|histologic(?:al)?|Wagner|"
    r"Baux|Breslow|Clark|Salter[- ]Harris|Fredrickson|obesity|Bethesda|BI-?RADS|TI-?RADS)"
    r"[\s-]*$"
)


def _after_classifier(norm: str, s: int) -> bool:
    return bool(_DISEASE_CLASSIFIERS.search(norm[max(0, s - 40) : s]))


_DETERMINER = re.compile(r"(?i)\b(?:a|an|the|this|that|each|one|any|such|of)\s+$")

# --- English value vocabularies
_ROMAN_CLASS = r"(?:III|IIa|IIb|II|IV|I)"
_ARABIC_CLASS = r"(?:1|2a|2b|3)"
_HARM = r"(?:\s*[:(,-]?\s*(Harm|No[- ]?Benefit)\s*\)?)?"
_LOE = r"(?:B-NR|B-R|C-LD|C-EO|A|B|C)"
_CERT_WORD = r"(very\s+low|low|moderate|high)"


def _cert(word: str) -> str:
    return re.sub(r"\s+", " ", word.lower())


def _class_label(value: str, harm: str | None) -> str:
    label = value if value[0] in "IV" else value.lower()
    if harm:
        label += ": " + ("Harm" if harm.lower() == "harm" else "No Benefit")
    return label


# Each detector is (compiled pattern, handler). Handlers get the scan and the match and may add
# signals. Detectors run in list order; a match overlapping an already claimed span is skipped.


_Handler = Callable[["_Scan", "re.Match[str]"], None]


def _run(scan: _Scan, pattern: re.Pattern[str], handler: _Handler) -> None:
    for m in pattern.finditer(scan.norm):
        if scan.free(m.start(), m.end()):
            handler(scan, m)


# ---- NCCN
_NCCN = re.compile(
    r"(?i)\b(?:NCCN\s+)?categor(?:y|ies)(?:\s+of\s+evidence(?:\s+and\s+consensus)?)?\s*[:]?\s*"
    r"(2A|2B|1|3)(?!\w|\.\d)"
)


def _h_nccn(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("NCCN", m.start(), m.end(), grade=m.group(1).upper()))


_NCCN_ZH = re.compile(r"(?<![A-Za-z0-9.])(2A|2B|1|3)\s*类\s*推荐", re.I)
_NCCN_ZH_BRACKET = re.compile(r"[(\[]\s*(2A|2B|1|3)\s*类\s*[)\]]", re.I)

# ---- ACC/AHA
_ACC_COMBINED = re.compile(
    r"(?i)\b(?:Class|COR)(?:\s+of\s+recommendation)?\s*[:]?\s*"
    rf"((?-i:{_ROMAN_CLASS})|{_ARABIC_CLASS})(?![\w]){_HARM}"
    r"\s*[,;/]?\s*(?:and\s+)?\(?\s*(?:Level(?:\s+of\s+Evidence)?|LOE)\s*[:]?\s*"
    rf"((?-i:{_LOE}))(?![\w-])\)?"
)


def _h_acc_combined(scan: _Scan, m: re.Match[str]) -> None:
    if _after_classifier(scan.norm, m.start()):
        return
    scan.add(_Signal("ACC/AHA", m.start(), m.end(), grade=_class_label(m.group(1), m.group(2)), level=m.group(3)))


_ACC_CLASS = re.compile(
    r"(?i)\b(Class|COR)(\s+of\s+recommendation)?\s*[:]?\s*"
    rf"((?-i:{_ROMAN_CLASS})|{_ARABIC_CLASS})(?![\w]){_HARM}"
)


def _h_acc_class(scan: _Scan, m: re.Match[str]) -> None:
    if _after_classifier(scan.norm, m.start()):
        return
    keyword_specific = m.group(1).upper() == "COR" or bool(m.group(2))
    tail = scan.norm[m.end() : m.end() + 40]
    near_words = bool(re.match(r"(?i)\s*[,;:)]?\s*(?:recommendation|\(?\s*(?:level|LOE)\b)", tail))
    if not (keyword_specific or m.group(4) or near_words or _standalone(scan.norm, m.start(), m.end())):
        return
    scan.add(_Signal("ACC/AHA", m.start(), m.end(), grade=_class_label(m.group(3), m.group(4))))


_ACC_LOE_SPECIFIC = re.compile(
    r"(?i)\b(?:LOE|Level\s+of\s+Evidence|Evidence\s+level|Level)\s*[:]?\s*((?-i:B-NR|B-R|C-LD|C-EO))(?![\w-])"
)


def _h_acc_loe(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("ACC/AHA", m.start(), m.end(), level=m.group(1)))


_ACC_PAIR = re.compile(rf"\(\s*({_ROMAN_CLASS})\s*[,/;]\s*({_LOE})\s*\)")
_PAIR_CONTEXT = re.compile(r"(?i)\bclass\b|\bCOR\b|\bLOE\b|\blevel\b|推荐类别|推荐级别|推荐等级|证据等级|证据级别|证据水平")


def _h_acc_pair(scan: _Scan, m: re.Match[str]) -> None:
    if not _PAIR_CONTEXT.search(scan.norm[max(0, m.start() - 60) : m.start()]):
        return
    scan.add(_Signal("ACC/AHA", m.start(), m.end(), grade=m.group(1), level=m.group(2)))


_ACC_ZH = re.compile(rf"(?<![A-Za-z0-9])({_ROMAN_CLASS})\s*类\s*推荐")


def _h_acc_zh(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("ACC/AHA", m.start(), m.end(), grade=m.group(1)))


# ---- ESMO/ESC
_ESMO = re.compile(r"\[\s*(III|IIa|IIb|II|IV|I|V)\s*[,/]\s*([A-E])\s*\]")
_ESC_CELL = re.compile(r"(III|IIa|IIb|II|I)\s*,?\s*([ABC])")


def _h_esmo(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("ESMO/ESC", m.start(), m.end(), grade=f"{m.group(1)}-{m.group(2)}"))


# ---- SIGN
_SIGN_STRONG = re.compile(r"(?<![\w+.])([12])\+\+(?![\w+])")
_SIGN_WEAK = re.compile(r"(?<![\w+.])([1-4])(\+|-)(?![\w+\-])")
_SIGN_LABEL = re.compile(r"(?i)(?:level\s+of\s+evidence|evidence\s+level|\bLoE|\bLOE|\bSIGN\b|证据等级|证据级别)[^.;]{0,25}$")
_SIGN_GRADE = re.compile(r"(?i)\bSIGN\b[^.;]{0,20}?\bgrade\s*[:]?\s*((?-i:[A-D]))(?!\w)")
_GOOD_PRACTICE = re.compile(
    r"(?i)\b(good\s+practice\s+point|GPP|good\s+practice\s+statement|best\s+practice\s+statement)(?!s|\w)"
)


def _h_sign_strong(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("SIGN", m.start(), m.end(), level=m.group(0)))


def _h_sign_weak(scan: _Scan, m: re.Match[str]) -> None:
    if _SIGN_LABEL.search(scan.norm[max(0, m.start() - 40) : m.start()]):
        scan.add(_Signal("SIGN", m.start(), m.end(), level=m.group(0)))


def _h_sign_grade(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("SIGN", m.start(), m.end(), grade=m.group(1)))


def _h_good_practice(scan: _Scan, m: re.Match[str]) -> None:
    phrase = re.sub(r"\s+", " ", m.group(1).lower())
    if _DETERMINER.search(scan.norm[max(0, m.start() - 12) : m.start()]):
        return
    if phrase == "gpp":
        if not _standalone(scan.norm, m.start(), m.end()):
            return
        phrase = "good practice point"
    elif phrase != "good practice point":
        # statements: a label or the head of a statement, not a mention inside a sentence
        before = scan.norm[: m.start()].rstrip(" \t")
        if before and before[-1] not in _OPENERS + _SENTENCE_END + "。":
            return
    system = "SIGN" if phrase == "good practice point" else "GRADE"
    scan.add(_Signal(system, m.start(), m.end(), grade=phrase))


# ---- Oxford
_OXFORD_SUFFIX = re.compile(
    r"(?i)\b(Level(?:\s+of\s+evidence)?|LoE|LOE|Evidence\s+level|EL)\s*[:]?\s*([1-5])([abc])(?![\w+\-])"
    r"(\s+evidence)?"
)
_OXFORD_PLAIN = re.compile(
    r"(?i)\b(Level\s+of\s+evidence|LoE|Evidence\s+level|Level)\s*[:]?\s*([1-5])(?![\w+\-.]|\.\d)(\s+evidence)?"
)


def _h_oxford_suffix(scan: _Scan, m: re.Match[str]) -> None:
    # a bare "level 1b" is often a section label ("facility level 1b National level"): it needs a
    # label position or a following "evidence"; "LoE 2b" / "Level of evidence 1a" fire anywhere
    explicit = m.group(1).lower() != "level" or bool(m.group(4))
    if explicit or _standalone(scan.norm, m.start(), m.end()):
        scan.add(_Signal("Oxford", m.start(), m.end(), level=m.group(2) + m.group(3).lower()))


def _h_oxford_plain(scan: _Scan, m: re.Match[str]) -> None:
    explicit = m.group(1).lower() != "level" or bool(m.group(3))
    if explicit or _standalone(scan.norm, m.start(), m.end()):
        scan.add(_Signal("Oxford", m.start(), m.end(), level=m.group(2)))


# ---- CSCO and Chinese
_CSCO_LEVEL = re.compile(r"(?<![A-Za-z0-9])(III|II|I|[一二三])\s*级\s*(?:专家)?推荐")
_CSCO_EVIDENCE = re.compile(r"(?<![A-Za-z0-9.])(1A|1B|2A|2B|1|2|3)\s*类\s*(?:的\s*)?证据", re.I)
_ZH_NUM = {"一": "I", "二": "II", "三": "III"}


def _h_csco_level(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("CSCO", m.start(), m.end(), grade=_ZH_NUM.get(m.group(1), m.group(1))))


def _h_csco_evidence(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("CSCO", m.start(), m.end(), level=m.group(1).upper()))


def _h_nccn_zh(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("NCCN", m.start(), m.end(), grade=m.group(1).upper()))


_ZH_VALUE = (
    r"(专家共识|极低|非常低|中等|中|高|低|强烈|强|弱|有条件|条件性|"
    r"(?:III|IIa|IIb|II|IV|I)(?![A-Za-z])|1A|1B|2A|2B|[1-5][abc]?|[A-E](?![A-Za-z]))\s*(级|类)?"
)
_ZH_LABELLED = re.compile(
    r"(推荐|证据)\s*(?:意见\s*)?(等级|级别|强度|类别|分级|水平|质量|确定性)\s*[:]?\s*(?:为|是)?\s*" + _ZH_VALUE
)
_ZH_CERT = {"高": "high", "中": "moderate", "中等": "moderate", "低": "low", "极低": "very low", "非常低": "very low"}
_ZH_STRENGTH = {"强": "strong", "强烈": "strong", "弱": "weak", "有条件": "conditional", "条件性": "conditional"}


def _h_zh_labelled(scan: _Scan, m: re.Match[str]) -> None:
    kind, value = m.group(1), m.group(3)
    s, e = m.start(), m.end()
    if value == "专家共识":
        scan.add(_Signal("zh", s, e, grade="expert consensus"))
    elif value in _ZH_STRENGTH:
        if kind == "推荐":
            scan.add(_Signal("GRADE", s, e, strength=_ZH_STRENGTH[value]))
    elif value in _ZH_CERT:
        if kind == "证据":
            scan.add(_Signal("GRADE", s, e, certainty=_ZH_CERT[value]))
    elif re.fullmatch(r"[1-5][abc]", value):
        scan.add(_Signal("Oxford", s, e, level=value))
    elif kind == "推荐":
        scan.add(_Signal("zh", s, e, grade=value.upper() if len(value) <= 2 and value[0].isdigit() else value))
    else:
        scan.add(_Signal("zh", s, e, level=value.upper() if value[0].isdigit() else value))


_ZH_LETTER = re.compile(r"(?<![A-Za-z0-9])([A-E])\s*级\s*(推荐|证据)")


def _h_zh_letter(scan: _Scan, m: re.Match[str]) -> None:
    if m.group(2) == "推荐":
        scan.add(_Signal("zh", m.start(), m.end(), grade=m.group(1)))
    else:
        scan.add(_Signal("zh", m.start(), m.end(), level=m.group(1)))


_ZH_BRACKET_LETTER = re.compile(r"[(\[]\s*([A-E])\s*级\s*[)\]]")


def _h_zh_bracket_letter(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("zh", m.start(), m.end(), grade=m.group(1)))


_ZH_CONSENSUS = re.compile(r"[(\[]\s*(?:基于)?专家共识\s*[)\]]")


def _h_zh_consensus(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("zh", m.start(), m.end(), grade="expert consensus"))


_ZH_STRENGTH_RE = re.compile(r"(?<![加增])(强烈|强|弱|有条件的?|条件性)\s*推荐(?!意见|等级|级别|强度|类别|分级)")


def _h_zh_strength(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("GRADE", m.start(), m.end(), strength=_ZH_STRENGTH[m.group(1).rstrip("的")]))


_ZH_CERT_RE = re.compile(r"(?<![降减])(极低|非常低|中等|高|中|低)\s*(?:质量|确定性|可信度|级别|等级)\s*(?:的\s*)?证据")


def _h_zh_cert(scan: _Scan, m: re.Match[str]) -> None:
    if _standalone(scan.norm, m.start(), m.end()):
        scan.add(_Signal("GRADE", m.start(), m.end(), certainty=_ZH_CERT[m.group(1)]))


# ---- GRADE (English)
_GRADE_SYMBOLS = re.compile(r"(?<![⊕⨁⊝○◯⊖〇])([⊕⨁]{1,4})([⊝○◯⊖〇O]{0,3})(?![⊕⨁⊝○◯⊖〇O])")
_SYMBOL_CERT = {4: "high", 3: "moderate", 2: "low", 1: "very low"}


def _h_symbols(scan: _Scan, m: re.Match[str]) -> None:
    if len(m.group(1)) + len(m.group(2)) == 4:
        scan.add(_Signal("GRADE", m.start(), m.end(), certainty=_SYMBOL_CERT[len(m.group(1))]))


_STRENGTH_WORD = r"(strong|conditional|weak|discretionary)"
_STRENGTH_MAP = {"strong": "strong", "conditional": "conditional", "weak": "weak", "discretionary": "conditional"}

_GRADE_STRENGTH_CERT = re.compile(
    rf"(?i)\b{_STRENGTH_WORD}(?:\s+recommendation)?\s*[,;/]\s*{_CERT_WORD}[- ](?:quality|certainty)"
    r"(?:\s+(?:of\s+(?:the\s+)?)?evidence)?\b"
)


def _h_strength_cert(scan: _Scan, m: re.Match[str]) -> None:
    # "Strong, very low quality" (WHO tables) or "Strong recommendation, moderate quality of evidence"
    scan.add(
        _Signal(
            "GRADE", m.start(), m.end(), strength=_STRENGTH_MAP[m.group(1).lower()], certainty=_cert(m.group(2))
        )
    )


_GRADE_STRENGTH = re.compile(rf"(?i)\b{_STRENGTH_WORD}\s+recommendation(?!s)\b")


def _h_strength(scan: _Scan, m: re.Match[str]) -> None:
    if _DETERMINER.search(scan.norm[max(0, m.start() - 12) : m.start()]):
        return
    scan.add(_Signal("GRADE", m.start(), m.end(), strength=_STRENGTH_MAP[m.group(1).lower()]))


_GRADE_STRENGTH_LABELLED = re.compile(
    r"(?i)\b(?:strength\s+of\s+(?:the\s+)?recommendation|recommendation\s+strength|strength)\s*[:]\s*"
    + _STRENGTH_WORD
    + r"\b"
)


def _h_strength_labelled(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("GRADE", m.start(), m.end(), strength=_STRENGTH_MAP[m.group(1).lower()]))


_GRADE_FOR_AGAINST = re.compile(
    r"(?i)\b(strong|weak|conditional)\s+(?:for|against)\b(?:\s+the\s+(?:intervention|option))?"
)


def _h_for_against(scan: _Scan, m: re.Match[str]) -> None:
    if _standalone(scan.norm, m.start(), m.end()):
        scan.add(_Signal("GRADE", m.start(), m.end(), strength=_STRENGTH_MAP[m.group(1).lower()]))


_GRADE_CERT_LABELLED = re.compile(
    r"(?i)\b(?:(?:quality|certainty)\s+of\s+(?:the\s+)?evidence|evidence\s+(?:quality|certainty)|"
    r"(?:level\s+of\s+)?certainty|quality)\s*:\s*" + _CERT_WORD + r"\b"
)


def _h_cert_labelled(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("GRADE", m.start(), m.end(), certainty=_cert(m.group(1))))


_GRADE_CERT_PHRASE = re.compile(
    rf"(?i)\b{_CERT_WORD}[- ](?:quality|certainty)(?:\s+(?:of\s+(?:the\s+)?)?evidence|\s+evidence)"
)


def _h_cert_phrase(scan: _Scan, m: re.Match[str]) -> None:
    if _standalone(scan.norm, m.start(), m.end()):
        scan.add(_Signal("GRADE", m.start(), m.end(), certainty=_cert(m.group(1))))


_GRADE_CERT_CELL = re.compile(rf"(?i)^\W*{_CERT_WORD}[- ](?:quality|certainty)\w*\W*$")
_GRADE_STRENGTH_CELL = re.compile(rf"(?i)^\W*{_STRENGTH_WORD}\W*$")


# ---- GRADE numeric-letter grades (KDIGO, CHEST/ACCP): 1 = strong, 2 = weak; A-D = certainty
_GRADE_NUMLETTER = re.compile(r"(?i)\b(?:grade|class)\s*[:]?\s*([12])((?-i:[A-D]))(?![\w+\-])")
_GRADE_NUMLETTER_BRACKET = re.compile(r"\(\s*([12])([A-D])\s*\)")
_RECOMMEND_VERB = re.compile(r"(?i)\b(?:recommend|suggest)|推荐|建议")
_NUMLETTER_CERT = {"A": "high", "B": "moderate", "C": "low", "D": "very low"}


def _numletter_signal(m: re.Match[str]) -> _Signal:
    return _Signal(
        "GRADE",
        m.start(),
        m.end(),
        grade=m.group(1) + m.group(2),
        strength="strong" if m.group(1) == "1" else "weak",
        certainty=_NUMLETTER_CERT[m.group(2)],
    )


def _h_numletter(scan: _Scan, m: re.Match[str]) -> None:
    if not _after_classifier(scan.norm, m.start()):
        scan.add(_numletter_signal(m))


def _h_numletter_bracket(scan: _Scan, m: re.Match[str]) -> None:
    # "(1A)" only counts after recommendation wording ("We recommend ... (1A)", KDIGO style)
    if _RECOMMEND_VERB.search(scan.norm[: m.start()]):
        scan.add(_numletter_signal(m))


# ---- letter grades, levels and consensus (English)
_LETTER_BRACKET = re.compile(r"(?i)\[\s*grade\s*[:]?\s*((?-i:[A-D]))\s*\]")
_LETTER_GRADE = re.compile(
    r"(?i)\b(?:(?:grade|strength|level)\s+of\s+recommendation|recommendation\s+grade|grade)\s*[:]?\s*"
    r"\(?((?-i:[A-DI]))\)?(?![\w+\-])"
)
_LETTER_LEVEL = re.compile(
    r"(?i)\b(?:(?:level|quality)\s+of\s+evidence|evidence\s+level|LOE|LoE|level)\s*[:]?\s*"
    r"\(?((?-i:[A-D]))\)?(?![\w+\-])"
)
_ROMAN_LEVEL = re.compile(
    r"(?i)\b(?:level\s+of\s+evidence|evidence\s+level|LOE|LoE)\s*[:]?\s*((?-i:III|II|IV|I|V)(?:-[123])?)(?![\w+])"
)
_CONSENSUS = re.compile(
    r"(?i)(?:\b(?:grade|level\s+of\s+evidence|evidence\s+level|strength\s+of\s+recommendation|LOE)\s*[:]\s*|[(\[]\s*)"
    r"(expert\s+opinion|expert\s+consensus|consensus)\b"
)
_USPSTF = re.compile(r"(?i)\bUSPSTF\b|\bTask\s+Force\b")


def _letter_followed_ok(norm: str, end: int) -> bool:
    after = norm[end:]
    return bool(re.match(r"\s*(?:$|[)\]},;:.|/\n?!。、]|recommendation|statement|evidence)", after, re.I))


def _h_letter_bracket(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("letter", m.start(), m.end(), grade=m.group(1)))


def _h_letter_grade(scan: _Scan, m: re.Match[str]) -> None:
    if _after_classifier(scan.norm, m.start()) or not _letter_followed_ok(scan.norm, m.end()):
        return
    uspstf = bool(_USPSTF.search(scan.norm))
    if m.group(1) == "I" and not uspstf:
        return  # "grade I" is a disease grade unless the USPSTF "I statement" is meant
    scan.add(_Signal("USPSTF" if uspstf else "letter", m.start(), m.end(), grade=m.group(1)))


def _h_letter_level(scan: _Scan, m: re.Match[str]) -> None:
    if _after_classifier(scan.norm, m.start()) or not _letter_followed_ok(scan.norm, m.end()):
        return
    keyword = scan.norm[m.start() : m.end()].lower()
    if keyword.startswith("level") and "evidence" not in keyword and "of" not in keyword:
        # bare "Level A": only as a label or when "evidence" follows
        tail = scan.norm[m.end() : m.end() + 12].lower()
        if not (_standalone(scan.norm, m.start(), m.end()) or tail.lstrip().startswith("evidence")):
            return
    scan.add(_Signal("letter", m.start(), m.end(), level=m.group(1)))


def _h_roman_level(scan: _Scan, m: re.Match[str]) -> None:
    scan.add(_Signal("letter", m.start(), m.end(), level=m.group(1)))


def _h_consensus(scan: _Scan, m: re.Match[str]) -> None:
    if m.group(0).lstrip()[:1] in "([" and not _standalone(scan.norm, m.start() + 1, m.end()):
        return
    phrase = re.sub(r"\s+", " ", m.group(1).lower())
    scan.add(_Signal("consensus", m.start(), m.end(), grade="expert consensus" if phrase == "consensus" else phrase))


# Order matters: combined and specific patterns first, so that they claim their spans.
_DETECTORS = (
    (_ACC_COMBINED, _h_acc_combined),
    (_NCCN, _h_nccn),
    (_NCCN_ZH, _h_nccn_zh),
    (_NCCN_ZH_BRACKET, _h_nccn_zh),
    (_ESMO, _h_esmo),
    (_ACC_PAIR, _h_acc_pair),
    (_ACC_LOE_SPECIFIC, _h_acc_loe),
    (_ACC_ZH, _h_acc_zh),
    (_ACC_CLASS, _h_acc_class),
    (_SIGN_GRADE, _h_sign_grade),
    (_OXFORD_SUFFIX, _h_oxford_suffix),
    (_SIGN_STRONG, _h_sign_strong),
    (_SIGN_WEAK, _h_sign_weak),
    (_GOOD_PRACTICE, _h_good_practice),
    (_CSCO_LEVEL, _h_csco_level),
    (_CSCO_EVIDENCE, _h_csco_evidence),
    (_ZH_LABELLED, _h_zh_labelled),
    (_ZH_LETTER, _h_zh_letter),
    (_ZH_BRACKET_LETTER, _h_zh_bracket_letter),
    (_ZH_CONSENSUS, _h_zh_consensus),
    (_ZH_STRENGTH_RE, _h_zh_strength),
    (_ZH_CERT_RE, _h_zh_cert),
    (_GRADE_SYMBOLS, _h_symbols),
    (_GRADE_NUMLETTER, _h_numletter),
    (_GRADE_NUMLETTER_BRACKET, _h_numletter_bracket),
    (_GRADE_STRENGTH_CERT, _h_strength_cert),
    (_GRADE_STRENGTH_LABELLED, _h_strength_labelled),
    (_GRADE_STRENGTH, _h_strength),
    (_GRADE_FOR_AGAINST, _h_for_against),
    (_GRADE_CERT_LABELLED, _h_cert_labelled),
    (_GRADE_CERT_PHRASE, _h_cert_phrase),
    (_CONSENSUS, _h_consensus),
    (_LETTER_BRACKET, _h_letter_bracket),
    (_ROMAN_LEVEL, _h_roman_level),
    (_OXFORD_PLAIN, _h_oxford_plain),
    (_LETTER_GRADE, _h_letter_grade),
    (_LETTER_LEVEL, _h_letter_level),
)


def _cell_signals(scan: _Scan) -> None:
    """Whole-text labels: a table cell that is only ``very low quality``, ``Strong`` or ``IIaB``."""
    norm = scan.norm
    if len(norm) > 40 or scan.signals:
        return
    if m := _GRADE_CERT_CELL.match(norm):
        scan.add(_Signal("GRADE", m.start(1), m.end(), certainty=_cert(m.group(1))))
    elif m := _GRADE_STRENGTH_CELL.match(norm):
        scan.add(_Signal("GRADE", m.start(1), m.end(1), strength=_STRENGTH_MAP[m.group(1).lower()]))
    elif (m := _ESC_CELL.search(norm)) and _whole(norm, m.start(), m.end()):
        scan.add(_Signal("ESMO/ESC", m.start(), m.end(), grade=f"{m.group(1)}-{m.group(2)}"))


def _scan(text: str) -> tuple[_Scan, list[int]]:
    norm, index = _normalise(text)
    scan = _Scan(norm)
    for pattern, handler in _DETECTORS:
        _run(scan, pattern, handler)
    _cell_signals(scan)
    return scan, index


_PAIRS = {"(": ")", "[": "]", "（": "）", "【": "】", "〔": "〕", "［": "］"}
_CLOSING = {v: k for k, v in _PAIRS.items()}


def _balance(text: str, a: int, b: int) -> tuple[int, int]:
    """Widen ``text[a:b]`` to close an unbalanced bracket, or to the brackets enclosing exactly it."""
    piece = text[a:b]
    opens = sum(piece.count(o) for o in _PAIRS)
    closes = sum(piece.count(c) for c in _CLOSING)
    if closes > opens:
        j = a - 1
        while j >= 0 and text[j] == " ":
            j -= 1
        if j >= 0 and text[j] in _PAIRS:
            a = j
    elif opens > closes:
        j = b
        while j < len(text) and text[j] == " ":
            j += 1
        if j < len(text) and text[j] in _CLOSING:
            b = j + 1
    if a > 0 and b < len(text) and _PAIRS.get(text[a - 1]) == text[b]:
        a, b = a - 1, b + 1  # "(category 2B)": keep the brackets that enclose exactly the grade
    return a, b


def _raw(text: str, index: list[int], spans: list[tuple[int, int]]) -> str:
    pieces: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        os_, oe = index[s], index[e - 1] + 1
        if pieces and os_ - pieces[-1][1] <= 120:
            pieces[-1] = (pieces[-1][0], max(pieces[-1][1], oe))
        else:
            pieces.append((os_, oe))
    return " … ".join(text[slice(*_balance(text, a, b))].strip() for a, b in pieces)


def detect_grade(text: str) -> Grade | None:
    """The evidence grade stated in ``text``, or ``None`` when it states none.

    Args:
        text: a paragraph, list item, table-row text (``"Header: cell, ..."``) or cell, in English
            and/or Chinese, as the parser emitted it (full-width punctuation and Unicode roman
            numerals are fine). Any length; lengths are characters.

    Returns:
        A :class:`~structaware_readers.models.Grade` whose ``system`` is one of
        :data:`SYSTEM_PRECEDENCE`, ``grade``/``strength``/``certainty`` filled as described in the
        module docstring ("Combining several signals"), and ``raw`` = the matched span(s) of the
        original text. ``None`` for empty text or text without a grade.

    Raises:
        TypeError: ``text`` is not a string.

    Source: paper section 2.3 (recommendation units: "Category [1-3]", CSCO Level I/II/III,
    class 1A/2B) and section 4.3 (the weak Chinese lexicon this module replaces).
    """
    if not isinstance(text, str):
        raise TypeError(f"detect_grade expects str, got {type(text).__name__}")
    if not text.strip():
        return None
    scan, index = _scan(text)
    if not scan.signals:
        return None
    ranked = sorted(scan.signals, key=lambda s: s.rank)
    primary = ranked[0]
    used: list[_Signal] = [primary]

    def pick(attr: str) -> str:
        for sig in ranked:
            value = getattr(sig, attr)
            if value:
                if sig not in used:
                    used.append(sig)
                return value
        return ""

    grade = pick("grade") or pick("level")
    strength = pick("strength")
    certainty = pick("certainty") or pick("level")
    return Grade(
        system=primary.system,
        grade=grade,
        strength=strength,
        certainty=certainty,
        raw=_raw(text, index, [(s.start, s.end) for s in used]),
    )


# ---------------------------------------------------------------------------------------------
# recommendation wording

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
    "label": re.compile(
        r"(?i)^\W*(?:key\s+)?recommendations?\s*(?:(?:\d+(?:\.\d+)*[a-z]?|[IVX]+)\s*[:.)\-]|:\s*\w)"
    ),
    "good_practice_label": re.compile(r"(?i)^\W*good\s+practice\s+(?:statement|point)\b"),
    "we_recommend": re.compile(
        r"(?i)\bwe\s+(?:also\s+)?(?:strongly\s+|conditionally\s+)?(?:recommend|suggest)\b"
    ),
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
    "imperative": re.compile(
        r"(?i)^\W*(?:\d+(?:\.\d+)*\.?\s+)?(?:offer|consider|do\s+not\s+(?:offer|use|routinely|give|prescribe|"
        r"start|perform)|advise|refer|measure|ensure|give|use(?!\s+of\b)|avoid|discuss|assess)\s+\w"
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
    """True when ``text`` carries an evidence grade or explicit recommendation wording.

    Fires on (English) a grade (:func:`detect_grade`), a recommendation label at the start
    (``Recommendation 2.1:``, ``Key recommendation 3.``, ``Good practice statement``), "we
    recommend/suggest", "the panel/committee/... recommends", passive "is/are (not) recommended"
    (but not the adjective: "the recommended dose is 5 mg" is **not** a recommendation, "5 mg is
    recommended for adults" is), "should (not) be <care decision>" (offered, given, considered,
    prescribed, avoided, screened, referred, ...; procedural steps such as "should be measured",
    "should be performed" or "should be noted" are not), "should receive/undergo/avoid/ensure",
    and NICE-style imperatives at the start
    (``Offer``, ``Consider``, ``Do not offer``, ...); (Chinese) a ``推荐意见 2.1：`` label and
    推荐/建议 used as a verb after a clause boundary or subject (``…者，推荐进行…``, ``不建议…``,
    ``专家组建议…``) but not as a noun (``分级推荐意见``, ``政策建议``, ``如有意见或建议，``,
    ``推荐剂量``, ``推荐的``).

    Args:
        text: a paragraph, list item or table-row text.

    Returns:
        ``True`` or ``False``; ``False`` for empty text.

    Raises:
        TypeError: ``text`` is not a string.

    Source: paper section 2.3 ("paragraphs matching recommendation language or evidence grades").
    """
    if not isinstance(text, str):
        raise TypeError(f"is_recommendation expects str, got {type(text).__name__}")
    if not text.strip():
        return False
    if detect_grade(text) is not None:
        return True
    norm = normalize_grade_text(text)
    if any(p.search(norm) for p in RECOMMENDATION_PATTERNS.values()):
        return True
    return bool(_ZH_RECOMMEND_LABEL.search(norm) or _ZH_RECOMMEND_VERB.search(norm))
