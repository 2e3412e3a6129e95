"""Which metadata keys a filter may name: those some unit of the index carries."""

from __future__ import annotations

import difflib
from collections.abc import Iterator, MutableSet
from typing import Any

from structaware_readers.errors import UnknownFilterError
from structaware_retrievers.query.filter_language import METADATA_KEY, UNIT_KEYS
from structaware_retrievers.query.point_filter import IsEmpty, Match, PointFilter, Range

__all__ = ["check_keys", "metadata_paths"]

#: Points whose metadata :func:`check_keys` reads to list the index's own keys in its error.
_KEYS_SAMPLE = 1000


def _conditions(flt: PointFilter) -> Iterator[Any]:
    for cond in (*flt.must, *flt.should, *flt.must_not):
        if isinstance(cond, PointFilter):
            yield from _conditions(cond)
        else:
            yield cond


def metadata_paths(flt: PointFilter | None) -> set[str]:
    """The payload paths of the user's own metadata keys a compiled filter names (``metadata.<key>``;
    the metadata places of unit keys, matched on framework chunks, are not among them)."""
    if flt is None:
        return set()
    prefix = f"{METADATA_KEY}."
    out = set()
    for cond in _conditions(flt):
        path = getattr(cond, "key", None) if isinstance(cond, (Match, Range, IsEmpty)) else None
        if path and path.startswith(prefix) and path[len(prefix) :].split(".")[0] not in UNIT_KEYS:
            out.add(path)
    return out


def _own_keys(store: Any) -> list[str]:
    """The top-level metadata keys of (up to :data:`_KEYS_SAMPLE`) points carrying metadata."""
    keys: set[str] = set()
    with_metadata = PointFilter(must_not=(IsEmpty(METADATA_KEY),))
    for i, record in enumerate(store.scroll(with_metadata, fields=[METADATA_KEY])):
        if i >= _KEYS_SAMPLE:
            break
        meta = record.payload.get(METADATA_KEY)
        if isinstance(meta, dict):
            keys.update(str(k) for k in meta)
    return sorted(keys)


def check_keys(store: Any, flt: PointFilter | None, known: MutableSet[str]) -> None:
    """Raise :class:`UnknownFilterError` when ``flt`` names a metadata key no point of ``store`` carries (a missing,
    ``null`` or empty value counts as not carried); an empty index passes.
    """
    unknown = sorted(metadata_paths(flt) - set(known))
    if not unknown or not store.exists() or not store.count():
        return  # an empty index answers nothing anyway
    for path in unknown:
        if store.count(PointFilter(must_not=(IsEmpty(path),))):
            known.add(path)
            continue
        key = path[len(METADATA_KEY) + 1 :]
        own = _own_keys(store)
        near = difflib.get_close_matches(key, [*own, *UNIT_KEYS], n=1, cutoff=0.75)
        hint = f" did you mean {near[0]!r}?" if near else ""
        raise UnknownFilterError(
            f"no unit of this index carries the key {key!r}, so the filter would match nothing:{hint} filter on"
            f" a unit key ({', '.join(UNIT_KEYS)}) or a metadata key the documents of this index carry"
            f" ({', '.join(own) if own else 'none'})",
            field=f"filter.{key}",
        )
