"""Edges of a flowchart read from an image, scored against the same algorithm's text description.

A read box is the described box whose normalised text (``Box N:`` dropped, lower case, letters and
digits only) is most alike by ``difflib`` ratio, at least ``min_ratio`` (:data:`NUMBERED_RATIO` when
the printed numbers agree). A read edge is right when its two boxes are a described edge's and its
label matches; ``right_ignoring_labels`` counts the pairs alone. Edge precision and recall are
counted per module.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from structaware_readers.mermaid import Flowchart

__all__ = ["EdgeScore", "match_boxes", "normalise_box_text", "score_edges"]

_BOX_PREFIX = re.compile(r"^Box\s+\d+:\s*")
#: A box whose printed number is a described box's number matches it at this lower text ratio.
NUMBERED_RATIO = 0.5


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


def _similarity(a: str, b: str) -> float:
    """``difflib`` ratio of two normalised texts, or, when higher and the shorter is at least 40%
    of the longer, the ratio of the shorter and the other's start: a description may add to a box what
    the image prints as a footnote (``Is consultation with urology indicated? (see Sidebar 7;
    referral should be made ...)``)."""
    full = difflib.SequenceMatcher(None, a, b).ratio()
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 12 or len(short) < 0.4 * len(long_):
        return full
    return max(full, difflib.SequenceMatcher(None, short, long_[: len(short)]).ratio())


def _numbered_similarity(read: str, described: str) -> float:
    """How alike a numbered box's read text is to the described box of that number: the read text
    against the description's start of its length (the description may go on), never the reverse."""
    if len(read) < 12 or len(read) > len(described):
        return difflib.SequenceMatcher(None, read, described).ratio()
    return difflib.SequenceMatcher(None, read, described[: len(read)]).ratio()


def _match(read: Flowchart, described: Flowchart, min_ratio: float) -> dict[str, str]:
    truth = {node: normalise_box_text(label) for node, label in described.nodes.items()}
    out: dict[str, str] = {}
    for node, label in read.nodes.items():
        text = normalise_box_text(label)
        if not text:
            continue
        scored = sorted(((_similarity(text, t), k) for k, t in truth.items() if t), reverse=True)
        if node in truth and _numbered_similarity(text, truth[node]) >= NUMBERED_RATIO:
            out[node] = node  # the box number printed in the image, its text alike enough
            continue
        if not scored or scored[0][0] < min_ratio:
            continue
        best = [k for r, k in scored if r >= scored[0][0] - 0.02]
        out[node] = node if node in best else best[0]
    return out


def match_boxes(read: Flowchart, described: Flowchart, *, min_ratio: float = 0.8) -> dict[str, str]:
    """Node id of ``read`` (boxes read from an image) -> the node id of ``described`` it is (module
    docstring); boxes matching none are left out, and two read boxes may match one described box."""
    return _match(read, described, min_ratio)


def _canon(label: str) -> str:
    return " ".join(label.lower().split())


def score_edges(read: Flowchart, described: Flowchart, *, min_ratio: float = 0.8) -> EdgeScore:
    """Score ``read`` (from an image) against ``described`` (from the text description).

    Node ids of ``described`` are box numbers; ids of ``read`` are box numbers where the image
    prints them, else anything.
    """
    mapping = match_boxes(read, described, min_ratio=min_ratio)
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
