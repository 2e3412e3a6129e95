"""One filter language for every face, compiled once to Qdrant. Keys are unit fields (:data:`UNIT_KEYS`, other
spellings in :data:`ALIASES`) or framework metadata (``metadata.<key>``); page keys are 1-based and match any page a
unit covers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from structaware_readers.common.validation import first_problem
from structaware_readers.errors import MalformedInputError
from structaware_readers.models import NON_EVIDENCE_TYPES, UnitType
from structaware_retrievers.query.filter_language import (
    ALIASES,
    METADATA_KEY,
    OPERATORS,
    UNIT_KEYS,
    Filter,
    FilterGroup,
    KeyFilter,
    UnsupportedFilterError,
    compile_filter,
    from_dict,
    key_condition,
)
from structaware_retrievers.query.point_filter import HasId, IsEmpty, Match, PointFilter, Range

__all__ = [
    "ALIASES",
    "FilterLike",
    "METADATA_KEY",
    "OPERATORS",
    "UNIT_KEYS",
    "FilterGroup",
    "HasId",
    "IsEmpty",
    "KeyFilter",
    "Match",
    "PointFilter",
    "Range",
    "SearchFilter",
    "UnsupportedFilterError",
    "evidence_default",
    "from_dict",
    "key_condition",
    "to_point_filter",
]


# --------------------------------------------------------------------------------------------
# SearchFilter: the typed Python form
# --------------------------------------------------------------------------------------------

_UNIT_TYPES = {t.value for t in UnitType}


class SearchFilter(BaseModel):
    """What a search may return: every set field must match (fields combine with AND).

    Attributes:
        doc_ids: document ids (16 hex characters, ``ParsedDocument.doc_id``); any of them.
        doc_names: document names (``ParsedDocument.name``, the file stem); any of them.
        page_from: first 1-based page of the range (inclusive); ``None`` = from page 1.
        page_to: last 1-based page of the range (inclusive); ``None`` = to the end.
            A unit matches when **any** of its ``pages`` falls in the range, so a table row
            continuing across pages 3-4 matches ``page_from=4``.
        unit_types: any of ``section``, ``table_row``, ``flow_path``, ``recommendation``, ``figure``,
            and the types a search leaves out unless named here: ``reference``, ``front_matter``.
        grades: evidence-grade labels (``Grade.grade``, e.g. ``"A"``, ``"2A"``, ``"IIa"``), any of them;
            matched exactly against the payload field ``grade_label``.

    Raises:
        MalformedInputError: a page < 1, ``page_from > page_to``, an unknown unit type, an
            empty list (``None`` means "no restriction"), or an unknown field (a misspelt
            ``unit_type=`` would otherwise filter nothing); ``field`` names the attribute.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    doc_ids: list[str] | None = None
    doc_names: list[str] | None = None
    page_from: int | None = None
    page_to: int | None = None
    unit_types: list[str] | None = None
    grades: list[str] | None = None

    def __init__(self, **data: object) -> None:
        try:
            super().__init__(**data)
        except MalformedInputError:
            raise
        except ValidationError as exc:  # -> a typed error naming the field
            loc, msg = first_problem(exc, type(self).model_fields)
            raise MalformedInputError(msg, field=f"SearchFilter.{loc}" if loc else "SearchFilter") from None

    @field_validator("unit_types", mode="before")
    @classmethod
    def _types(cls, v: Sequence[str | UnitType] | None) -> list[str] | None:
        if v is None:
            return None
        if isinstance(v, (str, UnitType)):
            v = [v]
        out = [t.value if isinstance(t, UnitType) else str(t) for t in v]
        if not out:
            raise ValueError("empty list would match nothing; use None for no restriction")
        bad = [t for t in out if t not in _UNIT_TYPES]
        if bad:
            raise ValueError(f"unknown unit type(s) {bad}; expected any of {sorted(_UNIT_TYPES)}")
        return out

    @field_validator("doc_ids", "doc_names", "grades", mode="before")
    @classmethod
    def _listify(cls, v: Sequence[str] | str | None) -> list[str] | None:
        if v is None:
            return None
        out = [v] if isinstance(v, str) else list(v)
        if not out:
            raise ValueError("empty list would match nothing; use None for no restriction")
        return out

    @field_validator("page_from", "page_to")
    @classmethod
    def _page(cls, v: int | None) -> int | None:
        if v is not None and v < 1:
            raise ValueError(f"pages are 1-based, got {v}")
        return v

    @model_validator(mode="after")
    def _range(self) -> SearchFilter:
        if self.page_from is not None and self.page_to is not None and self.page_from > self.page_to:
            raise ValueError(f"page_from ({self.page_from}) > page_to ({self.page_to})")
        return self

    def to_group(self) -> FilterGroup:
        """The same filter in the filter language (what every face compiles)."""
        parts: list[Filter] = []
        for key, values in (
            ("doc_id", self.doc_ids),
            ("doc_name", self.doc_names),
            ("unit_type", self.unit_types),
            ("grade", self.grades),
        ):
            if values is not None:
                parts.append(KeyFilter(key, "in", list(values)))
        if self.page_from is not None:
            parts.append(KeyFilter("page", ">=", self.page_from))
        if self.page_to is not None:
            parts.append(KeyFilter("page", "<=", self.page_to))
        return FilterGroup("and", tuple(parts))

    def to_point_filter(self) -> PointFilter:
        """The backend-neutral condition tree for this filter (empty: every point)."""
        return compile_filter(self.to_group()) or PointFilter()


