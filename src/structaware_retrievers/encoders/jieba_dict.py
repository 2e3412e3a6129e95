"""jieba's default dictionary read word by word from an SQLite file in the user cache."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

from structaware_readers.common.user_cache import cache_dir, write_once

__all__ = ["FULL_AFTER", "LazyFreq", "dictionary_file", "lazy_tokenizer"]

#: Distinct words looked up in the SQLite file before the whole dictionary is loaded in memory.
FULL_AFTER = 20_000

_MISSING = object()


def dictionary_file() -> Path | None:
    """The SQLite copy of jieba's default dictionary in the user cache (built here when missing);
    ``None`` when jieba's ``dict.txt`` cannot be found or the cache cannot be written."""
    import jieba

    source = Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)
    try:
        st = source.stat()
    except OSError:
        return None
    target = cache_dir() / "bm25" / f"jieba-{jieba.__version__}-{st.st_size}-{st.st_mtime_ns}.sqlite"
    if target.is_file():
        return target
    freq, total = jieba.Tokenizer.gen_pfdict(jieba.Tokenizer().get_dict_file())
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE meta (total INTEGER NOT NULL)")
    db.execute("INSERT INTO meta VALUES (?)", (total,))
    db.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
    db.executemany("INSERT INTO freq VALUES (?, ?)", freq.items())
    db.commit()
    data = db.serialize()
    db.close()
    try:
        write_once(target, data)
    except OSError:  # a read-only or full cache: the caller loads the whole dictionary
        return None
    return target


class LazyFreq:
    """The part of ``jieba.Tokenizer.FREQ`` that segmentation reads (``in``, ``[]``, ``get``),
    looked up in the SQLite file ``path`` and kept; after :data:`FULL_AFTER` distinct words,
    ``load_full()`` (the whole dict) answers instead. Safe to share between threads."""

    def __init__(self, path: Path, load_full: Any) -> None:
        self._db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        self._seen: dict[str, int | None] = {}
        self._full: dict[str, int] | None = None
        self._load_full = load_full
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """The sum of the dictionary's word frequencies (jieba's ``Tokenizer.total``)."""
        return int(self._db.execute("SELECT total FROM meta").fetchone()[0])

    def _lookup(self, word: str) -> int | None:
        if self._full is not None:
            return self._full.get(word)
        value = self._seen.get(word, _MISSING)
        if value is not _MISSING:
            return value  # type: ignore[return-value]
        with self._lock:
            if self._full is None and len(self._seen) >= FULL_AFTER:
                self._full = self._load_full()
                self._db.close()
            if self._full is not None:
                return self._full.get(word)
            try:
                row = self._db.execute("SELECT n FROM freq WHERE word = ?", (word,)).fetchone()
            except sqlite3.Error:  # the file went bad under this process: the whole dictionary
                self._full = self._load_full()
                return self._full.get(word)
            found = None if row is None else int(row[0])
            self._seen[word] = found
            return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._lookup(word) is not None

    def __getitem__(self, word: str) -> int:
        found = self._lookup(word)
        if found is None:
            raise KeyError(word)
        return found

    def get(self, word: str, default: Any = None) -> Any:
        found = self._lookup(word)
        return default if found is None else found


def lazy_tokenizer() -> Any:
    """A ``jieba.Tokenizer`` on jieba's default dictionary, read through :class:`LazyFreq`; a
    tokenizer that loads the whole dictionary at once when no SQLite copy can be had."""
    import jieba

    tok = jieba.Tokenizer()
    path = None
    try:
        path = dictionary_file()
    except (OSError, sqlite3.Error):
        path = None
    if path is None:
        tok.initialize()
        return tok

    def load_full() -> dict[str, int]:
        full = jieba.Tokenizer()
        full.initialize()
        return full.FREQ

    try:
        freq = LazyFreq(path, load_full)
        total = freq.total
    except (sqlite3.Error, TypeError, ValueError):  # a damaged file: the whole dictionary, the usual way
        tok.initialize()
        return tok
    tok.FREQ, tok.total, tok.initialized = freq, total, True
    return tok
