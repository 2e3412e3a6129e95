"""Payload filters: the user-facing :class:`SearchFilter` and the backend-neutral :class:`PointFilter`.

:class:`SearchFilter` names what a user filters on (documents, a page range, unit types,
evidence grades). It compiles to a :class:`PointFilter`, a tiny backend-neutral condition tree
(``must`` / ``should`` / ``must_not`` lists of :class:`Match`, :class:`Range`, :class:`IsEmpty`,
:class:`HasId` and nested :class:`PointFilter`; the framework vector stores build the nested and
``should`` forms from LlamaIndex's ``MetadataFilters``) that each
store backend translates to its own Qdrant filter type (``qdrant_client.models.Filter`` or
``qdrant_edge.Filter``). The index also uses :class:`PointFilter` for its own bookkeeping
(stale points of a document, older versions of a source file).

Payload keys are those of ``Unit.to_payload()``: ``doc_id``, ``doc_name``, ``source``,
``pages`` (list of 1-based pages), ``page`` (first page), ``unit_type``, ``grade_label``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import UnitType

__all__ = ["HasId", "IsEmpty", "Match", "PointFilter", "Range", "SearchFilter"]


@dataclass(frozen=True)
class Match:
    """``key`` equals one of ``values`` (for a list-valued payload field: any element does).

    Qdrant matches strings, integers and booleans exactly, and never an integer against a string
    (``3`` does not match ``"3"``).
    """

    key: str
    values: tuple[str | int | bool, ...]


@dataclass(frozen=True)
class Range:
    """``gte <= key <= lte`` and ``gt < key < lt`` (``None`` = open); any element of a list field."""

    key: str
    gte: float | None = None
    lte: float | None = None
    gt: float | None = None
    lt: float | None = None


@dataclass(frozen=True)
class IsEmpty:
    """``key`` is missing, ``null`` or an empty list."""

    key: str


@dataclass(frozen=True)
class HasId:
    """The point id is one of ``ids`` (unit id strings)."""

    ids: tuple[str, ...]


@dataclass(frozen=True)
class PointFilter:
    """All ``must`` conditions hold, at least one ``should`` condition holds (when there are any),
    and no ``must_not`` condition holds. A condition may itself be a :class:`PointFilter` (a nested
    group). Empty = every point.

    Points of a document still being written (or already replaced) are invisible to every read
    unless ``include_hidden`` is true (the index's write protocol, :mod:`structaware_retrievers.commit`);
    only the outermost filter's ``include_hidden`` counts.
    """

    must: tuple[Condition, ...] = field(default_factory=tuple)
    must_not: tuple[Condition, ...] = field(default_factory=tuple)
    include_hidden: bool = False
    should: tuple[Condition, ...] = field(default_factory=tuple)

    @property
    def is_empty(self) -> bool:
        return not self.must and not self.must_not and not self.should

    def __and__(self, other: PointFilter | None) -> PointFilter:
        if other is None:
            return self
        hidden = self.include_hidden or other.include_hidden
        if self.should and other.should:  # two OR groups: keep each one as a nested condition
            return PointFilter(must=(self, other), include_hidden=hidden)
        return PointFilter(
            must=self.must + other.must,
            must_not=self.must_not + other.must_not,
            include_hidden=hidden,
            should=self.should + other.should,
        )

    @classmethod
    def match(cls, key: str, *values: str | int) -> PointFilter:
        """Shorthand: a filter with one :class:`Match` condition."""
        return cls(must=(Match(key, tuple(values)),))


Condition = Match | Range | IsEmpty | HasId | PointFilter

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
        unit_types: any of ``section``, ``table_row``, ``flow_path``, ``recommendation``, ``figure``.
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
        except ValueError as exc:  # pydantic ValidationError -> typed error naming the field
            errors = getattr(exc, "errors", lambda: [])()
            loc = ".".join(str(p) for p in errors[0]["loc"]) if errors else None
            msg = errors[0]["msg"] if errors else str(exc)
            unknown = [str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden" and e["loc"]]
            if unknown:
                loc = unknown[0]
                msg = f"unknown field(s) {unknown}; expected any of {sorted(type(self).model_fields)}"
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

    def to_point_filter(self) -> PointFilter:
        """The backend-neutral condition tree for this filter."""
        must: list[Condition] = []
        for key, values in (
            ("doc_id", self.doc_ids),
            ("doc_name", self.doc_names),
            ("unit_type", self.unit_types),
            ("grade_label", self.grades),
        ):
            if values is not None:
                must.append(Match(key, tuple(values)))
        if self.page_from is not None or self.page_to is not None:
            must.append(Range("pages", gte=self.page_from, lte=self.page_to))
        return PointFilter(must=tuple(must))
