"""One scan of a text for every grading system; :func:`detect_grade`, :func:`find_grades`, :func:`grade_from_cells`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from structaware_readers.grades import (
    acc_aha,
    acip,
    chinese,
    cn,
    csco,
    gradewg,
    kdigo,
    letters,
    nccn,
    oxford,
    sign,
    uspstf,
)
from structaware_readers.grades.combine import combine
from structaware_readers.grades.normalise import NormalisedText
from structaware_readers.grades.signals import Detector, Scan, Signal, cert_word, whole
from structaware_readers.models import Grade

__all__ = [
    "GRADE_SOURCES",
    "GradeMatch",
    "detect_grade",
    "find_grades",
    "grade_from_cells",
    "scan_text",
]

#: The values of ``Grade.source``: where a grade was read.
GRADE_SOURCES = ("sentence", "table_column", "next_paragraph", "heading", "document_default")

_ZH = r"[类级荐证识]"
_LEVEL = r"(?i)level|\bLoE\b|evidence|\bEL\b"
_STRENGTH = r"(?i)strong|weak|conditional|discretionary|strength"

# (trigger, detector): order matters, earlier detectors claim their spans first
_REGISTRY: tuple[tuple[str, Detector], ...] = (
    (r"(?i)class|\bCOR\b", acc_aha.COMBINED),
    (r"(?i)categor", nccn.CATEGORY),
    (r"(?i)category|evidence\s+type", acip.CATEGORY_TYPE),
    (_ZH, nccn.CATEGORY_ZH),
    (_ZH, nccn.CATEGORY_ZH_BRACKET),
    (r"\[\s*[IV]", acc_aha.ESMO_BRACKET),
    (r"\(\s*[IV]", acc_aha.PAIR),
    (r"[.)]\s+I", acc_aha.ESC_TAIL),
    (_LEVEL, acc_aha.LOE_SPECIFIC),
    (_ZH, cn.CLASS),
    (_ZH, cn.EVIDENCE),
    (r"(?i)class|\bCOR\b", acc_aha.CLASS),
    (r"(?i)\bSIGN\b", sign.GRADE_LABELLED),
    (_LEVEL, oxford.LEVEL_SUFFIX),
    (r"\d\+\+", sign.LEVEL_STRONG),
    (r"(?i)level|\bLoE\b|evidence|\bSIGN\b|证据", sign.LEVEL_WEAK),
    (r"(?i)practice|\bGPP\b", sign.GOOD_PRACTICE),
    (r"(?i)practice\s+point", kdigo.PRACTICE_POINT),
    (_ZH, csco.LEVEL),
    (_ZH, csco.EVIDENCE),
    (_ZH, csco.EVIDENCE_BRACKET),
    (_ZH, chinese.LABELLED),
    (_ZH, chinese.LETTER),
    (_ZH, chinese.BRACKET_LETTER),
    (_ZH, chinese.CONSENSUS),
    (_ZH, chinese.STRENGTH),
    (_ZH, chinese.CERTAINTY),
    (r"[⊕⨁]", gradewg.SYMBOLS),
    (r"(?i)grade|class", kdigo.NUMLETTER),
    (r"\(\s*[12][A-D]", kdigo.NUMLETTER_BRACKET),
    (r"(?i)grade", uspstf.GRADE_FOR),
    (r"(?i)statement", uspstf.I_STATEMENT),
    (_STRENGTH, gradewg.STRENGTH_CERTAINTY),
    (_STRENGTH, gradewg.STRENGTH_LABELLED),
    (_STRENGTH, gradewg.STRENGTH),
    (_STRENGTH, gradewg.FOR_AGAINST),
    (r"(?i)neither", gradewg.NEITHER_FOR_NOR_AGAINST),
    (r"(?i)reviewed", gradewg.STATUS),
    (r"(?i)quality|certainty", gradewg.CERTAINTY_LABELLED),
    (r"(?i)quality|certainty", gradewg.CERTAINTY_PHRASE),
    (r"(?i)consensus|opinion", letters.CONSENSUS),
    (r"(?i)grade", letters.BRACKET),
    (_LEVEL, letters.ROMAN_LEVEL),
    (_LEVEL, oxford.LEVEL_PLAIN),
    (r"(?i)grade|recommendation", letters.GRADE),
    (_LEVEL, letters.LEVEL),
)
_TRIGGERS = {t: re.compile(t) for t, _ in _REGISTRY}
_CELL_MAX = 40  # characters: longer texts are not read as a bare table cell


def scan_text(text: str) -> tuple[Scan, NormalisedText]:
    """Every grade signal in ``text`` (one pass per applicable detector), and the normalised text."""
    ntext = NormalisedText(text)
    scan = Scan(ntext.norm)
    for trigger, (pattern, handler) in _REGISTRY:
        if scan.first(_TRIGGERS[trigger]) < 0:
            continue
        for m in pattern.finditer(scan.norm):
            if scan.free(m.start(), m.end()):
                handler(scan, m)
    if not scan.signals and len(scan.norm) <= _CELL_MAX:
        _cell_signals(scan)
    scan.signals.sort(key=lambda s: s.start)
    return scan, ntext


def _cell_signals(scan: Scan) -> None:
    """Whole-text labels: a table cell that is only ``very low quality``, ``Strong`` or ``IIaB``."""
    norm = scan.norm
    if m := gradewg.CERT_CELL.match(norm):
        scan.add(
            Signal(
                "GRADE",
                m.start(1),
                m.end(),
                certainty=cert_word(m.group(1)),
                ambiguous=True,
            )
        )
    elif m := gradewg.STRENGTH_CELL.match(norm):
        strength = gradewg.STRENGTH_MAP[m.group(1).lower()]
        scan.add(Signal("GRADE", m.start(1), m.end(1), strength=strength, ambiguous=True))
    elif (m := acc_aha.ESC_CELL.search(norm)) and whole(norm, m.start(), m.end()):
        scan.add(acc_aha.esc_signal(m.start(), m.end(), m.group(1) or m.group(2), m.group(3), ambiguous=True))


def detect_grade(text: str, *, source: str = "sentence") -> Grade | None:
    """The evidence grade stated in ``text`` (paragraph, row text or cell, English and/or Chinese, any length), or
    ``None``; ``raw`` holds the matched span(s) of the original text. ``source`` is ``"sentence"`` or
    ``"table_column"``. Raises ``TypeError`` (not a string), ``ValueError`` (unknown ``source``).
    """
    if not isinstance(text, str):
        raise TypeError(f"detect_grade expects str, got {type(text).__name__}")
    if source not in GRADE_SOURCES:
        raise ValueError(f"detect_grade: source must be one of {GRADE_SOURCES}, got {source!r}")
    if not text.strip():
        return None
    scan, ntext = scan_text(text)
    return combine(scan.signals, ntext, source)


@dataclass(frozen=True)
class GradeMatch:
    """One grade label found in a text: its span in the original text (characters, end exclusive).

    ``explicit`` is False when every signal of the label is a form that is a grade only inside a
    guideline (a bare ``Level 2``, ``Grade B``, ``Class I``, a cell that is only ``Strong``).
    """

    start: int
    end: int
    grade: Grade
    explicit: bool = True


_GAP = re.compile(r"[\s,;:|/()\[\].。，；、（）【】-]*")


@dataclass(frozen=True)
class TextGrades:
    """Everything one scan of a text says: its grade labels in order, and all its signals combined."""

    labels: list[GradeMatch]
    whole: Grade | None  # what detect_grade(text) returns
    whole_explicit: bool  # False when every signal is ambiguous (see GradeMatch.explicit)


def read_grades(text: str) -> TextGrades:
    """One scan of ``text``: :func:`find_grades` and :func:`detect_grade` together (linear in ``len(text)``)."""
    if not text.strip():
        return TextGrades([], None, False)
    scan, ntext = scan_text(text)
    whole = combine(scan.signals, ntext)
    explicit = any(not s.ambiguous for s in scan.signals)
    return TextGrades(_labels(scan, ntext), whole, explicit)


def find_grades(text: str) -> list[GradeMatch]:
    """Every grade label in ``text``, in order: signals separated only by spaces, brackets or punctuation form one
    label (``(Strong recommendation; high-quality evidence) [Grade A]``). Raises ``TypeError``.
    """
    if not isinstance(text, str):
        raise TypeError(f"find_grades expects str, got {type(text).__name__}")
    return read_grades(text).labels


def _labels(scan: Scan, ntext: NormalisedText) -> list[GradeMatch]:
    groups: list[list[Signal]] = []
    for sig in scan.signals:
        if groups and _GAP.fullmatch(scan.norm, groups[-1][-1].end, max(sig.start, groups[-1][-1].end)):
            groups[-1].append(sig)
        else:
            groups.append([sig])
    out: list[GradeMatch] = []
    for group in groups:
        grade = combine(group, ntext)
        if grade is None:  # a status alone belongs to the label before it
            if out:
                prev = out[-1]
                status = next(s.status for s in group if s.status)
                end = ntext.original(group[-1].start, group[-1].end)[1]
                grade = prev.grade.model_copy(update={"status": prev.grade.status or status})
                out[-1] = GradeMatch(prev.start, end, grade, prev.explicit)
            continue
        start = ntext.original(group[0].start, group[0].end)[0]
        end = ntext.original(group[-1].start, group[-1].end)[1]
        out.append(GradeMatch(start, end, grade, explicit=not all(s.ambiguous for s in group)))
    return out


# header words that name a grade column of a recommendation table
_COLUMN = re.compile(
    r"(?i)\b(?:COR|LOE|class|level|grade|strength|certainty|quality|category|evidence|recommendation)\b|"
    r"推荐|证据|等级|级别"
)


def grade_from_cells(headers: list[str], cells: list[str]) -> Grade | None:
    """The grade of one row of a recommendation table, read from its grade columns (``COR``, ``LOE``, ``Class``,
    ``Grade``, ``Strength``, ``推荐等级`` ...): each such cell is read as ``"<header>: <cell>"``, so ``I`` under ``COR``
    gives an ACC/AHA class. ``None`` when no grade column holds a grade. Raises ``ValueError`` (lengths differ).
    """
    if len(headers) != len(cells):
        raise ValueError(f"grade_from_cells: {len(headers)} headers for {len(cells)} cells")
    pieces = [f"{h.strip()}: {c.strip()}" for h, c in zip(headers, cells) if c.strip() and _COLUMN.search(h)]
    if not pieces:
        return None
    return detect_grade("; ".join(pieces), source="table_column")
