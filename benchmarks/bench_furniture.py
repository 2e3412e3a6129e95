"""Page furniture in units: how many section units are running heads/feet, on the finance filings.

For every MinerU output zip in ``<bench>/finance/mineru-4.0.12-flash`` (56 SEC filings, about
6,500 pages, MinerU 4.0.12 flash tier), read in place with
:func:`structaware_readers.load.loader.load_document`, the units are built with the default options
and the source elements of every section unit (``Unit.element_ids``, headings aside) are checked
against a definition of page furniture made here, independently of the detector in
:mod:`structaware_readers.structure.furniture`:

* **running head/foot**: a block of at most 200 characters lying in the top or bottom 12% of its
  page whose text (case folded; digits, punctuation and spaces removed) is found that way on at
  least 3 pages and on at least 5% of the document's pages;
* **page number**: a block whose text is only a number (``12``, ``- 12 -``, ``Page 12``) and
  whose value minus its page index is the same offset on at least 3 pages and 10% of the
  pages (wherever it lies:
  on short pages MinerU puts it right after the last line of text).

A section unit **is furniture** when every one of its non-heading source elements is; it
**carries furniture** when at least one is. Printed: totals, and the five documents with the
most furniture units with examples.

The data is research-only: it is read from ``<repo>/../shared/bench`` (or ``--bench-dir``) and
never copied into the repository.

Run::

    nice -n 10 .venv/bin/python benchmarks/bench_furniture.py [--bench-dir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import re
import sys
import time
import unicodedata
import warnings
from collections import defaultdict
from datetime import date
from pathlib import Path

from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind, ParsedDocument, UnitType
from structaware_readers.units import build_units

BAND = 0.12
MAX_CHARS = 200
MIN_PAGES = 3
MIN_SHARE = 0.05
_PAGE_NUMBER = re.compile(r"^[\s\-–—|.]*(?:page\s*)?(\d{1,4})(?:\s*(?:of|/)\s*\d{1,4})?[\s\-–—|.]*$", re.IGNORECASE)
_STRIP = re.compile(r"[\W\d_]+", re.UNICODE)


def _key(text: str) -> str:
    return _STRIP.sub("", unicodedata.normalize("NFKC", text).casefold())


def furniture_ids(doc: ParsedDocument) -> set[str]:
    """Ids of the document's furniture blocks (see the module docstring)."""
    pages: dict[str, set[int]] = defaultdict(set)
    offsets: dict[int, set[int]] = defaultdict(set)
    for b in doc.blocks:
        if b.bbox is None or len(b.text) > MAX_CHARS or not b.text.strip():
            continue
        if b.bbox[3] <= BAND or b.bbox[1] >= 1 - BAND:
            if key := _key(b.text):
                pages[key].add(b.page)
        if m := _PAGE_NUMBER.match(b.text.strip()):
            offsets[int(m.group(1)) - b.page].add(b.page)
    need = max(MIN_PAGES, MIN_SHARE * doc.page_count)
    running = {k for k, p in pages.items() if len(p) >= need}
    page_offsets = {o for o, p in offsets.items() if len(p) >= max(MIN_PAGES, 0.1 * doc.page_count)}
    out = set()
    for b in doc.blocks:
        if not b.text.strip() or len(b.text) > MAX_CHARS:
            continue
        band = b.bbox is not None and (b.bbox[3] <= BAND or b.bbox[1] >= 1 - BAND)
        m = _PAGE_NUMBER.match(b.text.strip())
        if (band and _key(b.text) in running) or (m and int(m.group(1)) - b.page in page_offsets):
            out.add(b.block_id)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = Path(__file__).resolve().parents[1].parent / "shared" / "bench"
    parser.add_argument("--bench-dir", type=Path, default=default)
    parser.add_argument("--json", type=Path, default=None, help="write the per-document counts here")
    args = parser.parse_args(argv)
    folder = args.bench_dir / "finance" / "mineru-4.0.12-flash"
    zips = sorted(folder.glob("*.zip"))
    if not zips:
        print(f"no MinerU zips in {folder}", file=sys.stderr)
        return 2
    logging.disable(logging.WARNING)  # per-table parse warnings are not what this measures
    rows = []
    start = time.perf_counter()
    for path in zips:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            doc = load_document(path)
        furniture_blocks = furniture_ids(doc)
        kinds = {b.block_id: b.kind for b in doc.blocks}
        units = build_units(doc)
        sections = [u for u in units if u.unit_type is UnitType.SECTION]
        furniture = carrying = 0
        examples: list[str] = []
        for u in sections:
            flags = [e in furniture_blocks for e in u.element_ids if kinds.get(e) is not BlockKind.HEADING]
            if flags and all(flags):
                furniture += 1
                if len(examples) < 3:
                    examples.append(u.text[:80])
            if any(flags):
                carrying += 1
        rows.append(
            {
                "doc": path.stem,
                "pages": doc.page_count,
                "units": len(units),
                "section_units": len(sections),
                "furniture_units": furniture,
                "units_carrying_furniture": carrying,
                "furniture_blocks": len(furniture_blocks),
                "examples": examples,
            }
        )
    total = {k: sum(r[k] for r in rows) for k in ("pages", "units", "section_units", "furniture_units",
                                                  "units_carrying_furniture")}  # fmt: skip
    print(f"date {date.today()}  python {platform.python_version()}  {platform.machine()}  docs {len(rows)}  "
          f"seconds {time.perf_counter() - start:.0f}")  # fmt: skip
    print(" ".join(f"{k}={v}" for k, v in total.items()))
    worst = sorted(rows, key=lambda r: -r["furniture_units"])[:5]
    for r in worst:
        print(f"  {r['doc']}: {r['furniture_units']} furniture / {r['section_units']} sections; {r['examples'][:2]}")
    if args.json:
        args.json.write_text(json.dumps({"total": total, "docs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
