"""The process's open Qdrant Edge shards and how processes take turns with them.

One :class:`OpenShard` per index folder per process, shared by its ``EdgeStore`` handles. When
another process waits for the shard lock (:mod:`structaware_retrievers.store.locking`), the holder
parks its shard (flush, close, free the lock) as soon as none of its operations runs
(:func:`start_watcher` for idle processes, a check before each operation otherwise). An index in a
read-only folder is searched in a temporary copy, since Qdrant Edge writes to its folder even to
load it (a warning names both folders).
"""

from __future__ import annotations

import atexit
import logging
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import qdrant_edge as E

from structaware_readers.errors import StoreError
from structaware_retrievers.store.disk import check_space, io_hint
from structaware_retrievers.store.locking import FolderLock

__all__ = ["SHARD_DIR", "OpenShard", "before_exit", "open_shards", "registry_lock"]

log = logging.getLogger(__name__)

SHARD_DIR = "shard"

registry_lock = threading.RLock()
open_shards: dict[str, OpenShard] = {}  # resolved folder -> the process's open shard of it
_watching = False  # whether the watcher thread runs (changed under registry_lock)
_WATCH_POLL = 0.25  # seconds between the watcher's looks at the "wanted" markers
_YIELD_PAUSE = 0.5  # seconds a process that let another one in waits before it takes the shard again


class OpenShard:
    """The process's shard of one folder, shared by its ``EdgeStore`` handles."""

    def __init__(self, folder: Path, lock: FolderLock):
        self.folder = folder
        self.lock = lock
        self.shard: Any = None
        self.handles = 0
        self.active = 0
        self.unflushed = False  # written since the last flush (closing flushes only then)
        self.wrote = False  # written since the shard was opened (closing settles it then)
        self.parked_at = 0.0
        self.snapshot: Path | None = None  # the temporary copy searched for a read-only folder

    def open(self, config: Any = None) -> Any:
        """The shard, loaded (or created from ``config``) if parked; waits for the folder's shard lock."""
        folder = self.folder
        if self.shard is not None:
            return self.shard
        pause = self.parked_at + _YIELD_PAUSE - time.monotonic()
        if pause > 0:  # the process this one let in polls every 0.05 s: let it take the lock first
            time.sleep(pause)
        self.lock.acquire()  # waits while another process has the shard open
        try:
            if config is None:  # loading may fill preallocated files: a typed error, not a SIGBUS
                check_space(folder, opening=True)
            shard_dir = str(folder / SHARD_DIR)
            self.shard = E.EdgeShard.create(shard_dir, config) if config is not None else E.EdgeShard.load(shard_dir)
        except (KeyboardInterrupt, SystemExit):
            self.lock.release()
            raise
        except BaseException as exc:  # the engine's errors, and its panics (not Exceptions)
            self.lock.release()
            if "WouldBlock" in str(exc):
                raise StoreError(
                    "the index folder is open in another process (Qdrant Edge locks its write-ahead log);"
                    " close that process or use another folder",
                    path=folder,
                    field="shard",
                ) from exc
            hint = io_hint(exc)
            if config is None and hint is not None and ("writable" in hint or "read-only" in hint):
                self.shard = self._load_copy(exc)
                start_watcher()
                return self.shard
            if hint is not None:
                raise StoreError(f"cannot open the index: {hint} ({exc})", path=folder, field="disk") from exc
            raise StoreError(f"cannot open the Qdrant Edge shard: {exc}", path=folder, field="shard") from exc
        start_watcher()
        return self.shard

    def _load_copy(self, cause: BaseException) -> Any:
        """Load a temporary copy of a shard whose folder this process cannot write (see the module
        docstring); holds the folder's shard lock like a load in place. Raises ``StoreError`` naming
        the folder when the copy cannot be made or loaded."""
        self.lock.acquire()
        copy = Path(tempfile.mkdtemp(prefix="structaware-read-only-"))
        try:
            shutil.copytree(self.folder / SHARD_DIR, copy / SHARD_DIR, copy_function=shutil.copyfile)
            for path in (copy / SHARD_DIR, *(copy / SHARD_DIR).rglob("*")):  # copytree keeps folder modes
                if path.is_dir():
                    path.chmod(0o700)
            shard = E.EdgeShard.load(str(copy / SHARD_DIR))
        except BaseException as exc:
            self.lock.release()
            shutil.rmtree(copy, ignore_errors=True)
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise StoreError(
                f"cannot open the index: {io_hint(cause)}, and a copy to search could not be made in {copy} ({exc})",
                path=self.folder,
                field="disk",
            ) from exc
        log.warning(
            "%s: the folder is not writable (%s); searching a copy in %s, deleted when done",
            self.folder,
            io_hint(cause),
            copy,
        )
        self.snapshot = copy
        atexit.register(shutil.rmtree, copy, True)  # a process that ends without parking its shard
        return shard

    def park(self, *, settle: bool = False) -> None:
        """Flush (if written) and close the shard and free its lock; the next operation reopens it."""
        shard, self.shard = self.shard, None
        if shard is None:
            return
        settle, self.wrote = settle and self.wrote, False
        try:
            if self.unflushed:  # a read-only process (a query) skips the flush (~0.15 s)
                self.unflushed = False
                shard.flush()
        except BaseException as exc:  # e.g. a full disk (or a panic): the write-ahead log keeps every write
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            log.warning(
                "%s: could not write the index's segments (%s: %s); nothing is lost, the write-ahead log"
                " holds every write and the next open replays it",
                self.folder,
                io_hint(exc) or "engine error",
                exc,
            )
        finally:
            try:
                shard.close()
                if settle and self.snapshot is None:
                    _settle(self.folder / SHARD_DIR)
            finally:
                if self.snapshot is not None:  # a read-only folder's copy: nothing in it to keep
                    shutil.rmtree(self.snapshot, ignore_errors=True)
                    self.snapshot = None
                self.lock.release()
                self.parked_at = time.monotonic()

    def yield_if_wanted(self) -> None:
        """Park the shard if no operation runs, no write transaction holds it, and another process waits."""
        if self.shard is not None and self.active == 0 and self.lock.wanted():
            log.debug("%s: another process waits for the shard; letting it in", self.lock.path)
            self.park()


