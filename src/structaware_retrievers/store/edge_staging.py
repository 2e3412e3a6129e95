"""A new collection's Qdrant Edge shard built aside and moved in place (:meth:`EdgeStore.prepare
<structaware_retrievers.store.edge.EdgeStore.prepare>`,
:meth:`~structaware_retrievers.store.edge.EdgeStore.create`).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qdrant_edge as E

from structaware_retrievers.store.edge_convert import shard_config

__all__ = ["STAGED_DIM", "STAGED_DIR", "build_staged", "discard_staged", "take_staged"]

#: The new shard, built aside.
STAGED_DIR = ".shard-staged"
#: Written last: the staged shard is whole, for this dimension.
STAGED_DIM = ".shard-staged.dim"


def build_staged(folder: Path, dim: int, create_indexes: Callable[[Any], None]) -> None:
    """Create the shard in ``folder/.shard-staged`` for ``dim``-d dense vectors, give it its payload
    indexes (``create_indexes(shard)``), flush, close, and load it once (the first load fills
    preallocated files, as ``create`` settles a shard), then write the marker. On an error the
    caller discards what was built (:func:`discard_staged`)."""
    staged = str(folder / STAGED_DIR)
    shard = E.EdgeShard.create(staged, shard_config(dim))
    try:
        create_indexes(shard)
        shard.flush()
    finally:
        shard.close()
    E.EdgeShard.load(staged).close()  # settled, as create() settles: the first load fills preallocated files
    (folder / STAGED_DIM).write_text(str(dim), encoding="utf-8")


def discard_staged(folder: Path) -> None:
    """Remove a staged shard and its marker, if any."""
    (folder / STAGED_DIM).unlink(missing_ok=True)
    shutil.rmtree(folder / STAGED_DIR, ignore_errors=True)


def take_staged(folder: Path, shard_dir: Path, dim: int) -> bool:
    """Move a whole shard staged for ``dim`` to ``shard_dir`` (which must not exist); False if there is
    none (or it is for another dimension, or the rename fails). What is staged is removed either way."""
    try:
        ok = (folder / STAGED_DIM).read_text(encoding="utf-8") == str(dim)
    except OSError:
        ok = False
    if ok and not shard_dir.exists():
        try:
            os.rename(folder / STAGED_DIR, shard_dir)
        except OSError:
            ok = False
    else:
        ok = False
    discard_staged(folder)
    return ok
