"""Search at library scale (issue 24): hybrid query latency at a million units in the embedded engine.

Synthetic units as in ``bench_store.py`` (1-4 real sentences of the fixture Markdown, English and
Chinese; documents of 100 units; random pages, unit types and grades), **streamed** in batches so a
million never sit in memory at once. Dense vectors are precomputed as there: every pool sentence is
embedded once with the default model (896-d, MiniLM + USE) and a unit's vector is the normalised mean
of its sentences'; the sparse vector is the BM25 encoding of the unit's text from tokens computed once per sentence
(:class:`PoolSparse`). Points are written
with :meth:`EdgeStore.upsert` with the payload ingest writes (:meth:`Unit.to_payload`), then
:meth:`EdgeStore.optimize` builds the HNSW indexes (as ``StructureIndex.ingest`` does at the end).

Measured: upsert units/s, ``optimize()`` seconds, the folder's size, the payload's mean JSON bytes
(and the share of it that is the unit's text and context), then p50/p95 over ``--queries`` queries
(vectors precomputed: store time only, 3 warm-up queries untimed) of hybrid RRF with the default
fusion (:mod:`structaware_retrievers.query.fusion`), dense, sparse, and hybrid with a document filter,
a unit-type filter, a grade filter and all three at once; peak RSS of the process (``ru_maxrss``).

Run (a million: ~1 h of CPU on 2 cores, 6+ GB of disk in ``--folder``'s parent)::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_million.py --units 1000000 \\
        --folder /tmp/million [--queries 200] [--json out.json] [--keep]

With ``--keep`` the folder stays, and a later run with ``--reuse`` only queries it (``--optimize``:
after building its HNSW indexes, e.g. of a build that was stopped: every upsert is in the WAL).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import machine, pct, pool_vectors, sentence_pool
from structaware_readers.models import Grade, Unit, UnitType
from structaware_retrievers.encoders import DenseEncoder, SparseEncoder, SparseVector
from structaware_retrievers.query.filters import SearchFilter
from structaware_retrievers.store.base import PointRecord
from structaware_retrievers.store.edge import EdgeStore

TYPES = [UnitType.SECTION, UnitType.TABLE_ROW, UnitType.RECOMMENDATION, UnitType.FLOW_PATH, UnitType.FIGURE]
GRADES = ["A", "B", "C", "1", "2A", "IIa"]
DOC_UNITS = 100


def unit_batch(
    start: int, stop: int, pool: list[str], heads: list[str], *, validate: bool = False
) -> tuple[list[Unit], list[list[int]]]:
    """Units ``start`` .. ``stop - 1``, drawn from a generator seeded with ``start`` (a batch is
    reproducible). Built with ``Unit.model_construct`` (no validation: 0.3 ms a unit otherwise, 5 min
    a million) unless ``validate``; ``main`` checks that both give the same payloads."""
    rng = random.Random(start)
    make = Unit if validate else Unit.model_construct
    units, members = [], []
    for i in range(start, stop):
        doc = i // DOC_UNITS
        picks = [rng.randrange(len(pool)) for _ in range(rng.randint(1, 4))]
        page = rng.randint(1, 120)
        utype = rng.choice(TYPES)
        grade = (
            rng.choice(GRADES)
            if utype in (UnitType.RECOMMENDATION, UnitType.TABLE_ROW) and rng.random() < 0.6
            else None
        )
        units.append(
            make(
                unit_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench/{i}")),
                unit_type=utype,
                text=" ".join(pool[j] for j in picks),
                context="Section: " + " > ".join(rng.sample(heads, 2)),
                doc_id=f"{doc:016x}",
                doc_name=f"doc-{doc}",
                source=f"/bench/doc-{doc}.pdf",
                pages=[page] if rng.random() < 0.9 else [page, page + 1],
                element_ids=[f"p{page}-e{rng.randint(0, 30)}"],
                bboxes=[(0.1, 0.1, 0.9, 0.2)],
                element_pages=[page],
                source_element_ids=[],
                section_path=[],
                grade=(
                    Grade(system="letter", grade=grade, raw=f"Grade {grade}")
                    if validate
                    else Grade.model_construct(
                        system="letter",
                        grade=grade,
                        raw=f"Grade {grade}",
                        strength="",
                        certainty="",
                        direction="",
                        status="",
                        preference="",
                        source="sentence",
                    )
                )
                if grade
                else None,
                table=None,
                flow=None,
                ordinal=i % DOC_UNITS,
            )
        )
        members.append(picks)
    return units, members


class PoolSparse:
    """BM25 document vectors of synthetic units from tokens computed once per pool sentence and per
    context string: a unit's tokens are its context's then its sentences' (what the encoder's
    tokenizer gives for ``context + "\\n" + text`` up to the joins), weighted exactly as
    :meth:`SparseEncoder._doc_vector` does. Tokenizing a million texts (jieba and Snowball) would take
    about an hour of this machine; this takes seconds."""

    def __init__(self, encoder: SparseEncoder, pool: list[str]):
        self.enc = encoder
        self.sent = [[encoder.token_id(t) for t in encoder.tokenize(x)] for x in pool]
        self.ctx: dict[str, list[int]] = {}

    def __call__(self, unit: Unit, picks: list[int]) -> SparseVector:
        ctx = self.ctx.get(unit.context)
        if ctx is None:
            ctx = self.ctx[unit.context] = [self.enc.token_id(t) for t in self.enc.tokenize(unit.context)]
        tokens = ctx + [t for j in picks for t in self.sent[j]]
        tf = Counter(tokens)
        e = self.enc
        norm = e.k1 * (1.0 - e.b + e.b * len(tokens) / e.avg_len)
        ids = sorted(tf)
        weights = np.array([tf[i] * (e.k1 + 1.0) / (tf[i] + norm) for i in ids], dtype=np.float32)
        return SparseVector(ids, weights.tolist())


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def build(store: EdgeStore, n: int, batch: int, pool: list[str], pvec: np.ndarray, out: dict[str, Any]) -> None:
    sparse = PoolSparse(SparseEncoder(), pool)
    heads = [x[:40] for x in pool[:200]]
    store.create(pvec.shape[1], {"bench": True})
    t_gen = t_sparse = t_up = 0.0
    payload_bytes = text_bytes = 0
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        t = time.perf_counter()
        units, members = unit_batch(start, min(n, start + batch), pool, heads)
        payloads = [u.to_payload() for u in units]
        dense = np.stack([pvec[m].mean(axis=0) for m in members]).astype(np.float32)
        dense /= np.linalg.norm(dense, axis=1, keepdims=True)
        t_gen += time.perf_counter() - t
        t = time.perf_counter()
        svecs = [sparse(u, m) for u, m in zip(units, members)]
        t_sparse += time.perf_counter() - t
        if start == 0:  # how close the shortcut is to the encoder, on the first 200 units
            real = sparse.enc.embed_documents([u.embedding_text() for u in units[:200]])
            same = [set(a.indices) == set(b.indices) for a, b in zip(real, svecs)]
            out["sparse_same_terms_share"] = round(sum(same) / len(same), 3)
        for p, u in zip(payloads[:64], units[:64]):  # a sample of each batch
            payload_bytes += len(json.dumps(p, ensure_ascii=False).encode())
            text_bytes += len(u.text.encode()) + len(u.context.encode())
        t = time.perf_counter()
        store.upsert(
            [
                PointRecord(id=p["unit_id"], payload=p, dense=d.tolist(), sparse=s)
                for p, d, s in zip(payloads, dense, svecs)
            ]
        )
        t_up += time.perf_counter() - t
        done = min(n, start + batch)
        if done % (batch * 25) == 0 or done == n:
            print(
                f"  {done:,} units, {time.perf_counter() - t0:.0f} s, peak RSS {peak_rss_mb():,.0f} MB, "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    t = time.perf_counter()
    store.flush()
    t_up += time.perf_counter() - t
    sampled = -(-n // batch) * min(64, batch)
    out.update(
        units=n,
        generate_s=round(t_gen, 1),
        sparse_encode_s=round(t_sparse, 1),
        upsert_s=round(t_up, 1),
        upsert_units_per_s=round(n / t_up),
        payload_mean_bytes=round(payload_bytes / sampled),
        payload_text_and_context_share=round(text_bytes / payload_bytes, 3),
        rss_after_upsert_mb=round(peak_rss_mb()),
    )
    print(f"  upserted: {out}", flush=True)
    t = time.perf_counter()
    store.optimize()
    out["optimize_s"] = round(time.perf_counter() - t, 1)
    out["rss_after_optimize_mb"] = round(peak_rss_mb())
    print(f"  optimize(): {out['optimize_s']} s, load {os.getloadavg()}", flush=True)


def time_queries(store: EdgeStore, queries: list[tuple[list[float], Any]], **kw: Any) -> dict[str, float]:
    lat = []
    n = 0
    for i, (d, s) in enumerate(queries):
        t = time.perf_counter()
        hits = store.query(dense=d, sparse=s, limit=10, **kw)
        if i >= 3:
            lat.append((time.perf_counter() - t) * 1000)
            n += len(hits)
    return {"p50_ms": round(pct(lat, 50), 2), "p95_ms": round(pct(lat, 95), 2), "mean_hits": round(n / len(lat), 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=1_000_000)
    ap.add_argument("--folder", type=Path, required=True, help="the store folder (removed first unless --reuse)")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--reuse", action="store_true", help="query the store already in --folder")
    ap.add_argument("--optimize", action="store_true", help="with --reuse: run optimize() first")
    ap.add_argument("--keep", action="store_true", help="keep the folder")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report: dict[str, Any] = {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()}}
    pool = sentence_pool(1500)
    dense_model = DenseEncoder()
    pvec = pool_vectors(pool, dense_model)
    report["dense_model"] = dense_model.model_id
    report["pool_sentences"] = len(pool)
    if not args.reuse:
        shutil.rmtree(args.folder, ignore_errors=True)
    store = EdgeStore(args.folder)
    out: dict[str, Any] = {}
    heads = [x[:40] for x in pool[:200]]
    fast, checked = unit_batch(0, 500, pool, heads)[0], unit_batch(0, 500, pool, heads, validate=True)[0]
    if [u.to_payload() for u in fast] != [u.to_payload() for u in checked]:
        raise SystemExit("model_construct units differ from validated ones")
    if not args.reuse:
        build(store, args.units, args.batch, pool, pvec, out)
    elif args.optimize:  # a store whose build was stopped: its points are in the WAL, not indexed yet
        t = time.perf_counter()
        store.optimize()
        out["optimize_s"] = round(time.perf_counter() - t, 1)
        out["rss_after_optimize_mb"] = round(peak_rss_mb())
        print(f"  optimize(): {out['optimize_s']} s, load {os.getloadavg()}", flush=True)
    out["points"] = store.count()
    out["folder_mb"] = round(folder_mb(args.folder))
    sparse = SparseEncoder()
    rng = random.Random(7)
    qidx = [rng.randrange(len(pool)) for _ in range(args.queries + 3)]
    queries = [(pvec[i].tolist(), sparse.embed_query(pool[i])) for i in qidx]
    n_docs = max(1, out["points"] // DOC_UNITS)
    one_doc = f"{n_docs // 2:016x}"
    filters = {  # the public filter language (SearchFilter), as the faces pass it to the store
        "doc_filter": SearchFilter(doc_ids=[one_doc]),
        "unit_type_filter": SearchFilter(unit_types=["recommendation"]),
        "grade_filter": SearchFilter(grades=["A"]),
        "doc_type_grade_filter": SearchFilter(
            doc_ids=[one_doc], unit_types=["recommendation", "table_row"], grades=["A", "B"]
        ),
    }
    kinds: dict[str, dict[str, Any]] = {
        "hybrid_rrf": {"mode": "hybrid"},
        "dense": {"mode": "dense"},
        "sparse": {"mode": "sparse"},
    }
    kinds |= {f"hybrid_{name}": {"mode": "hybrid", "flt": f.to_point_filter()} for name, f in filters.items()}
    lat: dict[str, Any] = {}
    for name, kw in kinds.items():
        lat[name] = time_queries(store, queries, **kw)
        print(f"  {name}: {lat[name]}", flush=True)
    out["queries"] = lat
    out["peak_rss_mb"] = round(peak_rss_mb())
    store.close()
    if not args.keep:
        shutil.rmtree(args.folder, ignore_errors=True)
    report["million"] = out
    report["machine"]["loadavg_end"] = os.getloadavg()
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