#: What every filter argument takes: ``None``, a :class:`SearchFilter`, a filter dict, a
#: :class:`KeyFilter` / :class:`FilterGroup`, or a :class:`PointFilter`.
FilterLike = SearchFilter | Mapping[str, Any] | KeyFilter | FilterGroup | PointFilter | None


def to_point_filter(value: Any, *, field: str = "filter") -> PointFilter | None:
    """Any filter form -> :class:`PointFilter` (``None``: no restriction). Raises ``UnsupportedFilterError``."""
    if value is None:
        return None
    if isinstance(value, PointFilter):
        return None if value.is_empty else value
    if isinstance(value, SearchFilter):
        value = value.to_group()
    elif isinstance(value, Mapping):
        value = from_dict(value)
    if isinstance(value, (KeyFilter, FilterGroup)):
        return compile_filter(value)
    raise MalformedInputError(
        f"expected a dict of metadata conditions, a SearchFilter or a FilterGroup, not {type(value).__name__}",
        field=field,
    )


def evidence_default(flt: PointFilter | None) -> PointFilter:
    """The filter a search runs: ``flt`` with units that are not evidence (``reference`` and ``front_matter``,
    :data:`~structaware_readers.models.NON_EVIDENCE_TYPES`) left out, unless ``flt`` names one of those types
    (``unit_type=reference``, ``{"unit_type": {"$in": ["section", "front_matter"]}}``): then ``flt`` alone decides.
    """
    if flt is not None and _names_non_evidence(flt):
        return flt
    return PointFilter(must_not=(Match("unit_type", _NON_EVIDENCE),)) & flt


_NON_EVIDENCE = tuple(t.value for t in NON_EVIDENCE_TYPES)


def _names_non_evidence(flt: PointFilter) -> bool:
    """Whether a condition of ``flt`` matches the unit type (the unit field, or its framework
    metadata twin) against a type of :data:`_NON_EVIDENCE`."""
    for cond in (*flt.must, *flt.should, *flt.must_not):
        if isinstance(cond, PointFilter):
            if _names_non_evidence(cond):
                return True
        elif (
            isinstance(cond, Match)
            and cond.key in ("unit_type", f"{METADATA_KEY}.unit_type")
            and set(cond.values) & set(_NON_EVIDENCE)
        ):
            return True
    return False
