"""Speed benchmark (issue 14): CLI query vs in-process vs served query; ingest units/s and peak RSS
vs the raw model; re-ingest vs first ingest; the store vs langchain-qdrant and
llama-index-vector-stores-qdrant hybrid on the same vectors.

Every measured step runs in its own child process (this script with ``--child``), so wall time
includes what a user pays and peak RSS (``os.wait4``'s ``ru_maxrss``) is that step's alone.
Children share one fresh cache folder (``STRUCTAWARE_CACHE_DIR``), warmed first (model folder
assembled, optimised graph saved), so no step is charged with one-off setup.

Sections (``--only``; default all):

``ingest``
    First ingest of the CDC fixture (one 41-page guide) and of five MinerU filings (zips read in
    place from ``--filings-dir``): wall, units/s, peak RSS, and the share of the ingest's own time
    outside the encoders (``IngestSummary.seconds - embedding_seconds``). Then the raw model on the
    same texts: fastembed's ``TextEmbedding`` with its defaults on the same ONNX folder. Then
    re-ingest of the unchanged five filings (a new process, as a user re-runs the command).
``overhead``
    The CDC fixture's first ingest, ``--repeats`` times, alternating with the ``--start-src`` tree:
    the share of the ingest outside the encoders (see :func:`section_overhead`).
``query``
    On the CDC index: the same queries in one process (warm), and through ``structaware serve``
    over HTTP.
``cli``
    ``structaware query`` wall and CPU time per call (a new process each; see :func:`section_cli`;
    with ``--compile`` every measured source tree is byte-compiled first, as an installed package is):
    with ``--before-src DIR`` (a source tree of an older commit, e.g. ``git archive <commit> | tar
    -x -C DIR``) the older CLI too, each on an index its own code ingested from the CDC fixture,
    alternating call by call with this checkout's CLI without and with a running ``structaware
    serve`` (so load changes hit every variant alike); then the same for each ``--presets`` model,
    the older tree being ``--start-src``.
``store``
    Synthetic units from real sentences with precomputed dense vectors (as ``bench_store.py``),
    at ``--sizes``: our Qdrant Edge store (``VectorStore.query``, hybrid RRF, unoptimised shard),
    langchain-qdrant ``QdrantVectorStore`` (``RetrievalMode.HYBRID``) and llama-index
    ``QdrantVectorStore`` (``enable_hybrid=True``), both on ``QdrantClient(":memory:")`` (their local
    mode), fed the same dense and sparse vectors through lookup "embedding" objects. Upsert units/s,
    query p50/p95 (store time, query vectors precomputed), peak RSS.

Run (about 15-25 min on a shared 2-core machine)::

    nice -n 10 .venv/bin/python benchmarks/bench_speed.py --json out.json [--before-src DIR]
        [--start-src DIR --presets use-multilingual-v3] [--only ingest overhead query cli store]
        [--sizes 10000 100000] [--queries 20] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

CDC = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
FILINGS_DIR = REPO.parent / "shared" / "bench" / "finance" / "mineru-4.0.12-flash"
FILINGS = [
    "AMCOR_2023Q2_10Q",
    "BESTBUY_2024Q2_10Q",
    "MGMRESORTS_2023Q2_10Q",
    "JOHNSON_JOHNSON_2022Q4_EARNINGS",
    "NETFLIX_2015_10K",
]
QUERIES = [
    "When should hand hygiene be performed in outpatient settings?",
    "safe injection practices single-dose vials",
    "respiratory hygiene cough etiquette",
    "cleaning and disinfection of environmental surfaces",
    "personal protective equipment gloves gowns",
    "sterilization of reusable medical devices",
    "education and training of healthcare personnel",
    "What are the key recommendations for point-of-care testing?",
    "administrative measures infection prevention program",
    "Which surfaces should be cleaned first?",
]


# --------------------------------------------------------------------------------------------
# child steps (run in their own process)
# --------------------------------------------------------------------------------------------


def child_ingest(index: str, inputs: list[str], texts_out: str | None) -> dict[str, Any]:
    from structaware_retrievers.index.structure_index import StructureIndex

    t = time.perf_counter()
    with StructureIndex(index) as ix:
        summary = ix.ingest(inputs)
        if texts_out:
            texts = [r.payload for r in ix.store.scroll()]
            Path(texts_out).write_text(
                json.dumps([(p["context"] + "\n" + p["text"]) if p["context"] else p["text"] for p in texts]),
                encoding="utf-8",
            )
    return {
        "in_process_s": time.perf_counter() - t,
        "seconds": summary.seconds,
        "embedding_seconds": summary.embedding_seconds,
        "documents": summary.documents,
        "units": summary.units,
        "skipped": summary.skipped_unchanged,
        "failed": len(summary.failed),
    }


def child_raw_model(texts_file: str) -> dict[str, Any]:
    """fastembed's TextEmbedding with its defaults on the same ONNX folder: what a user would run."""
    from fastembed import TextEmbedding

    from structaware_retrievers.encoders import model_assets

    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    t = time.perf_counter()
    model = TextEmbedding(
        model_assets.FASTEMBED_BASE_MODEL,
        specific_model_path=str(model_assets.default_model_dir()),
        local_files_only=True,
    )
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    n = sum(1 for _ in model.embed(texts))
    return {"load_s": load_s, "embed_s": time.perf_counter() - t, "texts": n}


