"""One SQLite file (or in-memory database) shared by the threads of one process: the embedding cache
and the ingest ledger both open theirs here."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

__all__ = ["open_sqlite"]


def open_sqlite(path: Path | None, schema: str) -> tuple[sqlite3.Connection, threading.Lock]:
    """Open ``path`` (``None``: in memory), creating its folder, in WAL mode for a file, and run ``schema``
    (``CREATE TABLE IF NOT EXISTS ...``). Returns the connection and the lock its users hold around it
    (one connection for all threads: ``check_same_thread=False``)."""
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
    return conn, lock
