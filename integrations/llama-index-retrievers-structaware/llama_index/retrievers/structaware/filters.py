"""LlamaIndex ``MetadataFilters`` -> structaware ``SearchFilter`` (evaluated inside Qdrant).

Supported keys and operators (anything else raises ``MalformedInputError`` naming the filter):

==========================  ===================================  =================================
key                         operators                            ``SearchFilter`` field
==========================  ===================================  =================================
``doc_id``                  ``==`` (str), ``in`` (list of str)   ``doc_ids``
``doc_name``                ``==``, ``in``                       ``doc_names``
``unit_type``               ``==``, ``in``                       ``unit_types``
``grade``                   ``==``, ``in``                       ``grades`` (grade labels, ``"A"``)
``page`` / ``page_label``   ``==``, ``>=``, ``>``, ``<=``, ``<``   ``page_from`` / ``page_to``
                            (1-based pages; ``page_label`` may
                            be a numeric string)
==========================  ===================================  =================================

Conditions: ``and`` (the default; nested ``and`` groups are flattened; a key given twice is
intersected) and ``or`` across ``==``/``in`` filters of one list key (their values are united).
"""

from __future__ import annotations

from typing import Any

from llama_index.core.vector_stores.types import FilterCondition, FilterOperator, MetadataFilter, MetadataFilters

_LIST_KEYS = {"doc_id": "doc_ids", "doc_name": "doc_names", "unit_type": "unit_types", "grade": "grades"}
_PAGE_KEYS = ("page", "page_label")
_PAGE_OPERATORS = (FilterOperator.EQ, FilterOperator.GTE, FilterOperator.GT, FilterOperator.LTE, FilterOperator.LT)
SUPPORTED_KEYS = (*_LIST_KEYS, *_PAGE_KEYS)


def _error(message: str, field: str) -> Exception:
    from structaware_readers.errors import MalformedInputError

    return MalformedInputError(message, field=field)


def _flatten(filters: MetadataFilters, field: str) -> list[tuple[str, MetadataFilter]]:
    out: list[tuple[str, MetadataFilter]] = []
    for i, item in enumerate(filters.filters):
        where = f"{field}.filters[{i}]"
        if isinstance(item, MetadataFilters):
            if (item.condition or FilterCondition.AND) != FilterCondition.AND:
                raise _error("nested filter groups are supported with condition 'and' only", where)
            out.extend(_flatten(item, where))
        else:
            out.append((where, item))
    return out


def _str_values(f: MetadataFilter, where: str) -> list[str]:
    if f.operator == FilterOperator.EQ and isinstance(f.value, (str, int)) and not isinstance(f.value, bool):
        return [str(f.value)]
    if f.operator == FilterOperator.IN and isinstance(f.value, list) and f.value:
        return [str(v) for v in f.value]
    raise _error(
        f"key {f.key!r} supports '==' with one value or 'in' with a non-empty list, not {f.operator.value!r} "
        f"with {f.value!r}",
        where,
    )


def _page(f: MetadataFilter, where: str) -> int:
    try:
        page = int(f.value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _error(f"page filters need a 1-based page number, not {f.value!r}", where) from None
    if page < 1:
        raise _error(f"pages are 1-based, got {page}", where)
    return page


def to_search_filter(filters: MetadataFilters | None, *, field: str = "filters") -> Any:
    """Translate LlamaIndex metadata filters into a ``SearchFilter`` (``None`` for no filter).

    Raises:
        MalformedInputError: an unsupported key, operator, value or condition; ``field`` names the
            offending entry (e.g. ``filters.filters[1]``).
    """
    if filters is None or not filters.filters:
        return None
    from structaware_retrievers.filters import SearchFilter

    flat = _flatten(filters, field)
    condition = filters.condition or FilterCondition.AND
    lists: dict[str, list[str]] = {}
    page_from: int | None = None
    page_to: int | None = None

    if condition == FilterCondition.OR:
        keys = {f.key for _, f in flat}
        if len(keys) != 1 or next(iter(keys)) not in _LIST_KEYS:
            raise _error(
                "condition 'or' is supported only across '=='/'in' filters of one key "
                f"({', '.join(_LIST_KEYS)}); got keys {sorted(keys)}",
                field,
            )
        key = next(iter(keys))
        values: list[str] = []
        for where, f in flat:
            values.extend(v for v in _str_values(f, where) if v not in values)
        return SearchFilter(**{_LIST_KEYS[key]: values})
    if condition != FilterCondition.AND:
        raise _error(f"condition {condition.value!r} is not supported; use 'and' or 'or'", field)

    for where, f in flat:
        if f.key in _LIST_KEYS:
            values = _str_values(f, where)
            name = _LIST_KEYS[f.key]
            lists[name] = [v for v in lists[name] if v in values] if name in lists else values
        elif f.key in _PAGE_KEYS:
            op = f.operator
            if op not in _PAGE_OPERATORS:
                raise _error(f"page filters support ==, >=, >, <=, <, not {op.value!r}", where)
            page = _page(f, where)
            lo = page + 1 if op == FilterOperator.GT else page
            hi = page - 1 if op == FilterOperator.LT else page
            if op in (FilterOperator.EQ, FilterOperator.GTE, FilterOperator.GT):
                page_from = lo if page_from is None else max(page_from, lo)
            if op in (FilterOperator.EQ, FilterOperator.LTE, FilterOperator.LT):
                page_to = hi if page_to is None else min(page_to, hi)
        else:
            raise _error(f"unsupported filter key {f.key!r}; supported: {', '.join(SUPPORTED_KEYS)}", where)
    for name, values in lists.items():
        if not values:
            raise _error(f"the filters on {name} exclude each other (empty intersection)", field)
    if page_from is not None and page_to is not None and page_from > page_to:
        raise _error(f"empty page range {page_from}..{page_to}", field)
    return SearchFilter(**lists, page_from=page_from, page_to=page_to)
