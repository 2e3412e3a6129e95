"""The closed vocabularies of unit fields a filter names: a value outside them is an error, not an empty answer."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from structaware_readers.errors import UnknownFilterError
from structaware_readers.models import UnitType

__all__ = ["VOCABULARY_KEYS", "check_values", "vocabulary"]

#: Unit keys whose values come from a closed vocabulary (:func:`vocabulary`).
VOCABULARY_KEYS = ("unit_type", "grade_system", "grade_strength", "grade_direction", "grade_source")
_WHAT = {
    "unit_type": "unit type",
    "grade_system": "grade system",
    "grade_strength": "grade strength",
    "grade_direction": "grade direction",
    "grade_source": "grade source",
}


def vocabulary(key: str) -> tuple[str, ...] | None:
    """The values the unit key ``key`` can take (``None``: an open key). The grade lists are imported
    only when asked for (the grades lexicon compiles its patterns on import)."""
    if key == "unit_type":
        return tuple(t.value for t in UnitType)
    if key not in VOCABULARY_KEYS:
        return None
    from structaware_readers.grades import GRADE_SOURCES
    from structaware_readers.grades.catalogue import DIRECTIONS, STRENGTHS, SYSTEM_PRECEDENCE

    values = {"grade_system": SYSTEM_PRECEDENCE, "grade_strength": STRENGTHS, "grade_direction": DIRECTIONS}
    return tuple(values.get(key, GRADE_SOURCES))


def check_values(key: str, values: Sequence[Any], field: str) -> None:
    """Raise :class:`UnknownFilterError` when a closed-vocabulary unit ``key`` is asked for a value
    outside its vocabulary (``""`` is "not stated" for the grade keys); open keys pass."""
    allowed = vocabulary(key)
    if allowed is None:
        return
    accepted = set(allowed) | ({""} if key != "unit_type" else set())
    for value in values:
        if value in accepted or value is None or isinstance(value, (bool, dict, list)):  # refused elsewhere
            continue
        near = difflib.get_close_matches(str(value), allowed, n=1, cutoff=0.6) if isinstance(value, str) else []
        hint = f" did you mean {near[0]!r}?" if near else ""
        raise UnknownFilterError(
            f"unknown {_WHAT[key]} {value!r}, so the filter would match nothing:{hint} expected any of"
            f" {list(allowed)} (for a metadata key of your own with this name, write 'metadata.{key}')",
            field=field,
        )
