"""Share of ``table`` blocks that end with a grid (>= 2 rows x >= 2 columns), by grid source.

Usage::

    python benchmarks/table_grids.py PARSED_DIR PDF_DIR [NAME ...]

``PARSED_DIR`` holds MinerU outputs (``<NAME>.zip`` or folders), ``PDF_DIR`` the PDFs (``<NAME>.pdf``).
For each document it reads the parse as MinerU wrote it (``read_mineru``: no grid recovery), then loads
it with the PDF (``load_document(..., pdf=PDF)``) and without (``pdf=False``: the parser's aligned text
only), and prints the table blocks, how many have a grid, the grid sources, the image blocks turned into
tables, the parts of continued tables merged once their grid was rebuilt, the pages opened, and the
seconds spent rebuilding grids (wall time, this machine). A table block counts as gridded when it ends
in a table with a grid, merged parts included. Figures recorded in docs/benchmarks/tables.md ("Table grids
(issue 9)").
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

from structaware_readers.load.loader import load_document
from structaware_readers.mineru import read_mineru
from structaware_readers.models import BlockKind
from structaware_readers.table_recovery import has_grid, needs_grid


def main(parsed: Path, pdfs: Path, names: list[str]) -> None:
    if not names:
        names = sorted(p.stem for p in parsed.iterdir() if (pdfs / f"{p.stem}.pdf").is_file())
    total = Counter()
    for name in names:
        src = parsed / f"{name}.zip" if (parsed / f"{name}.zip").exists() else parsed / name
        t0 = time.perf_counter()
        before = read_mineru(src)
        read_seconds = time.perf_counter() - t0
        pages_opened = len({b.page for b in before.blocks if needs_grid(b)})
        t1 = time.perf_counter()
        after = load_document(src, pdf=pdfs / f"{name}.pdf")
        seconds = time.perf_counter() - t1 - read_seconds  # reading the parse itself is not grid recovery
        no_pdf = load_document(src, pdf=False)
        tables_before = [b for b in before.blocks if b.kind is BlockKind.TABLE]
        table_ids = {b.block_id for b in tables_before}
        parser_tables = [b for b in after.blocks if b.kind is BlockKind.TABLE and b.source_type == "table"]
        images = [b for b in after.blocks if b.kind is BlockKind.TABLE and b.source_type == "image"]
        sources = Counter(b.table.grid_source for b in parser_tables if has_grid(b.table))
        row = Counter(
            docs=1,
            pages=after.page_count,
            pages_opened=pages_opened,
            tables=len(tables_before),
            grid_before=_parts_with_grid(before, table_ids),
            grid_after=_parts_with_grid(after, table_ids),
            grid_no_pdf=_parts_with_grid(no_pdf, table_ids),
            merged_after_recovery=_merged_parts(after, table_ids) - _merged_parts(before, table_ids),
            images_to_tables=len(images),
            warnings=len(after.warnings),
            **{f"src_{k}": v for k, v in sources.items()},
        )
        row["ms"] = round(seconds * 1000)
        total.update(row)
        print(name, dict(row), flush=True)
    share = lambda k: total[k] / total["tables"] if total["tables"] else 0.0
    print("TOTAL", dict(total))
    print(
        f"tables with a grid: before {total['grid_before']}/{total['tables']} ({share('grid_before'):.1%}),"
        f" with the PDF {total['grid_after']}/{total['tables']} ({share('grid_after'):.1%}),"
        f" without it {total['grid_no_pdf']}/{total['tables']} ({share('grid_no_pdf'):.1%});"
        f" image blocks turned into tables: {total['images_to_tables']};"
        f" grid recovery {total['ms'] / 1000:.1f} s for {total['pages_opened']} pages opened"
        f" ({total['ms'] / max(1, total['pages_opened']):.0f} ms per page opened)"
    )


def _parts_with_grid(doc, table_ids: set[str]) -> int:
    """Table blocks of the parse (``table_ids``) that end in a table with a grid: a part merged into the
    table it continues (``extra_ids``) counts with that table."""
    return sum(
        sum(1 for i in [b.block_id, *b.extra_ids] if i in table_ids)
        for b in doc.blocks
        if b.kind is BlockKind.TABLE and has_grid(b.table)
    )


def _merged_parts(doc, table_ids: set[str]) -> int:
    """Table blocks of the parse merged into the table they continue."""
    return sum(1 for b in doc.blocks if b.kind is BlockKind.TABLE for i in b.extra_ids if i in table_ids)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:])