def child_lean_model(texts_file: str) -> dict[str, Any]:
    """Our dense encoder alone (no cache, no index) on the same texts."""
    from structaware_retrievers.encoders import DenseEncoder

    texts = json.loads(Path(texts_file).read_text(encoding="utf-8"))
    t = time.perf_counter()
    enc = DenseEncoder()
    enc.model  # noqa: B018 - loads the model, outside the timing
    load_s = time.perf_counter() - t
    t = time.perf_counter()
    enc.embed_array(texts)
    return {"load_s": load_s, "embed_s": time.perf_counter() - t, "texts": len(texts)}


def child_inprocess_queries(index: str, repeats: int) -> dict[str, Any]:
    from structaware_retrievers.index.structure_index import StructureIndex

    t = time.perf_counter()
    ix = StructureIndex(index)
    ix.query(QUERIES[0], k=5)
    first_s = time.perf_counter() - t
    lat = []
    for _ in range(repeats):
        for q in QUERIES:
            t = time.perf_counter()
            ix.query(q, k=5)
            lat.append(time.perf_counter() - t)
    ix.close()
    return {"open_and_first_query_s": first_s, "latencies_s": lat}


def child_store(kind: str, data_file: str, n: int, n_queries: int) -> dict[str, Any]:
    with open(data_file, "rb") as fh:
        data = pickle.load(fh)
    payloads, texts, dense, sparse = data["payloads"][:n], data["texts"][:n], data["dense"][:n], data["sparse"][:n]
    queries = data["queries"][: n_queries + 3]
    return {"edge": _store_edge, "langchain": _store_langchain, "llamaindex": _store_llamaindex}[kind](
        payloads, texts, dense, sparse, queries
    )


def _latencies(fn: Any, queries: list[Any]) -> dict[str, float]:
    lat = []
    for i, q in enumerate(queries):
        t = time.perf_counter()
        fn(q)
        if i >= 3:  # warm-up
            lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return {
        "p50_ms": statistics.median(lat),
        "p95_ms": lat[min(len(lat) - 1, round(0.95 * (len(lat) - 1)))],
        "queries": len(lat),
    }


