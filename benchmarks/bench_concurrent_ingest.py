"""Several ``structaware ingest`` processes writing one folder index at once (issue 24).

Steps, each a real ``structaware ingest`` command in its own process (``python -m
structaware_retrievers.cli``), with the environment of this process (set
``STRUCTAWARE_CACHE_DIR``):

1. ``--seed-parse-cache``: for every PDF that has a MinerU output ``<parsed>/<stem>.zip`` (the
   bench's flash-tier zips), the parse cache entry a MinerU run of that PDF writes
   (:class:`~structaware_readers.mineru.parse_cache.ParseCache`, keyed by the PDF's content hash),
   so no PDF is parsed again: this benchmark is about the writes (the parse is
   ``bench_parse_workers.py``'s and the cold-ingest measurement's).
2. ``single``: one process ingests every PDF into ``<out>/single``.
3. ``concurrent``: ``--processes`` processes started together, process ``i`` given every
   ``--processes``-th PDF from ``i`` (a quarter each for 4), into ``<out>/concurrent``. With
   ``--share-embeddings`` the single run's embedding cache (``embeddings.sqlite``, kept in the index
   folder) is copied there first, so neither run is timed on the models; ``--embeddings-from`` seeds
   the single run's cache from another (e.g. the dev sets' shared cache).
4. Compare: documents, units per document, and every point (id and payload) of the two indexes.
5. Re-ingest of the unchanged ``--reingest`` folder into ``<out>/concurrent`` (a new process, as a
   user re-runs the command): wall time.

Prints and writes ``<out>/report.json``: per step wall seconds, exit codes, the last lines of each
process's stderr, and the comparison.

Run::

    STRUCTAWARE_CACHE_DIR=/tmp/ing-cache HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_concurrent_ingest.py \\
        --out /tmp/ing --pdfs ../shared/bench/cpg/pdfs/*.pdf ../shared/bench/finance/pdfs/{A,B,...}.pdf \\
        --parsed ../shared/bench/cpg/mineru-4.0.12-flash ../shared/bench/finance/mineru-4.0.12-flash \\
        --seed-parse-cache --share-embeddings --reingest ../shared/bench/cpg/pdfs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any


def seed_parse_cache(pdfs: list[Path], parsed: list[Path], tier: str, version: str) -> list[str]:
    from structaware_readers.ids import doc_id_from_file
    from structaware_readers.mineru.parse_cache import ParseCache

    cache = ParseCache()
    seeded = []
    for pdf in pdfs:
        zips = [d / f"{pdf.stem}.zip" for d in parsed if (d / f"{pdf.stem}.zip").is_file()]
        if not zips:
            continue
        with zipfile.ZipFile(zips[0]) as z:
            middle = json.loads(z.read("middle_json.json"))
        cache.store(doc_id_from_file(pdf), tier, version, middle, pdf=pdf)
        seeded.append(pdf.name)
    return seeded


def ingest(paths: list[Path], index: Path, workers: int | None) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        "-m",
        "structaware_retrievers.cli",
        "ingest",
        *map(str, paths),
        "--index",
        str(index),
        "--no-progress",
    ]
    if workers:
        cmd += ["--workers", str(workers)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(procs: list[subprocess.Popen[str]], t0: float) -> list[dict[str, Any]]:
    out = []
    for p in procs:
        stdout, stderr = p.communicate()
        out.append(
            {
                "exit": p.returncode,
                "wall_s": round(time.perf_counter() - t0, 1),
                "stdout_tail": stdout.strip().splitlines()[-3:],
                "stderr_tail": [line for line in stderr.strip().splitlines() if line][-5:],
            }
        )
    return out


def snapshot(index: Path) -> dict[str, Any]:
    """Documents and every point (id -> payload digest) of an index folder."""
    from structaware_retrievers.index.structure_index import StructureIndex

    ix = StructureIndex(index)
    try:
        docs = ix.documents()
        points = {
            r.id: hashlib.sha256(json.dumps(r.payload, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
            for r in ix.store.scroll()
        }
    finally:
        ix.close()
    return {"documents": docs, "points": points}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--pdfs", type=Path, nargs="+", required=True)
    ap.add_argument("--parsed", type=Path, nargs="*", default=[])
    ap.add_argument("--seed-parse-cache", action="store_true")
    ap.add_argument("--tier", default="flash")
    ap.add_argument("--mineru-version", default="4.0.12")
    ap.add_argument("--processes", type=int, default=4)
    ap.add_argument("--workers", type=int, default=None, help="--workers of each ingest (default: the CLI's)")
    ap.add_argument("--share-embeddings", action="store_true")
    ap.add_argument(
        "--embeddings-from",
        type=Path,
        default=None,
        help="an embedding cache (embeddings.sqlite) copied into the single run's index folder first",
    )
    ap.add_argument("--reingest", type=Path, default=None)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    args.out.mkdir(parents=True, exist_ok=True)
    pdfs = sorted(args.pdfs, key=lambda p: p.name)
    report: dict[str, Any] = {"pdfs": [p.name for p in pdfs], "load_start": os.getloadavg()}
    if args.seed_parse_cache:
        report["parse_cache_seeded"] = seed_parse_cache(pdfs, args.parsed, args.tier, args.mineru_version)
        print(f"parse cache seeded for {len(report['parse_cache_seeded'])} PDFs", flush=True)
    single, conc = args.out / "single", args.out / "concurrent"
    shutil.rmtree(single, ignore_errors=True)
    shutil.rmtree(conc, ignore_errors=True)

    if args.embeddings_from:
        single.mkdir(parents=True)
        with sqlite3.connect(args.embeddings_from) as src, sqlite3.connect(single / "embeddings.sqlite") as dst:
            src.backup(dst)  # a consistent copy even while another process writes the source
    t0 = time.perf_counter()
    report["single"] = finish([ingest(pdfs, single, args.workers)], t0)[0] | {"load_end": os.getloadavg()}
    print(f"single: {report['single']}", flush=True)

    if args.share_embeddings:
        conc.mkdir(parents=True)
        shutil.copyfile(single / "embeddings.sqlite", conc / "embeddings.sqlite")
    parts = [pdfs[i :: args.processes] for i in range(args.processes)]
    report["parts"] = [[p.name for p in part] for part in parts]
    t0 = time.perf_counter()
    procs = [ingest(part, conc, args.workers) for part in parts]
    report["concurrent"] = finish(procs, t0)
    report["concurrent_wall_s"] = round(time.perf_counter() - t0, 1)
    report["concurrent_load_end"] = os.getloadavg()
    print(f"concurrent: {report['concurrent']}", flush=True)

    a, b = snapshot(single), snapshot(conc)
    names_b = [d["doc_name"] for d in b["documents"]]
    report["compare"] = {
        "documents_single": len(a["documents"]),
        "documents_concurrent": len(b["documents"]),
        "every_pdf_once": sorted(names_b) == sorted(p.stem for p in pdfs) and len(set(names_b)) == len(names_b),
        "units_per_document_equal": [(d["doc_name"], d["units"]) for d in a["documents"]]
        == [(d["doc_name"], d["units"]) for d in b["documents"]],
        "points_single": len(a["points"]),
        "points_concurrent": len(b["points"]),
        "same_point_ids": set(a["points"]) == set(b["points"]),
        "same_payloads": a["points"] == b["points"],
        "units_per_document": {d["doc_name"]: d["units"] for d in b["documents"]},
    }
    print(f"compare: {report['compare']}", flush=True)

    if args.reingest:
        t0 = time.perf_counter()
        report["reingest"] = finish([ingest([args.reingest], conc, args.workers)], t0)[0] | {"load": os.getloadavg()}
        print(f"re-ingest: {report['reingest']}", flush=True)
    (args.out / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    ok = all(r["exit"] == 0 for r in [report["single"], *report["concurrent"]]) and report["compare"]["same_payloads"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
