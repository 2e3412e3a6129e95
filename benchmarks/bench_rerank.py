"""Warm query latency and peak memory of each second-stage setting, on an index built by ``benchmarks/devsets.py``.

Each setting runs in a process of its own (so that its peak RSS is its own): the index opened, ten
questions to warm up, then every question of the set ``--passes`` times at ``k = 5`` with the product's
defaults but ``rerank=``. Prints p50 / p95 query latency (milliseconds, wall clock around
``StructureIndex.query``) and the process's peak RSS (MB) per setting::

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python benchmarks/bench_rerank.py \\
        --index OUT/idx_multi_cpg/struct --questions ../shared/bench/multi_cpg/questions/multi_dev.jsonl

Settings: ``off`` (the fused order), ``no-phrase`` (the stage without its figure-phrase term),
``default`` (the stage as shipped), ``pool30`` (the stage over the first 30 packed hits). No
cross-encoder or late-interaction setting: no package on the registry ships such weights
(docs/benchmarks/rerank.md).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

SETTINGS = ("off", "no-phrase", "default", "pool30")


def _rerank(name: str) -> object:
    from structaware_retrievers.search.rerank import Rerank

    return {"off": False, "no-phrase": Rerank(phrase=0.0), "default": None, "pool30": Rerank(pool=30)}[name]


def run_one(index: Path, collection: str, questions: Path, setting: str, passes: int) -> dict[str, float]:
    """Latencies of one setting in this process: ``{"p50_ms", "p95_ms", "peak_rss_mb", "n"}``."""
    from structaware_retrievers.evaluation.questions import load_questions
    from structaware_retrievers.index.structure_index import StructureIndex

    qs = [q.question for q in load_questions(questions)]
    ix = StructureIndex(index, collection=collection)
    rerank = _rerank(setting)
    for q in qs[:10]:
        ix.query(q, k=5, rerank=rerank)
    times = []
    for _ in range(passes):
        for q in qs:
            start = time.perf_counter()
            ix.query(q, k=5, rerank=rerank)
            times.append((time.perf_counter() - start) * 1000)
    ix.close()
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 1),
        "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "n": len(times),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, required=True, help="index folder (devsets.py: OUT/idx_<set>/struct)")
    ap.add_argument("--collection", default="eval_struct")
    ap.add_argument("--questions", type=Path, required=True, help="JSON-lines questions (the harness's format)")
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--one", choices=SETTINGS, help=argparse.SUPPRESS)  # the child process's setting
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.index, args.collection, args.questions, args.one, args.passes)))
        return 0
    print(f"{'setting':10s} {'p50 ms':>8s} {'p95 ms':>8s} {'peak RSS MB':>12s} {'queries':>8s}")
    for setting in args.settings:
        cmd = [sys.executable, __file__, "--index", str(args.index), "--collection", args.collection]
        cmd += ["--questions", str(args.questions), "--passes", str(args.passes), "--one", setting]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        r = json.loads(out)
        print(f"{setting:10s} {r['p50_ms']:8.1f} {r['p95_ms']:8.1f} {r['peak_rss_mb']:12.1f} {r['n']:8d}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
