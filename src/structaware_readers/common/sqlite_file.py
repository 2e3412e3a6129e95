"""One SQLite file (or in-memory database) shared by the threads of one process: the embedding cache
and the ingest ledger both open theirs here."""

from __future__ import annotations

import contextlib
import logging
import random
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from structaware_readers.errors import StoreError

__all__ = ["open_sqlite", "write_or_warn"]

log = logging.getLogger(__name__)

#: seconds one open waits for other processes opening or writing the same file: SQLite's busy
#: timeout, and the deadline of the retries below
BUSY_SECONDS = 60.0


def _is_busy(exc: sqlite3.Error) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


def _prepare(conn: sqlite3.Connection, path: Path | None, schema: str) -> None:
    """Switch a file to WAL and run ``schema``, retrying while another process holds the file.

    Two processes creating the same new file at once can get ``database is locked`` at once,
    without SQLite's busy handler waiting (it refuses to wait where waiting could deadlock, as
    when both read the empty file and then both want to write it): the step is retried, with a
    short random pause, until :data:`BUSY_SECONDS` have passed."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            if path is not None:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(schema)
            conn.commit()
            return
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            if not _is_busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(random.uniform(0.01, 0.1))


def open_sqlite(path: Path | None, schema: str) -> tuple[sqlite3.Connection, threading.Lock]:
    """Open ``path`` (``None``: in memory), creating its folder, in WAL mode for a file, and run ``schema``
    (``CREATE TABLE IF NOT EXISTS ...``), waiting up to :data:`BUSY_SECONDS` for other processes
    that open or write the same file. Returns the connection and the lock its users hold around it
    (one connection for all threads: ``check_same_thread=False``).

    Raises:
        StoreError: (field ``sqlite``, naming ``path``) the file cannot be opened or created.
    """
    try:
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(
            str(path) if path is not None else ":memory:", timeout=BUSY_SECONDS, check_same_thread=False
        )
        lock = threading.Lock()
        with lock:
            _prepare(conn, path, schema)
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
