"""Parsing a library: one MinerU process per PDF against long-lived parse workers (issue 24).

Times, with an empty parse cache each time (a new ``STRUCTAWARE_CACHE_DIR`` per route):

* ``mineru-kit``: ``mineru-kit parse PDF... -f middle_json`` once over all the PDFs, in one
  process (the yardstick of the issue's acceptance: MinerU alone, imports paid once);
* ``per-pdf``: :func:`structaware_readers.mineru.pdf.parse_pdf` for each PDF in turn, which
  runs one ``mineru-kit`` process per PDF (the route before parse workers): parse only;
* ``workers``: :class:`structaware_retrievers.index.parse_workers.ParseWorkers` reading every PDF
  (``--workers`` processes, MinerU's Python API inside them): parse **and** unit building, so
  this route does more than the two others;
* ``ingest``: the whole job, ``structaware ingest PDF... --workers N`` in a new process into a new
  folder index, parse cache and embedding cache empty (cold): parse, units, dense and BM25
  vectors, the store; then the same command again on the unchanged PDFs (``re-ingest``). Its
  ``units`` are those the command reports (``ingested D documents, U units``).

Issue 24's acceptance (cold ingest <= 1.25x ``mineru-kit`` alone, in one run) is
``--routes mineru-kit ingest --workers 2``: the ratio is printed at the end.

Run on a quiet machine if you can; the load average is printed beside each figure::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_parse_workers.py \\
        tests/fixtures/pdf/synthetic_guideline_en.pdf tests/fixtures/pdf/synthetic_guideline_zh.pdf --workers 1 2
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "n/a"


def _pages(pdfs: list[Path]) -> int:
    import pypdfium2 as pdfium

    total = 0
    for p in pdfs:
        doc = pdfium.PdfDocument(str(p))
        total += len(doc)
        doc.close()
    return total


def _mineru_kit(pdfs: list[Path], tmp: Path) -> float:
    exe = shutil.which("mineru-kit") or str(Path(sys.executable).with_name("mineru-kit"))
    env = {**os.environ, "MINERU_MODEL_SOURCE": "local"}
    t0 = time.perf_counter()
    subprocess.run(
        [exe, "parse", *map(str, pdfs), "-o", str(tmp / "out"), "-f", "middle_json", "--tier", "flash"],
        check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return time.perf_counter() - t0


def _per_pdf(pdfs: list[Path], tmp: Path) -> float:
    from structaware_readers.mineru.pdf import parse_pdf

    t0 = time.perf_counter()
    for p in pdfs:
        parse_pdf(p, cache_dir=tmp / "cache")
    return time.perf_counter() - t0


def _workers(pdfs: list[Path], tmp: Path, n: int) -> tuple[float, int]:
    from structaware_retrievers.index.parse_workers import ParseWorkers

    os.environ["STRUCTAWARE_CACHE_DIR"] = str(tmp / "cache")  # the workers take the environment at start
    t0 = time.perf_counter()
    with ParseWorkers(n) as pool:
        futures = [pool.submit(p, "auto", None) for p in pdfs]
        units = sum(len(f.result()[1]) for f in futures)
    return time.perf_counter() - t0, units


def _ingest(pdfs: list[Path], tmp: Path, n: int) -> tuple[float, int, float]:
    """Cold ``structaware ingest`` of ``pdfs`` (new caches, new index), then a re-ingest: (wall seconds
    of the first, units it reports, wall seconds of the second)."""
    from bench_concurrent_ingest import ingest  # the same command line as the concurrent-ingest benchmark

    os.environ["STRUCTAWARE_CACHE_DIR"] = str(tmp / "cache")  # the command takes the environment at start
    times, summaries = [], []
    for _ in range(2):
        t0 = time.perf_counter()
        proc = ingest(pdfs, tmp / "index", n)
        stdout, stderr = proc.communicate()
        times.append(time.perf_counter() - t0)
        summary = next((line for line in stdout.splitlines() if line.startswith("ingested ")), None)
        if proc.returncode != 0 or summary is None:
            raise SystemExit(f"structaware ingest exited with {proc.returncode}, no summary line:\n{stdout}\n{stderr}")
        print("   ", summary, flush=True)  # the command's own seconds and the embedding's share
        summaries.append(summary)
    units = re.match(r"ingested \d+ documents, (\d+) units", summaries[0])
    assert units is not None, summaries[0]
    return times[0], int(units.group(1)), times[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pdfs", nargs="+", type=Path)
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2], help="worker counts to time")
    ap.add_argument("--routes", nargs="+", default=["mineru-kit", "per-pdf", "workers"])
    args = ap.parse_args(argv)
    pdfs = [p.resolve() for p in args.pdfs]
    pages = _pages(pdfs)
    print(f"{len(pdfs)} PDFs, {pages} pages, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("| route | workers | seconds | pages/s | units | load before | load after |")
    print("|---|---:|---:|---:|---:|---|---|")
    seconds: dict[str, float] = {}
    for route in args.routes:
        for n in args.workers if route in ("workers", "ingest") else [1]:
            with tempfile.TemporaryDirectory(prefix="bench-parse-") as d:
                before = _load()
                units = "-"
                if route == "mineru-kit":
                    secs = _mineru_kit(pdfs, Path(d))
                elif route == "per-pdf":
                    secs = _per_pdf(pdfs, Path(d))
                elif route == "ingest":
                    secs, count, again = _ingest(pdfs, Path(d), n)
                    units = f"{count} ({count / secs:.1f}/s); re-ingest {again:.1f} s"
                else:
                    secs, count = _workers(pdfs, Path(d), n)
                    units = str(count)
                seconds[f"{route}/{n}"] = secs
                print(
                    f"| {route} | {n} | {secs:.1f} | {pages / secs:.2f} | {units} | {before} | {_load()} |", flush=True
                )
    if "mineru-kit/1" in seconds:
        for key, secs in seconds.items():
            if key.startswith("ingest/"):
                print(f"{key}: {secs / seconds['mineru-kit/1']:.2f}x mineru-kit alone")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
