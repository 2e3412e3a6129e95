"""Printing a run (:meth:`~.results.EvalResult.to_json` form) as paper-style tables, and writing it as JSON.

Fixed-width plain-text tables: per scope, retriever x method (PH, EH, MRR, EvH, context); per
evidence type; page hits under character budgets; significance against each baseline; peers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from structaware_retrievers.evaluation.baselines import METHODS, REFERENCE_METHOD
from structaware_retrievers.evaluation.significance import format_p

_LABELS = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid", "llamaindex": "LlamaIndex", "langchain": "LangChain"}


def fmt(value: Any, *, chars: bool = False) -> str:
    """A table cell: ``N/A`` for ``None``, thousands separators for characters, else 3 decimals."""
    if value is None:
        return "N/A"
    if chars:
        return f"{value:,.0f}"
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}"


def format_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned first two columns, right-aligned others, two spaces between columns."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    for j, row in enumerate([header, *rows]):
        cells = [str(c).ljust(widths[i]) if i < 2 else str(c).rjust(widths[i]) for i, c in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _label(method: str) -> str:
    m = METHODS.get(method)
    if m:
        return m.label
    return f"{_LABELS[method]} default" if method in _LABELS else method


def _main_table(summ: dict[str, Any], scope: str, subset: str = "all") -> str:
    header = ["Retr.", "Method", "PH@1", "PH@5", "EH@1", "EH@5", "MRR_p", "MRR_e", "EvH@5", "Ctx", "n"]
    rows = []
    for retriever, by_method in summ.get(scope, {}).items():
        if retriever in ("llamaindex", "langchain"):
            continue
        for method, by_subset in by_method.items():
            s = by_subset.get(subset)
            if s is None:
                continue
            rows.append(
                [_LABELS.get(retriever, retriever), _label(method)]
                + [fmt(s.get(k)) for k in ("PH@1", "PH@5", "EH@1", "EH@5", "MRR_p", "MRR_e", "EvH@5")]
                + [fmt(s.get("Ctx"), chars=True), str(s.get("n"))]
            )
    return format_table(header, rows)


def _type_table(summ: dict[str, Any], scope: str) -> str:
    header = ["Retr.", "Method", "Type", "n", "PH@5", "EH@5", "EvH@5", "MRR_p", "MRR_e"]
    rows = []
    for retriever, by_method in summ.get(scope, {}).items():
        for method, by_subset in by_method.items():
            for subset, s in by_subset.items():
                if subset == "all":
                    continue
                rows.append(
                    [_LABELS.get(retriever, retriever), _label(method), subset, str(s["n"])]
                    + [fmt(s.get(k)) for k in ("PH@5", "EH@5", "EvH@5", "MRR_p", "MRR_e")]
                )
    return format_table(header, rows)


def _budget_retriever(summ: dict[str, Any], scope: str) -> str | None:
    """Hybrid as in the paper's Table 5, else the first of our retrievers that ran."""
    ours = [r for r in summ.get(scope, {}) if r in ("bm25", "dense", "hybrid")]
    return "hybrid" if "hybrid" in ours else (ours[0] if ours else None)


def _budget_table(summ: dict[str, Any], scope: str, budgets: Sequence[int], retriever: str) -> str:
    by_method = summ.get(scope, {}).get(retriever)
    if not by_method:
        return ""
    header = ["Method", "Policy"] + [f"{b:,}" for b in budgets]
    rows = []
    for method, by_subset in by_method.items():
        s = by_subset["all"]
        for policy in ("stop", "skip", "pack"):
            if any(f"budget_{policy}@{b}" in s for b in budgets):
                rows.append([_label(method), policy] + [fmt(s.get(f"budget_{policy}@{b}")) for b in budgets])
    return format_table(header, rows)


