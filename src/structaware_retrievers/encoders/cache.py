"""Persistent embedding cache and the batching + caching base shared by both encoders."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from structaware_readers.common.sqlite_file import open_sqlite, write_or_warn
from structaware_readers.errors import MalformedInputError
from structaware_readers.ids import content_hash

__all__ = ["CachedEncoder", "EmbeddingCache"]


class EmbeddingCache:
    """Persistent embedding cache: an SQLite file keyed by ``(model_id, content_hash)`` (``path=None``: in memory).
    Thread-safe within one process. Entries are never evicted (re-adding a deleted document is free): delete the file
    to reclaim the space.
    """

    _CHUNK = 500  # keys per SELECT (SQLite's bound-variable limit is 999 on old builds)

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path is not None else None
        self._conn, self._lock = open_sqlite(
            self.path,
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, data BLOB NOT NULL,"
            " PRIMARY KEY (model, hash)) WITHOUT ROWID",
        )

    def get(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        """Stored blobs for those of ``hashes`` that are present."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(hashes))
        with self._lock:
            for i in range(0, len(unique), self._CHUNK):
                chunk = unique[i : i + self._CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT hash, data FROM vectors WHERE model = ? AND hash IN ({marks})"  # noqa: S608 - only "?" marks are formatted in
                rows = self._conn.execute(query, (model_id, *chunk))
                found.update(rows)
        return found

    def put(self, model_id: str, items: dict[str, bytes]) -> None:
        """Store blobs by content hash (replacing any present)."""
        if not items:
            return
        with self._lock:
            write_or_warn(
                self._conn,
                self.path,
                "INSERT OR REPLACE INTO vectors (model, hash, data) VALUES (?, ?, ?)",
                [(model_id, h, sqlite3.Binary(b)) for h, b in items.items()],
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class CachedEncoder:
    """Shared batching + caching: subclasses implement ``_compute`` and the blob codecs."""

    model_id: str
    cache: EmbeddingCache | None
    #: Texts computed between two writes to the cache (cache misses of one call are embedded in
    #: slices of this size, shortest first, each stored when it is done).
    commit_every: int = 256

    def __init__(self, cache: EmbeddingCache | None) -> None:
        self.cache = cache
        #: number of texts actually run through the model (cache misses), for tests and reports
        self.computed = 0
        self._count_lock = threading.Lock()

    def _compute(self, texts: list[str]) -> list[Any]:
        raise NotImplementedError

    def _encode(self, item: Any) -> bytes:
        raise NotImplementedError

    def _decode(self, blob: bytes) -> Any:
        raise NotImplementedError

    def _embed_cached(self, texts: Sequence[str]) -> list[Any]:
        if isinstance(texts, str):
            raise MalformedInputError("expected a list of texts, got one str", field="texts")
        hashes = [content_hash(t) for t in texts]
        out: dict[str, Any] = {}
        if self.cache is not None:
            out = {h: self._decode(b) for h, b in self.cache.get(self.model_id, hashes).items()}
        todo: dict[str, str] = {}
        for h, t in zip(hashes, texts, strict=True):
            if h not in out and h not in todo:
                todo[h] = t
        # Computed in slices of ``commit_every`` texts (by length, so each slice pads little), each
        # slice stored in the cache as soon as it is done: an interrupted ingest (Ctrl-C, kill)
        # keeps every finished slice and the next run embeds only the rest.
        pending = sorted(todo.items(), key=lambda kv: len(kv[1]))
        step = self.commit_every if self.cache is not None else max(len(pending), 1)
        for start in range(0, len(pending), step):
            part = pending[start : start + step]
            vectors = self._compute([t for _, t in part])
            new = dict(zip((h for h, _ in part), vectors, strict=True))
            with self._count_lock:
                self.computed += len(new)
            if self.cache is not None:
                self.cache.put(self.model_id, {h: self._encode(v) for h, v in new.items()})
            out.update(new)
        return [out[h] for h in hashes]
