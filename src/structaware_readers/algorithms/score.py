"""Edges of a flowchart read from an image, scored against the same algorithm's text description.

A box read from the image is the described box whose text is most alike after normalising
(``Box N:`` prefix dropped, lowercase, letters and digits only, so that OCR's lost or added spaces
do not count), when the ``difflib`` ratio reaches ``min_ratio``; a printed box number equal to a
described number breaks ties between boxes of the same text. A read edge is right when its two
boxes are the two boxes of a described edge and its label equals the described one (case and spaces
aside); ``right_ignoring_labels`` counts the pairs alone.

Source: issue 22's acceptance (edge precision and recall against the alternative-text appendices,
box texts matched after normalising, counted per module).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from structaware_readers.mermaid import Flowchart

__all__ = ["EdgeScore", "normalise_box_text", "score_edges"]

_BOX_PREFIX = re.compile(r"^Box\s+\d+:\s*")


def normalise_box_text(text: str) -> str:
    """``"Box 4: Obtain office blood pressure (see Sidebar 1)"`` -> ``"obtainofficebloodpressureseesidebar1"``."""
    return "".join(ch for ch in _BOX_PREFIX.sub("", text).lower() if ch.isalnum())


@dataclass
class EdgeScore:
    """Counts of one comparison; ``wrong`` and ``missed`` list edges as ``"src -(label)-> dst"``."""

    read: int = 0
    described: int = 0
    right: int = 0
    right_ignoring_labels: int = 0
    boxes_matched: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.right / self.read if self.read else 0.0

    @property
    def recall(self) -> float:
        return self.right / self.described if self.described else 0.0


def _match(read: Flowchart, described: Flowchart, min_ratio: float) -> dict[str, str]:
    truth = {node: normalise_box_text(label) for node, label in described.nodes.items()}
    out: dict[str, str] = {}
    for node, label in read.nodes.items():
        text = normalise_box_text(label)
        if not text:
            continue
        scored = sorted(((difflib.SequenceMatcher(None, text, t).ratio(), k) for k, t in truth.items() if t), reverse=True)
        if not scored or scored[0][0] < min_ratio:
            continue
        best = [k for r, k in scored if r >= scored[0][0] - 0.02]
        out[node] = node if node in best else best[0]
    return out


def _canon(label: str) -> str:
    return " ".join(label.lower().split())


def score_edges(read: Flowchart, described: Flowchart, *, min_ratio: float = 0.8) -> EdgeScore:
    """Score ``read`` (from an image) against ``described`` (from the text description).

    Node ids of ``described`` are box numbers; ids of ``read`` are box numbers where the image
    prints them, else anything.
    """
    mapping = _match(read, described, min_ratio)
    truth = {(e.source, e.target): _canon(e.label) for e in described.edges}
    score = EdgeScore(read=len(read.edges), described=len(described.edges), boxes_matched=len(set(mapping.values())))
    found: set[tuple[str | None, str | None]] = set()
    for e in read.edges:
        pair = (mapping.get(e.source), mapping.get(e.target))
        found.add(pair)
        if pair in truth:
            score.right_ignoring_labels += 1
            if truth[pair] == _canon(e.label):
                score.right += 1
                continue
        score.wrong.append(f"{pair[0] or e.source} -({e.label})-> {pair[1] or e.target}")
    score.missed = [f"{s} -({lbl})-> {t}" for (s, t), lbl in truth.items() if (s, t) not in found]
    return score
