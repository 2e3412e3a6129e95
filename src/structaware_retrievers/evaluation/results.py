"""What one evaluation run measured: :class:`EvalResult`, made by :func:`.harness.run_eval`,
printed and saved by :mod:`.report` from its JSON form (:meth:`EvalResult.to_json`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from structaware_retrievers.evaluation.metrics import DEFAULT_DEPTH, QueryOutcome, rank_table, summarize_by_type

__all__ = ["EvalResult"]


@dataclass
class EvalResult:
    """Everything one run measured."""

    config: dict[str, Any]
    questions: list[tuple[str, str]]
    outcomes: dict[tuple[str, str, str], list[QueryOutcome]]
    element_addressable: dict[str, bool]
    unit_stats: dict[str, dict[str, float]] = field(default_factory=dict)
    significance: dict[str, Any] = field(default_factory=dict)
    gold_coverage: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def summaries(self) -> dict[str, dict[str, dict[str, dict[str, dict[str, Any]]]]]:
        """``{scope: {retriever: {method: {subset: metrics}}}}``; subsets are ``"all"`` and each
        evidence type (see :func:`.metrics.summarize`)."""
        out: dict[str, Any] = {}
        ks = tuple(self.config.get("ks", (1, 5, 10)))
        depth = int(self.config.get("depth", DEFAULT_DEPTH))
        for (scope, retriever, method), outs in self.outcomes.items():
            out.setdefault(scope, {}).setdefault(retriever, {})[method] = summarize_by_type(
                outs, ks=ks, element_addressable=self.element_addressable.get(method, False), depth=depth
            )
        return out

    def render(self) -> str:
        """The printed report (paper-style Table 2, Table 5, significance, peers):
        :func:`.report.render_result` of :meth:`to_json`."""
        from structaware_retrievers.evaluation.report import render_result

        return render_result(self.to_json())

    def to_json(self) -> dict[str, Any]:
        """JSON-safe dict: config, summaries, significance, unit stats and per-query ranks
        ``per_query[scope][retriever][method][qid] = {"page", "element", "evidence", "ctx"}``."""
        per_query: dict[str, Any] = {}
        for (scope, retriever, method), outs in self.outcomes.items():
            ranks = rank_table(outs)
            for o in outs:
                ranks[o.qid]["ctx"] = o.ctx_chars
            per_query.setdefault(scope, {}).setdefault(retriever, {})[method] = ranks
        return {
            "config": self.config,
            "questions": [{"qid": q, "evidence_type": t} for q, t in self.questions],
            "element_addressable": self.element_addressable,
            "unit_stats": self.unit_stats,
            "gold_coverage": self.gold_coverage,
            "summaries": self.summaries(),
            "significance": self.significance,
            "timings": self.timings,
            "per_query": per_query,
        }
