"""How well ``min_score`` separates "not in this library" from an answer: off-topic questions against
the development sets' indexes, and the gold hits of the development questions.

For each set given (an index built by ``benchmarks/devsets.py``: ``<out>/idx_<set>/struct``,
collection ``eval_struct``), every development question is searched with the product's defaults
but ``min_score=0`` (each hit keeps its calibrated ``SearchHit.relevance``), and its gold hit is the
best-ranked of the top 5 hits on a gold page of its document (the harness's page hit; questions
without one are left out). Every question of ``benchmarks/offtopic_questions.jsonl`` (20 English, 20
Chinese: other specialties and everyday topics) is searched in every index; its score is the best
relevance of any of its hits in any index, as if one index held every guideline.

For each threshold it prints the share of off-topic questions with no hit at or above it and the
share of development questions whose gold hit is at or above it, and writes the per-question
relevances as JSON (``--out``)::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/calibration.py \\
        --index cpg=/tmp/devsets/idx_cpg cpg_zh=/tmp/devsets/idx_cpg_zh multi_cpg=/tmp/devsets/idx_multi_cpg \\
        [--every ohr=3] [--shared ../shared] [--out calibration.json]

``--every SET=N`` searches every N-th question of a large set only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

QUESTIONS = {
    "cpg": "cpg/questions/vadod_dev.jsonl",
    "cpg_zh": "cpg_zh/questions/zh_dev.jsonl",
    "multi_cpg": "multi_cpg/questions/multi_dev.jsonl",
    "ohr": "finance/questions/ohrbench_finance.jsonl",
}
OFFTOPIC = Path(__file__).with_name("offtopic_questions.jsonl")
THRESHOLDS = (0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)


def gold_relevance(hits: list[Any], doc_id: str, gold_pages: set[int]) -> float | None:
    """The relevance of the best-ranked hit of the top 5 on a gold page of ``doc_id`` (``None``: none)."""
    from structaware_retrievers.search.evidence import hit_unit

    for h in sorted(hits, key=lambda h: h.rank)[:5]:
        u = hit_unit(h)
        if u.doc_id == doc_id and gold_pages.intersection(u.pages):
            return h.relevance
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", nargs="+", required=True, help="SET=FOLDER (devsets.py's idx_<set>)")
    ap.add_argument("--every", nargs="*", default=[], help="SET=N: every N-th question of SET")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    from structaware_retrievers.encoders import DenseEncoder, SparseEncoder
    from structaware_retrievers.evaluation.questions import load_questions
    from structaware_retrievers.index.structure_index import StructureIndex
    from structaware_retrievers.query.fusion import DEFAULT_MIN_SCORE

    every = {k: int(v) for k, v in (e.split("=", 1) for e in args.every)}
    off = [json.loads(line) for line in OFFTOPIC.read_text(encoding="utf-8").splitlines() if line.strip()]
    dense, sparse = DenseEncoder(), SparseEncoder()
    dev: list[dict[str, Any]] = []
    off_best = {o["qid"]: 0.0 for o in off}
    seconds, searches = 0.0, 0
    for spec in args.index:
        name, folder = spec.split("=", 1)
        idx = StructureIndex(Path(folder) / "struct", collection="eval_struct", dense=dense, sparse=sparse)
        docs = {Path(d["source"]).stem: d["doc_id"] for d in idx.documents()}
        qs = load_questions(args.shared / "bench" / QUESTIONS[name])[:: every.get(name, 1)]
        for q in qs:
            t0 = time.perf_counter()
            hits = idx.query(q.question, k=5, min_score=0)
            seconds, searches = seconds + time.perf_counter() - t0, searches + 1
            rel = gold_relevance(hits, docs.get(q.doc_stem, ""), set(q.gold_pages))
            dev.append({"set": name, "qid": q.qid, "gold_relevance": rel})
        for o in off:
            hits = idx.query(o["question"], k=5, min_score=0)
            off_best[o["qid"]] = max([off_best[o["qid"]], *(h.relevance or 0.0 for h in hits)])
        idx.close()
        print(f"{name}: {len(qs)} questions", file=sys.stderr, flush=True)
    found = [d["gold_relevance"] for d in dev if d["gold_relevance"] is not None]
    sets = sorted({d["set"] for d in dev})
    lines = [
        (
            f"{len(off)} off-topic questions, {len(found)} development questions with a gold hit in the top 5"
            f" (of {len(dev)}); {1000 * seconds / max(searches, 1):.0f} ms a search"
        ),
        "",
        "| min_score | off-topic: no hit at or above | dev: gold hit kept | "
        + " | ".join(f"{s} kept" for s in sets)
        + " |",
        "|---:|---:|---:|" + "---:|" * len(sets),
    ]
    for t in sorted({*THRESHOLDS, DEFAULT_MIN_SCORE}):
        rejected = sum(v < t for v in off_best.values()) / len(off_best)
        kept = sum(v >= t for v in found) / max(len(found), 1)
        per = []
        for s in sets:
            vs = [d["gold_relevance"] for d in dev if d["set"] == s and d["gold_relevance"] is not None]
            per.append(f"{sum(v >= t for v in vs) / max(len(vs), 1):.3f}")
        mark = " (default)" if t == DEFAULT_MIN_SCORE else ""
        lines.append(f"| {t:g}{mark} | {rejected:.3f} | {kept:.3f} | " + " | ".join(per) + " |")
    print("\n".join(lines))
    if args.out:
        args.out.write_text(
            json.dumps({"dev": dev, "offtopic": off_best}, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
