"""The ``structaware`` console command (:func:`main`): the typer app with the one-query fast path
around it (:mod:`structaware_retrievers.cli.fast_path`)."""

from __future__ import annotations

import gc
import os
import sys

from structaware_retrievers.cli.app import app
from structaware_retrievers.cli.fast_path import EXIT, server_answers, start_model_child

__all__ = ["main"]


def main() -> None:  # pragma: no cover - console entry point
    """The ``structaware`` console command.

    A command that wrote nothing to the index (``query``) ends its process with ``os._exit`` once its
    output is flushed, skipping the interpreter's teardown: closing the Qdrant Edge shard syncs every
    memory-mapped file to disk even when nothing changed. Nothing is lost: the process wrote nothing,
    and the OS releases its file locks.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if sys.argv[1:2] == ["query"]:  # a short process that answers one question:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads: no BLAS thread pool to start
        # no cyclic garbage collection: its passes over the objects the imports create cost time,
        # and the few cycles left are freed when the process ends a moment later
        gc.disable()
        if not server_answers(sys.argv[2:]):  # a server has the model loaded: no child needed
            start_model_child(sys.argv[2:])
    # pydantic looks for its plugins in the entry points of every installed distribution when the
    # first model class is made (slow in a large environment); the command uses none
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    for stream in (sys.stdout, sys.stderr):  # text that cannot be encoded never aborts the output
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    EXIT["main"] = True
    try:
        app()
    except SystemExit as exc:
        if EXIT["read_only"] and (exc.code is None or isinstance(exc.code, int)):
            if EXIT["settle"] is not None:  # the model's thread (done when the query used it) or child
                EXIT["settle"]()
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):  # a closed pipe: the normal exit reports it
                EXIT["index"] = None  # and closes the index, before the interpreter's teardown
                raise exc from None
            shards = sys.modules.get("structaware_retrievers.store.edge_shard")
            if shards is not None:  # a shard repaired on open is closed; a read-only folder's copy deleted
                shards.before_exit()
            os._exit(exc.code or 0)
        raise
    finally:  # any other ending (a usage error, an exception): the model's child is not left running
        if EXIT["child"] is not None:
            EXIT["child"].close()
