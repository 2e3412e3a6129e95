"""``SearchOptions``: every knob of a search, with its default stated once.

Each face (``StructureIndex.query``, the CLI, ``structaware serve``, MCP, the LangChain and LlamaIndex
retrievers and vector stores) translates its own spelling into one of these, and the searcher reads
nothing else. The fusion defaults come from :mod:`structaware_retrievers.query.fusion`. A plain frozen
dataclass (no pydantic, no numpy), so the CLI's fast path can build one cheaply.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.query.fusion import (
    DEFAULT_GRADE_FOCUS,
    DEFAULT_GROUP_SIZE,
    DEFAULT_MIN_SCORE,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
    DEFAULT_WEIGHTS,
)
from structaware_retrievers.search.rerank import Rerank

if TYPE_CHECKING:
    from structaware_retrievers.query.filters import FilterLike
    from structaware_retrievers.search.rerank import RerankLike

__all__ = ["DEFAULT_K", "SearchOptions", "search_options"]

#: hits returned by ``StructureIndex.query``; the CLI, serve, MCP and the framework faces keep their own
DEFAULT_K = 10

Mode = Literal["hybrid", "dense", "sparse"]
FusionName = Literal["rrf", "dbsf"]


@dataclass(frozen=True)
class SearchOptions:
    """How to search; every face (``StructureIndex.query``, CLI, serve, MCP, frameworks) builds one.

    Attributes:
        k: hits to return (with ``budget_chars``: candidates considered).
        mode: ``"hybrid"`` (dense + BM25 fused inside Qdrant), ``"dense"`` or ``"sparse"`` (BM25 alone).
        fusion: ``"rrf"`` (reciprocal rank fusion) or ``"dbsf"`` (distribution-based score fusion).
        rrf_k: the RRF constant.
        prefetch_limit: candidates fetched per vector before fusion (at least ``k`` are used).
        filter: a :class:`~structaware_retrievers.query.filters.SearchFilter`, a filter dict or a
            ``FilterGroup``, applied inside each prefetch; compiled and checked against the index's keys
            when the search runs. Non-evidence units (``reference``, ``front_matter``) are left out
            unless the filter names unit types.
        weights: (dense, BM25) RRF weights, positive; ``None`` means
            :data:`~structaware_retrievers.query.fusion.DEFAULT_WEIGHTS` and is stored as it. DBSF ignores them.
        budget_chars: keep the best hits whose text (``context``, a line break, ``text``, neighbours included)
            fits this many characters together, in rank order.
        expand: attach each hit's evidence neighbourhood (``SearchHit.neighbours``:
            :mod:`structaware_retrievers.search.evidence`).
        group_size: a table row hit carries up to ``group_size - 1`` other matched rows of its table
            (``SearchHit.group``); 1 turns grouping off.
        rerank: the second stage (:mod:`structaware_retrievers.search.rerank`): ``None`` on for a default
            hybrid search only, ``True`` default options, a ``Rerank`` others, ``False`` off. It re-orders
            the first ``Rerank.pool`` hits without changing their ``score``.
        min_score: the calibrated relevance (``SearchHit.relevance`` in [0, 1]) a hit must reach;
            ``None`` or 0 keeps every hit.
        grade_focus: RRF weight of a BM25 prefetch among ``recommendation`` units, added to a hybrid RRF search
            when the question asks for a grade (:mod:`structaware_retrievers.query.intent`); 0 turns it off.

    Change fields with :meth:`replace`.

    Raises:
        MalformedInputError: a value the search cannot take, naming its field.
    """

    k: int = DEFAULT_K
    mode: Mode = "hybrid"
    fusion: FusionName = "rrf"
    rrf_k: int = DEFAULT_RRF_K
    prefetch_limit: int = DEFAULT_PREFETCH_LIMIT
    filter: FilterLike = None
    weights: tuple[float, float] | None = DEFAULT_WEIGHTS
    budget_chars: int | None = None
    expand: bool = False
    group_size: int = DEFAULT_GROUP_SIZE
    rerank: RerankLike = None
    min_score: float | None = DEFAULT_MIN_SCORE
    grade_focus: float = DEFAULT_GRADE_FOCUS

    def __post_init__(self) -> None:
        _check_counts(self)
        if self.mode not in ("hybrid", "dense", "sparse"):
            raise MalformedInputError(f"must be 'hybrid', 'dense' or 'sparse', got {self.mode!r}", field="mode")
        if self.fusion not in ("rrf", "dbsf"):
            raise MalformedInputError(f"must be 'rrf' or 'dbsf', got {self.fusion!r}", field="fusion")
        weights = DEFAULT_WEIGHTS if self.weights is None else tuple(self.weights)
        if len(weights) != 2 or not all(isinstance(w, (int, float)) and 0 < w < float("inf") for w in weights):
            raise MalformedInputError(
                f"must be two positive numbers (dense, BM25), got {self.weights!r}", field="weights"
            )
        object.__setattr__(self, "weights", weights)
        if not (self.rerank is None or isinstance(self.rerank, (bool, Rerank))):
            raise MalformedInputError(f"must be True, False, None or a Rerank, got {self.rerank!r}", field="rerank")
        score = self.min_score
        if score is None:
            score = 0.0
        if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
            raise MalformedInputError(f"must be a number in [0, 1], got {score!r}", field="min_score")
        object.__setattr__(self, "min_score", float(score))
        focus = self.grade_focus
        if isinstance(focus, bool) or not isinstance(focus, (int, float)) or not 0.0 <= focus < float("inf"):
            raise MalformedInputError(f"must be a number >= 0, got {focus!r}", field="grade_focus")
        object.__setattr__(self, "grade_focus", float(focus))

    def replace(self, **changes: Any) -> SearchOptions:
        """A copy with ``changes`` (field names as keywords), checked again.

        Raises:
            TypeError: a name that is not a field.
            MalformedInputError: as the constructor.
        """
        return dataclasses.replace(self, **changes) if changes else self

    @classmethod
    def of(cls, settings: object, **changes: Any) -> SearchOptions:
        """The options a face's settings spell with the same names: each field that ``settings`` has as
        an attribute (a retriever's ``rrf_k``, ``group_size``...), the others at their defaults, then
        ``changes``.

        Raises:
            MalformedInputError, TypeError: as :meth:`replace`.
        """
        given = {f.name: getattr(settings, f.name) for f in dataclasses.fields(cls) if hasattr(settings, f.name)}
        return cls(**{**given, **changes})

    def as_dict(self) -> dict[str, Any]:
        """The fields by name (not copied): the body of a ``structaware serve`` query without ``text``."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def _check_counts(options: SearchOptions) -> None:
    """The whole-number fields: ``k``, ``rrf_k``, ``prefetch_limit`` at least 1; ``budget_chars``
    ``None`` or a positive number of characters; ``group_size`` a positive whole number."""
    for name in ("k", "rrf_k", "prefetch_limit"):
        value = getattr(options, name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise MalformedInputError(f"must be a whole number, got {value!r}", field=name)
        if value < 1:
            raise MalformedInputError(f"must be >= 1, got {value}", field=name)
    budget = options.budget_chars
    if budget is not None and (not isinstance(budget, int) or budget < 1):
        raise MalformedInputError(f"must be a positive number of characters, got {budget!r}", field="budget_chars")
    size = options.group_size
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise MalformedInputError(f"must be a positive whole number, got {size!r}", field="group_size")


def search_options(options: SearchOptions | None, overrides: dict[str, Any]) -> SearchOptions:
    """``options`` (else the defaults) with the keyword ``overrides`` of a call applied:
    what ``StructureIndex.query(text, options, **overrides)`` searches with.

    Raises:
        MalformedInputError: ``options`` is not a :class:`SearchOptions`, or a bad value (naming its field).
        TypeError: an override that is not a field.
    """
    if options is None:
        options = SearchOptions()
    elif not isinstance(options, SearchOptions):
        raise MalformedInputError(f"expected SearchOptions or None, got {type(options).__name__}", field="options")
    return options.replace(**overrides)
