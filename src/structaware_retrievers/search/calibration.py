"""Calibrated relevance: one score per hit that means the same from question to question.

A fused score is built from ranks, so every question's best hit scores alike, on topic or not.
Relevance is read instead from two absolute signals of the unit: ``cos``, the cosine of its dense
vector with the question's, and ``cov``, the IDF-weighted share of the question's BM25 terms it
holds. ``raw = cos + COVERAGE_WEIGHT * cov + FULL_COVERAGE_WEIGHT * max(0, cov - 0.5)`` (plus
:data:`CJK_OFFSET` for a CJK question) is mapped to [0, 1] by a logistic around :data:`BOUNDARY`;
without a dense vector the coverage alone is mapped around :data:`COVERAGE_ONLY_BOUNDARY`.
:data:`DEFAULT_MIN_SCORE` (0.5) means "not in this library". The constants were fitted with the
default dense model (``benchmarks/calibration.py``); another model needs its own ``min_score``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from structaware_retrievers.encoders.sparse import SparseVector
from structaware_retrievers.encoders.tokenize import cjk_share
from structaware_retrievers.query.fusion import DEFAULT_MIN_SCORE

if TYPE_CHECKING:
    from structaware_retrievers.encoders.sparse import SparseVector
    from structaware_retrievers.store.base import VectorStore

__all__ = [
    "BOUNDARY",
    "CJK_OFFSET",
    "COVERAGE_ONLY_BOUNDARY",
    "COVERAGE_WEIGHT",
    "FULL_COVERAGE_WEIGHT",
    "DEFAULT_MIN_SCORE",
    "SCALE",
    "relevance",
    "relevances",
    "term_idfs",
]

#: weight of the IDF-weighted term coverage beside the cosine
COVERAGE_WEIGHT = 0.2
#: weight of the coverage above one half (a unit holding most of the question's weighted terms)
FULL_COVERAGE_WEIGHT = 0.6
#: added to ``raw`` for a question mostly in Chinese/Japanese/Korean (share of letters >= 0.3)
CJK_OFFSET = 0.08
#: the ``raw`` value that maps to relevance 0.5
BOUNDARY = 0.385
#: the ``cov`` value that maps to relevance 0.5 when the question has no dense vector: the coverage
#: alone tells off-topic questions poorly (at 0.21, 97% of the development gold hits kept and 35% of
#: the off-topic questions without a hit), so the bar is set for recall (99.5% kept, 10%)
COVERAGE_ONLY_BOUNDARY = 0.12
#: width of the logistic map (``raw`` one SCALE above the boundary: relevance 0.73)
SCALE = 0.05
#: a question is searched by the multilingual half when this share of its letters is CJK
_CJK_QUERY_SHARE = 0.3


def relevance(cos: float | None, cov: float, *, cjk: bool) -> float:
    """The relevance in [0, 1] of one unit from its cosine (``None``: no dense vector) and its
    IDF-weighted coverage of the question's terms (0..1), by the formula of the module docstring."""
    if cos is None:
        z = (cov - COVERAGE_ONLY_BOUNDARY) / SCALE
    else:
        raw = cos + COVERAGE_WEIGHT * cov + FULL_COVERAGE_WEIGHT * max(0.0, cov - 0.5)
        z = (raw + (CJK_OFFSET if cjk else 0.0) - BOUNDARY) / SCALE
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def term_idfs(store: VectorStore, terms: Sequence[int]) -> dict[int, float]:
    """The IDF Qdrant gives each BM25 term id in the collection. A term no point holds gets the
    IDF of ``n = 0``, ``ln(2 N + 2)``; for another, one BM25 search of that term alone reads it from
    its best point (the score there is ``idf * tf weight``, the weight read from the point's vector)."""
    found: dict[int, tuple[str, float]] = {}
    for t in dict.fromkeys(terms):
        top = store.query(dense=None, sparse=SparseVector([t], [1.0]), limit=1, mode="sparse")
        if top:
            found[t] = (top[0].id, top[0].score)
    weights = {
        (r.id, t): w
        for r in store.retrieve(sorted({i for i, _ in found.values()}), with_vectors=True)
        if r.sparse is not None
        for t, w in zip(r.sparse.indices, r.sparse.values)
    }
    unseen = math.log(2 * store.count() + 2)
    out = {}
    for t in dict.fromkeys(terms):
        w = weights.get((found[t][0], t)) if t in found else None
        out[t] = found[t][1] / w if t in found and w else unseen
    return out


def relevances(
    store: VectorStore,
    text: str,
    dense: Sequence[float] | None,
    sparse: SparseVector | None,
    ids: Sequence[str],
    idfs: Mapping[int, float] | None = None,
) -> dict[str, float]:
    """The relevance of each point of ``ids`` (missing points are left out) to the question ``text``
    whose dense vector (``None``: none) and BM25 vector (``None`` or no terms: coverage 0) are given.

    Reads the points' vectors and each query term's IDF (:func:`term_idfs`) from ``store``; ``idfs``
    holds IDFs already read for this question (by term id), which are not read again.
    """
    ids = list(dict.fromkeys(ids))
    if not ids:
        return {}
    terms = list(sparse.indices) if sparse is not None else []
    known = dict(idfs or {})
    missing = [t for t in terms if t not in known]
    idfs = {**known, **(term_idfs(store, missing) if missing else {})}
    idfs = {t: idfs[t] for t in terms}
    total = sum(idfs.values())
    qnorm = math.sqrt(sum(x * x for x in dense)) if dense is not None else 0.0
    cjk = cjk_share(text) >= _CJK_QUERY_SHARE
    out: dict[str, float] = {}
    for r in store.retrieve(ids, with_vectors=True):
        held = set(r.sparse.indices) if r.sparse is not None else set()
        cov = sum(w for t, w in idfs.items() if t in held) / total if total else 0.0
        cos = None
        if dense is not None and r.dense is not None and qnorm:
            vnorm = math.sqrt(sum(x * x for x in r.dense)) or 1.0
            cos = sum(a * b for a, b in zip(dense, r.dense)) / (qnorm * vnorm)
        out[r.id] = relevance(cos, cov, cjk=cjk)
    return out
