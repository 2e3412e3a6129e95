"""Dense models and fusion weights judged offline on every development set at once.

Two phases, so that each text is embedded once per model and any number of fusions cost no model:

``lists``
    For each set (``benchmarks/devsets.py``'s :data:`SETS`): load the question documents, build the
    structure-aware units, search every question with BM25 in a real Qdrant Edge index (sparse
    vectors with ``Modifier.IDF``, the engine's own BM25) and keep its top ``--depth`` unit ids; embed
    every distinct unit text with each ``--models`` preset (through :class:`DenseEncoder` and the
    shared :class:`EmbeddingCache`, keyed by model id and content hash) and keep each question's
    cosine with every unit (exact search, as the engine does below its indexing threshold and
    close to what HNSW returns above it). Written to ``<out>/<set>.lists.pkl`` (units, BM25 lists) and
    ``<out>/<set>.dense.<model>.pkl`` (cosines, embedding seconds), so models can be run apart.

``fuse``
    Re-rank each question offline for every fusion in the grid with Qdrant's weighted RRF,
    ``sum_i 1 / (r_i / w_i + k - 1)`` over the prefetches (``r_i`` the 1-based rank in prefetch
    ``i``, cut at ``--prefetch``; the dense weight times 1.001 as in ``store/base.py``), group table
    rows as the index does (:func:`evidence.group_table_rows`, ``DEFAULT_GROUP_SIZE``) and judge the
    top ``--judge-depth`` with the harness's :class:`Judge`. A dense list can be one model's, or a
    *language-aware* one: per query, the cosine of a weighted sum of models chosen by the query's
    CJK share (:func:`encoders.tokenize.cjk_share`), which is what a concatenated vector
    ``[a * m1, b * m2]`` in one named Qdrant vector computes. Prints one table (PH@1, PH@5, EH@5 per
    set) and, per set, how many questions the dense list decides: in hybrid's top 5, not in BM25's
    ("won"), and the reverse ("lost"); the same at rank 1 in brackets.

Run (each phase under ``nice``; lists are reused by later ``fuse`` runs)::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/fusion_sweep.py lists --out /work/devsets/dense-sweep \\
        --cache-dir /work/devsets/cache --sets cpg_zh cpg ohr --models all-MiniLM-L6-v2-int8 use-multilingual-v3
    .venv/bin/python benchmarks/fusion_sweep.py fuse --out /work/devsets/dense-sweep --sets cpg_zh cpg ohr

The offline BM25 figure equals the harness's BM25 run (same engine, same units); offline hybrid
matched the engine within 0.002 PH@5 when this was first done (BENCHMARKS.md, "Fusion").
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from devsets import SETS


def _dense_path(out: Path, name: str, model: str) -> Path:
    return out / f"{name}.dense.{model}.pkl"


def _load_set(name: str, bench: Path) -> tuple[list[Any], dict[str, Any], dict[str, list[Any]]]:
    from structaware_retrievers.evaluation.baselines import METHODS
    from structaware_retrievers.evaluation.harness import load_question_documents
    from structaware_retrievers.evaluation.questions import load_questions

    spec = SETS[name]
    qs = load_questions(bench / str(spec["questions"]))
    textless: dict[str, str] = {}
    docs = load_question_documents(
        qs,
        bench / str(spec["docs"]),
        bench / str(spec["parsed"]) if spec["parsed"] else None,
        textless=textless,
    )
    units = {d.doc_id: METHODS["struct"].build(d) for d in docs.values()}
    return qs, docs, units


def cmd_lists(args: argparse.Namespace) -> None:
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.evaluation.harness import NoDenseEncoder
    from structaware_retrievers.index.structure_index import StructureIndex

    bench = (args.shared / "bench").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    cache = EmbeddingCache(args.cache_dir / "embeddings.sqlite")
    for name in args.sets:
        path = args.out / f"{name}.lists.pkl"
        data: dict[str, Any] = pickle.loads(path.read_bytes()) if path.exists() else {}
        t0 = time.perf_counter()
        if "units" not in data:
            qs, docs, units = _load_set(name, bench)
            all_units = [u for us in units.values() for u in us]
            data.update(questions=qs, docs=docs, units=all_units)
            print(
                f"[{name}] {len(qs)} questions, {len(docs)} documents, {len(all_units)} units"
                f" ({time.perf_counter() - t0:.0f} s)",
                flush=True,
            )
        qs, docs, all_units = data["questions"], data["docs"], data["units"]
        gold_doc = {q.qid: docs[q.doc_stem].doc_id if q.doc_stem in docs else "" for q in qs}
        data["gold_doc"] = gold_doc
        texts = [u.embedding_text() for u in all_units]
        if "bm25" not in data:
            sparse = SparseEncoder(cache=cache)
            with tempfile.TemporaryDirectory(prefix="fusion-sweep-") as tmp:
                index = StructureIndex(Path(tmp), collection="sweep", dense=NoDenseEncoder(cache=cache), sparse=sparse)
                by_doc = {d.doc_id: d for d in docs.values()}
                for doc_id in dict.fromkeys(u.doc_id for u in all_units):
                    index.add_document(by_doc[doc_id], [u for u in all_units if u.doc_id == doc_id])
                pos = {u.unit_id: i for i, u in enumerate(all_units)}
                bm25: dict[str, list[int]] = {}
                for q in qs:
                    if not gold_doc[q.qid] or not sparse.embed_query(q.question).indices:
                        bm25[q.qid] = []
                        continue
                    hits = index.query(
                        q.question, k=args.depth, mode="sparse", group_size=1, prefetch_limit=args.depth, min_score=0
                    )
                    bm25[q.qid] = [pos[h.unit.unit_id] for h in hits]
                index.close()
            data["bm25"] = bm25
            path.write_bytes(pickle.dumps(data))
            print(f"[{name}] BM25 lists ({time.perf_counter() - t0:.0f} s)", flush=True)
        for model in args.models:
            mpath = _dense_path(args.out, name, model)
            if mpath.exists():
                continue
            enc = DenseEncoder(model, cache=cache)
            t1 = time.perf_counter()
            order = sorted(set(texts), key=len)
            for i in range(0, len(order), 512):
                enc.embed_array(order[i : i + 512])
                print(
                    f"[{name}] {model}: {min(i + 512, len(order))}/{len(order)} texts"
                    f" ({enc.computed} computed, {time.perf_counter() - t1:.0f} s)",
                    flush=True,
                )
            mat = enc.embed_array(texts)
            t2 = time.perf_counter()
            qv = np.vstack([np.asarray(enc.embed_query(q.question), dtype=np.float32) for q in qs])
            per_query = (time.perf_counter() - t2) / max(1, len(qs))
            cos = (qv @ mat.T).astype(np.float32)  # (questions, units) cosines
            mpath.write_bytes(
                pickle.dumps({"cos": cos, "computed": enc.computed, "seconds": t2 - t1, "query_seconds": per_query})
            )
            print(f"[{name}] {model}: done ({time.perf_counter() - t1:.0f} s)", flush=True)
    cache.close()


# ----------------------------------------------------------------------------- fusion


def _rrf(lists: Sequence[tuple[Sequence[int], float]], k: int, depth: int) -> list[tuple[int, float]]:
    scores: dict[int, float] = {}
    for ranked, w in lists:
        for r, i in enumerate(ranked[:depth], 1):
            scores[i] = scores.get(i, 0.0) + 1.0 / (r / w + k - 1)
    return sorted(scores.items(), key=lambda t: -t[1])


def _dense_list(data: dict[str, Any], qi: int, mix: dict[str, float], depth: int) -> list[int]:
    s = sum(w * data["dense"][m][qi] for m, w in mix.items() if w)
    top = np.argpartition(-s, min(depth, len(s) - 1))[:depth]
    return [int(i) for i in top[np.argsort(-s[top], kind="stable")]]


def _outcomes(
    data: dict[str, Any], judge: Any, ranked: dict[str, list[tuple[int, float]]], judge_depth: int
) -> dict[str, Any]:
    from structaware_retrievers.index.structure_index import SearchHit
    from structaware_retrievers.query.fusion import DEFAULT_GROUP_SIZE
    from structaware_retrievers.search.evidence import group_table_rows, hit_unit

    units = data["units"]
    out = {}
    for q in data["questions"]:
        got = ranked.get(q.qid, [])
        hits = [SearchHit(unit=units[i], score=s, rank=r) for r, (i, s) in enumerate(got[: max(judge_depth, 100)], 1)]
        hits = group_table_rows(hits, DEFAULT_GROUP_SIZE, judge_depth)
        out[q.qid] = judge.judge(
            q, data["gold_doc"][q.qid], [hit_unit(h) for h in hits], element_addressable=True, budgets=()
        )
    return out


def _summary(outs: dict[str, Any], qids: Sequence[str]) -> dict[str, float]:
    from structaware_retrievers.evaluation.metrics import summarize

    s = summarize([outs[q] for q in qids], ks=(1, 5), depth=20)
    return {"PH@1": s["PH@1"], "PH@5": s["PH@5"], "EH@5": s["EH@5"] or 0.0, "n": len(qids)}


def _hit(o: Any, at: int) -> bool:
    return o.page_rank is not None and o.page_rank <= at


def _designs(models: Sequence[str]) -> list[tuple[str, Any]]:
    """(label, function(cjk query?) -> model mix) for every dense list tried."""
    out: list[tuple[str, Any]] = [(m, (lambda zh, _m=m: {_m: 1.0})) for m in models]
    en = [m for m in models if "MiniLM" in m]
    ml = [m for m in models if m not in en]
    for e, m in itertools.product(en, ml):
        out.append((f"{e}|{m} by language", lambda zh, _e=e, _m=m: {_m: 1.0} if zh else {_e: 1.0}))
        for a in (0.25, 0.5):
            out.append(
                (f"{e}+{a}*{m} (en), {m} (zh)", lambda zh, _e=e, _m=m, _a=a: {_m: 1.0} if zh else {_e: 1.0, _m: _a})
            )
    return out


def cmd_fuse(args: argparse.Namespace) -> None:
    from structaware_retrievers.encoders.tokenize import cjk_share
    from structaware_retrievers.evaluation.judge import Judge

    sets = {}
    for name in args.sets:
        data = pickle.loads((args.out / f"{name}.lists.pkl").read_bytes())
        data["dense"] = {
            p.name[len(f"{name}.dense.") : -len(".pkl")]: pickle.loads(p.read_bytes())["cos"]
            for p in args.out.glob(f"{name}.dense.*.pkl")
        }
        judge = Judge({d.doc_id: d for d in data["docs"].values()})
        zh = {q.qid: cjk_share(q.question) >= 0.3 for q in data["questions"]}
        qids = [q.qid for q in data["questions"] if not (args.text_layer_only and q.extra.get("scanned"))]
        sets[name] = (data, judge, zh, qids)
    models = args.models or sorted(set.union(*(set(d["dense"]) for d, *_ in sets.values())))
    grid_k = args.rrf_k
    grid_w = args.weights
    rows: list[tuple[str, dict[str, dict[str, float]], dict[str, tuple[int, int]]]] = []
    base: dict[str, dict[str, Any]] = {}
    for name, (data, judge, _, _) in sets.items():
        base[name] = _outcomes(
            data, judge, {q: [(i, 0.0) for i in ids] for q, ids in data["bm25"].items()}, args.judge_depth
        )
    rows.append(("BM25", {n: _summary(base[n], s[3]) for n, s in sets.items()}, {}))
    for label, mix_of in _designs(models):
        dense_lists = {}
        for name, (data, _, zh, _) in sets.items():
            try:
                dense_lists[name] = {
                    q.qid: _dense_list(data, qi, mix_of(zh[q.qid]), args.prefetch)
                    for qi, q in enumerate(data["questions"])
                }
            except KeyError:  # a model this set's questions need was not embedded for it
                continue
        outs = {
            n: _outcomes(
                sets[n][0], sets[n][1], {q: [(i, 0.0) for i in ids] for q, ids in dl.items()}, args.judge_depth
            )
            for n, dl in dense_lists.items()
        }
        rows.append((f"dense {label}", {n: _summary(outs[n], sets[n][3]) for n in dense_lists}, {}))
        for k, w in itertools.product(grid_k, grid_w):
            outs = {}
            for name, (data, judge, _, _) in sets.items():
                if name not in dense_lists:
                    continue
                fused = {
                    q.qid: _rrf([(dense_lists[name][q.qid], w * 1.001), (data["bm25"][q.qid], 1.0)], k, args.prefetch)
                    for q in data["questions"]
                }
                outs[name] = _outcomes(data, judge, fused, args.judge_depth)
            moved = {}
            for name, (_, _, _, qids) in sets.items():
                if name not in outs:
                    continue
                moved[name] = tuple(
                    sum(_hit(a[q], at) and not _hit(b[q], at) for q in qids)
                    for at in (5, 1)
                    for a, b in ((outs[name], base[name]), (base[name], outs[name]))
                )
            rows.append((f"hybrid {label} k={k} w={w}", {n: _summary(outs[n], sets[n][3]) for n in outs}, moved))
        print(f"... {label} done", file=sys.stderr, flush=True)
    names = list(sets)
    head = "| fusion | " + " | ".join(f"{n} PH@1 | {n} PH@5 | {n} EH@5 | {n} won/lost @5 (@1)" for n in names) + " |"
    lines = [head, "|---|" + "---:|" * (4 * len(names))]
    for label, per, moved in rows:
        cells = []
        for n in names:
            if n not in per:
                cells += ["", "", "", ""]
                continue
            s = per[n]
            wl = "{}/{} ({}/{})".format(*moved[n]) if n in moved else ""
            cells += [f"{s['PH@1']:.3f}", f"{s['PH@5']:.3f}", f"{s['EH@5']:.3f}", wl]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    n_line = "questions judged: " + ", ".join(f"{n} {per['n']}" for n, per in rows[0][1].items())
    text = "\n".join([n_line, "", *lines, ""])
    (args.out / "fuse.md").write_text(text, encoding="utf-8")
    print(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("lists", "fuse"):
        p = sub.add_parser(name)
        p.add_argument("--out", type=Path, required=True)
        p.add_argument("--sets", nargs="+", default=["cpg_zh", "cpg", "ohr"], choices=list(SETS))
        p.add_argument("--models", nargs="*", default=None)
        p.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[1] / ".." / "shared")
        p.add_argument("--cache-dir", type=Path, default=Path("/work/devsets/cache"))
        p.add_argument("--depth", type=int, default=100, help="BM25 results kept per question")
        p.add_argument(
            "--prefetch", type=int, default=100, help="candidates per list before fusion (the harness uses 100)"
        )
        p.add_argument("--judge-depth", type=int, default=10)
        p.add_argument(
            "--text-layer-only",
            action="store_true",
            help="judge only questions on PDFs with a text layer (before the OCR route, scanned ones were misses)",
        )
        p.add_argument("--rrf-k", type=int, nargs="+", default=[1, 2, 5, 10, 60])
        p.add_argument("--weights", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0])
    args = ap.parse_args(argv)
    if args.cmd == "lists":
        args.models = ["all-MiniLM-L6-v2-int8", "use-multilingual-v3"] if args.models is None else args.models
        cmd_lists(args)
    else:
        cmd_fuse(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