def _settle(shard_dir: Path) -> None:
    """Load and close a shard once (see :meth:`OpenShard.park`); best effort, readers check the space too."""
    try:
        E.EdgeShard.load(str(shard_dir)).close()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001 - the engine's errors and panics: the next open reports them
        log.warning("%s: loading the shard after writing failed: %s", shard_dir, exc)


def start_watcher() -> None:
    """Start (once per process; call under ``registry_lock``) the thread that parks idle shards
    another process waits for; it ends when no shard of the process is open."""
    global _watching
    if not _watching:
        _watching = True
        threading.Thread(target=_watch, name="structaware-shard-watcher", daemon=True).start()


def _watch() -> None:
    global _watching
    while True:
        time.sleep(_WATCH_POLL)
        if not registry_lock.acquire(timeout=_WATCH_POLL):
            continue  # an operation is opening a shard: look again later
        try:
            for entry in list(open_shards.values()):
                try:
                    entry.yield_if_wanted()
                except Exception as exc:  # noqa: BLE001 - keep watching; the next operation reports engine errors
                    log.warning("%s: letting another process in failed: %s", entry.lock.path, exc)
            if not any(e.shard is not None for e in open_shards.values()):
                _watching = False
                return  # nothing open: the next open starts a new watcher
        finally:
            registry_lock.release()


def before_exit() -> None:
    """For a process about to end with ``os._exit`` (``structaware query``), which runs no
    ``atexit`` hook and no finaliser: shards the process wrote to (e.g. a repair on open) are
    parked as :meth:`EdgeStore.close` would park them (flushed, closed, settled); the temporary
    copies of read-only folders' shards are deleted. A shard only read is left open for the OS to
    release: closing it syncs every memory-mapped file of the shard (see ``structaware_retrievers.cli.main``)."""
    with registry_lock:
        for key, shard in list(open_shards.items()):
            if shard.wrote or shard.unflushed:
                del open_shards[key]
                shard.park(settle=True)
            elif shard.snapshot is not None:
                shutil.rmtree(shard.snapshot, ignore_errors=True)
                shard.snapshot = None
