"""Ingest speed of dense models side by side: embedding units/s, and whole ingests of PDFs.

For each ``--models`` preset, in turns (``--rounds``, models interleaved so that each sees the
same load):

* ``embed``: the distinct unit texts (``context + text``) of the given parsed documents embedded
  from an empty in-memory cache: units/s of the model alone;
* ``ingest`` (with ``--pdfs``): ``StructureIndex.ingest`` of the PDFs into a new index folder with
  an empty parse and embedding cache (``STRUCTAWARE_CACHE_DIR`` set to a fresh folder), so MinerU
  parses every PDF and the pipeline parses the next one while this one embeds (``overlap=True``):
  wall seconds, of which embedding seconds, and units/s over the whole ingest.

Prints one Markdown table row per model and round, with the load average beside each.

Run::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/bench_dense_ingest.py \\
        --docs tests/fixtures/mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en ... \\
        --pdfs tests/fixtures/pdf/synthetic_guideline_en.pdf tests/fixtures/pdf/synthetic_guideline_zh.pdf \\
        --models all-MiniLM-L6-v2-int8 all-MiniLM-L6-v2-int8+use-multilingual-v3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def embed_rate(model: str, docs: list[Path]) -> tuple[int, float]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache

    texts = sorted({u.embedding_text() for d in docs for u in build_units(load_document(d))}, key=len)
    enc = DenseEncoder(model, cache=EmbeddingCache())
    enc.embed_query("warm up the model")  # loading is not embedding
    if hasattr(enc.backend, "english"):
        enc.backend.multilingual.embed_query("warm up the model")
    t0 = time.perf_counter()
    enc.embed_array(texts)
    return len(texts), time.perf_counter() - t0


_INGEST = """
import json, sys
from pathlib import Path
from structaware_retrievers.encoders import DenseEncoder
from structaware_retrievers.index.structure_index import StructureIndex
ix = StructureIndex(Path(sys.argv[1]), dense=DenseEncoder(sys.argv[2]))
s = ix.ingest([Path(p) for p in sys.argv[3:]])
s.raise_for_errors()
print(json.dumps({"units": s.units, "seconds": s.seconds, "embedding_seconds": s.embedding_seconds}))
"""


def ingest_run(model: str, pdfs: list[Path]) -> dict[str, float]:
    import json

    with tempfile.TemporaryDirectory(prefix="bench-dense-ingest-") as tmp:
        env = {**os.environ, "STRUCTAWARE_CACHE_DIR": str(Path(tmp) / "cache"), "HF_HUB_OFFLINE": "1"}
        out = subprocess.run(
            [sys.executable, "-c", _INGEST, str(Path(tmp) / "ix"), model, *map(str, pdfs)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", required=True)
    ap.add_argument("--docs", nargs="*", type=Path, default=[], help="parsed documents whose units are embedded")
    ap.add_argument("--pdfs", nargs="*", type=Path, default=[], help="PDFs ingested from scratch")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    print("| round | model | what | units | seconds | embedding s | units/s | load (1/5/15 min) |")
    print("|---:|---|---|---:|---:|---:|---:|---|")
    for r in range(1, args.rounds + 1):
        for model in args.models:
            if args.docs:
                n, sec = embed_rate(model, args.docs)
                print(
                    f"| {r} | {model} | embed | {n} | {sec:.1f} | {sec:.1f} | {n / sec:.1f} | {_load()} |", flush=True
                )
            if args.pdfs:
                got = ingest_run(model, args.pdfs)
                print(
                    f"| {r} | {model} | ingest {len(args.pdfs)} PDFs | {got['units']} | {got['seconds']:.1f} |"
                    f" {got['embedding_seconds']:.1f} | {got['units'] / got['seconds']:.1f} | {_load()} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
