"""One SQLite file (or in-memory database) shared by the threads of one process: the embedding cache
and the ingest ledger both open theirs here."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Any

from structaware_readers.errors import StoreError

__all__ = ["open_sqlite", "write_or_warn"]

log = logging.getLogger(__name__)


def open_sqlite(path: Path | None, schema: str) -> tuple[sqlite3.Connection, threading.Lock]:
    """Open ``path`` (``None``: in memory), creating its folder, in WAL mode for a file, and run ``schema``
    (``CREATE TABLE IF NOT EXISTS ...``). Returns the connection and the lock its users hold around it
    (one connection for all threads: ``check_same_thread=False``).

    Raises:
        StoreError: (field ``sqlite``, naming ``path``) the file cannot be opened or created.
    """
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path) if path is not None else ":memory:", check_same_thread=False)
        lock = threading.Lock()
        with lock:
            if path is not None:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(schema)
            conn.commit()
    except (OSError, sqlite3.Error) as exc:  # a read-only folder, a full disk, a damaged file
        raise StoreError(f"cannot open or create this SQLite file: {exc}", path=path, field="sqlite") from exc
    return conn, lock


def write_or_warn(conn: sqlite3.Connection, path: Path | None, sql: str, rows: list[tuple[Any, ...]]) -> bool:
    """Run one ``executemany`` + commit of a cache-like file (the embedding cache, the ingest
    ledger); on a file-system refusal (full disk, read-only) log a warning, roll back and return
    ``False``: losing a cache entry costs time later, never data. Call it with the file's lock held."""
    try:
        conn.executemany(sql, rows)
        conn.commit()
        return True
    except sqlite3.OperationalError as exc:
        with contextlib.suppress(sqlite3.Error):
            conn.rollback()
        log.warning("%s: not recorded (%s); the next run recomputes what it would have saved", path, exc)
        return False
