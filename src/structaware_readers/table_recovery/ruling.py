"""Which drawn rectangles of a PDF page can be cell borders, for pdfplumber's ruled-table finder.

Word processors shade each text line inside a shaded cell with a same-colour, unstroked strip; its
sides would cut the cell into sub-rows or sub-columns. :func:`visible_rules` leaves out an unstroked
filled rectangle lying inside a larger one of the same fill; stroked rectangles, lines and other
fills stay.
"""

from __future__ import annotations

from typing import Any

#: Points a strip may stick out of the rectangle it lies in and still lie inside it.
TOLERANCE = 0.5


def hidden_strips(rects: list[dict[str, Any]]) -> set[int]:
    """Indexes (into ``rects``, pdfplumber rect objects: ``x0``, ``x1``, ``top``, ``bottom`` in points,
    ``fill``, ``stroke``, ``non_stroking_color``) of the rectangles that draw no visible edge (module
    docstring)."""
    by_colour: dict[str, list[int]] = {}
    for i, r in enumerate(rects):
        if r.get("fill"):
            by_colour.setdefault(repr(r.get("non_stroking_color")), []).append(i)
    hidden: set[int] = set()
    for members in by_colour.values():
        if len(members) < 2:
            continue
        area = {i: _area(rects[i]) for i in members}
        largest_first = sorted(members, key=lambda i: -area[i])
        for pos, i in enumerate(largest_first):
            r = rects[i]
            if r.get("stroke"):
                continue
            if any(area[j] > area[i] and _inside(r, rects[j]) for j in largest_first[:pos]):
                hidden.add(i)
    return hidden


def visible_rules(page: Any) -> Any:
    """``page`` (a pdfplumber page or crop) without its hidden strips (:func:`hidden_strips`), as a
    pdfplumber ``FilteredPage`` (same chars, same coordinates); ``page`` itself when it has none."""
    rects = list(page.rects)
    hidden = hidden_strips(rects)
    if not hidden:
        return page
    drop = {id(rects[i]) for i in hidden}
    return page.filter(lambda obj: id(obj) not in drop)


def _area(r: dict[str, Any]) -> float:
    return max(0.0, float(r["x1"]) - float(r["x0"])) * max(0.0, float(r["bottom"]) - float(r["top"]))


def _inside(r: dict[str, Any], outer: dict[str, Any]) -> bool:
    return (
        float(outer["x0"]) <= float(r["x0"]) + TOLERANCE
        and float(outer["x1"]) >= float(r["x1"]) - TOLERANCE
        and float(outer["top"]) <= float(r["top"]) + TOLERANCE
        and float(outer["bottom"]) >= float(r["bottom"]) - TOLERANCE
    )


__all__ = ["hidden_strips", "visible_rules"]