def _store_edge(payloads, texts, dense, sparse, queries) -> dict[str, Any]:
    from structaware_retrievers.store.base import PointRecord
    from structaware_retrievers.store.edge import EdgeStore

    folder = Path(tempfile.mkdtemp(prefix="bench-edge-"))
    try:
        st = EdgeStore(folder / "c")
        st.create(dense.shape[1], {"bench": True})
        t = time.perf_counter()
        for i in range(0, len(payloads), 2048):
            st.upsert(
                [
                    PointRecord(id=p["unit_id"], payload=p, dense=d.tolist(), sparse=s)
                    for p, d, s in zip(payloads[i : i + 2048], dense[i : i + 2048], sparse[i : i + 2048])
                ]
            )
        st.flush()
        up = time.perf_counter() - t
        out = {"upsert_units_per_s": len(payloads) / up}
        out |= _latencies(
            lambda q: st.query(dense=q[1], sparse=q[2], limit=10, prefetch_limit=50, mode="hybrid", fusion="rrf"),
            queries,
        )
        st.close()
        return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Lookup:
    """Text -> precomputed vector, so the peers index exactly our vectors."""

    def __init__(self, texts: list[str], vectors: list[Any]) -> None:
        self.table = dict(zip(texts, vectors))
        self.probe = vectors[0]  # for langchain-qdrant's "dummy_text" dimension probe

    def __call__(self, text: str) -> Any:
        return self.table[text] if text != "dummy_text" else self.probe


def _store_langchain(payloads, texts, dense, sparse, queries) -> dict[str, Any]:
    from langchain_core.embeddings import Embeddings
    from langchain_qdrant import QdrantVectorStore, RetrievalMode, SparseEmbeddings
    from langchain_qdrant import SparseVector as LcSparse
    from qdrant_client import QdrantClient, models

    dense_of = _Lookup(texts + [q[0] for q in queries], [d.tolist() for d in dense] + [q[1] for q in queries])
    sparse_of = _Lookup(texts + [q[0] for q in queries], list(sparse) + [q[2] for q in queries])

    class Dense(Embeddings):
        def embed_documents(self, xs: list[str]) -> list[list[float]]:
            return [dense_of(x) for x in xs]

        def embed_query(self, x: str) -> list[float]:
            return dense_of(x)

    class Sparse(SparseEmbeddings):
        def embed_documents(self, xs: list[str]) -> list[LcSparse]:
            return [LcSparse(indices=list(v.indices), values=list(v.values)) for v in map(sparse_of, xs)]

        def embed_query(self, x: str) -> LcSparse:
            v = sparse_of(x)
            return LcSparse(indices=list(v.indices), values=list(v.values))

    client = QdrantClient(":memory:")
    client.create_collection(
        "bench",
        vectors_config={"dense": models.VectorParams(size=dense.shape[1], distance=models.Distance.COSINE)},
        sparse_vectors_config={"sparse": models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )
    store = QdrantVectorStore(
        client=client,
        collection_name="bench",
        embedding=Dense(),
        sparse_embedding=Sparse(),
        retrieval_mode=RetrievalMode.HYBRID,
        vector_name="dense",
        sparse_vector_name="sparse",
    )
    t = time.perf_counter()
    store.add_texts(texts, metadatas=payloads, ids=[p["unit_id"] for p in payloads], batch_size=2048)
    up = time.perf_counter() - t
    out = {"upsert_units_per_s": len(texts) / up}
    out |= _latencies(lambda q: store.similarity_search_with_score(q[0], k=10), queries)
    return out


def _store_llamaindex(payloads, texts, dense, sparse, queries) -> dict[str, Any]:
    from llama_index.core.schema import TextNode
    from llama_index.core.vector_stores.types import (
        VectorStoreQuery,
        VectorStoreQueryMode,
    )
    from llama_index.vector_stores.qdrant import QdrantVectorStore
    from qdrant_client import QdrantClient

    sparse_of = _Lookup(texts + [q[0] for q in queries], list(sparse) + [q[2] for q in queries])

    def sparse_fn(xs: list[str]) -> tuple[list[list[int]], list[list[float]]]:
        vs = [sparse_of(x) for x in xs]
        return [list(v.indices) for v in vs], [list(v.values) for v in vs]

    store = QdrantVectorStore(
        collection_name="bench",
        client=QdrantClient(":memory:"),
        enable_hybrid=True,
        sparse_doc_fn=sparse_fn,
        sparse_query_fn=sparse_fn,
        batch_size=2048,
    )
    keep = ("doc_id", "doc_name", "unit_type", "page", "pages", "grade_label", "context")
    nodes = [
        TextNode(
            id_=p["unit_id"],
            text=x,
            embedding=d.tolist(),
            metadata={k: p[k] for k in keep},
            excluded_embed_metadata_keys=list(keep),  # the sparse function sees the text alone
        )
        for p, x, d in zip(payloads, texts, dense)
    ]
    t = time.perf_counter()
    store.add(nodes)
    up = time.perf_counter() - t
    out = {"upsert_units_per_s": len(nodes) / up}
    out |= _latencies(
        lambda q: store.query(
            VectorStoreQuery(
                query_embedding=q[1],
                query_str=q[0],
                similarity_top_k=10,
                sparse_top_k=50,
                hybrid_top_k=10,
                mode=VectorStoreQueryMode.HYBRID,
            )
        ),
        queries,
    )
    return out


CHILDREN = {
    "ingest": child_ingest,
    "raw_model": child_raw_model,
    "lean_model": child_lean_model,
    "inprocess_queries": child_inprocess_queries,
    "store": child_store,
}


# --------------------------------------------------------------------------------------------
# parent
# --------------------------------------------------------------------------------------------


def run_child(env: dict[str, str], name: str, *args: Any) -> dict[str, Any]:
    """Run one child step; returns its JSON result plus ``wall_s`` and ``peak_rss_mb``."""
    cmd = [sys.executable, __file__, "--child", name, json.dumps([*args])]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    out = proc.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"child {name} failed with code {proc.returncode}")
    result = json.loads(out.strip().splitlines()[-1])
    return result | {"wall_s": wall, "peak_rss_mb": usage.ru_maxrss / 1024}


