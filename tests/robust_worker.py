"""A separate process for the crash and concurrency tests (``tests/test_robust_writes.py``) and
``benchmarks/bench_robustness.py``: ingest into / query a folder index with a tiny deterministic
dense model, so the engine, the locks and the write protocol are real and the model is not the
cost.

Usage::

    python tests/robust_worker.py ingest INDEX INPUT...   # prints the IngestSummary as JSON
    python tests/robust_worker.py query INDEX TEXT        # prints the number of hits
    python tests/robust_worker.py state INDEX [--hidden]  # prints {doc_id: [unit ids]} (visible, or all)
    python tests/robust_worker.py documents INDEX         # prints StructureIndex.documents()
    python tests/robust_worker.py delete INDEX DOC_ID     # deletes a document, prints its unit count
    python tests/robust_worker.py reader INDEX idle|loop  # keeps the index open until stdin closes

Environment (crash tests): ``ROBUST_KILL_AT=WHEN:WHAT:N`` makes the process kill itself with
SIGKILL just ``before`` or ``after`` its N-th engine write operation named WHAT (``upsert``,
``set payload``, ``delete payload``, ``delete``, ``flush``, ...; ``write`` counts them all), after
saying ``killing at ...`` on stderr; ``ROBUST_COUNT_OPS=1`` prints the counts of write operations
as JSON on stderr at exit.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import signal
import sys
import threading
from collections import Counter

import numpy as np

from structaware_readers.errors import StructawareError
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.store.edge import EdgeStore

DIM = 16


class HashModel:
    """A :class:`~structaware_retrievers.encoders.DenseModel`: unit vectors from SHA-256 of the text."""

    model_name = "test-hash-16"
    model_id = "test-hash-16-v1"
    dim = DIM
    languages = None

    @staticmethod
    def _vec(text: str) -> np.ndarray:
        h = hashlib.sha256(text.encode("utf-8", "replace")).digest()
        v = np.frombuffer(h, dtype=np.uint16).astype(np.float32) - 32767.5
        return v / np.linalg.norm(v)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vec(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


def open_index(path: str) -> StructureIndex:
    """A folder index with the hash model and an in-memory embedding cache."""
    cache = EmbeddingCache()
    return StructureIndex(path, dense=DenseEncoder(model=HashModel(), cache=cache), sparse=SparseEncoder(cache=cache))


#: The engine write operations of :class:`EdgeStore` (the names its ``_run`` gets).
WRITES = ("upsert", "set payload", "delete payload", "delete", "delete by filter", "flush")


def install_write_hook(kill_at: str | None, count: bool) -> None:
    """Count the engine write operations of this process; kill it with SIGKILL at ``kill_at``
    (``WHEN:WHAT:N``, see the module docstring). A real ``kill -9``: no cleanup runs."""
    seen: Counter[str] = Counter()
    when, what, n = kill_at.split(":") if kill_at else ("", "", "0")
    real = EdgeStore._run

    def kill(phase: str) -> None:
        print(f"killing at {phase}", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    def _run(self: EdgeStore, name: str, fn, *args):  # type: ignore[no-untyped-def]
        if name not in WRITES:
            return real(self, name, fn, *args)
        seen[name] += 1
        seen["write"] += 1
        hit = seen[what] == int(n) and what in (name, "write")
        phase = f"{when} {name} #{seen[name]} (write operation {seen['write']})"
        if hit and when == "before":
            kill(phase)
        out = real(self, name, fn, *args)
        if hit and when == "after":
            kill(phase)
        return out

    EdgeStore._run = _run  # type: ignore[method-assign]
    if count:
        atexit.register(lambda: print(json.dumps(dict(seen)), file=sys.stderr, flush=True))


def state(ix: StructureIndex, hidden: bool = False) -> dict[str, list[str]]:
    """Unit ids per document: the visible ones (or, with ``hidden``, every stored point)."""
    out: dict[str, list[str]] = {}
    if ix.store.exists():
        for r in ix.store.scroll(PointFilter(include_hidden=True) if hidden else None, fields=["doc_id"]):
            out.setdefault(r.payload["doc_id"], []).append(r.id)
    return {k: sorted(v) for k, v in sorted(out.items())}


def reader(ix: StructureIndex, how: str) -> int:
    """A reader that keeps ``ix`` open: one query, ``ready N`` on stdout, then (``idle``) nothing
    until stdin closes, or (``loop``) queries back to back until stdin closes; then one last
    query. Prints ``answered A failed F last N`` (queries with 5 hits, queries that raised)."""
    text = "treat condition with drug"
    print("ready", len(ix.query(text, k=5, min_score=0)), flush=True)
    closed = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), closed.set()), daemon=True).start()
    answered = failed = 0
    while not closed.wait(3600 if how == "idle" else 0):
        try:
            answered += len(ix.query(text, k=5, min_score=0)) == 5
        except Exception as exc:  # noqa: BLE001 - counted and shown: the test asserts there are none
            failed += 1
            print("error", exc, file=sys.stderr, flush=True)
    print("answered", answered, "failed", failed, "last", len(ix.query(text, k=5, min_score=0)), flush=True)
    return 0


def main(argv: list[str]) -> int:
    try:
        return run(argv)
    except StructawareError as exc:  # one typed error line, as the CLI prints it
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2


def run(argv: list[str]) -> int:
    cmd, index = argv[0], argv[1]
    with open_index(index) as ix:
        if cmd == "ingest":
            summary = ix.ingest(argv[2:], optimize=False)
            print(summary.model_dump_json(exclude={"reports"}), flush=True)
            return 1 if summary.failed else 0
        if cmd == "query":
            print(len(ix.query(argv[2], k=5, min_score=0)), flush=True)
            return 0
        if cmd == "reader":
            return reader(ix, argv[2])
        if cmd == "state":
            print(json.dumps(state(ix, hidden="--hidden" in argv[2:])), flush=True)
            return 0
        if cmd == "documents":
            print(json.dumps(ix.documents()), flush=True)
            return 0
        if cmd == "delete":
            print(ix.delete_document(argv[2]), flush=True)
            return 0
    raise SystemExit(f"unknown command {cmd!r}")


if __name__ == "__main__":
    if os.environ.get("ROBUST_KILL_AT") or os.environ.get("ROBUST_COUNT_OPS"):
        install_write_hook(os.environ.get("ROBUST_KILL_AT"), bool(os.environ.get("ROBUST_COUNT_OPS")))
    sys.exit(main(sys.argv[1:]))