def _sig_table(sig: dict[str, Any], scope: str, subset: str = "all") -> str:
    header = ["Retr.", "Baseline", "Metric", "Delta", "95% CI", "p boot", "McNemar b/c", "p McN"]
    rows = []
    for retriever, by_base in sig.get(scope, {}).items():
        for base, by_subset in by_base.items():
            res = by_subset.get(subset)
            if not res:
                continue
            for metric, entry in res.items():
                if metric == "n":
                    continue
                bs = entry["bootstrap"]
                mc = entry.get("mcnemar")
                rows.append(
                    [
                        _LABELS.get(retriever, retriever),
                        _label(base),
                        metric,
                        f"{bs['delta']:+.3f}",
                        f"[{bs['ci_low']:+.3f}, {bs['ci_high']:+.3f}]",
                        format_p(bs["p_value"], bs["resamples"]),
                        f"{mc['b']}/{mc['c']}" if mc else "",
                        format_p(mc["p_value"]) if mc else "",
                    ]
                )
    return format_table(header, rows)


def _peer_table(unit_stats: dict[str, Any], summ: dict[str, Any], scope: str) -> str:
    header = ["Pipeline", "Retriever", "PH@1", "PH@5", "MRR_p", "EvH@5", "Ctx", "units", "mean chars"]
    rows = []
    for retriever in ("dense", "hybrid"):
        s = summ.get(scope, {}).get(retriever, {}).get(REFERENCE_METHOD, {}).get("all")
        if s:
            st = unit_stats.get(REFERENCE_METHOD, {})
            rows.append(
                ["structaware (struct)", _LABELS[retriever]]
                + [fmt(s.get(k)) for k in ("PH@1", "PH@5", "MRR_p", "EvH@5")]
                + [fmt(s.get("Ctx"), chars=True), fmt(st.get("units")), fmt(st.get("mean_chars"), chars=True)]
            )
    for peer in ("llamaindex", "langchain"):
        s = summ.get(scope, {}).get(peer, {}).get(peer, {}).get("all")
        if s:
            st = unit_stats.get(peer, {})
            rows.append(
                [_LABELS[peer] + " default", str(st.get("retrieval", ""))]
                + [fmt(s.get(k)) for k in ("PH@1", "PH@5", "MRR_p", "EvH@5")]
                + [fmt(s.get("Ctx"), chars=True), fmt(st.get("units")), fmt(st.get("mean_chars"), chars=True)]
            )
    return format_table(header, rows) if rows else ""


def render_result(data: dict[str, Any]) -> str:
    """All tables of a run as one printable string, from the dict of :meth:`EvalResult.to_json
    <.results.EvalResult.to_json>` (what :meth:`EvalResult.render <.results.EvalResult.render>` prints)."""
    summ = data["summaries"]
    cfg = data["config"]
    unit_stats = data["unit_stats"]
    evidence_types = {q["evidence_type"] for q in data["questions"]}
    out = [
        f"questions: {cfg['questions']}  ({cfg['n_questions']} questions, {cfg['n_documents']} documents)",
        (
            f"depth {cfg['depth']}; Ctx = mean characters (context + text) of the top 5; "
            "EH = element hit via source-element text coverage (>= 0.8 of gold tokens); "
            "EvH = retrieved text covers the gold evidence; N/A = no element addressability"
        ),
    ]
    if data["gold_coverage"]:
        parts = [
            f"{k}: {v['any_block_rate']:.3f} in one block, {v['table_block_rate']:.3f} in one table block (n={v['n']})"
            for k, v in sorted(data["gold_coverage"].items())
        ]
        out.append("gold evidence addressable in the parse -- " + "; ".join(parts))
    stats = ", ".join(
        f"{_label(m)} {int(s['units']):,} units / {s['mean_chars']:,.0f} chars" for m, s in unit_stats.items()
    )
    out.append(f"units (count / mean characters of context + text): {stats}")
    ceil = [(m, s["ceiling"]) for m, s in unit_stats.items() if s.get("ceiling")]
    if ceil:
        subsets = sorted({k for _, c in ceil for k in c}, key=lambda k: (k != "all", k))
        rows = [[_label(m), "", *[fmt(c.get(k)) for k in subsets]] for m, c in ceil]
        out += [
            "",
            "== Evidence ceiling: share of questions whose gold text some unit on a gold page covers ==",
            format_table(["Method", "", *subsets], rows),
        ]
    for scope in cfg["scopes"]:
        if scope not in summ:
            continue
        out += ["", f"== Main results, scope={scope} (Table 2 layout) ==", _main_table(summ, scope)]
        if len(evidence_types) > 1:
            out += ["", f"== By evidence type, scope={scope} ==", _type_table(summ, scope)]
        br = _budget_retriever(summ, scope)
        bt = _budget_table(summ, scope, cfg["budgets"], br) if br else ""
        if bt:
            out += [
                "",
                (
                    f"== Page hit rate under a context budget (characters), {_LABELS[br]}, scope={scope} "
                    "(Table 5 layout; stop: a result that does not fit ends the list, skip: it is skipped; pack: what "
                    "query(budget_chars=B) hands over, table-group rows dropped before hits) =="
                ),
                bt,
            ]
        if data["significance"].get(scope):
            out += [
                "",
                (
                    f"== Struct-aware vs baselines, scope={scope}, all questions "
                    f"(paired bootstrap {cfg['resamples']:,} resamples; exact McNemar) =="
                ),
                _sig_table(data["significance"], scope),
            ]
            types = sorted(evidence_types)
            for t in types if len(types) > 1 else []:
                table = _sig_table(data["significance"], scope, t)
                if table.count("\n") > 1:
                    out += ["", f"== Struct-aware vs baselines, scope={scope}, evidence_type={t} ==", table]
        pt = _peer_table(unit_stats, summ, scope)
        if pt:
            out += ["", f"== Peers (default pipelines, same parsed text and encoders), scope={scope} ==", pt]
    return "\n".join(out)


