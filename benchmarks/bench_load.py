"""What loading a guideline costs: ``load_document(zip, pdf=pdf)`` (reader, table recovery, algorithm images),
CPU and wall seconds per document, with an empty OCR cache and again with the cache it filled.

Each measurement runs in a child process of its own (a fresh interpreter: imports and model loads are paid
as a user pays them); ``--cache`` (default: a new temporary folder) is the ``STRUCTAWARE_CACHE_DIR`` of the
children, empty before the first ("cold") run of each document and kept for the second ("warm") one.

Run::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_load.py \
        ../shared/bench/cpg/mineru-4.0.12-flash/VADoDLLACPG092817.zip [more zips] [--pdfs ../shared/bench/cpg/pdfs]

Prints one Markdown row per document: pages, blocks, cold CPU / wall, warm CPU / wall, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, sys, time, warnings
warnings.simplefilter("ignore")
from structaware_readers.load.loader import load_document
t, c = time.perf_counter(), time.process_time()
doc = load_document(sys.argv[1], pdf=sys.argv[2])
print(json.dumps({"cpu": time.process_time() - c, "wall": time.perf_counter() - t,
                  "pages": doc.page_count, "blocks": len(doc.blocks)}))
"""


def _measure(zip_path: Path, pdf: Path, cache: Path) -> dict[str, float]:
    env = {**os.environ, "STRUCTAWARE_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(zip_path), str(pdf)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("zips", nargs="+", type=Path, help="MinerU output zips")
    ap.add_argument("--pdfs", type=Path, default=None, help="folder of the PDFs (default: beside each zip's parent)")
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="STRUCTAWARE_CACHE_DIR of the children (default: a new temporary folder per document)",
    )
    args = ap.parse_args()
    print("| document | pages | blocks | cold CPU s | cold wall s | warm CPU s | warm wall s | load |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for z in args.zips:
        pdf = (args.pdfs or z.parent.parent / "pdfs") / f"{z.stem}.pdf"
        with tempfile.TemporaryDirectory(prefix="sa-load-") as tmp:
            cache = args.cache or Path(tmp)
            cold = _measure(z, pdf, cache)
            warm = _measure(z, pdf, cache)
        load = " / ".join(f"{v:.1f}" for v in os.getloadavg())
        print(
            f"| {z.stem} | {cold['pages']} | {cold['blocks']} | {cold['cpu']:.1f} | {cold['wall']:.1f} | "
            f"{warm['cpu']:.1f} | {warm['wall']:.1f} | {load} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
