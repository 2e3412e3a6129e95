"""Store and ingest benchmark: embedding throughput, upsert/optimise speed, hybrid query latency,
and the choice of Chinese tokenizer for the BM25 encoder.

Sections (``--only`` picks some; default all):

``e2e``
    Real ingest of the English synthetic guideline (MinerU 4.0.12 output in ``../shared/fixtures``)
    through ``StructureIndex.add_document`` with the default encoders and an empty cache: units/s
    and the share of time spent embedding; then the same document again (cache hit path).
``embed``
    Dense (MiniLM int8, fastembed) and sparse (BM25) throughput on a sample of synthetic units.
``store``
    Synthetic units at ``--sizes`` (default 10,000 and 100,000): text = 1-4 sentences drawn from
    the real fixture Markdown (WHO, CDC and synthetic guidelines, English and Chinese), random
    documents, pages, unit types and grades. Embedding 100k units with MiniLM on 2 cores would
    take hours, so dense vectors are **precomputed**: every pool sentence is embedded once with the
    real model (cached on disk) and a unit's vector is the normalised mean of its sentences'
    vectors. Sparse vectors are computed for real. The store is timed on upsert (units/s),
    ``optimize()`` and query latency (p50/p95 over ``--queries`` queries, query vectors
    precomputed: store time only): hybrid RRF and DBSF, dense, sparse, hybrid with a ``doc_id``
    filter and with a page range. The embedded backend runs every size; qdrant-client
    ``:memory:`` only up to ``--client-max`` (its pure-Python search is slow).
``tokenizers``
    BM25 on the Chinese synthetic guideline's real units with hand-written Chinese questions:
    this package's encoder (jieba search-mode words) against ``qdrant_edge.Bm25`` with its
    Multilingual tokenizer and against character bigrams; Hit@1 and MRR@10 through a real
    Qdrant Edge sparse index with IDF.

Run::

    /tmp/v1/bin/python benchmarks/bench_store.py [--sizes 10000 100000] [--queries 100]
        [--client-max 10000] [--only e2e embed store tokenizers] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from structaware_readers.ids import content_hash
from structaware_readers.models import Grade, Unit, UnitType
from structaware_retrievers.encoders import DenseEncoder, SparseEncoder, SparseVector
from structaware_retrievers.encoders.model_assets import cache_dir
from structaware_retrievers.query.filters import PointFilter, SearchFilter
from structaware_retrievers.store.base import PointRecord, VectorStore

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO.parent / "shared" / "fixtures" / "mineru"
POOL_DOCS = [
    "mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline",
    "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide",
    "mineru-4.0.12_flash-tier_synthetic_guideline_en",
    "mineru-4.0.12_flash-tier_synthetic_guideline_zh",
    "mineru-2.7.6_pipeline_MinerU-pr4637_zh-thesis",
]
_SENT = re.compile(r"(?<=[.!?。！？；;])\s+|(?<=[。！？；])")


def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "date": date.today().isoformat(),
        "nproc": os.cpu_count(),
        "cpu": cpu or platform.processor(),
        "python": platform.python_version(),
        "loadavg_start": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


# --------------------------------------------------------------------------------------------
# synthetic units from real sentences
# --------------------------------------------------------------------------------------------


def sentence_pool(max_n: int, seed: int = 0) -> list[str]:
    sents: list[str] = []
    for name in POOL_DOCS:
        for md in sorted((FIXTURES / name).rglob("*.md")):
            for line in md.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if not line or line.startswith(("#", "|", "!", "<", "```")):
                    continue
                for s in _SENT.split(line):
                    s = s.strip()
                    if 25 <= len(s) <= 300:
                        sents.append(s)
    uniq = list(dict.fromkeys(sents))
    random.Random(seed).shuffle(uniq)
    return uniq[:max_n]


def pool_vectors(pool: list[str], dense: DenseEncoder) -> np.ndarray:
    """Embed every pool sentence once (cached in the user cache folder by content)."""
    key = content_hash(dense.model_id + "\n".join(pool))[:16]
    path = cache_dir() / "bench" / f"pool-{key}.npy"
    if path.is_file():
        return np.load(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    vecs = dense.embed_array(pool)
    print(f"  embedded {len(pool)} pool sentences in {time.perf_counter() - t:.1f} s (cached at {path})", flush=True)
    np.save(path, vecs)
    return vecs


def make_units(n: int, pool: list[str], seed: int = 1) -> tuple[list[Unit], list[list[int]]]:
    rng = random.Random(seed)
    types = [UnitType.SECTION, UnitType.TABLE_ROW, UnitType.RECOMMENDATION, UnitType.FLOW_PATH, UnitType.FIGURE]
    grades = ["A", "B", "C", "1", "2A", "IIa"]
    heads = [s[:40] for s in pool[:200]]
    n_docs = max(1, n // 100)
    units: list[Unit] = []
    members: list[list[int]] = []
    for i in range(n):
        doc = i % n_docs
        doc_id = f"{doc:016x}"
        picks = [rng.randrange(len(pool)) for _ in range(rng.randint(1, 4))]
        page = rng.randint(1, 120)
        utype = rng.choice(types)
        grade = (
            rng.choice(grades)
            if utype in (UnitType.RECOMMENDATION, UnitType.TABLE_ROW) and rng.random() < 0.6
            else None
        )
        units.append(
            Unit(
                unit_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"bench/{i}")),
                unit_type=utype,
                text=" ".join(pool[j] for j in picks),
                context="Section: " + " > ".join(rng.sample(heads, 2)),
                doc_id=doc_id,
                doc_name=f"doc-{doc}",
                source=f"/bench/doc-{doc}.pdf",
                pages=[page] if rng.random() < 0.9 else [page, page + 1],
                element_ids=[f"p{page}-e{rng.randint(0, 30)}"],
                bboxes=[(0.1, 0.1, 0.9, 0.2)],
                element_pages=[page],
                grade=Grade(system="letter", grade=grade, raw=f"Grade {grade}") if grade else None,
                ordinal=i // n_docs,
            )
        )
        members.append(picks)
    return units, members


# --------------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------------


def bench_e2e(tmp: Path) -> dict[str, Any]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.encoders import EmbeddingCache
    from structaware_retrievers.index.structure_index import StructureIndex

    path = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
    t = time.perf_counter()
    doc = load_document(path)
    units = build_units(doc)
    read_s = time.perf_counter() - t
    dense = DenseEncoder(cache=EmbeddingCache())
    sparse = SparseEncoder(cache=dense.cache)
    dense.model  # noqa: B018 - loads the model, outside the timing
    ix = StructureIndex(tmp / "e2e", dense=dense, sparse=sparse)
    rep = ix.add_document(doc, units)
    ix.delete_document(doc.doc_id)
    again = ix.add_document(doc, units)  # every vector from the cache
    ix.close()
    return {
        "document": path.name,
        "units": len(units),
        "mean_embedding_chars": round(statistics.mean(len(u.embedding_text()) for u in units)),
        "read_and_build_s": round(read_s, 2),
        "add_document_s": round(rep.seconds, 2),
        "embed_s": round(rep.embed_seconds, 2),
        "units_per_s": round(len(units) / rep.seconds, 1),
        "embed_share": round(rep.embed_seconds / rep.seconds, 3),
        "cached_add_document_s": round(again.seconds, 3),
        "cached_units_per_s": round(len(units) / again.seconds, 1),
    }


def bench_embed(units: list[Unit], sample: int) -> dict[str, Any]:
    texts = [u.embedding_text() for u in units[:sample]]
    dense = DenseEncoder()
    dense.model  # noqa: B018 - loads the model, outside the timing
    dense.embed_array(texts[:8])  # warm-up (session and tokenizer)
    texts = texts[8:]
    t = time.perf_counter()
    dense.embed_array(texts)
    d_s = time.perf_counter() - t
    sp = SparseEncoder()
    sp.tokenize("北京大学 warm-up")  # loads jieba's dictionary
    all_texts = [u.embedding_text() for u in units]
    t = time.perf_counter()
    sp.embed_documents(all_texts)
    s_s = time.perf_counter() - t
    t = time.perf_counter()
    for q in texts[:50]:
        dense.embed_query(q[:120])
    q_ms = (time.perf_counter() - t) / min(50, len(texts)) * 1000
    return {
        "dense_sample": len(texts),
        "mean_chars": round(statistics.mean(len(x) for x in texts)),
        "dense_units_per_s": round(len(texts) / d_s, 1),
        "dense_query_ms": round(q_ms, 1),
        "sparse_units": len(all_texts),
        "sparse_units_per_s": round(len(all_texts) / s_s, 1),
    }


def _time_queries(
    store: VectorStore, queries: list[tuple[list[float], SparseVector]], kind: str, **kw: Any
) -> dict[str, float]:
    lat: list[float] = []
    for i, (d, s) in enumerate(queries):
        t = time.perf_counter()
        store.query(dense=d, sparse=s, limit=10, prefetch_limit=50, **kw)
        if i >= 3:  # warm-up
            lat.append((time.perf_counter() - t) * 1000)
    return {f"{kind}_p50_ms": round(pct(lat, 50), 2), f"{kind}_p95_ms": round(pct(lat, 95), 2)}


def bench_one_store(
    store: VectorStore, points: list[PointRecord], queries: list[tuple[list[float], SparseVector]], *, optimize: bool
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    store.create(len(points[0].dense or []), {"bench": True})
    t = time.perf_counter()
    for i in range(0, len(points), 2048):
        store.upsert(points[i : i + 2048])
    store.flush()
    up = time.perf_counter() - t
    out["upsert_s"] = round(up, 1)
    out["upsert_units_per_s"] = round(len(points) / up)

    def all_queries(tag: str) -> None:
        out.update(_time_queries(store, queries, f"{tag}hybrid_rrf", mode="hybrid", fusion="rrf"))
        out.update(_time_queries(store, queries, f"{tag}hybrid_dbsf", mode="hybrid", fusion="dbsf"))
        out.update(_time_queries(store, queries, f"{tag}dense", mode="dense"))
        out.update(_time_queries(store, queries, f"{tag}sparse", mode="sparse"))
        doc = PointFilter.match("doc_id", points[0].payload["doc_id"])
        out.update(_time_queries(store, queries, f"{tag}hybrid_doc_filter", mode="hybrid", flt=doc))
        pages = SearchFilter(page_from=10, page_to=30).to_point_filter()
        out.update(_time_queries(store, queries, f"{tag}hybrid_page_range", mode="hybrid", flt=pages))

    all_queries("")
    if optimize:
        t = time.perf_counter()
        store.optimize()
        out["optimize_s"] = round(time.perf_counter() - t, 1)
        all_queries("optimized_")
    return out


def bench_store(sizes: list[int], n_queries: int, client_max: int, tmp: Path) -> dict[str, Any]:
    dense = DenseEncoder()
    pool = sentence_pool(1500)
    pvec = pool_vectors(pool, dense)
    sparse = SparseEncoder()
    results: dict[str, Any] = {"pool_sentences": len(pool)}
    units, members = make_units(max(sizes), pool)
    t = time.perf_counter()
    sparse_vecs = sparse.embed_documents([u.embedding_text() for u in units])
    results["sparse_embed_units_per_s"] = round(len(units) / (time.perf_counter() - t))
    dense_vecs = np.stack([pvec[m].mean(axis=0) for m in members])
    dense_vecs /= np.linalg.norm(dense_vecs, axis=1, keepdims=True)
    points = [
        PointRecord(id=u.unit_id, payload=u.to_payload(), dense=d.tolist(), sparse=s)
        for u, d, s in zip(units, dense_vecs, sparse_vecs)
    ]
    rng = random.Random(7)
    qidx = [rng.randrange(len(pool)) for _ in range(n_queries + 3)]
    queries = [(pvec[i].tolist(), sparse.embed_query(pool[i])) for i in qidx]

    from structaware_retrievers.store.client import ClientStore
    from structaware_retrievers.store.edge import EdgeStore

    for n in sizes:
        print(f"  edge {n:,} ...", flush=True)
        st = EdgeStore(tmp / f"edge-{n}")
        results[f"edge_{n}"] = bench_one_store(st, points[:n], queries, optimize=True)
        st.close()
        print(f"    {results[f'edge_{n}']}", flush=True)
        if n <= client_max:
            print(f"  qdrant-client :memory: {n:,} ...", flush=True)
            cs = ClientStore("bench", location=":memory:")
            results[f"memory_{n}"] = bench_one_store(cs, points[:n], queries[: min(len(queries), 23)], optimize=False)
            cs.close()
            print(f"    {results[f'memory_{n}']}", flush=True)
    return results


# --------------------------------------------------------------------------------------------
# Chinese tokenizer choice
# --------------------------------------------------------------------------------------------

# (question, substring that identifies the gold unit's text)
ZH_QUERIES = [
    ("首次就诊应该测量哪侧上臂的血压", "推荐意见1.1"),
    ("测量双上臂血压", "推荐意见1.1"),
    ("24小时动态血压监测用于确诊", "推荐意见2.1"),
    ("强推荐 高质量证据 A级", "推荐意见2.1"),
    ("65岁以下患者的血压控制目标", "推荐意见3.1"),
    ("弱推荐 低质量证据", "推荐意见3.1"),
    ("动态血压均值超过135/85怎么办", "动态血压均值"),
    ("5年后复查血压", "5年后复查"),
    ("开始生活方式干预", "生活方式干预"),
    ("57-59岁成人的推荐等级", "57-59岁成人"),
    ("99-101岁成人的诊室血压目标", "99-101岁成人"),
    ("180-182岁人群的动态血压目标", "180-182岁成人"),
    ("21-23岁成人", "21-23岁成人"),
    ("126-128岁成人的推荐等级是什么", "126-128岁成人"),
]


class _EdgeBm25:
    """qdrant_edge.Bm25 behind the encoder interface (same k1/b/avg_len as ours)."""

    def __init__(self, language: str):
        import qdrant_edge as E

        self.m = E.Bm25(
            E.Bm25Config(k=1.2, b=0.75, avg_len=256.0, tokenizer=E.TokenizerType.Multilingual, language=language)
        )

    def embed_documents(self, texts: list[str]) -> list[SparseVector]:
        return [SparseVector(list(v.indices), list(v.values)) for v in map(self.m.embed_document, texts)]

    def embed_query(self, text: str) -> SparseVector:
        v = self.m.embed_query(text)
        return SparseVector(list(v.indices), list(v.values))


class _Bigrams(SparseEncoder):
    """Baseline: Chinese runs as overlapping character bigrams, other text as our encoder does."""

    def tokenize(self, text: str) -> list[str]:
        out: list[str] = []
        for tok in super().tokenize(re.sub(r"([\u4e00-\u9fff]+)", lambda m: " " + " ".join(
            m.group(1)[i : i + 2] for i in range(max(1, len(m.group(1)) - 1))) + " ", text)):  # fmt: skip
            out.append(tok)
        return out


def bench_tokenizers(tmp: Path) -> dict[str, Any]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.store.edge import EdgeStore

    doc = load_document(FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_zh")
    units = build_units(doc)
    texts = [u.embedding_text() for u in units]
    variants: dict[str, Any] = {
        "structaware jieba (cut_for_search)": SparseEncoder(),
        "qdrant_edge.Bm25 Multilingual, language=chinese": _EdgeBm25("chinese"),
        "qdrant_edge.Bm25 Multilingual, language=english": _EdgeBm25("english"),
        "character bigrams": _Bigrams(),
    }
    out: dict[str, Any] = {"units": len(units), "queries": len(ZH_QUERIES)}
    for name, enc in variants.items():
        enc.embed_query("预热 warm-up")  # loads jieba's dictionary outside the timing
        t = time.perf_counter()
        vecs = enc.embed_documents(texts)
        enc_s = time.perf_counter() - t
        st = EdgeStore(tmp / f"tok-{abs(hash(name))}")
        st.create(1, {})
        st.upsert(
            [
                PointRecord(id=u.unit_id, payload={"i": i}, dense=[1.0], sparse=v)
                for i, (u, v) in enumerate(zip(units, vecs))
            ]
        )
        hit1, rr = 0, 0.0
        misses = []
        for q, gold in ZH_QUERIES:
            hits = st.query(dense=None, sparse=enc.embed_query(q), limit=10, mode="sparse")
            ranks = [r for r, h in enumerate(hits, 1) if gold in units[h.payload["i"]].text]
            if ranks and ranks[0] == 1:
                hit1 += 1
            else:
                misses.append(q)
            rr += 1.0 / ranks[0] if ranks else 0.0
        st.close()
        out[name] = {
            "hit@1": round(hit1 / len(ZH_QUERIES), 3),
            "mrr@10": round(rr / len(ZH_QUERIES), 3),
            "doc_encode_ms": round(enc_s * 1000, 1),
            "missed": misses,
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--client-max", type=int, default=10_000)
    ap.add_argument("--embed-sample", type=int, default=200)
    ap.add_argument("--only", nargs="+", choices=["e2e", "embed", "store", "tokenizers"], default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if not FIXTURES.is_dir():
        print(f"fixtures not found at {FIXTURES}", file=sys.stderr)
        return 2
    only = set(args.only or ["e2e", "embed", "store", "tokenizers"])
    report: dict[str, Any] = {"machine": machine(), "args": vars(args) | {"json": str(args.json)}}
    with tempfile.TemporaryDirectory(prefix="bench-store-") as d:
        tmp = Path(d)
        if "tokenizers" in only:
            print("tokenizers ...", flush=True)
            report["tokenizers"] = bench_tokenizers(tmp)
            print(json.dumps(report["tokenizers"], ensure_ascii=False, indent=1), flush=True)
        if "e2e" in only:
            print("e2e ...", flush=True)
            report["e2e"] = bench_e2e(tmp)
            print(report["e2e"], flush=True)
        if "embed" in only:
            print("embed ...", flush=True)
            units, _ = make_units(5000, sentence_pool(1500))
            report["embed"] = bench_embed(units, args.embed_sample)
            print(report["embed"], flush=True)
        if "store" in only:
            print("store ...", flush=True)
            report["store"] = bench_store(sorted(args.sizes), args.queries, args.client_max, tmp)
    report["machine"]["loadavg_end"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    text = json.dumps(report, ensure_ascii=False, indent=1)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
