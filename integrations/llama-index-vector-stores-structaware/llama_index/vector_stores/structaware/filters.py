"""LlamaIndex ``MetadataFilters`` -> structaware's backend-neutral ``PointFilter``.

Every operator of ``FilterOperator`` except the text-match ones is supported (``==``, ``!=``,
``>``, ``>=``, ``<``, ``<=``, ``in``, ``nin``, ``any``, ``all``, ``contains``, ``is_empty``), and the
conditions ``and`` / ``or`` / ``not`` with nesting (a ``MetadataFilters`` inside another). A key is
looked up as :func:`structaware_retrievers.records.key_condition` describes: in the node's metadata,
and for unit keys (``doc_id``, ``doc_name``, ``source``, ``unit_type``, ``page``, ``pages``, ``grade``)
in the unit's payload field too, so units ingested by structaware itself filter like nodes added here.
"""

from __future__ import annotations

from llama_index.core.vector_stores.types import FilterCondition, MetadataFilter, MetadataFilters

__all__ = ["to_point_filter"]


def to_point_filter(filters: MetadataFilters | None):  # noqa: ANN201 - PointFilter | None
    """Translate ``filters`` (``None`` or no filter -> ``None``).

    Raises:
        MalformedInputError: an unsupported operator (text match), an empty ``in`` list, a range on a
            non-number; ``field`` names the metadata key.
    """
    from structaware_retrievers.filters import PointFilter
    from structaware_retrievers.records import key_condition

    if filters is None or not filters.filters:
        return None
    parts = []
    for f in filters.filters:
        if isinstance(f, MetadataFilters):
            sub = to_point_filter(f)
            if sub is not None:
                parts.append(sub)
        elif isinstance(f, MetadataFilter):
            op = f.operator.value if hasattr(f.operator, "value") else str(f.operator)
            parts.append(key_condition(f.key, op, f.value))
    if not parts:
        return None
    condition = filters.condition.value if hasattr(filters.condition, "value") else str(filters.condition or "and")
    if condition == FilterCondition.OR.value:
        return PointFilter(should=tuple(parts))
    if condition == "not":
        return PointFilter(must_not=tuple(parts))
    return PointFilter(must=tuple(parts))
