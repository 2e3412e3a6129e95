"""ACC/AHA class of recommendation (COR) and level of evidence (LOE), ESC class/level, ESMO ``[I, A]``."""

from __future__ import annotations

import re

from structaware_readers.grades.signals import (
    ARABIC_CLASS,
    HARM,
    LOE,
    ROMAN_CLASS,
    Detector,
    Scan,
    Signal,
    after_classifier,
    after_determiner,
    class_label,
    standalone,
)

SYSTEM = "ACC/AHA"
ESC_SYSTEM = "ESC"
ESMO_SYSTEM = "ESMO/ESC"


#: ACC/AHA class -> strength, as the ACC/AHA recommendation classification names it (2015 and later):
#: 1 Strong, 2a Moderate, 2b Weak, 3: No Benefit Moderate, 3: Harm Strong. A class 3 without its
#: qualifier (older guidelines) has no stated strength.
CLASS_STRENGTH = {
    "I": "strong", "1": "strong", "IIa": "moderate", "2a": "moderate", "IIb": "weak", "2b": "weak",
    "III: No Benefit": "moderate", "3: No Benefit": "moderate", "III: Harm": "strong", "3: Harm": "strong",
}  # fmt: skip


def _direction(label: str) -> str:
    return "against" if label.split(":")[0] in ("III", "3") else ""  # class III/3: not recommended


def _class_signal(m: re.Match[str], value: str, harm: str | None, level: str = "") -> Signal:
    label = class_label(value, harm)
    return Signal(
        SYSTEM,
        m.start(),
        m.end(),
        grade=label,
        level=level,
        direction=_direction(label),
    )


_ACC_COMBINED = re.compile(
    r"(?i)\b(?:Class|COR)(?:\s+of\s+recommendation)?\s*[:]?\s*"
    rf"((?-i:{ROMAN_CLASS})|{ARABIC_CLASS})(?![\w]){HARM}"
    r"\s*[,;/]?\s*(?:and\s+)?\(?\s*(?:Level(?:\s+of\s+Evidence)?|LOE)\s*[:]?\s*"
    rf"((?-i:{LOE}))(?![\w-])\)?"
)


def _h_acc_combined(scan: Scan, m: re.Match[str]) -> None:
    if not after_classifier(scan.norm, m.start()):
        scan.add(_class_signal(m, m.group(1), m.group(2), m.group(3)))


_ACC_CLASS = re.compile(
    r"(?i)\b(Class|COR)(\s+of\s+recommendation)?\s*[:]?\s*"
    rf"((?-i:{ROMAN_CLASS})|{ARABIC_CLASS})(?![\w]){HARM}"
)
_NEAR_WORDS = re.compile(r"(?i)\s*[,;:)]?\s*(?:recommendation|\(?\s*(?:level|LOE)\b)")


# a class named among others or as a kind of recommendations is a mention, not a grade: "new or changed
# Class I/IIa or Class III recommendations were selected", "Class I and IIa recommendations"
_LISTED_BEFORE = re.compile(r"(?:\bI|IIa|IIb|III|\b[123]|2[ab])\s*(?:/|,|\bor|\band)\s*$")
_LISTED_AFTER = re.compile(r"(?i)\s*(?:/|,?\s*or\b|,?\s*and\b)\s*(?:class\s*)?(?-i:III|IIa|IIb|II|I|1|2a|2b|3)(?![\w])")
_KIND_OF = re.compile(r"(?i)\s*recommendations\b")


def _h_acc_class(scan: Scan, m: re.Match[str]) -> None:
    if after_classifier(scan.norm, m.start()):
        return
    norm = scan.norm
    if (
        _LISTED_BEFORE.search(norm[max(0, m.start() - 12) : m.start()])
        or _LISTED_AFTER.match(norm, m.end(), m.end() + 20)
        or _KIND_OF.match(norm, m.end(), m.end() + 20)
    ):
        return
    keyword_specific = m.group(1).upper() == "COR" or bool(m.group(2))
    near_words = bool(_NEAR_WORDS.match(scan.norm, m.end(), m.end() + 40))
    # "Class I" alone is also a share class or a device class; "a Class I recommendation" is a mention
    specific = (keyword_specific or bool(m.group(4)) or near_words) and not after_determiner(scan.norm, m.start())
    if specific or standalone(scan.norm, m.start(), m.end()):
        sig = _class_signal(m, m.group(3), m.group(4))
        sig.ambiguous = not specific
        scan.add(sig)


