"""The file system under an embedded index: a typed error before the disk fills, and clear messages when the file
system refuses a write (disk full, file too large, read-only).
"""

from __future__ import annotations

import errno
import os
import re
from collections.abc import Sequence
from pathlib import Path

from structaware_readers.errors import StoreError
from structaware_retrievers.store.base import PointRecord

__all__ = ["DEFAULT_MIN_FREE_MB", "ENV_MIN_FREE", "check_space", "io_hint", "points_bytes"]

#: Environment variable: MiB that must stay free on the index's file system after a write.
ENV_MIN_FREE = "STRUCTAWARE_MIN_FREE_MB"
DEFAULT_MIN_FREE_MB = 256.0

_MIB = 1024 * 1024

#: errno -> what the user should hear (the engine reports "... (os error N)").
_HINTS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "a file reached the size limit of this process or file system",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "the folder is not writable (permission denied)",
    errno.EPERM: "the folder is not writable (operation not permitted)",
}


def min_free_bytes() -> int:
    """Bytes that must stay free (``$STRUCTAWARE_MIN_FREE_MB``, default 256; 0 turns the check off)."""
    raw = os.environ.get(ENV_MIN_FREE, "")
    try:
        mb = float(raw) if raw else DEFAULT_MIN_FREE_MB
    except ValueError:
        mb = DEFAULT_MIN_FREE_MB
    return int(max(mb, 0.0) * _MIB)


def points_bytes(points: Sequence[PointRecord]) -> int:
    """A rough size of ``points`` as stored: 4 bytes per dense value, 8 per sparse entry, the
    payload's values as text, and a fixed 512 bytes of bookkeeping per point."""
    total = 0
    for p in points:
        total += 512 + 4 * len(p.dense or ()) + 8 * len(p.sparse.indices if p.sparse is not None else ())
        total += sum(len(str(v)) for v in p.payload.values())
    return total


def _existing(folder: Path) -> Path:
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def check_space(folder: Path, need: int = 0, *, opening: bool = False) -> None:
    """Raise unless the file system of ``folder`` keeps :func:`min_free_bytes` free after ``need`` more bytes
    (``opening``: a quarter of it, for loading an index, which may fill the files the last write preallocated).
    Raises ``StoreError``.
    """
    floor = min_free_bytes() // (4 if opening else 1)
    if floor <= 0:
        return
    try:
        st = os.statvfs(_existing(folder))
    except OSError:
        return  # no answer (an unusual file system): the engine reports its own errors
    free = st.f_bavail * st.f_frsize
    if opening and free < floor:
        raise StoreError(
            f"only {free / _MIB:.0f} MiB free on this disk; opening the index may need {floor / _MIB:.0f} MiB"
            " (Qdrant Edge fills preallocated files when it loads, and would crash on a full disk). The index"
            " is intact: free some space and run again",
            path=folder,
            field="disk",
        )
    if free < floor + 3 * need:
        raise StoreError(
            f"only {free / _MIB:.0f} MiB free on this disk; writing needs {(floor + 3 * need) / _MIB:.0f} MiB"
            f" (${ENV_MIN_FREE}={floor / _MIB:.0f} kept free, because Qdrant Edge would crash when the disk"
            " fills). Nothing was written and the index is intact: free some space and run again",
            path=folder,
            field="disk",
        )


def io_hint(exc: BaseException) -> str | None:
    """What a file-system refusal inside the engine means (``None`` when ``exc`` is not one)."""
    code = exc.errno if isinstance(exc, OSError) else None
    if code is None:
        m = re.search(r"(?:os error|code:) (\d+)", str(exc))
        code = int(m.group(1)) if m else None
    return _HINTS.get(code) if code is not None else None
