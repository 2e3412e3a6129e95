"""What ``StructureIndex.ingest`` has already indexed, by input content hash: skip before parsing.

The ledger maps ``(store location, input path)`` to the :func:`input_fingerprint` of the input and
its settings, the ``doc_id`` it produced and its unit count; an input is skipped unread when both
match and the index still holds that many units. File: ``ingested.sqlite`` beside the embedding
cache; deleting it only costs one full re-read.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import NamedTuple

from structaware_readers.common.sqlite_file import open_sqlite, write_or_warn

__all__ = ["IngestLedger", "LedgerEntry", "input_fingerprint"]

_BLOCK = 1 << 20


def _hash_file(h: hashlib._Hash, path: Path) -> None:
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_BLOCK), b""):
            h.update(chunk)


def input_fingerprint(path: str | Path, settings: str = "") -> str:
    """sha256 (hex) of an input's content and of ``settings`` (the ingest options as a string). Raises ``OSError``."""
    p = Path(path)
    h = hashlib.sha256()
    h.update(settings.encode("utf-8") + b"\0")
    if p.is_dir():
        files = sorted((f for f in p.rglob("*") if f.is_file()), key=lambda f: f.relative_to(p).as_posix())
        for f in files:
            rel = f.relative_to(p).as_posix().encode("utf-8")
            h.update(len(rel).to_bytes(4, "big") + rel + f.stat().st_size.to_bytes(8, "big"))
            _hash_file(h, f)
    else:
        _hash_file(h, p)
    return h.hexdigest()


class LedgerEntry(NamedTuple):
    """One indexed input: its fingerprint, the ``doc_id`` and name it produced, its unit count."""

    fingerprint: str
    doc_id: str
    units: int
    doc_name: str = ""


class IngestLedger:
    """SQLite ledger of indexed inputs (see the module docstring). Thread-safe within a process."""

    def __init__(self, path: str | Path | None, location: str) -> None:
        self.path = Path(path) if path is not None else None
        self.location = location
        self._conn, self._lock = open_sqlite(
            self.path,
            "CREATE TABLE IF NOT EXISTS inputs (location TEXT NOT NULL, source TEXT NOT NULL,"
            " fingerprint TEXT NOT NULL, doc_id TEXT NOT NULL, units INTEGER NOT NULL, doc_name TEXT NOT NULL,"
            " PRIMARY KEY (location, source)) WITHOUT ROWID",
        )

    @staticmethod
    def key(path: str | Path) -> str:
        """The ledger key of an input path: its absolute, symlink-resolved form."""
        return os.fspath(Path(path).resolve())

    def get(self, path: str | Path) -> LedgerEntry | None:
        """The entry recorded for ``path`` in this location, or ``None``."""
        with self._lock:
            row = self._conn.execute(
                "SELECT fingerprint, doc_id, units, doc_name FROM inputs WHERE location = ? AND source = ?",
                (self.location, self.key(path)),
            ).fetchone()
        return LedgerEntry(*row) if row else None

    def fingerprints(self, doc_id: str) -> set[str]:
        """The fingerprints recorded in this location for inputs that produced ``doc_id``."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT fingerprint FROM inputs WHERE location = ? AND doc_id = ?", (self.location, doc_id)
            ).fetchall()
        return {row[0] for row in rows}

    def put(self, path: str | Path, entry: LedgerEntry) -> None:
        """Record that ``path`` is indexed as ``entry`` (replacing an older record)."""
        with self._lock:
            write_or_warn(
                self._conn,
                self.path,
                "INSERT OR REPLACE INTO inputs (location, source, fingerprint, doc_id, units, doc_name)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(self.location, self.key(path), *entry)],
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()
