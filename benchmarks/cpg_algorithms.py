"""Edges read from algorithm images, scored against the guidelines' own text descriptions.

For every VA/DoD development guideline in ``../shared/bench/cpg`` that prints "Alternative Text
Descriptions of Algorithms", the text description read by :mod:`structaware_readers.algorithms`
(box numbers, box texts, labelled edges) is the ground truth of each module; the module's image
(the figure the description was attached to) is rendered from the PDF at 200 dpi, its text lines
read by OCR, and :func:`~structaware_readers.algorithms.image_flow.read_flowchart_image` recovers
boxes and edges from it.

Matching (per module, :func:`structaware_readers.algorithms.score.score_edges`): a box read from the
image is the description's box whose text is most alike after normalising (lowercase, letters and
digits only; ``difflib`` ratio >= ``--min-ratio``, default 0.8); an edge is right when its two boxes
match a described edge's and its label equals the described label; figures without labels are
given too. Precision and recall are summed over the edges of all modules, and listed per module.

Run::

    HF_HUB_OFFLINE=1 nice -n 10 .venv/bin/python benchmarks/cpg_algorithms.py [--shared ../shared] \\
        [--cache DIR] [--out docs/benchmarks/algorithms.json]

OCR results are cached in ``--cache`` (one JSON per image) so that a rerun measures the geometry
only. OCR: the package's engine (:mod:`structaware_readers.ocr`) when installed, else
``rapidocr_onnxruntime`` called directly (the engine the OCR route wraps).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from structaware_readers.algorithms.image_flow import TextLine, read_flowchart_image
from structaware_readers.algorithms.images import DPI, padded, render_region
from structaware_readers.algorithms.score import score_edges
from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind


def _ocr(image: Any) -> list[TextLine]:
    try:
        from structaware_readers.ocr import read_lines  # type: ignore[attr-defined]
    except ImportError:
        read_lines = None
    if read_lines is not None:  # pragma: no cover - once the OCR route is installed
        return [TextLine(ln.text, tuple(ln.bbox), ln.confidence) for ln in read_lines(image)]
    from rapidocr_onnxruntime import RapidOCR

    engine = _ocr.__dict__.setdefault("engine", RapidOCR())
    result, _ = engine(image)
    lines = []
    for quad, text, conf in result or []:
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        lines.append(TextLine(text, (min(xs), min(ys), max(xs), max(ys)), float(conf)))
    return lines


def _render(pdf: Path, page: int, bbox: tuple[float, float, float, float]) -> Any:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return render_region(doc[page - 1], bbox, DPI)
    finally:
        doc.close()


def _lines(pdf: Path, page: int, bbox: tuple, image: Any, cache: Path) -> tuple[list[TextLine], float]:
    key = hashlib.sha256(f"{pdf.name}|{page}|{bbox}|{DPI}".encode()).hexdigest()[:16]
    path = cache / f"{key}.json"
    if path.exists():
        data = json.loads(path.read_text())
        return [TextLine(t, tuple(b), c) for t, b, c in data["lines"]], data["seconds"]
    t0 = time.perf_counter()
    lines = _ocr(image)
    secs = time.perf_counter() - t0
    cache.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"lines": [[ln.text, list(ln.bbox), ln.confidence] for ln in lines], "seconds": secs}))
    return lines, secs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parents[1].parent / "shared"))
    ap.add_argument("--cache", default=os.environ.get("STRUCTAWARE_CACHE_DIR", "/tmp") + "/cpg_algorithms_ocr")
    ap.add_argument("--out", default="")
    ap.add_argument("--min-ratio", type=float, default=0.8)
    args = ap.parse_args(argv)
    bench = Path(args.shared) / "bench" / "cpg"
    if not any((bench / "mineru-4.0.12-flash").glob("*.zip")):
        ap.error(f"no MinerU zips in {bench / 'mineru-4.0.12-flash'}: give the shared folder with --shared")
    cache = Path(args.cache)
    rows = []
    tot = {
        "pred": 0,
        "truth": 0,
        "right": 0,
        "right_nolabel": 0,
        "ocr_s": 0.0,
        "geo_s": 0.0,
        "boxes": 0,
        "boxes_matched": 0,
    }
    for zpath in sorted((bench / "mineru-4.0.12-flash").glob("*.zip")):
        pdf = bench / "pdfs" / f"{zpath.stem}.pdf"
        doc = load_document(zpath, pdf=False)
        for block in doc.blocks:
            if block.kind is not BlockKind.FLOWCHART or block.flowchart is None or block.source_type != "image":
                continue
            if block.caption.startswith("Figure"):
                continue  # the study flow diagram: not an algorithm
            truth = block.flowchart
            region = padded(block.bbox)
            image = _render(pdf, block.page, region)
            lines, ocr_s = _lines(pdf, block.page, region, image, cache)
            t0 = time.perf_counter()
            flow = read_flowchart_image(image, lines, dpi=DPI)
            geo_s = time.perf_counter() - t0
            chart = flow.to_flowchart()
            score = score_edges(chart, truth, min_ratio=args.min_ratio)
            right, right_nl, wrong, missed = score.right, score.right_ignoring_labels, score.wrong, score.missed
            row = {
                "doc": doc.name,
                "module": block.caption,
                "page": block.page,
                "truth_edges": len(truth.edges),
                "pred_edges": len(chart.edges),
                "right": right,
                "right_ignoring_labels": right_nl,
                "boxes": len(truth.nodes),
                "boxes_read": len(chart.nodes),
                "boxes_matched": score.boxes_matched,
                "ocr_seconds": round(ocr_s, 1),
                "geometry_seconds": round(geo_s, 2),
                "wrong": wrong,
                "missed": missed,
            }
            rows.append(row)
            tot["pred"] += len(chart.edges)
            tot["truth"] += len(truth.edges)
            tot["right"] += right
            tot["right_nolabel"] += right_nl
            tot["ocr_s"] += ocr_s
            tot["geo_s"] += geo_s
            tot["boxes"] += len(truth.nodes)
            tot["boxes_matched"] += score.boxes_matched
            p = right / len(chart.edges) if chart.edges else 0.0
            r = right / len(truth.edges) if truth.edges else 0.0
            print(
                f"{doc.name[:28]:28s} {block.caption[:44]:44s} p.{block.page:<3d} edges {right}/{len(chart.edges)} read, "
                f"{len(truth.edges)} described: P {p:.2f} R {r:.2f}",
                flush=True,
            )
    prec = tot["right"] / tot["pred"] if tot["pred"] else 0.0
    rec = tot["right"] / tot["truth"] if tot["truth"] else 0.0
    prec_nl = tot["right_nolabel"] / tot["pred"] if tot["pred"] else 0.0
    rec_nl = tot["right_nolabel"] / tot["truth"] if tot["truth"] else 0.0
    summary = {
        "modules": len(rows),
        "edges_described": tot["truth"],
        "edges_read": tot["pred"],
        "edges_right": tot["right"],
        "precision": round(prec, 3),
        "recall": round(rec, 3),
        "precision_ignoring_labels": round(prec_nl, 3),
        "recall_ignoring_labels": round(rec_nl, 3),
        "boxes_described": tot["boxes"],
        "boxes_matched": tot["boxes_matched"],
        "ocr_seconds": round(tot["ocr_s"], 1),
        "geometry_seconds": round(tot["geo_s"], 1),
        "load_average": os.getloadavg()[0],
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"summary": summary, "modules": rows}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