def timed_cmd(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one command."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {proc.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cli_cmd(src: Path | None, argv: list[str]) -> list[str]:
    """``structaware ARGV`` in a new process, from the source tree ``src`` (``None``: this checkout)."""
    prelude = f"import sys; sys.path.insert(0, {str(src / 'src')!r}); " if src else "import sys; "
    code = prelude + f"from structaware_retrievers.cli import main; sys.argv = ['structaware', *{argv!r}]; main()"
    return [sys.executable, "-c", code]


def cli_query_cmd(src: Path | None, index: Path, q: str) -> list[str]:
    return cli_cmd(src, ["query", q, "--index", str(index), "-k", "5"])


def start_server(env: dict[str, str], index: Path) -> tuple[subprocess.Popen[str], str, float]:
    """``structaware serve`` of ``index`` on a free port: (process, URL, seconds until it listened)."""
    cmd = [sys.executable, "-m", "structaware_retrievers.cli", "serve", "--index", str(index), "--port", "0"]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
    line = proc.stderr.readline()  # type: ignore[union-attr]
    return proc, line.split(" at ", 1)[1].split()[0], time.perf_counter() - t


def section_cli(
    env: dict[str, str], tmp: Path, before: Path | None, start: Path | None, presets: list[str], repeats: int
) -> dict[str, Any]:
    """CLI query wall and CPU time per call, a new process each, variants alternating call by call.

    Per dense model (``default``, then each of ``presets``): ``before`` (the source tree ``before``
    for the default model, ``start`` for a preset, on an index that tree ingested itself: older
    trees cannot read this checkout's indexes), ``now`` (this checkout, no server running for its
    index) and ``served`` (this checkout, a ``structaware serve`` of a copy of that index running:
    the command asks it). Every variant answers one untimed query first (caches prepared).
    """
    out: dict[str, Any] = {"queries": len(QUERIES), "repeats": repeats}
    for preset in ["default", *presets]:
        penv = dict(env)
        if preset != "default":
            penv["STRUCTAWARE_DENSE_MODEL"] = preset
        old = before if preset == "default" else start
        now_ix, old_ix, served_ix = tmp / f"cli-{preset}-now", tmp / f"cli-{preset}-old", tmp / f"cli-{preset}-served"
        print(f"  {preset}: ingest ...", flush=True)
        variants: dict[str, tuple[Path | None, Path]] = {"now": (None, now_ix), "served": (None, served_ix)}
        subprocess.run(
            cli_cmd(None, ["ingest", str(CDC), "--index", str(now_ix), "--no-progress"]),
            env=penv,
            check=True,
            capture_output=True,
        )
        shutil.copytree(now_ix, served_ix)
        if old is not None:
            subprocess.run(
                cli_cmd(old, ["ingest", str(CDC), "--index", str(old_ix), "--no-progress"]),
                env=penv,
                check=True,
                capture_output=True,
            )
            variants = {"before": (old, old_ix), **variants}
        server, _, startup = start_server(penv, served_ix)
        rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
        try:
            for src, ix in variants.values():
                timed_cmd(cli_query_cmd(src, ix, QUERIES[0]), penv)  # warm-up
            print(f"  {preset}: CLI queries {list(variants)} ...", flush=True)
            for _ in range(repeats):
                for q in QUERIES:  # alternating, so a change of load hits every variant alike
                    for name, (src, ix) in variants.items():
                        rows[name].append(timed_cmd(cli_query_cmd(src, ix, q), penv))
        finally:
            server.terminate()
            server.wait(60)
        res: dict[str, Any] = {"serve_startup_s": startup, "before_src": str(old) if old else None}
        for name, r in rows.items():
            res[f"{name}_wall_s"] = [x[0] for x in r]
            res[f"{name}_cpu_s"] = [x[1] for x in r]
            res[f"{name}_peak_rss_mb"] = max(x[2] for x in r)
            res[f"{name}_median_wall_s"] = statistics.median(res[f"{name}_wall_s"])
            res[f"{name}_median_cpu_s"] = statistics.median(res[f"{name}_cpu_s"])
        if "before" in rows:
            for name in ("now", "served"):
                pairs = [a[0] / b[0] for a, b in zip(rows[name], rows["before"], strict=True)]
                res[f"{name}_vs_before_median_wall"] = res[f"{name}_median_wall_s"] / res["before_median_wall_s"]
                res[f"{name}_vs_before_median_pair_ratio"] = statistics.median(pairs)
                res[f"{name}_vs_before_median_cpu"] = res[f"{name}_median_cpu_s"] / res["before_median_cpu_s"]
        print(f"   {json.dumps({k: v for k, v in res.items() if not isinstance(v, list)})}", flush=True)
        out[preset] = res
    return out


def section_ingest(env: dict[str, str], tmp: Path, filings_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    texts = tmp / "cdc_texts.json"
    print("  CDC first ingest ...", flush=True)
    out["cdc_first"] = run_child(env, "ingest", str(tmp / "cdc"), [str(CDC)], str(texts))
    print(f"   {out['cdc_first']}", flush=True)
    print("  raw model (fastembed defaults) on the CDC texts ...", flush=True)
    out["cdc_raw_fastembed"] = run_child(env, "raw_model", str(texts))
    print(f"   {out['cdc_raw_fastembed']}", flush=True)
    print("  our dense encoder alone on the CDC texts ...", flush=True)
    out["cdc_dense_encoder"] = run_child(env, "lean_model", str(texts))
    print(f"   {out['cdc_dense_encoder']}", flush=True)
    zips = [str(filings_dir / f"{n}.zip") for n in FILINGS]
    if all(Path(z).is_file() for z in zips):
        print("  five filings first ingest ...", flush=True)
        out["filings_first"] = run_child(env, "ingest", str(tmp / "filings"), zips, None)
        print(f"   {out['filings_first']}", flush=True)
        print("  five filings re-ingest (unchanged) ...", flush=True)
        out["filings_again"] = run_child(env, "ingest", str(tmp / "filings"), zips, None)
        print(f"   {out['filings_again']}", flush=True)
        out["filings"] = FILINGS
    return out


def section_overhead(env: dict[str, str], tmp: Path, start: Path | None, repeats: int) -> dict[str, Any]:
    """First ingest of the CDC fixture into a fresh index (fresh embedding cache), ``repeats`` times,
    alternating with the source tree ``start`` when given: the share of the ingest's own time outside
    the encoders (``IngestSummary.seconds - embedding_seconds``) and the process's wall time."""
    trees: dict[str, Path | None] = {"now": None, **({"start": start} if start is not None else {})}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    if start is not None:  # the older tree's own model caches (its optimised graph), as the warm-up did for ours
        run_child({**env, "PYTHONPATH": str(start / "src")}, "lean_model", _write(tmp / "warm-start.json", ["warm up"]))
    for r in range(repeats):
        for name, src in trees.items():
            cenv = {**env, "PYTHONPATH": str(src / "src")} if src is not None else env
            res = run_child(cenv, "ingest", str(tmp / f"overhead-{name}-{r}"), [str(CDC)], None)
            res["outside_s"] = res["seconds"] - res["embedding_seconds"]
            res["outside_share"] = res["outside_s"] / res["seconds"]
            print(f"   {name} {r}: {res}", flush=True)
            runs[name].append(res)
    out: dict[str, Any] = {"repeats": repeats, "start_src": str(start) if start else None}
    for name, rows in runs.items():
        out[name] = rows
        for key in ("outside_share", "outside_s", "seconds", "wall_s", "peak_rss_mb"):
            out[f"{name}_median_{key}"] = statistics.median(x[key] for x in rows)
    return out


def section_query(env: dict[str, str], tmp: Path, repeats: int) -> dict[str, Any]:
    index = tmp / "cdc"
    if not index.exists():
        run_child(env, "ingest", str(index), [str(CDC)], None)
    out: dict[str, Any] = {"queries": len(QUERIES), "repeats": repeats}
    print("  in-process queries ...", flush=True)
    out["in_process"] = run_child(env, "inprocess_queries", str(index), repeats)
    print("  served queries (structaware serve) ...", flush=True)
    proc, url, out["serve_startup_s"] = start_server(env, index)
    try:
        lat = []
        for _ in range(repeats):
            for q in QUERIES:
                req = urllib.request.Request(f"{url}/query", data=json.dumps({"text": q, "k": 5}).encode())
                t = time.perf_counter()
                with urllib.request.urlopen(req, timeout=60) as resp:
                    resp.read()
                lat.append(time.perf_counter() - t)
        out["serve_latencies_s"] = lat
    finally:
        proc.terminate()
        proc.wait(60)
    return out


def section_store(env: dict[str, str], tmp: Path, sizes: list[int], n_queries: int) -> dict[str, Any]:
    import numpy as np

    from bench_store import make_units, pool_vectors, sentence_pool
    from structaware_retrievers.encoders import DenseEncoder, SparseEncoder

    print("  building synthetic units and vectors ...", flush=True)
    pool = sentence_pool(1500)
    pvec = pool_vectors(pool, DenseEncoder())
    units, members = make_units(max(sizes), pool)
    sp = SparseEncoder()
    texts = [u.embedding_text() for u in units]
    t = time.perf_counter()
    sparse = sp.embed_documents(texts)
    sparse_s = time.perf_counter() - t
    dense = np.stack([pvec[m].mean(axis=0) for m in members]).astype(np.float32)
    dense /= np.linalg.norm(dense, axis=1, keepdims=True)
    rng = np.random.default_rng(7)
    qidx = rng.integers(0, len(pool), n_queries + 3)
    queries = [(f"q{i}: {pool[j]}", pvec[j].tolist(), sp.embed_query(pool[j])) for i, j in enumerate(qidx)]
    data = tmp / "store_data.pkl"
    with open(data, "wb") as fh:
        pickle.dump(
            {
                "payloads": [u.to_payload() for u in units],
                "texts": texts,
                "dense": dense,
                "sparse": sparse,
                "queries": queries,
            },
            fh,
        )
    out: dict[str, Any] = {"sparse_encode_units_per_s": len(units) / sparse_s, "queries": n_queries}
    for n in sizes:
        for kind in ("edge", "langchain", "llamaindex"):
            print(f"  {kind} {n:,} ...", flush=True)
            out[f"{kind}_{n}"] = run_child(env, "store", kind, str(data), n, n_queries)
            print(f"   {out[f'{kind}_{n}']}", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("child_args", nargs="?", default="[]", help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="+", choices=["ingest", "overhead", "query", "cli", "store"], default=None)
    ap.add_argument(
        "--before-src", type=Path, default=None, help="source tree of an older commit (for the CLI before/after)"
    )
    ap.add_argument(
        "--start-src", type=Path, default=None, help="cli: the older tree for --presets; overhead: the older tree"
    )
    ap.add_argument("--presets", nargs="*", default=[], help="cli section: dense presets measured after the default")
    ap.add_argument("--filings-dir", type=Path, default=FILINGS_DIR)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=20, help="store section: timed queries per backend")
    ap.add_argument("--repeats", type=int, default=2, help="query section: passes over the 10 questions")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--compile",
        action="store_true",
        help="cli: byte-compile every measured source tree first (as pip does when it installs a wheel)",
    )
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        print(json.dumps(CHILDREN[args.child](*json.loads(args.child_args))))
        return 0

    from bench_store import machine

    only = set(args.only or ["ingest", "overhead", "query", "cli", "store"])
    report: dict[str, Any] = {"machine": machine(), "args": {k: str(v) for k, v in vars(args).items()}}
    try:
        report["commit"] = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        report["commit"] = ""
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as d:
        tmp = Path(d)
        env = {**os.environ, "STRUCTAWARE_CACHE_DIR": str(tmp / "cache"), "HF_HUB_OFFLINE": "1"}
        print("warm-up (model folder, optimised graph) ...", flush=True)
        run_child(env, "lean_model", _write(tmp / "warm.json", ["warm up"]))
        if "ingest" in only:
            print("ingest ...", flush=True)
            report["ingest"] = section_ingest(env, tmp, args.filings_dir)
        if "query" in only:
            print("query ...", flush=True)
            report["query"] = section_query(env, tmp, args.repeats)
        if "overhead" in only:
            print("overhead ...", flush=True)
            report["overhead"] = section_overhead(env, tmp, args.start_src, args.repeats)
        if "cli" in only:
            if args.compile:  # else each call compiles the trees' modules again (PYTHONDONTWRITEBYTECODE)
                for tree in {REPO, args.before_src, args.start_src} - {None}:
                    subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "src")], check=True)
            print("cli ...", flush=True)
            report["cli"] = section_cli(env, tmp, args.before_src, args.start_src, args.presets, args.repeats)
        if "store" in only:
            print("store ...", flush=True)
            report["store"] = section_store(env, tmp, sorted(args.sizes), args.queries)
    report["machine"]["loadavg_end"] = os.getloadavg()
    text = json.dumps(report, indent=1)
    if args.json:
        args.json.write_text(text, encoding="utf-8")
    print(text)
    return 0


def _write(path: Path, obj: Any) -> str:
    path.write_text(json.dumps(obj), encoding="utf-8")
    return str(path)


if __name__ == "__main__":
    sys.exit(main())