_ACC_LOE_SPECIFIC = re.compile(
    r"(?i)\b(?:LOE|Level\s+of\s+Evidence|Evidence\s+level|Level)\s*[:]?\s*((?-i:B-NR|B-R|C-LD|C-EO))(?![\w-])"
)


def _h_acc_loe(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(SYSTEM, m.start(), m.end(), level=m.group(1)))


_ACC_PAIR = re.compile(rf"\(\s*({ROMAN_CLASS})\s*[,/;]\s*({LOE})\s*\)")
_PAIR_CONTEXT = re.compile(
    r"(?i)\bclass\b|\bCOR\b|\bLOE\b|\blevel\b|推荐类别|推荐级别|推荐等级|证据等级|证据级别|证据水平"
)


def _h_acc_pair(scan: Scan, m: re.Match[str]) -> None:
    if _PAIR_CONTEXT.search(scan.norm, max(0, m.start() - 60), m.start()):
        scan.add(Signal(SYSTEM, m.start(), m.end(), grade=m.group(1), level=m.group(2)))


_ESMO = re.compile(r"\[\s*(III|IIa|IIb|II|IV|I|V)\s*[,/]\s*([A-E])\s*\]")
#: a table cell that is only an ESC class and a level: ``IIaB``, ``I, A``, ``IIa`` over ``C``
# (no class II in ESC; "IIIA"/"IIB" glued is a cancer stage: class III needs a separator)
ESC_CELL = re.compile(r"(?:(IIa|IIb|I)\s*[,/]?\s*|(III)(?:\s*[,/]\s*|\s+))([ABC])")


#: class and level printed after the sentence (ESC tables flattened to text): "... are recommended. I A"
# ESC prints class and level in the last columns: flattened, they close the statement's line
# ("... for each patient. I B", glued "... patient. IA") or stand on the lines after it
# ("... considered.\nIIa\nC"); the class must follow a sentence end and the level end its line
# (ESC has no class II; a glued "IIIA"/"IIB" is a cancer stage: class III needs a space before its level)
_ESC_TAIL = re.compile(
    r"(?m)(?<=[.)])[ \t]*\n?[ \t]*(?:(IIa|IIb|I)[ \t]*(?:[,/][ \t]*|\n[ \t]*)?|(III)(?:[ \t]*[,/][ \t]*|[ \t]+|[ \t]*\n[ \t]*))"
    r"([ABC])[ \t]*$"
)


def _h_esmo(scan: Scan, m: re.Match[str]) -> None:
    scan.add(Signal(ESMO_SYSTEM, m.start(1), m.end(2), grade=f"{m.group(1)}-{m.group(2)}"))


def esc_signal(start: int, end: int, cls: str, level: str, *, ambiguous: bool = False) -> Signal:
    """An ESC class (``I``/``IIa``/``IIb``/``III``) and level (``A``/``B``/``C``) as one signal:
    class III is a recommendation against."""
    return Signal(ESC_SYSTEM, start, end, grade=cls, level=level, direction=_direction(cls), ambiguous=ambiguous)


def _h_esc_tail(scan: Scan, m: re.Match[str]) -> None:
    cls = m.group(1) or m.group(2)
    scan.add(esc_signal(m.start(1) if m.group(1) else m.start(2), m.end(3), cls, m.group(3)))


COMBINED: Detector = (_ACC_COMBINED, _h_acc_combined)
CLASS: Detector = (_ACC_CLASS, _h_acc_class)
LOE_SPECIFIC: Detector = (_ACC_LOE_SPECIFIC, _h_acc_loe)
PAIR: Detector = (_ACC_PAIR, _h_acc_pair)
ESMO_BRACKET: Detector = (_ESMO, _h_esmo)
ESC_TAIL: Detector = (_ESC_TAIL, _h_esc_tail)