def write_json(data: dict[str, Any], path: Path) -> None:
    """Write a run's dict (:meth:`EvalResult.to_json <.results.EvalResult.to_json>`) to ``path``
    (UTF-8, indented), creating parent folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")


def _md(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    aligns = ["---" if i < 2 else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(aligns) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def render_markdown(
    data: dict[str, Any],
    *,
    scopes: Sequence[str] | None = None,
    sig_subsets: Sequence[str] | None = None,
    by_type: bool = True,
) -> str:
    """Markdown tables (for BENCHMARKS.md) from a saved run: the dict of :meth:`EvalResult.to_json`
    (``json.load`` of the ``--json`` file). Same tables as :func:`render_result`, significance
    for hybrid retrieval only (BM25 when hybrid did not run), restricted to ``sig_subsets``
    (``"all"`` and/or evidence types; ``None``: every subset); ``by_type=False`` leaves out the
    per-evidence-type table."""
    summ = data["summaries"]
    cfg = data["config"]
    stats = data.get("unit_stats", {})
    out: list[str] = []
    metrics = ("PH@1", "PH@5", "EH@1", "EH@5", "MRR_p", "MRR_e", "EvH@5")
    for scope in scopes or cfg["scopes"]:
        if scope not in summ:
            continue
        rows = []
        for retriever, by_method in summ[scope].items():
            if retriever not in ("bm25", "dense", "hybrid"):
                continue
            for method, by_subset in by_method.items():
                s = by_subset["all"]
                rows.append(
                    [
                        _LABELS[retriever],
                        _label(method),
                        *[fmt(s.get(k)) for k in metrics],
                        fmt(s.get("Ctx"), chars=True),
                    ]
                )
        out += [
            f"**Main results, scope `{scope}`** ({cfg['n_questions']} questions)",
            "",
            _md(["Retr.", "Method", *metrics, "Ctx"], rows),
            "",
        ]
        types = sorted({k for by_m in summ[scope].values() for by_s in by_m.values() for k in by_s if k != "all"})
        if by_type and len(types) > 1:
            rows = []
            for retriever, by_method in summ[scope].items():
                for method, by_subset in by_method.items():
                    cells = []
                    for t in types:
                        s = by_subset.get(t, {})
                        cells += [fmt(s.get("PH@5")), fmt(s.get("EH@5")), fmt(s.get("EvH@5")), fmt(s.get("MRR_p"))]
                    rows.append([_LABELS.get(retriever, retriever), _label(method), *cells])
            header = ["Retr.", "Method"] + [f"{t} {m}" for t in types for m in ("PH@5", "EH@5", "EvH@5", "MRR_p")]
            out += [f"**By evidence type, scope `{scope}`**", "", _md(header, rows), ""]
        br = _budget_retriever(summ, scope)
        if br:
            rows = []
            for method, by_subset in summ[scope][br].items():
                s = by_subset["all"]
                for policy in ("stop", "skip", "pack"):
                    if any(f"budget_{policy}@{b}" in s for b in cfg["budgets"]):
                        rows.append(
                            [_label(method), policy, *[fmt(s.get(f"budget_{policy}@{b}")) for b in cfg["budgets"]]]
                        )
            out += [
                f"**Page hit rate under a context budget, {_LABELS[br]}, scope `{scope}`**",
                "",
                _md(["Method", "Policy", *[f"{b:,}" for b in cfg["budgets"]]], rows),
                "",
            ]
        sig = data.get("significance", {}).get(scope, {})
        for retriever in ("hybrid",) if "hybrid" in sig else tuple(sig)[:1]:
            rows = []
            for base, by_subset in sig[retriever].items():
                for subset, res in by_subset.items():
                    if subset != "all" and len(by_subset) <= 2:  # one evidence type: same as "all"
                        continue
                    if sig_subsets is not None and subset not in sig_subsets:
                        continue
                    for metric, entry in res.items():
                        if metric == "n" or metric not in ("PH@5", "MRR_p", "EH@5", "MRR_e", "EvH@5"):
                            continue
                        bs, mc = entry["bootstrap"], entry.get("mcnemar")
                        rows.append(
                            [
                                _label(base),
                                subset,
                                metric,
                                f"{bs['delta']:+.3f}",
                                format_p(bs["p_value"], bs["resamples"]),
                                f"{mc['b']}/{mc['c']}, {format_p(mc['p_value'])}" if mc else "",
                            ]
                        )
            out += [
                (
                    f"**Struct-aware minus baseline, {_LABELS[retriever]}, scope `{scope}`** "
                    f"(paired bootstrap {cfg['resamples']:,} resamples, two-sided; exact McNemar b/c, p)"
                ),
                "",
                _md(["Baseline", "Subset", "Metric", "Delta", "p boot", "McNemar"], rows),
                "",
            ]
        peers = [(p, summ[scope][p][p]["all"]) for p in ("llamaindex", "langchain") if p in summ[scope]]
        if peers:
            rows = []
            for retriever in ("dense", "hybrid"):
                s = summ[scope].get(retriever, {}).get(REFERENCE_METHOD, {}).get("all")
                if s:
                    rows.append(
                        [
                            "structaware struct",
                            _LABELS[retriever],
                            *[fmt(s.get(k)) for k in ("PH@1", "PH@5", "MRR_p", "EvH@5")],
                            fmt(s.get("Ctx"), chars=True),
                        ]
                    )
            for p, s in peers:
                rows.append(
                    [
                        f"{_LABELS[p]} default",
                        stats.get(p, {}).get("retrieval", ""),
                        *[fmt(s.get(k)) for k in ("PH@1", "PH@5", "MRR_p", "EvH@5")],
                        fmt(s.get("Ctx"), chars=True),
                    ]
                )
            out += [
                f"**Peers, scope `{scope}`**",
                "",
                _md(["Pipeline", "Retr.", "PH@1", "PH@5", "MRR_p", "EvH@5", "Ctx"], rows),
                "",
            ]
    if stats:
        subsets = sorted({k for s in stats.values() for k in s.get("ceiling", {})}, key=lambda k: (k != "all", k))
        rows = [
            [
                _label(m),
                fmt(s.get("units"), chars=True),
                fmt(s.get("mean_chars"), chars=True),
                *[fmt(s.get("ceiling", {}).get(k)) for k in subsets],
            ]
            for m, s in stats.items()
        ]
        out += [
            "**Units and evidence ceiling** (share of questions whose gold text some unit on a gold page covers)",
            "",
            _md(["Method", "Units", "Mean chars", *[f"ceiling {k}" for k in subsets]], rows),
            "",
        ]
    return "\n".join(out)
