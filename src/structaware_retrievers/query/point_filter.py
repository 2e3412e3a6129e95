"""The backend-neutral filter tree every store backend translates: :class:`PointFilter`."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Condition", "HasId", "IsEmpty", "Match", "PointFilter", "Range"]


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
    """All ``must`` conditions hold, at least one ``should`` condition holds (when there are any), and no ``must_not``
    condition holds. A condition may itself be a :class:`PointFilter` (a nested group). Empty = every point.
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
