"""Signals of one statement -> one :class:`~structaware_readers.models.Grade`, and its ``raw`` text.

Signals are ranked by system precedence (:data:`.catalogue.SYSTEM_PRECEDENCE`), then position. The
best-ranked signal gives ``system``; each other field takes the first signal stating it
(``strength`` falls back on an ACC/AHA class's, :data:`.acc_aha.CLASS_STRENGTH`). A status alone is
no grade. ``raw`` is the original text from the first to the last contributing span, widened to
enclosing brackets.
"""

from __future__ import annotations

from structaware_readers.grades.acc_aha import CLASS_STRENGTH, ESC_SYSTEM
from structaware_readers.grades.acc_aha import SYSTEM as ACC_AHA
from structaware_readers.grades.catalogue import RANK
from structaware_readers.grades.gradewg import NEITHER
from structaware_readers.grades.normalise import NormalisedText
from structaware_readers.grades.signals import Signal
from structaware_readers.models import Grade

__all__ = ["combine"]

_PAIRS = {"(": ")", "[": "]", "（": "）", "【": "】", "〔": "〕", "［": "］"}
_CLOSING = {v: k for k, v in _PAIRS.items()}


def combine(signals: list[Signal], text: NormalisedText, source: str = "sentence") -> Grade | None:
    """The grade that ``signals`` (found in ``text``) state together; ``None`` for no signal or
    signals that carry only a status."""
    if not any(_states_a_grade(s) for s in signals):
        return None
    ranked = sorted(signals, key=lambda s: (RANK[s.system], s.start))
    primary = next(s for s in ranked if _states_a_grade(s))
    used: list[Signal] = [primary]

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
    direction = pick("direction")
    status = pick("status")
    preference = pick("preference")
    if not direction and primary.system == "USPSTF" and grade == "D":
        direction = "against"
    if not strength and primary.system in (ACC_AHA, ESC_SYSTEM):
        strength = CLASS_STRENGTH.get(grade, "")
    return Grade(
        system=primary.system,
        grade=grade,
        strength=strength,
        certainty=certainty,
        direction=direction,
        status=status,
        preference=preference,
        source=source,
        raw=_raw(text, [(s.start, s.end) for s in used]),
    )


def _states_a_grade(s: Signal) -> bool:
    """A signal that is a grade by itself (a status alone is not; ``Neither for nor against`` is)."""
    return bool(s.grade or s.level or s.strength or s.certainty or s.direction == NEITHER)


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
        a, b = (
            a - 1,
            b + 1,
        )  # "(category 2B)": keep the brackets that enclose exactly the grade
    return a, b


def _raw(text: NormalisedText, spans: list[tuple[int, int]]) -> str:
    pieces: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        os_, oe = text.original(s, e)
        if pieces and os_ - pieces[-1][1] <= 120:
            pieces[-1] = (pieces[-1][0], max(pieces[-1][1], oe))
        else:
            pieces.append((os_, oe))
    return " … ".join(text.text[slice(*_balance(text.text, a, b))].strip() for a, b in pieces)
