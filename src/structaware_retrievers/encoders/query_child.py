"""The query vector of a one-question process, computed in a forked child on the other core."""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import sys
import threading
from typing import Any

from structaware_retrievers.encoders.dense import DenseEncoder

__all__ = ["ForkedQueryEncoder"]


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class ForkedQueryEncoder(DenseEncoder):
    """A :class:`DenseEncoder` whose vector for one query is computed by a forked child process."""

    _in_process = False  # the child imports numpy; the parent only if the child fails (embed_query)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text: str | None = None  # the query handed to the child
        self._pid = 0
        self._text_fd = -1  # parent -> child: the query, UTF-8, then end of file
        self._vector_fd = -1  # child -> parent: the vector

    def start(self, hint: str | None = None) -> bool:
        """Fork the child; False (nothing started) when forking is not safe here (not Linux, more
        than one thread running) or no pipe or process can be made. ``hint``: the question as far
        as it can be guessed before the command line is parsed; a model that routes by language
        then loads only the half that question needs (a wrong guess costs time, never a wrong
        vector: the half the real question needs loads when it arrives)."""
        if self._pid or not sys.platform.startswith("linux") or threading.active_count() != 1:
            return False
        fds: list[int] = []
        try:
            fds += os.pipe()
            fds += os.pipe()
            text_r, text_w, vector_r, vector_w = fds
            pid = os.fork()
        except OSError:
            for fd in fds:
                os.close(fd)
            return False
        if pid == 0:  # the child: never returns, never runs the parent's exit handlers
            self._child(text_r, vector_w, (text_w, vector_r), hint)
        os.close(text_r)
        os.close(vector_w)
        self._pid, self._text_fd, self._vector_fd = pid, text_w, vector_r
        return True

    def _child(self, text_fd: int, vector_fd: int, parent_fds: tuple[int, ...], hint: str | None) -> None:
        status = 1
        try:
            for fd in parent_fds:
                os.close(fd)
            devnull = os.open(os.devnull, os.O_RDWR)  # the command's stdin and stdout are not the child's:
            os.dup2(devnull, 0)  # a reader of its output (`structaware query ... | head`) waits for the
            os.dup2(devnull, 1)  # parent alone; stderr stays, for the model's warnings
            os.close(devnull)
            load_for = getattr(self.backend, "load_for", None)
            if hint is not None and load_for is not None:
                load_for(hint)  # load while the parent parses its command line
            else:
                self.model  # noqa: B018
            text = _read_all(text_fd).decode("utf-8")
            if text:
                import numpy as np

                vector = np.asarray(self.backend.embed_query(text), dtype="<f4").reshape(-1)
                if vector.shape[0] == self.dim:
                    _write_all(vector_fd, vector.tobytes())
                    status = 0
        except BaseException:  # noqa: BLE001, S110 - the parent embeds in-process and raises it there
            pass
        finally:
            os._exit(status)

    def ask(self, text: str) -> None:
        """Hand ``text`` to the child (once; a later call is ignored)."""
        if self._text_fd < 0 or self.text is not None:
            return
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: the child could not embed this very text
            self.close()
            return
        self.text = text
        try:
            _write_all(self._text_fd, data)
        except OSError:  # the child has ended: embed_query works in-process
            pass
        finally:
            os.close(self._text_fd)
            self._text_fd = -1

    def _child_vector(self) -> list[float] | None:
        """The child's vector (waits for it), or ``None`` if it gave none; reaps the child."""
        if self._vector_fd < 0:
            return None
        try:
            data = _read_all(self._vector_fd)
        finally:
            self.close()
        if len(data) != 4 * self.dim:
            return None
        return list(struct.unpack(f"<{self.dim}f", data))

    def embed_query(self, text: str) -> list[float]:
        """The child's vector when ``text`` is the query given to :meth:`ask`, else in-process."""
        if self.text is not None and text == self.text:
            vector = self._child_vector()
            if vector is not None:
                return vector
        return super().embed_query(text)

    def close(self) -> None:
        """End the child if it still runs and reap it; idempotent."""
        for name in ("_text_fd", "_vector_fd"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)
        if self._pid:
            pid, self._pid = self._pid, 0
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # no effect on a child that has ended (a zombie until reaped)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
