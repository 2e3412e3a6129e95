"""The filter language's core: key conditions in groups, and their one translation to Qdrant's terms.

See :mod:`structaware_retrievers.query.filters` for the language (keys, operators, each face's spelling);
this module holds its parts: :class:`KeyFilter`, :class:`FilterGroup`, the key tables, the
compilation to the backend-neutral :class:`~structaware_retrievers.query.point_filter.PointFilter`
(:func:`key_condition`, :func:`compile_filter`) and the dict spelling (:func:`from_dict`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from structaware_readers.errors import MalformedInputError, UnknownFilterError, UnsupportedFilterError
from structaware_readers.models import UnitType
from structaware_retrievers.query.filter_vocabulary import check_values
from structaware_retrievers.query.point_filter import Condition, IsEmpty, Match, PointFilter, Range

__all__ = [
    "ALIASES",
    "METADATA_KEY",
    "OPERATORS",
    "UNIT_KEYS",
    "Filter",
    "FilterGroup",
    "KeyFilter",
    "UnsupportedFilterError",
    "compile_filter",
    "from_dict",
    "key_condition",
]

#: Payload key under which the framework stores keep a document's own metadata (as given).
METADATA_KEY = "metadata"

#: Unit keys -> payload path of the unit field (``Unit.to_payload()``).
UNIT_KEYS: dict[str, str] = {
    "doc_id": "doc_id",
    "doc_name": "doc_name",
    "source": "source",
    "file_name": "file_name",
    "unit_id": "unit_id",
    "unit_type": "unit_type",
    "page": "pages",
    "pages": "pages",
    "page_label": "pages",
    "grade": "grade_label",
    "grade_system": "grade.system",
    "grade_strength": "grade.strength",
    "grade_certainty": "grade.certainty",
    "grade_direction": "grade.direction",
    "grade_status": "grade.status",
    "grade_preference": "grade.preference",
    "grade_source": "grade.source",
    "section_path": "section_path",
    "element_ids": "element_ids",
    "table_id": "table.table_id",
    "row_index": "table.row_index",
    "flowchart_id": "flow.flowchart_id",
    "ordinal": "ordinal",
}
#: Unit keys holding whole numbers: numeric strings (``page_label``, CLI words) become numbers.
_NUMBER_KEYS = frozenset({"page", "pages", "page_label", "row_index", "ordinal"})
#: Unit keys holding 1-based page numbers: a value below 1 is a 0-based page (MinerU's ``page_idx``).
_PAGE_KEYS = frozenset({"page", "pages", "page_label"})

#: Other spellings of unit keys: the CLI's short ones and :class:`SearchFilter`'s field names.
ALIASES: dict[str, str] = {
    "doc": "doc_name",
    "type": "unit_type",
    "doc_ids": "doc_id",
    "structaware_doc_id": "doc_id",
    "doc_names": "doc_name",
    "unit_types": "unit_type",
    "grades": "grade",
    "grade_label": "grade",
}
#: Keys that stand for a comparison (:class:`SearchFilter`'s page range).
_RANGE_ALIASES = {"page_from": ("page", ">="), "page_to": ("page", "<=")}

#: Operators of :class:`KeyFilter` (LlamaIndex's ``FilterOperator`` values).
OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "nin", "any", "all", "contains", "is_empty")
_CONDITIONS = ("and", "or", "not")
#: Operators whose values are values of the key (checked against a closed vocabulary).
_VALUE_OPERATORS = frozenset({"==", "!=", "in", "nin", "any", "all", "contains"})


@dataclass(frozen=True)
class KeyFilter:
    """``key`` ``op`` ``value``: one condition on a metadata key (see the module docstring)."""

    key: str
    op: str = "=="
    value: Any = None


@dataclass(frozen=True)
class FilterGroup:
    """All (``and``), any (``or``) or none (``not``) of ``filters`` hold; groups nest."""

    condition: str
    filters: tuple[KeyFilter | FilterGroup, ...]

    def __post_init__(self) -> None:
        if self.condition not in _CONDITIONS:
            raise UnsupportedFilterError(
                f"condition {self.condition!r} is not supported; use {', '.join(_CONDITIONS)}", field="filter"
            )


Filter = KeyFilter | FilterGroup


# --------------------------------------------------------------------------------------------
# compile: the one translation to the backend-neutral tree
# --------------------------------------------------------------------------------------------


#: Metadata keys the faces write that are no unit key (never taken for a misspelling).
_FACE_KEYS = frozenset({"section", "context", "citation", "score", "rank", "relevance", "title", "file_path"})


def _near_miss(key: str) -> list[str]:
    """Unit keys ``key`` looks like a misspelling of (``unit_typ``) or the first word of (``unit``)."""
    if key in _FACE_KEYS:
        return []
    known = [*UNIT_KEYS, *ALIASES, *_RANGE_ALIASES]
    starts = [k for k in UNIT_KEYS if k.startswith(f"{key}_")]
    return starts or difflib.get_close_matches(key, known, n=1, cutoff=0.85)


def _segment(part: str, field: str) -> str:
    """One key of a payload path as Qdrant's JSON path reads it: letters, digits, ``_`` and ``-`` as they are, any
    other key in double quotes (``"my key"``). Raises ``UnsupportedFilterError``.
    """
    if part and all(c.isalnum() or c in "_-" for c in part):
        return part
    if not part or '"' in part:
        raise UnsupportedFilterError(
            f"the metadata key {part!r} cannot be filtered on: a payload path cannot name an empty key or one"
            " with a double quote",
            field=field,
        )
    return f'"{part}"'


def _canonical(key: str, op: str, value: Any) -> tuple[str, str, Any]:
    if not isinstance(key, str) or not key:
        raise MalformedInputError(f"a filter key must be a non-empty string, not {key!r}", field="filter")
    if key in _RANGE_ALIASES:
        key, op = _RANGE_ALIASES[key][0], _RANGE_ALIASES[key][1] if op == "==" else op
    key = ALIASES.get(key, key)
    if key not in UNIT_KEYS and not key.startswith(f"{METADATA_KEY}."):
        near = _near_miss(key)
        if near:
            raise UnknownFilterError(
                f"unknown key {key!r}: did you mean {' or '.join(map(repr, near))}? (a metadata key of your"
                f" own spelt like this one: write 'metadata.{key}')",
                field=f"filter.{key}",
            )
    if op not in OPERATORS:
        raise UnsupportedFilterError(
            f"operator {op!r} is not supported (not evaluable inside Qdrant); supported: {', '.join(OPERATORS)}",
            field=f"filter.{key}",
        )
    return key, op, value


def _matches(key: str, values: Sequence[Any], field: str) -> Condition:
    """``key`` equals any of ``values``: one match per type (Qdrant never matches across types); a
    float matches as a one-point range."""
    if not values:
        raise MalformedInputError("an empty list matches nothing", field=field)
    bad = [v for v in values if not isinstance(v, (str, int, float))]
    if bad:
        hint = " (use the operator is_empty)" if bad[0] is None else ""
        raise MalformedInputError(f"cannot filter on a {type(bad[0]).__name__} value{hint}", field=field)
    conds: list[Condition] = [Range(key, gte=v, lte=v) for v in values if isinstance(v, float)]
    conds += [Match(key, (v,)) for v in values if isinstance(v, bool)]
    for t in (str, int):
        same = tuple(v for v in values if type(v) is t)
        if same:
            conds.append(Match(key, same))
    return conds[0] if len(conds) == 1 else PointFilter(should=tuple(conds))


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple, set, frozenset)) else [value]


def _one_place(path: str, op: str, value: Any, field: str) -> tuple[Condition, bool]:
    """The condition on one payload path, and whether it is negative (holds by *not* matching)."""
    if op in ("==", "!=", "contains"):
        if isinstance(value, (list, tuple, set, frozenset)):
            raise MalformedInputError(f"operator {op!r} takes one value, not a list (use 'in')", field=field)
        return _matches(path, [value], field), op == "!="
    if op in ("in", "any", "nin"):
        return _matches(path, _as_list(value), field), op == "nin"
    if op == "all":
        vals = _as_list(value)
        if not vals:
            raise MalformedInputError("an empty list matches nothing", field=field)
        return PointFilter(must=tuple(_matches(path, [v], field) for v in vals)), False
    if op in (">", ">=", "<", "<="):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise MalformedInputError(f"operator {op!r} needs a number, got {value!r}", field=field)
        bound = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}[op]
        return Range(path, **{bound: float(value)}), False
    return IsEmpty(path), False  # is_empty


def _number_value(value: Any, field: str, *, page: bool) -> Any:
    """Page, row and ordinal keys take numbers; numeric strings (``page_label``) become numbers;
    a page below 1 is refused (pages are 1-based: a 0 is a 0-based page, which would shift the set)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_number_value(v, field, page=page) for v in value]
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MalformedInputError(f"expected a number (pages are 1-based), not {value!r}", field=field)
    if page and value < 1:
        raise MalformedInputError(f"pages are 1-based, got {value!r}", field=field)
    return value


