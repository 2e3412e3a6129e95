"""Ingest malformed PDFs (:mod:`malformed_pdfs`) the way a user does, and judge how each ended.

The ingest runs in ``tests/robust_worker.py`` (the real index, readers and parse workers, a tiny
hash model for vectors) into a copy of an index that already holds one good document, under a cap
on address space (``RLIMIT_AS``, inherited by the parse workers and MinerU's processes) and a
time-out. :func:`run_case` ingests one PDF and measures its time and the peak resident memory of
the whole process tree; :func:`run_batch` ingests many in one run (as ``structaware ingest FOLDER``
would). Either way the good document must still be in the index afterwards.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: The good document every index holds before a case is ingested beside it (MinerU output: no parse needed).
GOOD = Path(__file__).resolve().parent / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
#: Address space allowed to the ingest process and its parse workers (bytes).
MEMORY_CAP = 2 * 1024**3
_WORKER = Path(__file__).resolve().parent / "robust_worker.py"
# the ingest run under the cap (its parse workers and MinerU's own processes inherit it)
_CAPPED = (
    "import resource, subprocess, sys\n"
    "cap = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
    "sys.exit(subprocess.call(sys.argv[2:]))\n"
)


def _tree(root: int) -> dict[int, int]:
    """Process ``root`` and all its descendants: pid -> resident pages (Linux ``/proc``; else empty).
    Parse workers and MinerU start sessions of their own, so the tree is followed by parent ids."""
    procs: dict[int, tuple[int, int]] = {}  # pid -> (parent pid, resident pages)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        procs[int(stat.parent.name)] = (int(fields[1]), int(fields[21]))  # fields 4 and 24 of stat
    tree, todo = {}, [root]
    while todo:
        pid = todo.pop()
        if pid in procs and pid not in tree:
            tree[pid] = procs[pid][1]
            todo += [p for p, (parent, _) in procs.items() if parent == pid]
    return tree


def _tree_rss_mb(root: int) -> float:
    """Resident memory of process ``root`` and its descendants together (MB)."""
    return sum(_tree(root).values()) * os.sysconf("SC_PAGE_SIZE") / 1024**2


class _PeakRss:
    """Samples :func:`_tree_rss_mb` of a process five times a second until stopped; ``peak`` is the largest."""

    def __init__(self, root: int):
        self.peak, self._stop = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, args=(root,), daemon=True)
        self._thread.start()

    def _run(self, root: int) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, _tree_rss_mb(root))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


@dataclass
class Outcome:
    """How an ingest of one case ended.

    ``kind``: ``units`` (read, ``units`` of them), ``error`` (a typed error naming the file), or a fault:
    ``untyped`` (another exception or a message not naming the file), ``models`` (advice to download MinerU's
    models), ``memory`` (out of memory under the cap), ``crash`` (no summary: the process died), ``hang``
    (killed at the time-out), ``lost`` (the good document is gone from the index).
    """

    kind: str
    units: int = 0
    message: str = ""
    seconds: float = 0.0
    peak_rss_mb: float = 0.0


def typed_error_names() -> set[str]:
    """Class names of every typed error (subclasses of ``StructawareError`` in the modules an ingest imports)."""
    # each import registers its errors
    import structaware_readers.mineru.failures
    import structaware_readers.ocr.engine  # noqa: F401 - registers its errors
    import structaware_retrievers.index.structure_index  # noqa: F401 - registers its errors
    from structaware_readers.errors import StructawareError

    names, todo = set(), [StructawareError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo += cls.__subclasses__()
    return names


def _worker(
    cmd: str, index: Path, *args: str, timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(_WORKER), cmd, str(index), *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def good_index(folder: Path, *, env: dict[str, str] | None = None) -> Path:
    """An index folder holding :data:`GOOD` only (the template each case's index is copied from)."""
    res = _worker("ingest", folder, str(GOOD), timeout=600, env=env)
    if res.returncode != 0:
        raise RuntimeError(f"ingesting the good document failed: {res.stderr[-2000:]}")
    return folder


Env = dict[str, str] | None


def _ingest_capped(
    index: Path, pdfs: list[Path], *, cap: int, timeout: float, env: Env
) -> tuple[dict | None, str, float, float]:
    """One capped ingest run: the summary (``None`` when the run died or hung), stderr, seconds, peak RSS (MB)."""
    cmd = [sys.executable, "-c", _CAPPED, str(cap), sys.executable, str(_WORKER), "ingest", str(index), *map(str, pdfs)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    rss = _PeakRss(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        for pid in _tree(proc.pid):  # the parse workers too: they run in sessions of their own
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.communicate()
        return None, "hang", time.perf_counter() - t0, rss.stop()
    seconds, peak = time.perf_counter() - t0, rss.stop()
    line = next((ln for ln in reversed(out.splitlines()) if ln.startswith("{")), None)
    return (json.loads(line) if line else None), err, seconds, peak


def _fresh_index(template: Path, index: Path, env: dict[str, str] | None) -> dict[str, list[str]]:
    shutil.rmtree(index, ignore_errors=True)
    shutil.copytree(template, index)
    return json.loads(_worker("state", index, timeout=300, env=env).stdout)


def _lost(index: Path, before: dict[str, list[str]], env: dict[str, str] | None) -> str:
    """What of ``before`` (unit ids per document) is no longer in the index (``""``: nothing)."""
    after = json.loads(_worker("state", index, timeout=300, env=env).stdout or "{}")
    gone = {doc: sorted(set(ids) - set(after.get(doc, []))) for doc, ids in before.items()}
    return "; ".join(f"{doc}: {len(ids)} unit(s) lost" for doc, ids in gone.items() if ids)


def run_case(
    pdf: Path, template: Path, work: Path, *, cap: int = MEMORY_CAP, timeout: float = 600, env: Env = None
) -> Outcome:
    """Ingest ``pdf`` into a copy of the index ``template`` (in ``work``) under ``cap`` bytes of address space
    and ``timeout`` seconds; ``lost`` when a document of the template lost units."""
    index = work / f"ix-{pdf.stem}"
    before = _fresh_index(template, index, env)
    summary, err, seconds, peak = _ingest_capped(index, [pdf], cap=cap, timeout=timeout, env=env)
    outcome = _judge(pdf, summary, err)
    outcome.seconds, outcome.peak_rss_mb = seconds, peak
    if lost := _lost(index, before, env):
        outcome.kind, outcome.message = "lost", f"{lost}; {outcome.message}"
    shutil.rmtree(index, ignore_errors=True)
    return outcome


def run_batch(
    pdfs: list[Path], template: Path, work: Path, *, cap: int = MEMORY_CAP, timeout: float = 1200, env: Env = None
) -> dict[str, Outcome]:
    """Ingest every PDF of ``pdfs`` in one run into a copy of ``template``: an :class:`Outcome` per file name
    (no times: the run's are shared), each ``lost`` when a template document lost units."""
    index = work / "ix-batch"
    before = _fresh_index(template, index, env)
    summary, err, _, _ = _ingest_capped(index, pdfs, cap=cap, timeout=timeout, env=env)
    lost = _lost(index, before, env)
    documents = json.loads(_worker("documents", index, timeout=300, env=env).stdout or "[]")
    units = {Path(d["source"]).name: d["units"] for d in documents}
    out: dict[str, Outcome] = {}
    for pdf in pdfs:
        failed = [f for f in (summary or {}).get("failed", []) if Path(f["path"]).name == pdf.name]
        one = None if summary is None else {"failed": failed, "units": units.get(pdf.name, 0)}
        out[pdf.name] = _judge(pdf, one, err)
        if lost:
            out[pdf.name].kind, out[pdf.name].message = "lost", lost
    shutil.rmtree(index, ignore_errors=True)
    return out


def _judge(pdf: Path, summary: dict | None, err: str) -> Outcome:
    """The outcome of ``pdf`` from a summary's ``failed`` entries and ``units`` (``None``: the run died)."""
    if summary is None:
        return Outcome("hang" if err == "hang" else "crash", message=err[-1500:])
    if not summary["failed"]:
        if summary["units"]:
            return Outcome("units", units=summary["units"])
        return Outcome("untyped", message="no units and no error")
    fail = summary["failed"][0]
    message = f"{fail['error_type']}: {fail['message']}"
    low = message.lower()
    if "mineru-models-download" in low or "allow_model_download" in low:
        return Outcome("models", message=message)
    if "memoryerror" in low or "bad_alloc" in low or "out of memory" in low or "cannot allocate" in low:
        return Outcome("memory", message=message)
    if fail["error_type"] not in typed_error_names() or pdf.name not in fail["message"]:
        return Outcome("untyped", message=message)
    return Outcome("error", message=message)
