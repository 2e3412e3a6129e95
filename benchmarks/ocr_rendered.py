"""Retrieval through OCR vs through the text layer, on the same guidelines (issue 22: PH@5 within 0.03).

Each chosen English CPG dev guideline is rendered page by page with pypdfium2 into an **image-only
PDF** (no text layer: what a scanner gives; written under ``--work``, default ``/tmp/ocr-rendered``,
never into the repository: the copies are the bench's documents), and the evaluation harness
(:func:`structaware_retrievers.evaluation.harness.run_eval`, corpus scope) runs twice on the questions
of those guidelines: on the originals (MinerU flash zips + PDFs, as ``benchmarks/devsets.py`` reads
``cpg``) and on the image-only copies (read by the OCR route). The summary prints PH@1/PH@5/EH@5 of
both and their difference per retriever.

OCR costs about 20 CPU seconds per page (``docs/benchmarks/ocr.md``); results are cached per page
under ``$STRUCTAWARE_CACHE_DIR/ocr``, so an interrupted run resumes.

Run::

    STRUCTAWARE_CACHE_DIR=... HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/ocr_rendered.py \\
        --shared ../shared --guidelines VADoDAsthmaCPGFinal121019 VADoDCOPDCPGFinal508 VADoDSUDCPG \\
        --out /tmp/ocr-rendered-eval [--cache-dir /work/devsets/cache] [--dpi 150]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def render_copy(src: Path, target: Path, dpi: int) -> Path:
    """An image-only copy of ``src`` at ``dpi`` (one page image per page), written atomically."""
    from structaware_readers.ocr.pages import open_pdf, render_page

    if target.is_file():
        return target
    doc = open_pdf(src)
    images = [render_page(doc, p, dpi=dpi) for p in range(1, len(doc) + 1)]
    tmp = target.with_suffix(".tmp.pdf")
    images[0].save(tmp, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
    tmp.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, required=True)
    ap.add_argument("--guidelines", nargs="+", required=True, help="PDF stems in bench/cpg/pdfs")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/ocr-rendered"))
    ap.add_argument("--cache-dir", type=Path, default=None, help="embedding cache")
    ap.add_argument("--dpi", type=int, default=150, help="resolution of the image-only copies")
    ap.add_argument("--retrievers", nargs="+", default=["bm25", "dense", "hybrid"])
    args = ap.parse_args(argv)

    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.evaluation.harness import run_eval

    cpg = (args.shared / "bench" / "cpg").resolve()
    docs = args.work / "pdfs"
    docs.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    for stem in args.guidelines:
        render_copy(cpg / "pdfs" / f"{stem}.pdf", docs / f"{stem}.pdf", args.dpi)
    wanted = set(args.guidelines)
    qfile = args.out / "questions.jsonl"
    with open(cpg / "questions" / "vadod_dev.jsonl", encoding="utf-8") as fh, open(qfile, "w", encoding="utf-8") as out:
        for line in fh:
            q = json.loads(line)
            if Path(q["doc"]).stem in wanted:
                out.write(line)
    cache = EmbeddingCache((args.cache_dir or args.out) / "embeddings.sqlite")
    dense, sparse = DenseEncoder(cache=cache), SparseEncoder(cache=cache)
    runs = {
        "text layer": dict(docs=cpg / "pdfs", parsed=cpg / "mineru-4.0.12-flash"),
        "OCR (image-only copies)": dict(docs=docs, parsed=None),
    }
    summaries = {}
    for label, where in runs.items():
        print(f"== {label}", flush=True)
        result = run_eval(
            qfile, where["docs"], parsed=where["parsed"], methods=["struct"], retrievers=args.retrievers,
            scopes=["corpus"], index_dir=args.out / f"idx_{'ocr' if where['parsed'] is None else 'text'}",
            json_out=args.out / f"{'ocr' if where['parsed'] is None else 'text'}.json", resamples=1000,
            dense=dense, sparse=sparse, log=lambda m: print(f"[{label}] {m}", flush=True),  # noqa: B023 - run_eval returns first
        )  # fmt: skip
        summaries[label] = result.summaries()["corpus"]
    cache.close()
    print("\n| retriever | route | n | PH@1 | PH@5 | EH@5 |\n|---|---|---:|---:|---:|---:|")
    for r in args.retrievers:
        for label in runs:
            s = summaries[label][r]["struct"]["all"]
            print(f"| {r} | {label} | {s['n']} | {s['PH@1']:.3f} | {s['PH@5']:.3f} | {s.get('EH@5') or 0:.3f} |")
        a, b = (summaries[label][r]["struct"]["all"]["PH@5"] for label in runs)
        print(f"| {r} | difference (OCR - text) | | | {b - a:+.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
