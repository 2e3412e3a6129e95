"""Cross-process locks of an index folder: one writer, many readers, never corruption."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from structaware_readers.errors import StoreError

__all__ = ["ENV_LOCK_TIMEOUT", "FolderLock", "folder_lock", "lock_timeout"]

log = logging.getLogger(__name__)

#: Environment variable: seconds to wait for an index lock held by another process.
ENV_LOCK_TIMEOUT = "STRUCTAWARE_LOCK_TIMEOUT"
_DEFAULT_TIMEOUT = 600.0
_POLL = 0.25  # seconds between attempts while another process holds a lock


class _Timeout(Exception):
    """The file lock was not free within the timeout."""


class _FlockFile:
    """An exclusive ``fcntl.flock`` on a lock file, as ``filelock.UnixFileLock`` takes it.

    Used on POSIX instead of ``filelock``, whose import pulls in ``asyncio`` on every
    ``structaware query``.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def is_locked(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float) -> None:
        import fcntl

        deadline = time.monotonic() + timeout
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise _Timeout(self.path) from None
                    time.sleep(min(0.05, max(0.0, deadline - time.monotonic())))
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def release(self) -> None:
        import fcntl

        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)


class _PortableFile:
    """``filelock.FileLock`` (platforms without ``fcntl``), raising :class:`_Timeout` as :class:`_FlockFile` does."""

    def __init__(self, path: str) -> None:
        from filelock import FileLock

        self._lock = FileLock(path, thread_local=False)

    @property
    def is_locked(self) -> bool:
        return bool(self._lock.is_locked)

    def acquire(self, timeout: float) -> None:
        from filelock import Timeout

        try:
            self._lock.acquire(timeout=timeout)
        except Timeout:
            raise _Timeout(self._lock.lock_file) from None

    def release(self) -> None:
        self._lock.release()


def _file_lock(path: Path) -> _FlockFile | _PortableFile:
    """The OS file lock of ``path``: :class:`_FlockFile` on POSIX, ``filelock`` elsewhere."""
    return _FlockFile(str(path)) if os.name == "posix" else _PortableFile(str(path))


def lock_timeout() -> float:
    """Seconds to wait for a lock held by another process (``$STRUCTAWARE_LOCK_TIMEOUT``, default 600)."""
    raw = os.environ.get(ENV_LOCK_TIMEOUT, "")
    try:
        value = float(raw) if raw else _DEFAULT_TIMEOUT
    except ValueError:
        value = _DEFAULT_TIMEOUT
    return value if value >= 0 else _DEFAULT_TIMEOUT


class FolderLock:
    """One named lock of one folder, re-entrant across the threads of a process. Raises ``StoreError``."""

    def __init__(self, path: Path, what: str, *, per_thread: bool = True):
        self.path = path
        self.what = what
        self.per_thread = per_thread
        self._thread_lock: Any = threading.RLock() if per_thread else contextlib.nullcontext()
        self._file = _file_lock(path)
        self._want = path.with_suffix(path.suffix + ".wanted")
        self._depth = 0

    def acquire(self, timeout: float | None = None) -> None:
        wait = lock_timeout() if timeout is None else timeout
        if isinstance(self._thread_lock, contextlib.nullcontext):
            if self._depth == 0:
                self._take_file(wait)
            self._depth += 1
            return
        if not self._thread_lock.acquire(timeout=wait if wait > 0 else -1):
            raise StoreError(f"timed out after {wait:.0f} s waiting for the {self.what} lock", path=self.path)
        try:
            if self._depth == 0:
                self._take_file(wait)
            self._depth += 1
        except BaseException:
            self._thread_lock.release()
            raise

    def _take_file(self, wait: float) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            deadline = time.monotonic() + wait
            while True:  # poll, saying "wanted" meanwhile so a writer lets go between documents
                try:
                    self._file.acquire(timeout=min(_POLL, max(0.0, deadline - time.monotonic())))
                    break
                except _Timeout:
                    if time.monotonic() >= deadline:
                        raise
                    with contextlib.suppress(OSError):
                        self._want.write_text(str(os.getpid()), encoding="ascii")
        except _Timeout:
            raise StoreError(
                f"another process has held the {self.what} lock for {wait:.0f} s ({_holder(self.path)});"
                f" wait for it to finish, or raise ${ENV_LOCK_TIMEOUT}",
                path=self.path,
                field="lock",
            ) from None
        except OSError as exc:
            if not self.per_thread and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                log.info("%s: read-only, reading without the %s lock (nobody can write here)", self.path, self.what)
                return
            raise self._unwritable(exc) from exc
        try:  # who holds it, for the message other processes print (best effort)
            with open(self.path.with_suffix(self.path.suffix + ".owner"), "w", encoding="utf-8") as fh:
                fh.write(f"pid {os.getpid()} since {time.strftime('%Y-%m-%d %H:%M:%S')}")
        except OSError:
            pass

    def check_writable(self) -> None:
        """Create the lock file without taking the lock, so a read-only folder is refused before anything else of the
        index is opened for writing (the ingest ledger, the embedding cache). Raises ``StoreError``.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError as exc:
            raise self._unwritable(exc) from exc

    def _unwritable(self, exc: OSError) -> StoreError:
        """The error of a lock file that cannot be created (a read-only folder, say)."""
        return StoreError(
            f"cannot take the {self.what} lock: {exc.strerror or exc} (is the folder read-only?)",
            path=self.path,
            field="lock",
        )

    def release(self) -> None:
        self._depth -= 1
        try:
            if self._depth == 0 and self._file.is_locked:
                self._file.release()
        finally:
            if not isinstance(self._thread_lock, contextlib.nullcontext):
                self._thread_lock.release()

    def wanted(self) -> bool:
        """Whether another process is waiting for this lock now (it rewrites a marker file with its
        pid every 0.25 s while it waits; this process's own marker does not count)."""
        try:
            if time.time() - self._want.stat().st_mtime >= 4 * _POLL:
                return False
            return self._want.read_text(encoding="ascii").strip() != str(os.getpid())
        except (OSError, ValueError):
            return False

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._depth > 0

    @contextmanager
    def hold(self, timeout: float | None = None) -> Iterator[None]:
        self.acquire(timeout)
        try:
            yield
        finally:
            self.release()


def _holder(path: Path) -> str:
    try:
        return path.with_suffix(path.suffix + ".owner").read_text(encoding="utf-8").strip() or "unknown process"
    except OSError:
        return "unknown process"


_locks: dict[tuple[str, str], FolderLock] = {}
_locks_guard = threading.Lock()


def folder_lock(folder: str | Path, name: str) -> FolderLock:
    """The process-wide :class:`FolderLock` ``<folder>.<name>.lock``: ``name`` ``"write"`` (per thread)
    or ``"shard"`` (shared by the threads of the process)."""
    folder = Path(folder)
    path = folder.parent / f"{folder.name}.{name}.lock"
    key = (str(path.resolve()), name)
    with _locks_guard:
        lock = _locks.get(key)
        if lock is None:
            lock = _locks[key] = FolderLock(path, "index " + name, per_thread=name == "write")
        return lock
