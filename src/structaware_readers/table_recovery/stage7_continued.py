"""Stage 7: tables continued across pages whose grid was rebuilt, merged into one table.

A reader merges two parts only when both have cells, so the merge is made again here (rules:
:mod:`structaware_readers.tables.continued`) for every pair with a freshly rebuilt part: the later
part's rows, page, bbox, id and footnote go to the first, and the later block is removed.
"""

from __future__ import annotations

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.table_recovery.record import Recovery
from structaware_readers.table_recovery.stage1_select import has_grid
from structaware_readers.tables import grid_to_text
from structaware_readers.tables.continued import append_rows, continues

__all__ = ["finish", "merge_continued_tables"]


def finish(rec: Recovery) -> ParsedDocument:
    """The document with the stages' blocks (tables continued across pages merged when a part's grid
    was rebuilt, :func:`merge_continued_tables`) and warnings; call after :meth:`Recovery.drop_absorbed
    <.record.Recovery.drop_absorbed>`."""
    blocks = rec.blocks
    rebuilt = {
        blocks[i].block_id for i in rec.targets if blocks[i].kind is BlockKind.TABLE and has_grid(blocks[i].table)
    }
    return rec.doc.model_copy(update={"blocks": merge_continued_tables(blocks, rebuilt), "warnings": rec.warnings})


def merge_continued_tables(blocks: list[Block], rebuilt: set[str]) -> list[Block]:
    """``blocks`` with each continued table merged into the table it continues (module docstring)."""
    rebuilt = set(rebuilt)
    first_body: dict[int, int] = {}
    last_body: dict[int, int] = {}
    for i, b in enumerate(blocks):
        if not b.is_furniture and b.kind is not BlockKind.FOOTNOTE:
            first_body.setdefault(b.page, i)
            last_body[b.page] = i
    out: list[Block] = []
    last: int | None = None  # index in `out` of the last kept table
    last_src = -1  # index in `blocks` of the last table part seen (a third page may continue it)
    for i, b in enumerate(blocks):
        if b.kind is not BlockKind.TABLE:
            out.append(b)
            continue
        prev = out[last] if last is not None else None
        by_position = first_body.get(b.page) == i and last_body.get(b.page - 1) == last_src
        if (
            prev is not None
            and (b.block_id in rebuilt or prev.block_id in rebuilt)
            and continues(
                prev.table,
                b.table,
                flagged=b.continues_prev,
                by_position=by_position,
                caption=b.caption,
                own_header_starts_a_table=True,
            )
        ):
            assert prev.table is not None and b.table is not None
            out[last] = _merged(prev, b)  # type: ignore[index]
            rebuilt.add(prev.block_id)  # a third part continues the merged table
            last_src = i
            continue
        out.append(b)
        last, last_src = len(out) - 1, i
    return out


def _merged(first: Block, cont: Block) -> Block:
    assert first.table is not None and cont.table is not None
    grid = append_rows(first.table, first.page, cont.table, cont.page)
    ids_known = len(first.extra_ids) == len(first.extra_pages) and len(cont.extra_ids) == len(cont.extra_pages)
    return first.model_copy(
        update={
            "table": grid,
            "text": grid_to_text(grid),
            "footnote": " ".join(x for x in (first.footnote, cont.footnote) if x),
            "extra_pages": [*first.extra_pages, cont.page, *cont.extra_pages],
            "extra_bboxes": [*first.extra_bboxes, cont.bbox, *cont.extra_bboxes],
            "extra_ids": [*first.extra_ids, cont.block_id, *cont.extra_ids] if ids_known else [],
            "parser_ids": [*first.parser_ids, *cont.parser_ids],
        }
    )


__all__ = ["merge_continued_tables"]
