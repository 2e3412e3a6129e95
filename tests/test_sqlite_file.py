"""The SQLite files beside an index (embedding cache, ingest ledger) open while another process holds
them, and a file that is not SQLite fails at once with a typed error naming it."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from structaware_readers.common.sqlite_file import open_sqlite
from structaware_readers.errors import StoreError

SCHEMA = "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB) WITHOUT ROWID"


def test_a_file_another_connection_is_writing_opens_once_that_write_ends(tmp_path: Path) -> None:
    """Switching a file to WAL reads it and then writes it in one transaction; SQLite refuses that
    upgrade at once, without waiting, while another connection holds the write lock, as when two
    ingests create one index at the same moment: the open waits for the other write to end and
    opens the file in WAL mode, where a bare connect fails with ``database is locked``."""
    path = tmp_path / "ingested.sqlite"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute(SCHEMA)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO entries VALUES ('written by the other process', x'00')")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    try:
        conn, lock = open_sqlite(path, SCHEMA)
    finally:
        release.join()
        other.close()
    with lock:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        # the other connection's write is there: it ended before this open finished
        assert conn.execute("SELECT key FROM entries").fetchall() == [("written by the other process",)]
    conn.close()


def test_a_file_that_is_not_sqlite_fails_at_once_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"this is a text file, not a database" * 100)
    with pytest.raises(StoreError) as info:
        open_sqlite(path, SCHEMA)
    assert str(path) in str(info.value) and info.value.field == "sqlite"
    assert "not a database" in str(info.value)
