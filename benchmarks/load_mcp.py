"""The MCP face of ``load_serve.py``: ``sessions`` ``structaware mcp`` processes over one index folder,
each driven by its own client session of the official MCP SDK over stdio, for a bounded time,
while ``load_common.Churn`` ingests into the folder. Tool calls: ``search`` (English and Chinese,
some filtered, some expanded, some with ``images=True``), per-document probes through ``search``'s
``filter``, ``list_documents``; every answer checked as the HTTP face's are."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

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

TIMEOUT = 120.0  # seconds one tool call may take
MAX_CALLS = 20_000  # per session: a bound beside the deadline
MIX = {"search_en": 30, "search_zh": 20, "search_expand": 12, "probe": 16, "list_documents": 8, "search_images": 14}


def call_for(kind: str, rng: random.Random, corpus: Corpus) -> tuple[str, dict[str, Any]]:
    """``(tool, arguments)`` of one call of ``kind``."""
    if kind == "list_documents":
        return "list_documents", {}
    if kind == "probe":
        name = rng.choice(list(CHURN))
        flt = {"doc_id": rng.choice(corpus.versions[name]), "unit_type": {"$in": ALL_TYPES}}
        text = rng.choice(ZH_QUERIES if name.startswith("zh") else EN_QUERIES)
        return "search", {"query": text, "mode": "dense", "k": 1000, "filter": flt}
    if kind == "search_images":
        pictured = [n for n in STABLE if (corpus.pdfs / f"{n}.pdf").exists()]
        return "search", {"query": rng.choice(EN_QUERIES), "k": 2, "doc_names": [rng.choice(pictured)], "images": True}
    zh = kind == "search_zh" or (kind == "search_expand" and rng.random() < 0.4)
    args: dict[str, Any] = {"query": rng.choice(ZH_QUERIES if zh else EN_QUERIES), "k": rng.choice([3, 5, 10])}
    roll = rng.random()
    if roll < 0.2:
        args["unit_types"] = ["table_row", "recommendation"]
    elif roll < 0.35:
        args["page_from"] = 2
    elif roll < 0.45:
        args["doc_names"] = [rng.choice(STABLE + list(CHURN))]
    if kind == "search_expand":
        args["expand"] = True
    return "search", args


async def session(
    i: int, corpus: Corpus, checker: Checker, tally: Tally, up: asyncio.Event, start: list[float], seconds: float
) -> None:
    """One ``structaware mcp`` process and its client session: up (the model loaded, tools listed),
    then calls from the moment ``start`` holds the common start time until ``seconds`` after it."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=cli("mcp", "--index", str(corpus.index), "--pdf", str(corpus.pdfs))[1:],
        env=dict(os.environ),
    )
    rng = random.Random(100 + i)
    kinds, weights = list(MIX), list(MIX.values())
    async with Client(params, read_timeout_seconds=TIMEOUT) as client:
        await client.list_tools()
        up.set()
        while not start:
            await asyncio.sleep(0.05)
        deadline = start[0] + seconds
        for n in range(MAX_CALLS):
            if time.monotonic() >= deadline:
                break
            kind = rng.choices(kinds, weights)[0]
            tool, args = call_for(kind, rng, corpus)
            where = f"session {i} #{n} {kind}"
            t = time.perf_counter()
            try:
                result = await asyncio.wait_for(client.call_tool(tool, args), TIMEOUT)
            except Exception as exc:  # noqa: BLE001 - any failure of the call is an error of this kind
                tally.add(
                    kind,
                    time.perf_counter() - t,
                    f"{where} at {time.monotonic() - deadline:+.1f} s of the end: {type(exc).__name__}: {exc}",
                )
                continue
            seconds_taken = time.perf_counter() - t
            if result.is_error:
                tally.add(kind, seconds_taken, f"{where}: " + " ".join(getattr(c, "text", "") for c in result.content))
                continue
            tally.add(kind, seconds_taken)
            body = result.structured_content or {}
            if kind == "list_documents":
                checker.documents(body["documents"], where)
            elif kind == "probe":
                checker.probe(args["filter"]["doc_id"], body["results"], where)
            elif kind == "search_expand":
                checker.expanded(body["results"], where)
            else:
                checker.records(body["results"], where)
            if kind == "search_images":
                images = [c for c in result.content[1:] if c.type == "image"]
                if len(images) != len(body["results"]):
                    tally.violation(
                        "hit without its picture", f"{where}: {len(images)} images, {len(body['results'])} hits"
                    )


def _servers() -> list[int]:
    """Process ids of the ``structaware mcp`` processes this process started."""
    import psutil

    return [p.pid for p in psutil.Process().children(recursive=True) if "mcp" in p.cmdline()]


async def _run(corpus: Corpus, seconds: float, sessions: int, ingest: bool) -> dict[str, Any]:
    tally = Tally()
    checker = Checker(corpus, tally)
    ups = [asyncio.Event() for _ in range(sessions)]
    start: list[float] = []
    tasks = [asyncio.create_task(session(i, corpus, checker, tally, ups[i], start, seconds)) for i in range(sessions)]
    waiting = asyncio.gather(*(e.wait() for e in ups))
    done, _ = await asyncio.wait([waiting, *tasks], timeout=600, return_when=asyncio.FIRST_COMPLETED)
    if waiting not in done:  # a session failed (or hung) before it was up
        for t in tasks:
            t.cancel()
        raise SystemExit(f"MCP sessions did not start: {[t.exception() for t in tasks if t.done()]}")
    rss = RssWatch(_servers())
    rss.start()
    load_start = load_avg()
    t0 = time.monotonic()
    churn = Churn(corpus, t0 + seconds, idle=not ingest)
    churn.start()
    start.append(t0)  # the sessions' clocks start now (each process has loaded its model)
    await asyncio.gather(*tasks)
    wall = time.monotonic() - t0
    mem = rss.finish()
    churn.stop.set()
    await asyncio.to_thread(churn.join, churn.timeout + 30)
    return {
        "face": "mcp",
        "sessions": sessions,
        "seconds": round(wall, 1),
        "load_avg_start": load_start,
        "load_avg_end": load_avg(),
        **tally.report(),
        "server_rss": {
            "per_process": list(mem.values()),
            "peak_mib_max": max((m["vm_hwm_mib"] for m in mem.values()), default=0),
        },
        "ingest": churn.summary(),
    }


def run_mcp(corpus: Corpus, seconds: float, sessions: int, *, ingest: bool = True) -> dict[str, Any]:
    """Run the MCP face (see the module docstring); the report's fields are the HTTP face's."""
    return asyncio.run(_run(corpus, seconds, sessions, ingest))
