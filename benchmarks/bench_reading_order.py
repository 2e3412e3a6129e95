"""Reading-order benchmark: restore the human order of OmniDocBench demo pages from their boxes.

For each page of ``reading_order.jsonl`` (OmniDocBench demo annotations, one page per line, blocks
sorted by the human reading order), the annotated boxes become :class:`Block` objects (pixel
boxes divided by the page image size), their order is shuffled with fixed seeds, and
:func:`structaware_readers.structure.reading_order.restore_reading_order` restores it. ROA and Kendall tau
against the human order are averaged over shuffles and pages (macro average: each page weighs
the same), by page layout (``page_attribute.layout`` of ``OmniDocBench_demo.json``) and language.

Two baselines are scored the same way: the shuffled order itself, and a naive
top-to-bottom / left-to-right sort of the boxes.

The heuristics of the X-Y cut were tuned on these 18 pages, so a second, held-out check is
printed as well: agreement with MinerU's own reading order on the MinerU outputs in
``<repo>/../shared/fixtures/mineru`` (MinerU 3.4.4 pipeline uses a layout reading-order
model; 4.0.12 ``flash`` orders without models). That is agreement with another system, not
accuracy against a human order.

The data is research-only: it is read from ``<repo>/../shared/bench/reading_order`` (or
``--bench-dir``) and never copied into the repository.

Run::

    /tmp/v1/bin/python benchmarks/bench_reading_order.py [--bench-dir DIR] [--shuffles 5] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from structaware_readers.models import Block, BlockKind
from structaware_readers.structure.reading_order import restore_reading_order
from structaware_retrievers.evaluation.reading_order_metrics import kendall_tau, roa

REPO = Path(__file__).resolve().parents[1]
DEFAULT_BENCH_DIR = REPO.parent / "shared" / "bench" / "reading_order"
DEFAULT_MINERU_DIR = REPO.parent / "shared" / "fixtures" / "mineru"
#: MinerU outputs of redistributable documents (see shared/fixtures/mineru/SOURCES.md).
MINERU_RUNS = {
    "NAACL 2024 paper, 2 columns (3.4.4 pipeline)": "mineru-3.4.4_pipeline_cloudapi_naacl2024-long-132/content_list.json",
    "CDC 2016 guide (4.0.12 flash)": "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide/content_list.rendered.json",
    "WHO 2016 guideline (4.0.12 flash)": "mineru-4.0.12_flash-tier_who_2016_ipc_core_components_guideline/content_list.rendered.json",
}
_MINERU_KIND = {
    "text": BlockKind.PARAGRAPH,
    "table": BlockKind.TABLE,
    "image": BlockKind.FIGURE,
    "chart": BlockKind.FIGURE,
    "equation": BlockKind.EQUATION,
    "list": BlockKind.LIST,
    "code": BlockKind.CODE,
}

#: OmniDocBench layout categories -> block kinds.
CATEGORY_KIND = {
    "title": BlockKind.HEADING,
    "text_block": BlockKind.PARAGRAPH,
    "table": BlockKind.TABLE,
    "figure": BlockKind.FIGURE,
    "table_caption": BlockKind.CAPTION,
    "figure_caption": BlockKind.CAPTION,
    "equation_caption": BlockKind.CAPTION,
    "code_txt_caption": BlockKind.CAPTION,
    "equation_isolated": BlockKind.EQUATION,
    "code_txt": BlockKind.CODE,
    "table_footnote": BlockKind.FOOTNOTE,
    "figure_footnote": BlockKind.FOOTNOTE,
    "page_footnote": BlockKind.FOOTNOTE,
    "reference": BlockKind.REFERENCE,
    "header": BlockKind.HEADER,
    "footer": BlockKind.FOOTER,
    "page_number": BlockKind.PAGE_NUMBER,
    "abandon": BlockKind.ASIDE,
}


@dataclass
class Page:
    """One annotated page: gold-ordered blocks (ids ``a{anno_id}``) and its attributes."""

    name: str
    layout: str
    language: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def gold_ids(self) -> list[str]:
        return [b.block_id for b in self.blocks]


def _image_size(path: Path) -> tuple[int, int] | None:
    try:
        from PIL import Image
    except ImportError:  # pillow is a test dependency; the annotation's size is used without it
        return None
    with Image.open(path) as im:
        return im.size


def _page_size(rec: dict, image: Path) -> tuple[float, float]:
    """Page size in pixels: the image file's size when it can be read, else the annotation's.

    The demo annotation (``width``/``height`` in ``OmniDocBench_demo.json`` and hence in the
    jsonl) has width and height swapped on 10 of the 18 pages; the image file is the authority.
    Without Pillow, an annotation whose boxes do not fit is swapped back.
    """
    size = _image_size(image) if image.exists() else None
    if size is not None:
        return float(size[0]), float(size[1])
    width, height = float(rec["width"]), float(rec["height"])
    max_x = max((b["bbox"][2] for b in rec["blocks"]), default=0.0)
    max_y = max((b["bbox"][3] for b in rec["blocks"]), default=0.0)
    if max_x > width + 1 or max_y > height + 1:
        width, height = height, width
    return width, height


def load_pages(bench_dir: Path) -> list[Page]:
    """Read ``reading_order.jsonl`` (+ ``OmniDocBench_demo.json`` page attributes) into pages.

    Bboxes are normalised by the page size (:func:`_page_size`); the block id is ``a{anno_id}``
    so that it says nothing about the gold order.

    Raises:
        FileNotFoundError: ``bench_dir`` lacks ``reading_order.jsonl``.
        ValueError: a category is unknown.
    """
    attrs: dict[str, dict] = {}
    demo = bench_dir / "OmniDocBench_demo.json"
    if demo.exists():
        for page in json.loads(demo.read_text(encoding="utf-8")):
            info = page["page_info"]
            attrs[Path(info["image_path"]).name] = info.get("page_attribute", {})
    pages: list[Page] = []
    with open(bench_dir / "reading_order.jsonl", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            rec = json.loads(line)
            width, height = _page_size(rec, bench_dir / rec["image"])
            attr = attrs.get(Path(rec["image"]).name, {})
            page = Page(
                name=rec["page"],
                layout=attr.get("layout", rec.get("layout", "unknown")),
                language=attr.get("language", rec.get("language", "unknown")),
            )
            for blk in sorted(rec["blocks"], key=lambda b: b["order"]):
                cat = blk["category"]
                if cat not in CATEGORY_KIND:
                    raise ValueError(f"{rec['page']}: unknown category {cat!r}")
                x0, y0, x1, y1 = blk["bbox"]
                bbox = (x0 / width, y0 / height, x1 / width, y1 / height)
                bbox = tuple(min(1.0, max(0.0, c)) for c in bbox)
                page.blocks.append(
                    Block(
                        block_id=f"a{blk['anno_id']}",
                        kind=CATEGORY_KIND[cat],
                        text=blk.get("text") or "",
                        page=1,
                        bbox=bbox,
                        source_type=cat,
                    )
                )
            pages.append(page)
    return pages


@dataclass
class PageScore:
    page: Page
    method: str
    roa: float
    tau: float


def naive_sort(blocks: list[Block]) -> list[Block]:
    """Baseline: top-to-bottom, then left-to-right by the box's top-left corner."""
    return sorted(blocks, key=lambda b: (b.bbox[1], b.bbox[0]))  # type: ignore[index]


