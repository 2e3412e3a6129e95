"""Unit building time against input size: 1, 5 and 10 MB of text sprinkled with grade words (issue 27).

A fuzz run found that a 10 MB MinerU content list of graded text did not finish within 60 s. This
script builds such content lists and times reading them (``load_document``) and building their units
(``build_units``, grade detection included), each size in a fresh process, in two shapes:

``one``
    one 10 MB paragraph under one heading (the fuzz case: ``Recommendation 1: offer treatment
    (Grade A, strong recommendation).`` repeated), so every sentence is a graded statement;
``mixed``
    2,000-character paragraphs of words with grade forms sprinkled among them (``Grade A``,
    ``Level 2``, ``Class IIa``, ``COR I LOE B-NR``, ``证据级别 B``, ...; seeded, reproducible).

It prints CPU seconds (the process's own time, which the machine's load does not inflate much) and
wall seconds per size, and CPU seconds per MB: linear time means the same per-MB figure at every
size. Exit status 1 when the 10 MB per-MB CPU time is more than 1.5 times the 1 MB one.

    nice -n 10 .venv/bin/python benchmarks/bench_unit_building.py --sizes 1 5 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SENTENCE = "Recommendation 1: offer treatment (Grade A, strong recommendation). "
_WORDS = (
    "the patient blood pressure should dose daily adults treatment offer consider monitor risk with and of in".split()
)
_GRADES = [
    "Grade A", "(Grade B)", "Level 2", "Class IIa", "strong recommendation", "low quality evidence",
    "Level of evidence: C", "IIb", "1A", "推荐", "证据级别 B", "Strong", "Weak for", "COR I LOE B-NR",
]  # fmt: skip


def content_list(shape: str, megabytes: float) -> list[dict]:
    """The MinerU content list of ``shape`` holding about ``megabytes`` MB of text."""
    size = int(megabytes * 1_000_000)
    head = {"type": "text", "text": "1 Guideline", "text_level": 1, "page_idx": 0}
    if shape == "one":
        return [head, {"type": "text", "text": _SENTENCE * (size // len(_SENTENCE)), "page_idx": 0}]
    rng = random.Random(27)
    parts: list[str] = []
    n = 0
    while n < size:
        word = rng.choice(_GRADES) if rng.random() < 0.08 else rng.choice(_WORDS)
        parts.append(word)
        n += len(word) + 1
    text = " ".join(parts)
    return [head] + [
        {"type": "text", "text": text[i : i + 2000], "page_idx": i // 200_000} for i in range(0, len(text), 2000)
    ]


def one_run(shape: str, megabytes: float) -> dict:
    """Build the input, then time reading it and building its units in this process."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    with tempfile.TemporaryDirectory(prefix="structaware-units-") as tmp:
        path = Path(tmp) / "graded_content_list.json"
        path.write_text(json.dumps(content_list(shape, megabytes), ensure_ascii=False), encoding="utf-8")
        size = path.stat().st_size
        cpu0, wall0 = time.process_time(), time.perf_counter()
        doc = load_document(path)
        units = build_units(doc)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    return {"shape": shape, "mb": size / 1e6, "units": len(units), "cpu": cpu, "wall": wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="+", default=[1, 5, 10], help="sizes in MB")
    ap.add_argument("--shapes", nargs="+", default=["one", "mixed"], choices=["one", "mixed"])
    ap.add_argument("--child", nargs=2, metavar=("SHAPE", "MB"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(one_run(args.child[0], float(args.child[1]))))
        return 0
    print(
        f"load average at start: {Path('/proc/loadavg').read_text().split()[:3] if os.path.exists('/proc/loadavg') else '?'}"
    )
    print("| shape | MB | units | CPU s | wall s | CPU s per MB |")
    print("|---|---|---|---|---|---|")
    worst = 0.0
    for shape in args.shapes:
        per_mb: list[float] = []
        for mb in args.sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--child", shape, str(mb)], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            per_mb.append(r["cpu"] / r["mb"])
            print(
                f"| {shape} | {r['mb']:.1f} | {r['units']:,} | {r['cpu']:.1f} | {r['wall']:.1f} | {per_mb[-1]:.2f} |",
                flush=True,
            )
        worst = max(worst, per_mb[-1] / per_mb[0])
    print(
        f"load average at end: {Path('/proc/loadavg').read_text().split()[:3] if os.path.exists('/proc/loadavg') else '?'}"
    )
    print(f"largest / smallest size, CPU s per MB: {worst:.2f} (linear: about 1)")
    return 1 if worst > 1.5 else 0


if __name__ == "__main__":
    sys.exit(main())
