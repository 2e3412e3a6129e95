"""Count the table shapes of issue 9 (part 2) in a folder of MinerU outputs.

For every table block of every ``*.zip`` / output folder under ``--parsed`` (default: the finance
filings of the development benchmark, ``<repo>/../shared/bench/finance/mineru-4.0.12-flash``, read in
place, never copied), read with :func:`structaware_readers.load.loader.load_document`: tables with and
without a grid, title rows (``TableGrid.title``), grids without a header row, headers completed by
:func:`structaware_readers.units.table_rows.repair_header`, body rows by kind
(:class:`structaware_readers.units.table_view.RowKind`), and footnotes split by marker or kept as a
general note (:mod:`structaware_readers.tables.footnotes`).

Run::

    HF_HUB_OFFLINE=1 python benchmarks/table_shapes.py [--parsed DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
from pathlib import Path

from structaware_readers.load.loader import load_document
from structaware_readers.models import BlockKind
from structaware_readers.tables.footnotes import cell_markers, split_footnotes
from structaware_readers.units.table_rows import repair_header
from structaware_readers.units.table_view import classify_rows

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "finance" / "mineru-4.0.12-flash"


def count(parsed: Path) -> dict[str, int]:
    """Counts of table shapes over every MinerU output under ``parsed``."""
    c: collections.Counter[str] = collections.Counter()
    inputs = sorted(p for p in parsed.iterdir() if p.suffix == ".zip" or p.is_dir())
    for path in inputs:
        c["documents"] += 1
        for b in load_document(path).blocks:
            if b.kind is not BlockKind.TABLE:
                continue
            c["tables"] += 1
            grid = b.table
            if grid is None:
                c["tables without a grid"] += 1
                continue
            c["grids"] += 1
            c["title rows"] += bool(grid.title)
            c["grids without a header row"] += not grid.header_rows
            repaired = repair_header(grid)
            c["headers completed from the body"] += len(repaired.header_rows) > len(grid.header_rows)
            rows = repaired.body_rows or repaired.header_rows
            c.update(f"rows: {kind.value}" for kind in classify_rows(rows))
            if b.footnote:
                notes, general = split_footnotes(b.footnote, cell_markers([x for r in rows for x in r]))
                c["tables with a footnote"] += 1
                c["footnotes split by marker"] += bool(notes)
                c["footnotes with a general note"] += bool(general)
    return dict(c)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parsed", type=Path, default=DEFAULT)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    logging.disable(logging.WARNING)  # one warning per table without a grid
    counts = count(args.parsed)
    for key, value in counts.items():
        print(f"{key:35s} {value:6d}")
    if args.json:
        args.json.write_text(json.dumps(counts, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