def key_condition(key: str, op: str = "==", value: Any = None) -> PointFilter:
    """One :class:`KeyFilter` as a :class:`PointFilter` (see the module docstring for keys and operators). Raises
    ``UnsupportedFilterError``, ``UnknownFilterError``, ``MalformedInputError``.
    """
    key, op, value = _canonical(key, op, value)
    field = f"filter.{key}"
    if key.startswith(f"{METADATA_KEY}."):
        path = ".".join([METADATA_KEY, *(_segment(part, field) for part in key[len(METADATA_KEY) + 1 :].split("."))])
        cond, negative = _one_place(path, op, value, field)
        return PointFilter(must_not=(cond,)) if negative else PointFilter(must=(cond,))
    if key not in UNIT_KEYS:
        cond, negative = _one_place(f"{METADATA_KEY}.{_segment(key, field)}", op, value, field)
        return PointFilter(must_not=(cond,)) if negative else PointFilter(must=(cond,))
    if key in _NUMBER_KEYS and op != "is_empty":
        value = _number_value(value, field, page=key in _PAGE_KEYS)
    if op in _VALUE_OPERATORS:
        check_values(key, _as_list(value), field)
    unit, negative = _one_place(UNIT_KEYS[key], op, value, field)
    meta, _ = _one_place(f"{METADATA_KEY}.{key}", op, value, field)
    if op == "is_empty":
        return PointFilter(must=(unit, meta))
    chunk_meta = PointFilter(must=(Match("unit_type", (UnitType.CHUNK.value,)), meta))
    if negative:
        return PointFilter(must_not=(unit, chunk_meta))
    return PointFilter(should=(unit, chunk_meta))


