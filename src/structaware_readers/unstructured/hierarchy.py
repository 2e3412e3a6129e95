"""Heading levels of Unstructured ``Title`` elements, and a hierarchy that may be broken."""

from __future__ import annotations

import re
import warnings
from collections import Counter

from structaware_readers.errors import InputWarning
from structaware_readers.structure.headings import numbering_style
from structaware_readers.unstructured.records import Record

__all__ = ["Hierarchy"]

_HEADING_TAG = re.compile(r"^\s*<h([1-6])\b", re.IGNORECASE)


class Hierarchy:
    """The ``parent_id`` links of a document's records, with the broken ones set aside."""

    def __init__(self, records: list[Record], source: str):
        counts = Counter(r.element_id for r in records if r.element_id)
        self.by_id = {r.element_id: r for r in records if r.element_id and counts[r.element_id] == 1}
        dangling: Counter[str] = Counter()
        self_parents = duplicates = 0
        for r in records:
            parent = r.md.get("parent_id")
            if not isinstance(parent, str) or not parent:
                continue
            if parent == r.element_id:
                self_parents += 1
            elif counts[parent] > 1:
                duplicates += 1
            elif parent not in self.by_id:
                dangling[parent] += 1
        loops = sum(1 for r in records if self._ancestors(r) is None)
        problems = []
        if dangling:
            problems.append(
                f"{sum(dangling.values())} elements point to {len(dangling)} parent ids that are not in the document"
            )
        if duplicates:
            problems.append(f"{duplicates} elements point to an element_id shared by several elements")
        if self_parents:
            problems.append(f"{self_parents} elements are their own parent")
        if loops - self_parents > 0:
            problems.append(f"{loops - self_parents} elements sit in a parent_id loop")
        if problems:
            warnings.warn(
                InputWarning(
                    "; ".join(problems) + ": heading levels come from title order and category_depth there",
                    path=source,
                    field="metadata.parent_id",
                ),
                stacklevel=4,
            )

    def _ancestors(self, r: Record) -> list[Record] | None:
        """The chain of parents of ``r`` while the links resolve; ``None`` when it loops."""
        chain: list[Record] = []
        seen = {id(r)}
        parent = r.md.get("parent_id")
        while isinstance(parent, str) and parent in self.by_id:
            up = self.by_id[parent]
            if id(up) in seen:
                return None
            seen.add(id(up))
            chain.append(up)
            parent = up.md.get("parent_id")
        return chain

    def parser_level(self, r: Record) -> int | None:
        """The level Unstructured itself gives a ``Title``: the ``<hN>`` tag of ``text_as_html``
        (HTML v2 output), else ``category_depth + 1``, else (for an unnumbered title) 1 + the
        number of ``Title`` ancestors when the ``parent_id`` chain is intact and has one; ``None``
        when none of these is known (numbering and title order decide)."""
        html = r.md.get("text_as_html")
        if isinstance(html, str) and (m := _HEADING_TAG.match(html)):
            return int(m.group(1))
        depth = r.md.get("category_depth")
        if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0 and not isinstance(html, str):
            return depth + 1
        if numbering_style(r.text) is not None:
            return None  # numbered: the numbering in context decides, before the parent chain
        parent = r.md.get("parent_id")
        if not isinstance(parent, str) or parent == r.element_id or parent not in self.by_id:
            return None
        chain = self._ancestors(r)
        if chain is None:
            return None
        titles = sum(1 for up in chain if up.type == "Title")
        return 1 + titles if titles else None
