"""Read inputs into documents and units in long-lived worker processes."""

from __future__ import annotations

import os
import pickle
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from queue import SimpleQueue
from typing import IO, TYPE_CHECKING, Any

from structaware_readers.errors import ParserUnavailableError

if TYPE_CHECKING:
    from structaware_readers.models import ParsedDocument, Unit
    from structaware_readers.units.options import UnitOptions

__all__ = ["DEFAULT_READ_TIMEOUT", "ParseWorkers", "default_workers", "read_input"]

#: Seconds one input may take in a worker (MinerU's own local time-out, ``mineru.pdf.DEFAULT_TIMEOUT``).
DEFAULT_READ_TIMEOUT = 900.0
_STDERR_TAIL = 2000  # characters of a dead worker's stderr quoted in the error


def default_workers() -> int:
    """The cores this process may run on (``os.sched_getaffinity`` where there is one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def read_input(path: Path, reading_order: str, unit_options: UnitOptions | None) -> tuple[ParsedDocument, list[Unit]]:
    """One input -> its document and units (``load_document`` + ``build_units``); errors as those raise."""
    from structaware_readers import units
    from structaware_readers.load import loader

    doc = loader.load_document(path.resolve() if path.exists() else path, reading_order=reading_order)  # type: ignore[arg-type]
    return doc, units.build_units(doc, unit_options)


# ------------------------------------------------------------------------------------ parent side
class _Worker:
    """One worker process (started on first use) and the stderr file behind it."""

    def __init__(self, env: dict[str, str]) -> None:
        self._env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self._err: IO[bytes] | None = None
        self.starts = 0

    def start(self) -> subprocess.Popen[bytes]:
        if self.proc is None or self.proc.poll() is not None:
            self.kill()
            self.starts += 1
            self._err = tempfile.TemporaryFile()  # noqa: SIM115 - the worker's stderr, read while it lives
            self.proc = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, env=self._env,
                start_new_session=True,  # its own process group: MinerU's children are killed with it
            )  # fmt: skip
        return self.proc

    def stderr_tail(self) -> str:
        if self._err is None:
            return ""
        self._err.seek(0, os.SEEK_END)
        size = self._err.tell()
        self._err.seek(max(0, size - _STDERR_TAIL))
        return self._err.read().decode("utf-8", "replace").strip()

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()

    def stop(self) -> None:
        """Close stdin (the worker exits after its current input); kill it if it lingers."""
        proc = self.proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()


class ParseWorkers:
    """A pool of ``workers`` parse processes; :meth:`submit` an input, get a future of ``(doc, units)``."""

    def __init__(self, workers: int | None = None, *, timeout: float = DEFAULT_READ_TIMEOUT) -> None:
        self.workers = max(1, workers if workers is not None else default_workers())
        self.timeout = timeout
        env = dict(os.environ)
        # one worker per core already: MinerU's page-image render processes (3 by default) would compete
        env.setdefault("MINERU_PDF_RENDER_THREADS", "1")
        env.setdefault("DOCVORTEX_PDF_RENDER_THREADS", "1")
        self._jobs: SimpleQueue[Any] = SimpleQueue()
        self._slots = [_Worker(env) for _ in range(self.workers)]
        self._threads: list[threading.Thread] = []
        self._closed = False
        self._lock = threading.Lock()

    @property
    def started(self) -> int:
        """Worker processes started so far (a killed or dead worker is replaced by a new one)."""
        return sum(slot.starts for slot in self._slots)

    @property
    def pids(self) -> list[int]:
        """Process ids of the running workers."""
        return [slot.proc.pid for slot in self._slots if slot.proc is not None and slot.proc.poll() is None]

    def submit(
        self, path: Path, reading_order: str, unit_options: UnitOptions | None
    ) -> Future[tuple[ParsedDocument, list[Unit]]]:
        fut: Future[tuple[ParsedDocument, list[Unit]]] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("ParseWorkers is closed")
            self._jobs.put((fut, (path, reading_order, unit_options)))
            if len(self._threads) < len(self._slots):  # a worker per submitted input, up to `workers`
                slot = self._slots[len(self._threads)]
                t = threading.Thread(target=self._serve, args=(slot,), name="structaware-parse-worker", daemon=True)
                self._threads.append(t)
                t.start()
        return fut

    def _serve(self, slot: _Worker) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                slot.stop()
                return
            fut, request = job
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(self._ask(slot, request))
            except BaseException as exc:  # noqa: BLE001 - the caller's thread re-raises it
                fut.set_exception(exc)

    def _ask(self, slot: _Worker, request: tuple[Path, str, Any]) -> Any:
        path = request[0]
        proc = slot.start()
        assert proc.stdin is not None and proc.stdout is not None
        try:
            pickle.dump(request, proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], self.timeout)
            if not ready:
                slot.kill()
                raise ParserUnavailableError(
                    f"reading it took longer than {self.timeout:g} s; its parse worker was stopped",
                    path=path,
                    field="parse worker",
                )
            status, value = pickle.load(proc.stdout)  # noqa: S301 - written by our own worker process
        except (OSError, EOFError, pickle.UnpicklingError) as exc:
            code = proc.poll()
            tail = slot.stderr_tail()
            slot.kill()
            raise ParserUnavailableError(
                f"its parse worker died (exit code {code}: {exc.__class__.__name__})"
                + (f"; its last words: {tail[-500:]}" if tail else ""),
                path=path,
                field="parse worker",
            ) from None
        if status == "error":
            raise value
        return value

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers: after their current input, or at once with ``kill=True``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for _ in self._threads:
                self._jobs.put(None)
        if kill:
            for slot in self._slots:
                slot.kill()
        for t in self._threads:
            t.join(timeout=None if not kill else 10)

    def __enter__(self) -> ParseWorkers:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.close(kill=exc_type is not None)


# ------------------------------------------------------------------------------------ worker side
def _answer(out: IO[bytes], status: str, value: Any) -> None:
    try:
        data = pickle.dumps((status, value), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - an error object that cannot be pickled: its text
        data = pickle.dumps(("error", ParserUnavailableError(f"{type(value).__name__}: {value} ({exc})")))
    out.write(data)
    out.flush()


def worker_main(read: Callable[[Path, str, Any], Any] = read_input) -> int:
    """The worker's loop: requests on stdin, answers on the stdout it was started with."""
    from structaware_readers.mineru import in_process
    from structaware_readers.ocr import engine as ocr_engine

    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # whatever a library prints goes to the error log, not into the answers
    in_process.enable()
    ocr_engine.set_default_threads(1)  # one worker per core: a second OCR thread would wait for one
    inp = sys.stdin.buffer
    while True:
        try:
            path, reading_order, unit_options = pickle.load(inp)  # noqa: S301 - written by the parent process
        except EOFError:
            return 0
        try:
            value = read(path, reading_order, unit_options)
        except Exception as exc:  # noqa: BLE001 - the input's own failure, raised again in the parent
            _answer(out, "error", exc)
        else:
            _answer(out, "ok", value)


if __name__ == "__main__":
    sys.exit(worker_main())
