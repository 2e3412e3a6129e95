"""What every grading-system module shares: the signal a pattern yields, the scan state, context tests."""

from __future__ import annotations

import re
from bisect import insort
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "Detector",
    "Scan",
    "Signal",
    "after_classifier",
    "after_determiner",
    "cert_word",
    "class_label",
    "standalone",
    "whole",
]


@dataclass
class Signal:
    """One matched piece of a grade; ``start``/``end`` index the normalised text."""

    system: str
    start: int
    end: int
    grade: str = ""  # recommendation grade / class / category
    level: str = ""  # evidence level label
    strength: str = ""  # strong / conditional / weak
    certainty: str = ""  # GRADE certainty word
    direction: str = ""  # for / against
    status: str = ""  # e.g. "Reviewed, New-replaced" (VA/DoD)
    preference: str = ""  # NCCN preference tier: "preferred", "other recommended", "useful in certain circumstances"
    ambiguous: bool = False  # a form that is a grade only in a guideline (bare "Level 2", "Grade B", a cell "Strong")


#: Width in characters of the stretches of text :class:`Scan` files claimed spans under.
_BUCKET = 512


@dataclass
class Scan:
    """The signals found so far in one normalised text; spans claimed by a pattern are not matched again."""

    norm: str
    signals: list[Signal] = field(default_factory=list)
    _claimed: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # bucket -> sorted (start, end)
    _longest: int = 0  # the longest claimed span: how far back a span may start and still reach a position
    _cache: dict[str, object] = field(default_factory=dict)

    def free(self, s: int, e: int) -> bool:
        """True when ``[s, e)`` overlaps no claimed span."""
        for b in range(max(0, s - self._longest) // _BUCKET, (max(e, s + 1) - 1) // _BUCKET + 1):
            for cs, ce in self._claimed.get(b, ()):
                if s <= cs < e or (cs < s < ce):
                    return False
        return True

    def add(self, sig: Signal) -> None:
        self.signals.append(sig)
        if self.free(sig.start, sig.end):
            insort(self._claimed.setdefault(sig.start // _BUCKET, []), (sig.start, sig.end))
            self._longest = max(self._longest, sig.end - sig.start)

    def first(self, pattern: re.Pattern[str]) -> int:
        """Position of the first match of ``pattern`` in the whole text (-1: none); computed once per scan."""
        key = pattern.pattern
        if key not in self._cache:
            m = pattern.search(self.norm)
            self._cache[key] = m.start() if m else -1
        return self._cache[key]  # type: ignore[return-value]


Handler = Callable[[Scan, "re.Match[str]"], None]
Detector = tuple[re.Pattern[str], Handler]

OPENERS = "([{,;:|/\n"
CLOSERS = ")]},;:.|/\n?!"
SENTENCE_END = ".!?"


def standalone(norm: str, s: int, e: int) -> bool:
    """True when ``norm[s:e]`` is a label: delimited on both sides by brackets, ``,;:|/``, sentence
    ends or the ends of the text."""
    before = norm[max(0, s - 40) : s].rstrip(" \t")
    after = norm[e : e + 40].lstrip(" \t")
    ok_before = not before or before[-1] in OPENERS or before[-1] in SENTENCE_END or before[-1] in "。、"
    ok_after = not after or after[0] in CLOSERS or after[0] in "。、"
    return ok_before and ok_after


_WORD = re.compile(r"\w")


def whole(norm: str, s: int, e: int) -> bool:
    """True when ``norm[s:e]`` is all the text there is, apart from punctuation and spaces."""
    return not (_WORD.search(norm, 0, s) or _WORD.search(norm, e))


_DISEASE_CLASSIFIERS = re.compile(
    r"(?i)(?:NYHA|ASA|Killip|Child[- ]?Pugh|Pugh|Mallampati|Los\s+Angeles|\bLA|Forrest|Fontaine|"
    r"Rutherford|Spetzler(?:-Martin)?|House[- ]Brackmann|functional|WHO|CTCAE|Gleason|Fisher|"
    r"Hunt(?:\s+and\s+Hess)?|ISUP|FIGO|Clavien(?:-Dindo)?|Dindo|Tanner|Kellgren(?:-Lawrence)?|"
    r"CCS|Vaughan[- ]Williams|Angle|Kennedy|Sanders|Gustilo|Tumou?r|histologic(?:al)?|Wagner|"
    r"Baux|Breslow|Clark|Salter[- ]Harris|Fredrickson|obesity|Bethesda|BI-?RADS|TI-?RADS)"
    r"[\s-]*$"
)


def after_classifier(norm: str, s: int) -> bool:
    """True when a disease classification (NYHA, Child-Pugh, Los Angeles, ...) precedes position ``s``."""
    return bool(_DISEASE_CLASSIFIERS.search(norm[max(0, s - 40) : s]))


_DETERMINER = re.compile(r"(?i)\b(?:a|an|the|this|that|each|one|any|such|of)\s+$")


def after_determiner(norm: str, s: int) -> bool:
    """True when an article or determiner precedes ``s`` ("a strong recommendation means ...")."""
    return bool(_DETERMINER.search(norm[max(0, s - 12) : s]))


# --- value vocabularies shared by several systems
ROMAN_CLASS = r"(?:III|IIa|IIb|II|IV|I)"
ARABIC_CLASS = r"(?:1|2a|2b|3)"
HARM = r"(?:\s*[:(,-]?\s*(Harm|No[- ]?Benefit)\s*\)?)?"
LOE = r"(?:B-NR|B-R|C-LD|C-EO|A|B|C)"
CERT_WORD = r"(very\s+low|low|moderate|high)"


def cert_word(word: str) -> str:
    """``"Very  Low"`` -> ``"very low"``."""
    return re.sub(r"\s+", " ", word.lower())


def class_label(value: str, harm: str | None) -> str:
    """A class in the document's numeral style, with an ACC/AHA class 3 qualifier (``"III: Harm"``)."""
    label = value if value[0] in "IV" else value.lower()
    if harm:
        label += ": " + ("Harm" if harm.lower() == "harm" else "No Benefit")
    return label
