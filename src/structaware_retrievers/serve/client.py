"""Find a running ``structaware serve`` of an index folder, and ask it a query.

``structaware serve`` writes ``<index>/<collection>.serve.json`` = ``{"url", "pid", "index"}``
beside the folder's lock files and removes it when it stops. ``structaware query`` on the same
folder then sends its query there instead of loading the model and opening the shard itself (the
server holds the shard, which one process opens at a time), so the command costs little more than
starting Python. ``structaware query --no-server`` answers in its own process.

Standard library only: this module runs before numpy, pydantic or the engines would be needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["ServedAnswer", "advert_path", "advertise", "ask", "find_server", "withdraw"]

#: Seconds a query may take on the server before the command gives up (and answers itself).
QUERY_TIMEOUT = 120.0


class ServedAnswer:
    """A server's answer: ``status`` (HTTP) and its JSON ``body``."""

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body


def advert_path(store_folder: str | Path) -> Path:
    """``<index>/<collection>.serve.json`` for the store folder ``<index>/<collection>``."""
    folder = Path(store_folder)
    return folder.parent / f"{folder.name}.serve.json"


def advertise(store_folder: str | Path, url: str) -> Path:
    """Write the advertisement of a server at ``url`` for ``store_folder`` (atomically); returns its path.

    Raises:
        OSError: the folder cannot be written.
    """
    path = advert_path(store_folder)
    record = {"url": url, "pid": os.getpid(), "index": str(Path(store_folder).resolve())}
    fd, tmp = tempfile.mkstemp(prefix=".serve-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return path


def withdraw(store_folder: str | Path) -> None:
    """Remove the advertisement of ``store_folder`` if this process wrote it."""
    path = advert_path(store_folder)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    if os.name != "posix":
        return True  # no cheap check: a dead server's address refuses the connection instead
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


def find_server(store_folder: str | Path) -> str | None:
    """The URL of a live ``structaware serve`` of ``store_folder``, or ``None``.

    An advertisement whose process is gone (a server killed without cleaning up) or that names
    another folder is ignored.
    """
    try:
        record = json.loads(advert_path(store_folder).read_text(encoding="utf-8"))
        if record.get("index") != str(Path(store_folder).resolve()) or not _alive(record.get("pid")):
            return None
        url = record["url"]
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    return url if isinstance(url, str) and url.startswith("http://") else None


def ask(url: str, body: dict[str, Any], timeout: float = QUERY_TIMEOUT) -> ServedAnswer | None:
    """POST ``body`` to ``url``'s ``/query``; ``None`` when the server cannot be reached or does
    not answer with JSON (the caller then answers itself)."""
    import http.client  # here, not at the top: it imports ssl, and most queries find no server

    parts = urlsplit(url)
    if not parts.hostname or parts.port is None:
        return None
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        data = json.dumps(body).encode("utf-8")
        conn.request("POST", "/query", body=data, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        answer = json.loads(resp.read())
        return ServedAnswer(resp.status, answer) if isinstance(answer, dict) else None
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        conn.close()
