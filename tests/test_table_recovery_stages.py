"""Table recovery as stages (issue 26): one entry point, one shared record, the folder's modules in
the order of the stages. What the stages compute is tested in ``test_table_recovery.py`` and
``test_split_tables.py``; here the record and the order.

Real inputs: ``tests/fixtures/pdf/borderless_tables.pdf`` and its MinerU 4.0.12 flash-tier parse
(page 1: a ``table`` block without a grid; page 2: one with an HTML grid).
"""

from __future__ import annotations

import re
from pathlib import Path

import structaware_readers.table_recovery as table_recovery
from structaware_readers.mineru import read_mineru
from structaware_readers.models import BlockKind
from structaware_readers.table_recovery import Recovery, recover_table_grids, recover_tables
from structaware_readers.table_recovery.stage1_select import select

FIXTURES = Path(__file__).parent / "fixtures"
PDF = FIXTURES / "pdf" / "borderless_tables.pdf"
PARSE = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_borderless_tables"
FOLDER = Path(table_recovery.__file__).parent


def test_the_stage_modules_are_numbered_in_order_and_the_package_lists_them_so() -> None:
    numbers = sorted(int(m.group(1)) for p in FOLDER.glob("stage*.py") if (m := re.match(r"stage(\d+)_", p.name)))
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 5
    listed = [int(n) for n in re.findall(r"^(\d+)\. :mod:`\.stage\1_", table_recovery.__doc__, re.MULTILINE)]
    assert listed == numbers  # the package docstring names every stage, in order


def test_select_records_what_each_later_stage_works_on() -> None:
    doc = read_mineru(PARSE)
    rec = select(doc, with_pdf=True)
    assert rec is not None
    ungridded = [i for i, b in enumerate(doc.blocks) if b.kind is BlockKind.TABLE and b.table is None]
    gridded = [i for i, b in enumerate(doc.blocks) if b.kind is BlockKind.TABLE and b.table is not None]
    assert ungridded and set(ungridded) <= set(rec.targets)
    assert set(gridded) <= set(rec.checks)  # parser markup is checked only with a PDF ...
    without_pdf = select(doc, with_pdf=False)
    assert without_pdf is not None and without_pdf.checks == [] and without_pdf.split == {}  # ... and not without
    # the reader's warning about the ungridded table is taken out: the stages decide its outcome
    gone = [w for w in doc.warnings if w not in rec.warnings]
    assert len(gone) == 1 and gone[0].startswith(
        f"page {doc.blocks[ungridded[0]].page}, element {doc.blocks[ungridded[0]].block_id}:"
    )


def test_drop_absorbed_removes_the_pieces_and_reindexes_the_rebuilt_tables() -> None:
    doc = read_mineru(PARSE)
    rec = Recovery(doc, list(doc.blocks), targets=[1, 3, 5], absorbed={2, 4}, merged={0})
    ids = [b.block_id for b in doc.blocks]
    rec.drop_absorbed()
    assert [b.block_id for b in rec.blocks] == [i for k, i in enumerate(ids) if k not in (2, 4)]
    # block 0 took pieces in and is a target now; 3 and 5 move up by the pieces before them
    assert [rec.blocks[i].block_id for i in rec.targets] == [ids[0], ids[1], ids[3], ids[5]]
    assert rec.absorbed == set() and rec.merged == set()


def test_the_one_entry_point_uses_the_pdf_given_found_or_none() -> None:
    doc = read_mineru(PARSE)
    given = recover_tables(doc, PARSE, PDF)
    assert given.model_dump() == recover_table_grids(doc, PDF).model_dump()
    table = next(b for b in given.blocks if b.kind is BlockKind.TABLE and b.page == 1)
    assert table.table is not None and table.table.grid_source == "pdf_text_layer"
    none = recover_tables(doc, PARSE, False)
    table = next(b for b in none.blocks if b.kind is BlockKind.TABLE and b.page == 1)
    assert table.table is not None and table.table.grid_source == "parser_text"
    # a document that needs nothing comes back as it is
    plain = doc.model_copy(update={"blocks": [b for b in doc.blocks if b.kind is not BlockKind.TABLE]})
    assert recover_tables(plain, PARSE, PDF) is plain
