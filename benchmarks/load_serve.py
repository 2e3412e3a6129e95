"""``structaware serve`` and ``structaware mcp`` under load while another process ingests into the
same index folder.

1. Build the corpus (``load_common.Corpus``: fixtures of ``tests/fixtures``, English and Chinese,
   two documents rewritten throughout) in ``--work``.
2. ``serve``: start ``structaware serve --port <free> --pdf <work>/pdfs`` on 127.0.0.1, then for
   ``--seconds`` run ``--clients`` client threads (one keep-alive connection each) sending a mix of
   requests (English and Chinese searches, some filtered, some expanded; per-document probes;
   ``GET /documents``, ``GET /unit``, ``GET /image``) while ``load_common.Churn`` runs
   ``structaware ingest`` / ``structaware delete`` into the same folder.
3. ``mcp``: the same for ``--sessions`` ``structaware mcp`` processes, each driven by its own MCP
   client session over stdio (``load_mcp.py``).

Every answer is checked (``load_common.Checker``): an error status, a unit the corpus never had, a
document with part of its units, a hit without its neighbours. Per request kind: count, errors,
p50 / p99 / max latency (ms); the served processes' peak RSS; the ingest commands run; the load average.
Loopback only; bounded: a deadline, a request timeout, a cap on requests per client.

Run::

    HF_HUB_OFFLINE=1 STRUCTAWARE_CACHE_DIR=/tmp/sa-cache nice -n 5 .venv/bin/python benchmarks/load_serve.py \\
        --work /tmp/sa-load --seconds 120 --out /tmp/sa-load/report.json
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_common import (
    ALL_TYPES,
    CHURN,
    EN_QUERIES,
    STABLE,
    ZH_QUERIES,
    Checker,
    Churn,
    Corpus,
    RssWatch,
    Tally,
    cli,
    load_avg,
)

TIMEOUT = 120.0  # seconds one request may take
MAX_REQUESTS = 100_000  # per client: a bound beside the deadline
MIX = {
    "search_en": 28,
    "search_zh": 18,
    "search_expand": 10,
    "probe": 14,
    "documents": 5,
    "unit": 12,
    "image": 8,
    "health": 5,
}


def request_for(kind: str, rng: random.Random, corpus: Corpus) -> tuple[str, str, dict[str, Any] | None]:
    """``(method, path, JSON body)`` of one request of ``kind``."""
    if kind in ("search_en", "search_zh", "search_expand"):
        zh = kind == "search_zh" or (kind == "search_expand" and rng.random() < 0.4)
        body: dict[str, Any] = {"text": rng.choice(ZH_QUERIES if zh else EN_QUERIES), "k": rng.choice([3, 5, 10])}
        roll = rng.random()
        if roll < 0.2:
            body["filter"] = {"unit_types": ["table_row", "recommendation"]}
        elif roll < 0.35:
            body["filter"] = {"page": {"$gte": 2}}
        elif roll < 0.45:
            body["filter"] = {"doc_names": [rng.choice(STABLE + list(CHURN))]}
        if kind == "search_expand":
            body["expand"] = True
        return "POST", "/query", body
    if kind == "probe":
        name = rng.choice(list(CHURN))
        doc_id = rng.choice(corpus.versions[name])
        text = rng.choice(ZH_QUERIES if name.startswith("zh") else EN_QUERIES)
        flt = {"doc_id": doc_id, "unit_type": {"$in": ALL_TYPES}}
        return (
            "POST",
            "/query",
            {"text": text, "mode": "dense", "k": 1000, "prefetch_limit": 1000, "group_size": 1, "filter": flt},
        )
    if kind == "documents":
        return "GET", "/documents", None
    if kind == "health":
        return "GET", "/health", None
    if kind == "unit":
        return "GET", "/unit?" + urlencode({"unit": rng.choice(corpus.units)}), None
    return "GET", "/image?" + urlencode({"unit": rng.choice(corpus.pictured), "crop": "true", "dpi": 72}), None


def client(i: int, port: int, corpus: Corpus, checker: Checker, tally: Tally, deadline: float) -> None:
    rng = random.Random(i)
    kinds, weights = list(MIX), list(MIX.values())
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    for n in range(MAX_REQUESTS):
        if time.monotonic() >= deadline:
            break
        kind = rng.choices(kinds, weights)[0]
        method, path, body = request_for(kind, rng, corpus)
        where = f"client {i} #{n} {kind}"
        t = time.perf_counter()
        try:
            conn.request(
                method,
                path,
                body=json.dumps(body).encode() if body else None,
                headers={"Content-Type": "application/json"},
            )
            resp = conn.getresponse()
            data = resp.read()
            seconds = time.perf_counter() - t
        except (OSError, http.client.HTTPException) as exc:
            tally.add(
                kind,
                time.perf_counter() - t,
                f"{where} at {time.monotonic() - deadline:+.1f} s of the end: {type(exc).__name__}: {exc}",
            )
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
            continue
        if resp.status != 200:
            tally.add(kind, seconds, f"{where}: {resp.status} {data[:300]!r}")
            continue
        tally.add(kind, seconds)
        if kind == "image":
            if not data.startswith(b"\x89PNG"):
                tally.violation("not a PNG", where)
            continue
        answer = json.loads(data)
        if kind == "probe":
            checker.probe(body["filter"]["doc_id"], answer["hits"], where)  # type: ignore[index]
        elif kind == "search_expand":
            checker.expanded(answer["evidence"], where)
        elif kind in ("search_en", "search_zh", "unit"):
            checker.records(answer["hits"], where)
        elif kind == "documents":
            checker.documents(answer["documents"], where)
    conn.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], log: Path, limit: float = 300.0) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"structaware serve ended ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"structaware serve did not listen within {limit:.0f} s")


def run_serve(corpus: Corpus, seconds: float, clients: int, *, ingest: bool = True) -> dict[str, Any]:
    port = free_port()
    log = corpus.work / "serve.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            cli(
                "serve",
                "--index",
                str(corpus.index),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--pdf",
                str(corpus.pdfs),
            ),
            stdout=fh,
            stderr=fh,
        )
    try:
        wait_listening(port, proc, log)
        tally = Tally()
        checker = Checker(corpus, tally)
        rss = RssWatch([proc.pid])
        rss.start()
        load_start = load_avg()
        start = time.monotonic()
        deadline = start + seconds
        churn = Churn(corpus, deadline, idle=not ingest)
        churn.start()
        threads = [
            threading.Thread(target=client, args=(i, port, corpus, checker, tally, deadline), daemon=True)
            for i in range(clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(seconds + TIMEOUT + 30)
        wall = time.monotonic() - start
        mem = rss.finish()[proc.pid]
        churn.stop.set()
        churn.join(churn.timeout + 30)
        return {
            "face": "serve",
            "clients": clients,
            "seconds": round(wall, 1),
            "load_avg_start": load_start,
            "load_avg_end": load_avg(),
            **tally.report(),
            "server_rss": mem,
            "ingest": churn.summary(),
            "server_alive": proc.poll() is None,
        }
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def print_report(rep: dict[str, Any]) -> None:
    who = f"{rep['clients']} clients" if rep["face"] == "serve" else f"{rep['sessions']} sessions"
    print(f"\n## {rep['face']}: {who}, {rep['seconds']} s, load {rep['load_avg_start']} -> {rep['load_avg_end']}")
    print("| kind | requests | errors | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|")
    for r in rep["kinds"]:
        print(f"| {r['kind']} | {r['requests']} | {r['errors']} | {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} |")
    print(
        f"requests {rep['requests']}, errors {rep['errors']}, violations {rep['violations'] or 0}, checked {rep['checked']}"
    )
    print(f"server RSS (MiB): {rep['server_rss']}")
    print(f"ingest: {rep['ingest']}")
    for r in rep["kinds"][:-1]:  # the last row, all, repeats them
        for e in r["error_examples"]:
            print(f"  error {r['kind']}: {e}")
    for e in rep["violation_examples"]:
        print(f"  violation: {e}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True, help="work folder (emptied first)")
    ap.add_argument("--seconds", type=float, default=120.0, help="duration of each face's load (default 120)")
    ap.add_argument("--clients", type=int, default=16, help="HTTP client threads (default 16)")
    ap.add_argument("--sessions", type=int, default=4, help="MCP sessions (default 4)")
    ap.add_argument("--faces", nargs="+", default=["serve", "mcp"], choices=["serve", "mcp"])
    ap.add_argument("--no-ingest", action="store_true", help="a baseline: no process ingests meanwhile")
    ap.add_argument("--out", type=Path, default=None, help="write the report (JSON) here")
    args = ap.parse_args(argv)
    t = time.perf_counter()
    corpus = Corpus.build(args.work)
    print(
        f"corpus: {len(corpus.known)} document versions, {sum(map(len, corpus.known.values()))} units, built in"
        f" {time.perf_counter() - t:.0f} s; load {load_avg()}",
        flush=True,
    )
    reports = []
    for face in args.faces:
        if face == "serve":
            rep = run_serve(corpus, args.seconds, args.clients, ingest=not args.no_ingest)
        else:
            from load_mcp import run_mcp

            rep = run_mcp(corpus, args.seconds, args.sessions, ingest=not args.no_ingest)
        print_report(rep)
        reports.append(rep)
    if args.out:
        args.out.write_text(
            json.dumps({"machine": machine(), "reports": reports}, indent=1, ensure_ascii=False), encoding="utf-8"
        )
    bad = any(r["errors"] or r["violations"] or r["ingest"]["failed"] for r in reports)
    return 1 if bad else 0


def machine() -> dict[str, Any]:
    import os
    import platform

    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


if __name__ == "__main__":
    sys.exit(main())