def score_pages(pages: list[Page], shuffles: int = 5) -> list[PageScore]:
    """Score every page with every method, averaged over ``shuffles`` seeded shuffles."""
    methods = {
        "shuffled (no restore)": lambda bs: bs,
        "naive y-x sort": naive_sort,
        "xy-cut (restore_reading_order)": restore_reading_order,
    }
    scores: list[PageScore] = []
    for page in pages:
        for name, fn in methods.items():
            roas, taus = [], []
            for seed in range(shuffles):
                shuffled = list(page.blocks)
                random.Random(seed).shuffle(shuffled)
                pred = [b.block_id for b in fn(shuffled)]
                roas.append(roa(page.gold_ids, pred))
                taus.append(kendall_tau(page.gold_ids, pred))
            scores.append(PageScore(page, name, statistics.fmean(roas), statistics.fmean(taus)))
    return scores


def summarize(scores: list[PageScore], key: str) -> dict[tuple[str, str], dict[str, float]]:
    """Macro averages per (group value, method) where group is ``layout`` or ``language``."""
    groups: dict[tuple[str, str], list[PageScore]] = defaultdict(list)
    for s in scores:
        groups[(getattr(s.page, key), s.method)].append(s)
        groups[("all", s.method)].append(s)
    return {
        k: {
            "pages": len(v),
            "blocks": sum(len(s.page.blocks) for s in v),
            "roa": statistics.fmean(s.roa for s in v),
            "tau": statistics.fmean(s.tau for s in v),
        }
        for k, v in groups.items()
    }