def compile_filter(node: Filter) -> PointFilter | None:
    """A :class:`KeyFilter` or :class:`FilterGroup` -> :class:`PointFilter` (``None``: an empty group)."""
    if isinstance(node, KeyFilter):
        return key_condition(node.key, node.op, node.value)
    parts = tuple(p for p in (compile_filter(f) for f in node.filters) if p is not None)
    if not parts:
        return None
    if node.condition == "or":
        return PointFilter(should=parts)
    if node.condition == "not":
        return PointFilter(must_not=parts)
    return parts[0] if len(parts) == 1 else PointFilter(must=parts)


# --------------------------------------------------------------------------------------------
# the dict spelling (Chroma / PGVector / LangChain users; JSON in the CLI, serve and MCP)
# --------------------------------------------------------------------------------------------

_DICT_OPERATORS = {
    "$eq": "==", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<=",
    "$in": "in", "$nin": "nin", "$any": "any", "$all": "all", "$contains": "contains",
}  # fmt: skip


def _key_dict(key: str, ops: Mapping[str, Any]) -> list[Filter]:
    out: list[Filter] = []
    for name, value in ops.items():
        if name in _DICT_OPERATORS:
            out.append(KeyFilter(key, _DICT_OPERATORS[name], value))
        elif name == "$exists":
            if not isinstance(value, bool):
                raise MalformedInputError(f"$exists takes true or false, not {value!r}", field=f"filter.{key}")
            empty = KeyFilter(key, "is_empty")
            out.append(FilterGroup("not", (empty,)) if value else empty)
        elif name == "$between":
            if not isinstance(value, (list, tuple)) or len(value) != 2:
                raise MalformedInputError(f"$between takes [low, high], not {value!r}", field=f"filter.{key}")
            out += [KeyFilter(key, ">=", value[0]), KeyFilter(key, "<=", value[1])]
        else:
            supported = ", ".join([*_DICT_OPERATORS, "$exists", "$between"])
            raise UnsupportedFilterError(
                f"operator {name!r} is not supported (not evaluable inside Qdrant); supported: {supported}",
                field=f"filter.{ALIASES.get(key, key)}",
            )
    if not out:
        raise MalformedInputError("an empty operator object", field=f"filter.{key}")
    return out


def from_dict(value: Mapping[str, Any]) -> FilterGroup:
    """A filter dict as LangChain users write it for Chroma and PGVector -> a :class:`FilterGroup`. Raises
    ``UnsupportedFilterError``, ``MalformedInputError``.
    """
    parts: list[Filter] = []
    for key, val in value.items():
        if not isinstance(key, str):
            raise MalformedInputError(f"a filter key must be a string, not {key!r}", field="filter")
        if key in ("$and", "$or", "$nor"):
            if not isinstance(val, (list, tuple)) or not all(isinstance(v, Mapping) for v in val):
                raise MalformedInputError(f"{key} takes a list of filter objects", field=f"filter.{key}")
            group = FilterGroup("and" if key == "$and" else "or", tuple(from_dict(v) for v in val))
            parts.append(FilterGroup("not", (group,)) if key == "$nor" else group)
        elif key == "$not":
            if not isinstance(val, Mapping):
                raise MalformedInputError("$not takes a filter object", field="filter.$not")
            parts.append(FilterGroup("not", (from_dict(val),)))
        elif key.startswith("$"):
            raise UnsupportedFilterError(
                f"operator {key!r} is not supported; groups are $and, $or, $not, $nor", field=f"filter.{key}"
            )
        elif isinstance(val, Mapping):
            parts.extend(_key_dict(key, val))
        elif isinstance(val, (list, tuple, set, frozenset)):
            parts.append(KeyFilter(key, "in", list(val)))
        else:
            parts.append(KeyFilter(key, "==", val))
    return FilterGroup("and", tuple(parts))
