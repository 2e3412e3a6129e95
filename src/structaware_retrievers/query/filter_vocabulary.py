"""The closed vocabularies of unit fields a filter names: a value outside them is an error, not an empty answer.

A filter that names a key no unit of the index carries (``{"foo": "table_row"}``), or a value a
closed-vocabulary key never takes (``{"unit_type": "table-row"}``), matches nothing, and an empty
answer would read as "no evidence". Both raise :class:`~structaware_readers.errors.UnknownFilterError`
naming the key or value and what it could be, from every face alike:

* **values** (:func:`check_values`, here, when the filter is compiled; no index needed): ``unit_type``
  takes the :class:`~structaware_readers.models.UnitType` values, ``grade_system`` the grading
  systems of the grades catalogue (:data:`structaware_readers.grades.catalogue.SYSTEM_PRECEDENCE`),
  ``grade_strength`` / ``grade_direction`` / ``grade_source`` the catalogue's values or ``""`` (not
  stated). Every list is read from its source, so a unit type or grading system added there is
  accepted here;
* **keys** (:func:`~structaware_retrievers.query.filter_keys.check_keys`, against the index): a unit key (:data:`UNIT_KEYS
  <structaware_retrievers.query.filter_language.UNIT_KEYS>`) is always known, being a field of the unit
  schema; any other key is the user's own metadata (payload ``metadata.<key>``) and is known when at
  least one point of the index carries it, as a document added through a LlamaIndex or LangChain
  vector store with that metadata key does. The index is asked once per key and the keys found are
  remembered by the caller.
"""

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
