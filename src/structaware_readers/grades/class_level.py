"""A recommendation table's class and level cells -> one :class:`~structaware_readers.models.Grade`.

:func:`parse_class_level` reads an ESC or ACC/AHA class/level pair as the cells give it (roman or
Arabic classes, ``III: Harm``, Unicode ``Ⅱa``, footnote marks, a level glued to the class). The
system is ACC/AHA when a form only it uses appears (Arabic class, ``Harm``/``No Benefit``, a
suffixed level ``B-NR``), else ESC, unless the caller passes ``system``. Source: the ESC classes and
levels tables; the ACC/AHA recommendation classification (2019 update).
"""

from __future__ import annotations

import re

from structaware_readers.grades.acc_aha import CLASS_STRENGTH, ESC_SYSTEM
from structaware_readers.grades.acc_aha import SYSTEM as ACC_AHA
from structaware_readers.grades.normalise import normalize_grade_text
from structaware_readers.grades.signals import class_label
from structaware_readers.models import Grade

__all__ = ["parse_class_level"]

_MARKS = re.compile(r"\^\S*|[*†‡§¶]+|(?<=[A-Za-z0-9)])[,;.]$")
_CLASS = re.compile(
    r"(?:Class|COR)?\s*[:]?\s*((?-i:III|IIa|IIb|II|I)|(?i:iia|iib)|1|2a|2b|3)"
    r"(?:\s*[:(,-]?\s*(Harm|No[- ]?Benefit)\s*\)?)?",
    re.IGNORECASE,
)
_LEVEL = re.compile(r"(?:Level|LOE)?\s*[:]?\s*(B-NR|B-R|C-LD|C-EO|A|B|C)", re.IGNORECASE)
_GLUED = re.compile(r"((?-i:III|IIa|IIb|II|I))\s*[,/\n]?\s*((?-i:[ABC]))")


def _clean(text: str) -> str:
    return " ".join(_MARKS.sub("", normalize_grade_text(text or "").strip()).split())


def parse_class_level(class_text: str, level_text: str = "", *, system: str = "") -> Grade | None:
    """The grade of one recommendation-table row from its class (``"IIa"``, ``"III: Harm"``, ``"IA"``) and level
    (``"B-NR"``) cells; ``None`` when the class cell holds no class. ``system`` forces ``"ESC"`` or ``"ACC/AHA"``.
    Raises ``ValueError`` (another ``system``).
    """
    if system not in ("", ESC_SYSTEM, ACC_AHA):
        raise ValueError(f"parse_class_level: system must be '', 'ESC' or 'ACC/AHA', got {system!r}")
    cls_cell, lvl_cell = _clean(class_text), _clean(level_text)
    if not cls_cell:
        return None
    if not lvl_cell and (g := _GLUED.fullmatch(cls_cell)):
        cls, harm, level = g.group(1), None, g.group(2)
    else:
        c = _CLASS.fullmatch(cls_cell)
        lv = _LEVEL.fullmatch(lvl_cell) if lvl_cell else None
        if c is None or (lvl_cell and lv is None):
            return None
        value = c.group(1)
        cls = value[:2].upper() + value[2:].lower() if value.lower() in ("iia", "iib") else value
        harm, level = c.group(2), (lv.group(1).upper() if lv else "")
    label = class_label(cls, harm)
    acc_only = cls[0].isdigit() or bool(harm) or "-" in level
    chosen = system or (ACC_AHA if acc_only else ESC_SYSTEM)
    return Grade(
        system=chosen,
        grade=label,
        strength=CLASS_STRENGTH.get(label, ""),
        certainty=level,
        direction="against" if label.split(":")[0] in ("III", "3") else "",
        source="table_column",
        raw=" ".join(p for p in (class_text.strip(), level_text.strip()) if p),
    )
