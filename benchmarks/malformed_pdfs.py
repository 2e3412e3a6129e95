"""Malformed-PDF benchmark: every case of ``tests/malformed_pdfs.py`` ingested on its own, timed and measured.

Each case is ingested by ``tests/robust_worker.py`` (the real index, readers, parse workers and
MinerU; a tiny hash model for vectors) into a copy of an index that already holds one good
document, every process under a 2 GB cap on address space (``RLIMIT_AS``) and ``--timeout``
seconds (``tests/malformed_ingest.py``). Per case it prints the outcome (``units``, ``error``: a
typed error naming the file; a fault otherwise: ``untyped``, ``models``, ``memory``, ``crash``,
``hang``, ``lost``), the units, the wall seconds (the parse worker's start and MinerU's imports
included) and the peak resident memory of the process tree (sampled five times a second), then the
count of each outcome and the slowest case, as a Markdown table.

Run::

    HF_HUB_OFFLINE=1 nice -n 5 .venv/bin/python benchmarks/malformed_pdfs.py [--only NAME ...] [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from malformed_ingest import MEMORY_CAP, good_index, run_case
from malformed_pdfs import CASES


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="case names (default: all)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per case before it counts as a hang")
    args = ap.parse_args()
    cases = [c for c in CASES if not args.only or c.name in args.only]
    with tempfile.TemporaryDirectory(prefix="malformed-") as tmp:
        work = Path(tmp)
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "STRUCTAWARE_CACHE_DIR": str(work / "cache")}
        template = good_index(work / "template", env=env)
        print(f"cap {MEMORY_CAP / 1024**3:.0f} GB of address space per process, time-out {args.timeout:.0f} s\n")
        print("| case | what it is | bytes | expected | outcome | units | seconds | peak RSS MB | message |")
        print("|---|---|---:|---|---|---:|---:|---:|---|")
        rows = []
        for case in cases:
            pdf = work / f"{case.name}.pdf"
            pdf.write_bytes(case.build())
            got = run_case(pdf, template, work, timeout=args.timeout, env=env)
            rows.append((case, got))
            ok = got.kind in ({"units", "error"} if case.expect == "either" else {case.expect})
            message = got.message.replace(str(work) + "/", "").replace("|", "/")[:160]
            print(
                f"| {case.name} | {case.what} | {pdf.stat().st_size:,} | {case.expect} | {got.kind}{'' if ok else ' (!)'} |"
                f" {got.units} | {got.seconds:.1f} | {got.peak_rss_mb:.0f} | {message} |",
                flush=True,
            )
            pdf.unlink()
    counts = Counter(got.kind for _, got in rows)
    slowest = max(rows, key=lambda r: r[1].seconds)
    largest = max(rows, key=lambda r: r[1].peak_rss_mb)
    print(f"\noutcomes: {', '.join(f'{k} {n}' for k, n in counts.most_common())} (of {len(rows)} cases)")
    print(
        f"not as expected: {sum(1 for c, g in rows if g.kind not in ({'units', 'error'} if c.expect == 'either' else {c.expect}))}"
    )
    print(
        f"slowest: {slowest[0].name} {slowest[1].seconds:.1f} s; largest: {largest[0].name} {largest[1].peak_rss_mb:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
