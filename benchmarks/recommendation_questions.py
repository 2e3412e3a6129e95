"""Recommendation questions of a development set: does the gold come back as a graded recommendation?

For each ``recommendation`` question of a set (``benchmarks/devsets.py`` names them), asked of the
struct-aware index a ``devsets.py`` run left in ``<out>/idx_<set>`` (default hybrid search, top 5),
prints whether a top-5 hit is a ``recommendation`` unit whose context + text covers the gold text
(the harness's evidence test, :func:`structaware_retrievers.evaluation.metrics.covers`), and that
unit's grade: system, grade, strength, certainty. The question's ``answer`` is printed beside it, to
be read: whether the grade is the right one is judged by a person from the answer's wording.

Run (after ``devsets.py --out OUT --sets multi_cpg``)::

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/recommendation_questions.py --out OUT --set multi_cpg \\
        [--shared ../shared] [--cache-dir OUT/cache]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the output folder of a devsets.py run")
    ap.add_argument("--set", default="multi_cpg")
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared")
    ap.add_argument("--cache-dir", type=Path, default=None, help="embedding cache folder (default <out>/cache)")
    args = ap.parse_args(argv)

    from devsets import SETS  # the set's question file, as the run read it
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.evaluation.metrics import covers, token_counts
    from structaware_retrievers.evaluation.questions import load_questions
    from structaware_retrievers.evaluation.searchers import MethodSearcher, open_method_index

    qpath = args.shared / "bench" / str(SETS[args.set]["questions"])
    questions = [json.loads(line) for line in qpath.read_text(encoding="utf-8").splitlines() if line.strip()]
    gold_texts = {q.qid: q.gold_texts for q in load_questions(qpath)}
    cache = EmbeddingCache((args.cache_dir or args.out / "cache") / "embeddings.sqlite")
    index = open_method_index(
        "struct", args.out / f"idx_{args.set}", DenseEncoder(cache=cache), SparseEncoder(cache=cache), print
    )
    searcher = MethodSearcher(index)
    found = graded = n = 0
    for q in questions:
        if q.get("evidence_type") != "recommendation":
            continue
        n += 1
        units = searcher.search(q["question"], k=5, mode="hybrid", doc_id=None)
        golds = [c for c in (token_counts(t) for t in gold_texts[q["qid"]]) if c]
        hit = next(
            (
                (rank, u)
                for rank, u in enumerate(units, 1)
                if u.unit_type.value == "recommendation" and covers(golds, token_counts(f"{u.context}\n{u.text}"))
            ),
            None,
        )
        if hit is None:
            print(f"{q['qid']}: no recommendation unit with the gold in the top 5 | answer: {q['answer'][:90]}")
            continue
        rank, unit = hit
        found += 1
        g = unit.grade
        graded += g is not None
        grade = f"{g.system} {g.grade} strength={g.strength} certainty={g.certainty}" if g else "no grade"
        print(f"{q['qid']}: rank {rank}, {grade} | answer: {q['answer'][:90]}")
    print(
        f"{args.set}: {found} of {n} recommendation questions have the gold as a recommendation unit in the top 5, {graded} of them graded"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
