"""A second stage that re-scores the packed hybrid hits before they are cut to ``k``.

RRF sees only ranks, so a unit BM25 ranks first by a few shared words beats one both signals score
almost as high. The first ``pool`` packed hits are re-ordered by
``(dense * cos / max_cos + bm25 * bm25 / max_bm25 + coverage * cov + phrase * phr) / (sum of the weights)``,
read from the two single-vector lists the fusion already has, the share of the question's terms each
hit covers and the share of the question's figure phrases it prints (``june 30`` ``30 2022``), each
term weighted by its IDF in the collection; a linked unit scores at least as high as the unit it is
placed above.
It only re-orders, so Page Hit@``pool`` is unchanged and each hit keeps the search's ``score``.
No model weights; the weights were chosen on the development sets.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from structaware_readers.errors import MalformedInputError

__all__ = [
    "DEFAULT_RERANK",
    "Rerank",
    "RerankLike",
    "coverage_scores",
    "phrase_scores",
    "rerank_order",
    "resolve_rerank",
]


@dataclass(frozen=True)
class Rerank:
    """Options of the re-scoring stage (weights are relative; any non-negative numbers, not all 0).

    Attributes:
        pool: the first packed hits re-ordered; hits past them keep the fused order, so the first
            ``pool`` hits of a query are the same hits with or without the stage, in another order.
        dense: weight of the dense cosine, divided by the best candidate's.
        bm25: weight of the BM25 score, divided by the best candidate's.
        coverage: weight of the IDF-weighted share of question terms in the unit's context and text.
        phrase: weight of the IDF-weighted share of the question's figure phrases the unit prints
            (:func:`phrase_scores`).
    """

    pool: int = 5
    dense: float = 1.5
    bm25: float = 1.0
    coverage: float = 1.0
    phrase: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.pool, int) or isinstance(self.pool, bool) or self.pool < 2:
            raise MalformedInputError(f"pool must be a whole number >= 2, got {self.pool!r}", field="rerank")
        ws = (self.dense, self.bm25, self.coverage, self.phrase)
        if not all(isinstance(w, (int, float)) and 0 <= w < float("inf") for w in ws) or not any(ws):
            raise MalformedInputError(f"weights must be non-negative numbers, not all 0, got {ws!r}", field="rerank")


#: the stage with its default options
DEFAULT_RERANK = Rerank()
#: what ``rerank=`` accepts: ``None``/``False`` (off), ``True`` (default options) or :class:`Rerank`
RerankLike = Rerank | bool | None


def resolve_rerank(value: RerankLike, mode: str = "hybrid") -> Rerank | None:
    """The options for ``rerank=``: ``None`` -> :data:`DEFAULT_RERANK` for a hybrid search and off for
    a single-vector one (``mode`` ``"dense"`` or ``"sparse"``: that vector's own order), ``False`` -> off,
    ``True`` -> :data:`DEFAULT_RERANK`.

    Raises:
        MalformedInputError: anything else.
    """
    if value is None:
        return DEFAULT_RERANK if mode == "hybrid" else None
    if value is False:
        return None
    if value is True:
        return DEFAULT_RERANK
    if isinstance(value, Rerank):
        return value
    raise MalformedInputError(f"must be True, False, None or a Rerank, got {value!r}", field="rerank")


def coverage_scores(
    query_terms: Sequence[str], unit_terms: Sequence[set[str]], idf: Mapping[str, float] | None = None
) -> list[float]:
    """For each unit, the share of the distinct ``query_terms`` it holds, each term weighted by its
    ``idf``: the term's IDF in the whole collection (what BM25 and the calibration weigh it by; a term
    missing from ``idf`` weighs 0). Without ``idf``, BM25's IDF among the given units,
    ``log(1 + (n - df + 0.5) / (df + 0.5))`` with ``df`` the number of the ``n`` units holding it: among
    a handful of candidates that weight is degenerate (a term every candidate holds, often the question's
    subject, weighs next to nothing). 0.0 for every unit when the query has no term."""
    terms = list(dict.fromkeys(query_terms))
    n = len(unit_terms)
    if idf is not None:
        weights = {t: max(0.0, idf.get(t, 0.0)) for t in terms}
    else:
        weights = {t: math.log(1 + (n - (df := sum(t in u for u in unit_terms)) + 0.5) / (df + 0.5)) for t in terms}
    total = sum(weights.values())
    if not total:
        return [0.0] * n
    return [sum(w for t, w in weights.items() if t in u) / total for u in unit_terms]


def phrase_scores(
    query_terms: Sequence[str], unit_terms: Sequence[Sequence[str]], idf: Mapping[str, float] | None = None
) -> list[float]:
    """For each unit (its terms in reading order), the share of the question's figure phrases it prints:
    pairs of terms adjacent in the question, both in Latin script and one holding a digit (``june 30``,
    ``30 2022``, ``40 mg``), found adjacent among the unit's terms. Each pair weighs the sum of its
    terms' ``idf`` (1.0 each without ``idf``). 0.0 for every unit when the question has no such pair.

    Why: the rows and passages of one filing or guideline often share every word of a question and
    differ by the period or dose printed with them (``June 30, 2022`` against ``June 30, 2023`` and
    ``December 31, 2022``); term coverage does not see which figure goes with which word. Pairs in
    other scripts are left out: a CJK tokenizer's adjacent segments (``2017`` ``版``) are pieces of one
    printed word, which term coverage already counts."""
    terms = list(query_terms)
    pairs = {(a, b) for a, b in zip(terms, terms[1:]) if a != b and _figure_phrase(a, b)}
    weights = {p: (idf.get(p[0], 0.0) + idf.get(p[1], 0.0)) if idf is not None else 2.0 for p in pairs}
    total = sum(weights.values())
    if not total:
        return [0.0] * len(unit_terms)
    out = []
    for toks in unit_terms:
        printed = set(zip(toks, toks[1:]))
        out.append(sum(w for p, w in weights.items() if p in printed) / total)
    return out


def _figure_phrase(a: str, b: str) -> bool:
    """Two Latin-script terms, one of them holding a digit."""
    pair = a + b
    return pair.isascii() and any(ch.isdigit() for ch in pair)


def rerank_order(
    query_terms: Sequence[str],
    texts: Sequence[str],
    dense: Sequence[float | None],
    bm25: Sequence[float | None],
    tokenize: Callable[[str], list[str]],
    options: Rerank = DEFAULT_RERANK,
    idf: Mapping[str, float] | None = None,
) -> list[tuple[int, float]]:
    """``(index, score)`` of the candidates, best first, by the formula of the module docstring.

    Args:
        query_terms: the question's BM25 terms (the sparse encoder's tokens).
        texts: each candidate's ``context + "\\n" + text``.
        dense, bm25: each candidate's cosine and BM25 score; ``None`` where the search did not score
            it (no dense vector for the query, or no shared term): counted as the lowest score given.
        tokenize: the sparse encoder's tokenizer (the terms the question is matched on).
        options: the weights.
        idf: each query term's IDF in the collection (:func:`coverage_scores`, :func:`phrase_scores`);
            ``None``: coverage weighs terms among the candidates, a phrase's terms weigh 1.0 each.

    Ties keep the fused order (the input order).
    """
    n = len(texts)
    terms = [tokenize(t) for t in texts] if options.coverage or options.phrase else [[] for _ in texts]
    cov = coverage_scores(query_terms, [set(t) for t in terms], idf) if options.coverage else [0.0] * n
    phr = phrase_scores(query_terms, terms, idf) if options.phrase else [0.0] * n
    parts = [_relative(dense), _relative(bm25)]
    w = (options.dense, options.bm25, options.coverage, options.phrase)
    total = sum(w)
    scores = [(w[0] * parts[0][i] + w[1] * parts[1][i] + w[2] * cov[i] + w[3] * phr[i]) / total for i in range(n)]
    return sorted(enumerate(scores), key=lambda p: (-p[1], p[0]))


def _relative(scores: Sequence[float | None]) -> list[float]:
    """Each score divided by the best (missing ones take the lowest given); all 0.0 when there is no
    positive score (a search that did not run, or scored nothing)."""
    given = [s for s in scores if s is not None]
    if not given or max(given) <= 0:
        return [0.0] * len(scores)
    low, top = min(given), max(given)
    return [max(0.0, (s if s is not None else low) / top) for s in scores]
