"""Every development set in one command: the figures each change is judged on.

Runs the evaluation harness (:func:`structaware_retrievers.evaluation.harness.run_eval`, paper
sections 3.3-4.4) on the development sets in ``../shared/bench`` and prints one summary table of
all of them, so a change is judged on clinical guidelines (English and Chinese) and filings at once:

==============  ====================================================================  ===========
set             questions / documents                                                  parse
==============  ====================================================================  ===========
``cpg``         ``cpg/questions/vadod_dev.jsonl`` (100; 10 VA/DoD guidelines)          flash zips + PDFs
``cpg_zh``      ``cpg_zh/questions/zh_dev.jsonl`` (25; 7 Chinese guidelines, 1 scan)  PDFs (product route)
``multi_cpg``   ``multi_cpg/questions/multi_dev.jsonl`` (70; 7 guidelines, 7 publishers) flash zips + PDFs
``ohr``         ``finance/questions/ohrbench_finance.jsonl`` (470; 6 filings)          flash zips + PDFs
``financebench````finance/questions/financebench.jsonl`` (109; 54 filings)             flash zips + PDFs
==============  ====================================================================  ===========

Every set is searched in corpus scope (the whole index of the set). One embedding cache
(``--cache-dir``, default ``<out>/cache``) is shared by all sets and runs, so a rerun embeds only
texts it has not seen; each set's index folder (``<out>/idx_<set>``) is rebuilt on every run.

Outputs in ``--out``: ``<set>.json`` (:meth:`EvalResult.to_json`, per-question ranks included),
``<set>.txt`` (the harness's full report) and ``summary.md`` (the table below, Markdown), which is
also printed. Summary columns: PH@1, PH@5, EH@5 (element hit), EvH@5 (evidence text in a top-5
unit), MRR_p, Ctx (mean characters of the top 5), per set x retriever x method, then PH@5 per
evidence type, and for ``cpg_zh`` scanned and born-digital questions apart.

Run::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/devsets.py --out /tmp/devsets/before \
        [--sets cpg cpg_zh multi_cpg ohr financebench] [--methods struct flat] [--retrievers bm25 dense hybrid] \
        [--shared ../shared] [--cache-dir DIR] [--exact]

``--exact`` searches exactly instead of through the HNSW graph (:func:`exact_search`): two builds of
the same units then give the same ranks (approximate search orders near-identical table rows
differently from one build to the next: up to 9 OHR-Bench questions at rank 1), so a change is
compared with its base question by question.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

SETS: dict[str, dict[str, str | None]] = {
    "cpg": {"questions": "cpg/questions/vadod_dev.jsonl", "docs": "cpg/pdfs", "parsed": "cpg/mineru-4.0.12-flash"},
    "cpg_zh": {"questions": "cpg_zh/questions/zh_dev.jsonl", "docs": "cpg_zh/pdfs", "parsed": None},
    "multi_cpg": {
        "questions": "multi_cpg/questions/multi_dev.jsonl",
        "docs": "multi_cpg/pdfs",
        "parsed": "multi_cpg/mineru-4.0.12-flash",
    },
    "ohr": {
        "questions": "finance/questions/ohrbench_finance.jsonl",
        "docs": "finance/pdfs",
        "parsed": "finance/mineru-4.0.12-flash",
    },
    "financebench": {
        "questions": "finance/questions/financebench.jsonl",
        "docs": "finance/pdfs",
        "parsed": "finance/mineru-4.0.12-flash",
    },
}
_COLS = ("PH@1", "PH@5", "EH@5", "EvH@5", "MRR_p")


def _fmt(v: Any) -> str:
    return "N/A" if v is None else f"{v:.3f}"


def _machine() -> str:
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = (float("nan"),) * 3
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "?"
    return (
        f"commit {rev}, {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load average {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} at the end, "
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
    )


def _subset_rows(name: str, result: Any, qmeta: dict[str, dict[str, Any]]) -> list[str]:
    """PH@5 per evidence type (and, for questions with a ``scanned`` field, scanned vs not)."""
    from structaware_retrievers.evaluation.metrics import summarize

    rows = []
    for (scope, retriever, method), outs in sorted(result.outcomes.items()):
        if scope != "corpus":
            continue
        groups: dict[str, list[Any]] = {}
        for o in outs:
            groups.setdefault(o.evidence_type, []).append(o)
            if "scanned" in qmeta.get(o.qid, {}):
                groups.setdefault("scanned" if qmeta[o.qid]["scanned"] else "text layer", []).append(o)
        cells = []
        for g in sorted(groups):
            s = summarize(groups[g], ks=(5,), element_addressable=result.element_addressable.get(method, False))
            cells.append(f"{g} {_fmt(s.get('PH@5'))} (n={len(groups[g])})")
        rows.append(f"| {name} | {retriever} | {method} | " + "; ".join(cells) + " |")
    return rows


def exact_search() -> None:
    """Make every Qdrant Edge search of this process exact (``SearchParams(exact=True)`` in each
    prefetch and plain query, unless the caller gives other params): no approximate-HNSW ordering,
    so two commits compare question by question (points of equal score come in the store's own order,
    the same for two builds of the same units once optimised: the harness optimises each index).
    Evaluation only: the product keeps HNSW search."""
    import qdrant_edge as E

    def exact(cls: Any) -> Any:
        def make(*args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("params", E.SearchParams(exact=True))
            return cls(*args, **kwargs)

        return make

    E.Prefetch, E.QueryRequest = exact(E.Prefetch), exact(E.QueryRequest)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for indexes, JSON and the summary")
    ap.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    ap.add_argument("--methods", nargs="+", default=["struct", "flat"])
    ap.add_argument("--retrievers", nargs="+", default=["bm25", "dense", "hybrid"])
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared")
    ap.add_argument("--cache-dir", type=Path, default=None, help="embedding cache shared by every set and run")
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument(
        "--exact", action="store_true", help="exact search instead of HNSW (runs comparable question by question)"
    )
    ap.add_argument(
        "--no-rerank", action="store_true", help="hybrid search in the fused order (without the default second stage)"
    )
    args = ap.parse_args(argv)
    if args.exact:
        exact_search()

    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.evaluation.harness import run_eval
    from structaware_retrievers.evaluation.questions import load_questions
    from structaware_retrievers.evaluation.searchers import NoDenseEncoder

    bench = (args.shared / "bench").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    cache_dir = args.cache_dir or args.out / "cache"
    cache_dir.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(cache_dir / "embeddings.sqlite")
    # a BM25-only run embeds nothing with the dense model (the harness's own rule, default_encoders)
    bm25_only = all(r == "bm25" for r in args.retrievers)
    dense = NoDenseEncoder(cache=cache) if bm25_only else DenseEncoder(cache=cache)
    sparse = SparseEncoder(cache=cache)
    lines = [
        "| set | retriever | method | n | PH@1 | PH@5 | EH@5 | EvH@5 | MRR_p | Ctx |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_type = ["| set | retriever | method | PH@5 by question kind |", "|---|---|---|---|"]
    for name in args.sets:
        spec = SETS[name]
        qpath = bench / str(spec["questions"])
        idx = args.out / f"idx_{name}"
        shutil.rmtree(idx, ignore_errors=True)
        t0 = time.perf_counter()
        print(f"== {name}: {qpath}", flush=True)
        result = run_eval(
            qpath,
            bench / str(spec["docs"]),
            parsed=bench / str(spec["parsed"]) if spec["parsed"] else None,
            methods=args.methods,
            retrievers=args.retrievers,
            scopes=["corpus"],
            index_dir=idx,
            json_out=args.out / f"{name}.json",
            resamples=args.resamples,
            dense=dense,
            sparse=sparse,
            log=lambda m, _n=name: print(f"[{_n}] {m}", flush=True),
            rerank=False if args.no_rerank else None,
        )
        (args.out / f"{name}.txt").write_text(result.render(), encoding="utf-8")
        qmeta = {q.qid: q.extra for q in load_questions(qpath)}
        summ = result.summaries().get("corpus", {})
        for retriever, by_method in summ.items():
            for method, by_subset in by_method.items():
                s = by_subset["all"]
                lines.append(
                    f"| {name} | {retriever} | {method} | {s.get('n')} | "
                    + " | ".join(_fmt(s.get(c)) for c in _COLS)
                    + f" | {s.get('Ctx', 0):,.0f} |"
                )
        by_type += _subset_rows(name, result, qmeta)
        print(f"== {name}: done in {time.perf_counter() - t0:.0f} s", flush=True)
    cache.close()
    text = "\n".join([f"Dev sets, corpus scope ({_machine()}):", "", *lines, "", *by_type, ""])
    (args.out / "summary.md").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
