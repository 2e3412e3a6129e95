"""Mermaid flowchart source written from a :class:`~structaware_readers.mermaid.model.Flowchart`
(:func:`to_mermaid`): the inverse of :func:`~structaware_readers.mermaid.parser.parse_mermaid` for
labels and edges."""

from __future__ import annotations

import re

from structaware_readers.mermaid.model import Flowchart

__all__ = ["to_mermaid"]

_PLAIN_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Words Mermaid reads as keywords, never usable as bare node ids.
_RESERVED_IDS = {
    "end",
    "graph",
    "flowchart",
    "subgraph",
    "style",
    "class",
    "classDef",
    "click",
    "linkStyle",
    "direction",
}


def _quote(text: str) -> str:
    return '"' + " ".join(text.split()).replace("#", "#35;").replace('"', "#quot;") + '"'


def to_mermaid(chart: Flowchart) -> str:
    """Mermaid flowchart source for ``chart``: a front-matter title when it has one, the direction,
    one line per node (its label quoted, ``"`` and ``#`` written as Mermaid entities) and one per edge
    (``A -->|"label"| B``, open links as ``---``). Node ids that are not plain identifiers (``"16"``,
    ``"Box 2"``) become ``n<position>``. :func:`parse_mermaid` reads the result back to the same
    labels and edges (subgraphs and link strokes are not written)."""
    ids: dict[str, str] = {}
    for i, node in enumerate([*chart.nodes, *(e for edge in chart.edges for e in (edge.source, edge.target))]):
        if node not in ids:
            plain = _PLAIN_ID.fullmatch(node) is not None and node not in _RESERVED_IDS
            ids[node] = node if plain else f"n{i}"
    lines = []
    if chart.title:
        lines += ["---", f"title: {_quote(chart.title)}", "---"]
    lines.append(f"flowchart {chart.direction or 'TB'}")
    for node, mid in ids.items():
        lines.append(f"    {mid}[{_quote(chart.label(node))}]")
    for edge in chart.edges:
        link = "---" if edge.head == "open" else "-->"
        label = f"|{_quote(edge.label)}|" if edge.label else ""
        lines.append(f"    {ids[edge.source]} {link}{label} {ids[edge.target]}")
    return "\n".join(lines) + "\n"
