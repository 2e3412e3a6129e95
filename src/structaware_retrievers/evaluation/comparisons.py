"""Struct-aware units against each baseline method and each peer pipeline (paper 4.2): paired
tests per scope, retriever and evidence-type subset over the runs' per-question outcomes
(:func:`.significance.paired_bootstrap` for every metric of :data:`TESTED_METRICS`,
:func:`.significance.mcnemar_exact` for the hit metrics)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from structaware_retrievers.evaluation.baselines import REFERENCE_METHOD
from structaware_retrievers.evaluation.metrics import QueryOutcome, metric_vector
from structaware_retrievers.evaluation.significance import mcnemar_exact, paired_bootstrap

__all__ = ["TESTED_METRICS", "compare_outcomes", "peer_significance", "significance_tables"]

#: Metrics compared in the significance tests; hit metrics also get McNemar.
TESTED_METRICS = ("PH@1", "PH@5", "MRR_p", "EH@1", "EH@5", "MRR_e", "EvH@5", "MRR_ev")
_HIT_PREFIXES = ("PH@", "EH@", "EvH@")


def significance_tables(
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]],
    element_addressable: dict[str, bool],
    scopes: Iterable[str],
    retrievers: Iterable[str],
    methods: Sequence[str],
    *,
    resamples: int,
    depth: int,
) -> dict[str, Any]:
    """``{scope: {retriever: {baseline: {subset: comparison}}}}``: the reference method
    (:data:`.baselines.REFERENCE_METHOD`) against every other method of ``methods`` that ran, on all
    questions (``"all"``) and on each evidence type; each comparison is :func:`compare_outcomes`.
    ``{}`` when the reference method did not run."""
    out: dict[str, Any] = {}
    if REFERENCE_METHOD not in methods:
        return out
    for scope in scopes:
        for retriever in retrievers:
            ref = outcomes.get((scope, retriever, REFERENCE_METHOD))
            if ref is None:
                continue
            for base in methods:
                other = outcomes.get((scope, retriever, base))
                if base == REFERENCE_METHOD or other is None:
                    continue
                subsets: dict[str, list[int]] = {"all": list(range(len(ref)))}
                for i, o in enumerate(ref):
                    subsets.setdefault(o.evidence_type, []).append(i)
                res: dict[str, Any] = {}
                for subset, idx in subsets.items():
                    a_out = [ref[i] for i in idx]
                    b_out = [other[i] for i in idx]
                    res[subset] = compare_outcomes(a_out, b_out, element_addressable.get(base, False), resamples, depth)
                out.setdefault(scope, {}).setdefault(retriever, {})[base] = res
    return out


def compare_outcomes(
    a: list[QueryOutcome], b: list[QueryOutcome], b_elements: bool, resamples: int, depth: int
) -> dict[str, Any]:
    """``a`` against ``b`` (the same questions in the same order): ``{"n": len(a), metric:
    {"bootstrap": ..., "mcnemar": ...}}`` for each metric of :data:`TESTED_METRICS` (element metrics
    only when ``b_elements``; element and evidence metrics over the questions with gold text;
    McNemar for hit metrics only)."""
    res: dict[str, Any] = {"n": len(a)}
    for metric in TESTED_METRICS:
        if metric.startswith(("EH", "MRR_e")) and not b_elements:
            continue
        if metric.startswith(("EH", "EvH", "MRR_e")):
            pairs = [(x, y) for x, y in zip(a, b) if x.has_gold_text]
            if not pairs:
                continue
            aa, bb = [p[0] for p in pairs], [p[1] for p in pairs]
        else:
            aa, bb = a, b
        va, vb = metric_vector(aa, metric, depth), metric_vector(bb, metric, depth)
        entry: dict[str, Any] = {"bootstrap": paired_bootstrap(va, vb, resamples=resamples).to_dict()}
        if metric.startswith(_HIT_PREFIXES):
            entry["mcnemar"] = mcnemar_exact(va, vb).to_dict()
        res[metric] = entry
    return res


def peer_significance(
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]], scopes: Iterable[str], resamples: int, depth: int
) -> dict[str, Any]:
    """Struct-aware hybrid against each peer pipeline, per scope (PH@k and MRR_p, EvH)."""
    out: dict[str, Any] = {}
    for scope in scopes:
        ref = outcomes.get((scope, "hybrid", REFERENCE_METHOD))
        if ref is None:
            continue
        for (s, _retriever, method), other in outcomes.items():
            if s != scope or method not in ("llamaindex", "langchain"):
                continue
            out.setdefault(scope, {})[method] = {"all": compare_outcomes(ref, other, False, resamples, depth)}
    return out