def markdown_table(summary: dict[tuple[str, str], dict[str, float]], key: str) -> str:
    methods = sorted({m for _, m in summary})
    values = sorted({g for g, _ in summary if g != "all"}) + ["all"]
    head = f"| {key} | pages | blocks | " + " | ".join(f"ROA / tau: {m}" for m in methods) + " |"
    sep = "|---|---:|---:|" + "---:|" * len(methods)
    lines = [head, sep]
    for g in values:
        first = summary[(g, methods[0])]
        cells = [f"{summary[(g, m)]['roa']:.3f} / {summary[(g, m)]['tau']:.3f}" for m in methods]
        lines.append(f"| {g} | {first['pages']} | {first['blocks']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def mineru_pages(content_list: Path) -> list[Page]:
    """Body blocks of a MinerU ``content_list.json`` per page, in MinerU's order (bbox 0..1000)."""
    pages: dict[int, Page] = {}
    for i, item in enumerate(json.loads(content_list.read_text(encoding="utf-8"))):
        kind = _MINERU_KIND.get(item.get("type"))
        if kind is None or "bbox" not in item:
            continue
        if kind is BlockKind.PARAGRAPH and item.get("text_level"):
            kind = BlockKind.HEADING
        page = int(item.get("page_idx", 0)) + 1
        bbox = tuple(min(1.0, max(0.0, c / 1000)) for c in item["bbox"])
        pages.setdefault(page, Page(name=f"p{page}", layout="", language=""))
        pages[page].blocks.append(Block(block_id=f"m{i}", kind=kind, page=page, bbox=bbox))
    return [p for p in pages.values() if len(p.blocks) >= 2]


def mineru_agreement(mineru_dir: Path, shuffles: int) -> str:
    lines = ["| MinerU output | pages | blocks | ROA / tau vs MinerU order |", "|---|---:|---:|---:|"]
    for label, rel in MINERU_RUNS.items():
        path = mineru_dir / rel
        if not path.exists():
            continue
        pages = mineru_pages(path)
        scores = [s for s in score_pages(pages, shuffles) if s.method.startswith("xy-cut")]
        lines.append(
            f"| {label} | {len(pages)} | {sum(len(p.blocks) for p in pages)} | "
            f"{statistics.fmean(s.roa for s in scores):.3f} / {statistics.fmean(s.tau for s in scores):.3f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH_DIR)
    ap.add_argument("--shuffles", type=int, default=5, help="seeded shuffles per page (seeds 0..n-1)")
    ap.add_argument("--per-page", action="store_true", help="also print every page's scores")
    ap.add_argument("--json", type=Path, default=None, help="write per-page scores to this file")
    ap.add_argument("--mineru-dir", type=Path, default=DEFAULT_MINERU_DIR, help="MinerU fixtures (held-out check)")
    args = ap.parse_args(argv)
    if not (args.bench_dir / "reading_order.jsonl").exists():
        print(f"no reading_order.jsonl in {args.bench_dir}", file=sys.stderr)
        return 2
    pages = load_pages(args.bench_dir)
    scores = score_pages(pages, args.shuffles)
    print(
        f"# reading order: {len(pages)} pages, {args.shuffles} shuffles/page, {date.today()}, "
        f"{platform.machine()} {platform.processor() or ''} python {platform.python_version()}\n"
    )
    for key in ("layout", "language"):
        print(markdown_table(summarize(scores, key), key) + "\n")
    if args.mineru_dir.exists():
        print(
            "Held-out agreement with MinerU's own order:\n\n" + mineru_agreement(args.mineru_dir, args.shuffles) + "\n"
        )
    if args.per_page:
        for s in scores:
            if s.method.startswith("xy-cut"):
                print(f"{s.roa:.3f} {s.tau:+.3f} {s.page.layout:16} {s.page.language:18} {s.page.name}")
    if args.json:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "page": s.page.name,
                        "layout": s.page.layout,
                        "language": s.page.language,
                        "method": s.method,
                        "roa": s.roa,
                        "tau": s.tau,
                    }
                    for s in scores
                ],
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
