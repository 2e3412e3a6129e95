"""The structaware user cache: one folder that every install on a machine shares.

Several installs read and write it at once, so every entry is keyed by content and versions (never
by a property of one install), written once and atomically (built aside, renamed into place,
never replacing: :func:`publish_folder`, :func:`write_once`), and never deleted or rewritten while
another process may read it. Location: ``$STRUCTAWARE_CACHE_DIR``, else the platform's user cache
folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

__all__ = ["CACHE_DIR_ENV", "cache_dir", "publish_folder", "write_once", "write_replace"]

#: Environment variable that moves the user cache.
CACHE_DIR_ENV = "STRUCTAWARE_CACHE_DIR"


def cache_dir() -> Path:
    """The structaware user cache folder: ``$STRUCTAWARE_CACHE_DIR`` or the platform user cache."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("structaware", appauthor=False))


def _temp_file(target: Path, data: bytes) -> str:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:60]}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def write_once(target: Path, data: bytes) -> bool:
    """Publish ``data`` at ``target`` unless a file is already there; ``True`` when this call wrote it.

    The bytes go to a temporary sibling that is then hard-linked to ``target`` (a link never
    replaces an existing file, so of two concurrent writers one wins and the other keeps the
    winner's bytes, which are the same bytes when ``target`` is keyed by content). Where hard links
    are not supported, a rename is used only while ``target`` is absent.

    Raises:
        OSError: the folder cannot be created or written (a read-only or full disk).
    """
    if target.exists():
        return False
    tmp = _temp_file(target, data)
    try:
        try:
            os.link(tmp, target)
            return True
        except FileExistsError:
            return False
        except OSError:  # no hard links on this file system
            if target.exists():
                return False
            os.replace(tmp, target)
            return True
    finally:
        Path(tmp).unlink(missing_ok=True)


def write_replace(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` atomically (temporary sibling + rename), replacing any file there.

    For entries whose key fixes their content (a parse of one PDF by one parser version): a reader
    that opened the old file keeps reading it whole; a later reader gets the new one whole.

    Raises:
        OSError: the folder cannot be created or written.
    """
    tmp = _temp_file(target, data)
    try:
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def publish_folder(target: Path, build: Callable[[Path], None], valid: Callable[[Path], bool]) -> Path:
    """Return ``target`` once it holds a valid folder, building and publishing it if needed.

    ``build(tmp)`` fills a fresh temporary sibling folder, which is then renamed to ``target``;
    a rename never replaces a non-empty folder, so when another process published first its folder
    is kept (and checked with ``valid``). A folder at ``target`` that ``valid`` rejects was damaged
    after publication (nothing here publishes an incomplete one): it is renamed aside, then removed.

    Raises:
        OSError: the folder cannot be built or published, and no valid one is there.
    """
    if target.is_dir() and valid(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        aside = target.with_name(f".damaged-{target.name[:60]}-{uuid.uuid4().hex[:8]}")
        with contextlib.suppress(FileNotFoundError):  # another process moved it first
            os.rename(target, aside)
        shutil.rmtree(aside, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".build-{target.name[:60]}-", dir=target.parent))
    try:
        build(tmp)
        try:
            os.rename(tmp, target)
        except OSError:  # another process published first
            if not (target.is_dir() and valid(target)):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
