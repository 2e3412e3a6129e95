"""Embedding beside parse workers: the threads that embed texts side by side yield the CPU to parsing.

An ingest of PDFs (:mod:`structaware_retrievers.ingest_pipeline`) runs one parse worker per core
(:mod:`structaware_readers.parse_workers`) while its own process embeds what is already read, two
texts at once (:meth:`~structaware_retrievers.encoders.onnx_text.OnnxMeanPoolEmbedder.embed`): four
busy threads on two cores, time-sliced against each other. Inside :func:`below_parsers` those
embedding threads run at :data:`EMBED_NICE` (Linux ``setpriority`` on the thread, which lowers the
priority of that thread only, and only while it lives: the pool's threads end with each call), so
a parse worker that has work runs uninterrupted and the embedding takes the cores whenever a
worker waits (between documents, or when the parsed documents not yet embedded reach the
pipeline's bound). Nothing else changes: the same texts, the same vectors, in the same order; a
process that is not parsing at the same time sees no difference.

Measured on ``bench/cpg`` (10 PDFs, 2 cores, docs/benchmarks/scale.md "Session 11"): the cold
ingest took 640 CPU-s instead of 712 and 335.4 s instead of 370.9 (1.08x of ``mineru-kit`` alone
instead of 1.26x).

Elsewhere than Linux (where ``setpriority`` on a thread id would set the whole process's
priority) nothing is lowered; a thread whose priority cannot be lowered runs as before.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["EMBED_NICE", "below_parsers", "current_increment", "thread_initializer"]

#: The nice increment of an embedding thread inside :func:`below_parsers` (0..19; 10 gives a
#: thread about a tenth of the CPU share of a default-priority one while both want the core).
EMBED_NICE = 10

_INCREMENT: ContextVar[int] = ContextVar("structaware_embed_nice", default=0)


@contextlib.contextmanager
def below_parsers(increment: int = EMBED_NICE) -> Iterator[None]:
    """For the ``with`` block, on this thread (and the tasks it awaits), the embedding threads that
    :meth:`~structaware_retrievers.encoders.onnx_text.OnnxMeanPoolEmbedder.embed` starts run
    ``increment`` nice levels below the process (module docstring).

    Raises:
        ValueError: ``increment`` is not an integer in 0..19.
    """
    if isinstance(increment, bool) or not isinstance(increment, int) or not 0 <= increment <= 19:
        raise ValueError(f"increment must be an integer in 0..19, not {increment!r}")
    token = _INCREMENT.set(increment)
    try:
        yield
    finally:
        _INCREMENT.reset(token)


def current_increment() -> int:
    """The nice increment :func:`below_parsers` set on this thread (0 outside it)."""
    return _INCREMENT.get()


def thread_initializer() -> Callable[[], None] | None:
    """An ``initializer`` for a ``ThreadPoolExecutor`` created on this thread: it lowers each pool
    thread by :func:`current_increment` levels; ``None`` when there is nothing to lower (outside
    :func:`below_parsers`, or not on Linux)."""
    increment = _INCREMENT.get()
    if not increment or not sys.platform.startswith("linux"):
        return None

    def lower() -> None:
        tid = threading.get_native_id()
        with contextlib.suppress(OSError):  # a sandbox that forbids it: the thread runs as before
            os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + increment)

    return lower
