"""Time per evidence picture (``evidence_picture``), cold and warm, on a real PDF.

* **cold**: the first picture of a fresh process: imports (pypdfium2, Pillow), opening the PDF,
  rendering the page, drawing, PNG encoding; each run is its own Python process (``--cold-runs``), timed
  inside it from just before the import of :mod:`structaware_retrievers.pictures.evidence_image`;
* **warm**: later pictures in the same process (``--warm-runs``), each of another unit, its page
  rendered already or not (the renderer keeps the last 8 pages): what ``structaware serve`` and a
  notebook pay per hit.

Both the whole page and the cropped picture (``crop=True``) are timed, each with its PNG encoding
(what ``GET /image`` and ``structaware show`` send). Units: the table rows of the synthetic guideline
read from its MinerU output with the PDF beside (``tests/fixtures``), or ``--parsed``/``--pdf`` for
another document. Prints a Markdown table with p50 and p90 in milliseconds, the load average and the
command.

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_evidence_images.py [--cold-runs 9] [--warm-runs 60]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARSED = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
PDF = REPO / "tests" / "fixtures" / "pdf" / "synthetic_guideline_en.pdf"

_COLD = """
import json, sys, time
units_file, pdf, crop = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
t0 = time.perf_counter()
from structaware_readers.models import Unit
from structaware_retrievers.pictures.evidence_image import evidence_picture
unit = Unit.model_validate_json(open(units_file).readline())
evidence_picture(unit, pdf=pdf, crop=crop).png()
print(json.dumps(time.perf_counter() - t0))
"""


def _units(parsed: Path, pdf: Path, out: Path) -> Path:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    units = [u for u in build_units(load_document(parsed, pdf=pdf)) if any(u.bboxes)]
    out.write_text("".join(u.model_dump_json() + "\n" for u in units))
    return out


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parsed", type=Path, default=PARSED)
    ap.add_argument("--pdf", type=Path, default=PDF)
    ap.add_argument("--cold-runs", type=int, default=9)
    ap.add_argument("--warm-runs", type=int, default=60)
    ap.add_argument("--work", type=Path, default=Path("/tmp/structaware-bench-images"))
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    units_file = _units(args.parsed, args.pdf, args.work / "units.jsonl")

    from structaware_readers.models import Unit
    from structaware_retrievers.pictures.evidence_image import evidence_picture

    units = [Unit.model_validate_json(line) for line in units_file.read_text().splitlines()]
    rows = []
    for crop in (False, True):
        cold = [
            json.loads(subprocess.run([sys.executable, "-c", _COLD, str(units_file), str(args.pdf), "1" if crop else "0"],
                                      check=True, capture_output=True, text=True).stdout)
            for _ in range(args.cold_runs)
        ]  # fmt: skip
        warm = []
        for i in range(args.warm_runs):
            unit = units[(i * 7) % len(units)]  # a stride through the document: pages cached and not
            t0 = time.perf_counter()
            evidence_picture(unit, pdf=args.pdf, crop=crop).png()
            warm.append(time.perf_counter() - t0)
        label = "cropped" if crop else "whole page"
        rows.append((f"cold ({label})", cold))
        rows.append((f"warm ({label})", warm))
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else ["?"] * 3
    print(f"{len(units)} units of {args.parsed.name}, PDF {args.pdf.name}, 108 dpi, PNG encoded")
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load {' '.join(load)}"
    )
    print("| picture | runs | p50 ms | p90 ms |\n|---|---|---|---|")
    for label, times in rows:
        print(f"| {label} | {len(times)} | {1000 * statistics.median(times):.0f} | {1000 * _pct(times, 0.9):.0f} |")


if __name__ == "__main__":
    main()
