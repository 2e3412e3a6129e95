"""LlamaIndex ``MetadataFilters`` -> structaware's filter language: what the retriever and the vector store share.

Every ``FilterOperator`` is read as is and ``and``/``or``/``not`` conditions nest; keys are the node
metadata keys of :mod:`llama_index.node_parser.structaware.nodes` or your own.
:mod:`structaware_retrievers.query.filters` compiles the result for Qdrant; ``text_match`` and
``text_match_insensitive`` raise ``UnsupportedFilterError`` naming the operator.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters

from structaware_readers.errors import MalformedInputError

__all__ = ["to_filter_group", "to_point_filter"]


def _value(enum_or_str: Any) -> str:
    return enum_or_str.value if hasattr(enum_or_str, "value") else str(enum_or_str)


def to_filter_group(filters: MetadataFilters | None) -> Any:
    """``filters`` as a ``structaware_retrievers.query.filters.FilterGroup`` (``None`` for no filter).

    Raises:
        UnsupportedFilterError: a condition other than ``and``/``or``/``not``.
        MalformedInputError: an entry that is neither a ``MetadataFilter`` nor a ``MetadataFilters``.
    """
    from structaware_retrievers.query.filters import FilterGroup, KeyFilter

    if filters is None or not filters.filters:
        return None
    parts: list[Any] = []
    for i, f in enumerate(filters.filters):
        if isinstance(f, MetadataFilters):
            sub = to_filter_group(f)
            if sub is not None:
                parts.append(sub)
        elif isinstance(f, MetadataFilter):
            parts.append(KeyFilter(f.key, _value(f.operator), f.value))
        else:
            raise MalformedInputError(f"not a MetadataFilter: {type(f).__name__}", field=f"filters.filters[{i}]")
    return FilterGroup(_value(filters.condition or "and"), tuple(parts)) if parts else None


def to_point_filter(filters: MetadataFilters | None) -> Any:
    """``filters`` compiled to structaware's backend-neutral ``PointFilter`` (``None``: no filter).

    Raises:
        UnsupportedFilterError: a text-match operator or an unknown condition, naming it.
        MalformedInputError: a value the filter cannot match (an empty ``in`` list, a range on a
            non-number); ``UnknownFilterError`` (a subclass) for a key spelt almost like a unit key
            or a value outside a closed vocabulary (a unit type); ``field`` is ``filter.<key>``. A key
            no unit of the index carries raises ``UnknownFilterError`` when the index is searched.
    """
    from structaware_retrievers.query.filters import to_point_filter as compile_any

    return compile_any(to_filter_group(filters))
