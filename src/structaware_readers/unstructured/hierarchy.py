"""Heading levels of Unstructured ``Title`` elements."""

from __future__ import annotations

import re
from collections.abc import Mapping

from structaware_readers.headings import numbering_depth
from structaware_readers.unstructured.records import Record

__all__ = ["heading_level"]

_HEADING_TAG = re.compile(r"^\s*<h([1-6])\b", re.IGNORECASE)


def heading_level(r: Record, by_id: Mapping[str, Record]) -> int:
    """Depth (1 = top) of a ``Title``: the ``<hN>`` tag of ``text_as_html`` (HTML v2 output),
    else ``category_depth + 1``, else the numbering (:func:`headings.numbering_depth`), else
    1 + the number of ``Title`` ancestors along ``parent_id`` (``by_id``: records by element id)."""
    html = r.md.get("text_as_html")
    if isinstance(html, str) and (m := _HEADING_TAG.match(html)):
        return int(m.group(1))
    depth = r.md.get("category_depth")
    if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0 and not isinstance(html, str):
        return depth + 1
    numbered = numbering_depth(r.text)
    if numbered is not None:
        return numbered
    level, seen, parent = 1, {r.element_id}, r.md.get("parent_id")
    while isinstance(parent, str) and parent in by_id and parent not in seen:
        seen.add(parent)
        up = by_id[parent]
        if up.type == "Title":
            level += 1
        parent = up.md.get("parent_id")
    return level
