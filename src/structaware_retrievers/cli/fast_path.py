"""The one-query fast path of ``structaware query``: what the process does before and after the command.

A running ``structaware serve`` of the same index answers the question (:func:`server_answers`);
else a forked child loads the dense model on the other core while the command line is parsed
(:func:`start_model_child`, or a thread: :func:`dense_loading`); and a command that wrote nothing
ends with ``os._exit`` once its output is flushed (:data:`EXIT`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from structaware_readers.errors import StructawareError

__all__ = ["EXIT", "dense_loading", "question_hint", "server_answers", "server_url", "start_model_child"]

#: Set by a command that writes nothing to the index (``query``): :func:`~structaware_retrievers.cli.main.main` may then end the
#: process at once (``"read_only"``), after ``"settle"`` ran (it waits for the model-loading thread,
#: or ends the model's child process). Under ``main`` (``"main"``), ``"index"`` keeps the command's
#: index object alive until then (dropping it would close its shard); run in-process otherwise
#: (``CliRunner``), the command closes it as usual. ``"child"``: the dense encoder whose model a
#: forked child loads from the start of a ``query`` process (:func:`start_model_child`).
EXIT: dict[str, Any] = {"read_only": False, "settle": None, "main": False, "index": None, "child": None}


def start_model_child(args: list[str] | None = None) -> None:
    """For ``structaware query`` run from the console command (:func:`~structaware_retrievers.cli.main.main`) on Linux: fork, before the command line is
    parsed, a child that loads the default dense model on the other core and embeds the question once
    the command hands it over (:class:`~structaware_retrievers.encoders.query_child.ForkedQueryEncoder`;
    this process then never imports numpy or ONNX Runtime). Nothing happens when the encoder cannot
    be made (the command reports that error) or forking is not safe; the child is ended at exit if the
    command answers without it (a running server, ``--mode sparse``, an error). ``args`` (the
    command line after ``query``) give the child a guess of the question's language
    (:func:`question_hint`)."""
    from structaware_retrievers.encoders.query_child import ForkedQueryEncoder

    try:
        dense = ForkedQueryEncoder(threads=1)  # one short query: a thread pool costs more CPU than it saves
    except StructawareError:
        return
    if hasattr(dense.backend, "prepack"):  # and so does pre-packing the weights (ONNX models)
        dense.backend.prepack = False
    if dense.start(question_hint(args or [])):
        EXIT["child"], EXIT["settle"] = dense, dense.close


def question_hint(args: list[str]) -> str | None:
    """The first argument of a ``query`` command line (``args``: after ``query``) that is mostly
    Chinese, Japanese or Korean, as the dense model's routing counts it: most likely the question,
    which then needs the multilingual model alone; ``None`` (the English model first) otherwise."""
    from structaware_retrievers.encoders.language_routed import CJK_QUERY_SHARE
    from structaware_retrievers.encoders.tokenize import cjk_share

    return next((a for a in args if not a.startswith("-") and cjk_share(a) >= CJK_QUERY_SHARE), None)


def server_answers(args: list[str]) -> bool:
    """Whether a ``query`` command line (``args``: after ``query``) will be answered by a running
    ``structaware serve``: its ``--index``/``--collection`` (else the default index) has a live
    server's advertisement, and neither ``--url`` nor ``--no-server`` is given. Read before typer
    parses the line, only to skip forking the model child (:func:`start_model_child`): a wrong guess
    costs time, never a wrong answer (the command itself asks the server, or answers without it)."""
    values: dict[str, str] = {}
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg in ("--url", "--no-server") or arg.startswith("--url="):
            return False
        for name in ("--index", "--collection"):
            if arg == name and i + 1 < len(args):
                values[name] = args[i + 1]
            elif arg.startswith(name + "="):
                values[name] = arg.split("=", 1)[1]
    index = Path(values["--index"]) if "--index" in values else None
    return server_url(index, values.get("--collection", "structaware")) is not None


def server_url(index: Path | None, collection: str) -> str | None:
    """The URL of a live ``structaware serve`` of ``--index`` (else the default index) and ``--collection``."""
    from structaware_retrievers.index.paths import default_index_path
    from structaware_retrievers.serve import client as serve_client

    return serve_client.find_server((index if index is not None else default_index_path()) / collection)


def dense_loading(text: str):
    """The default dense encoder, already at work on ``text`` while the index opens: the forked
    child's (see :func:`start_model_child`), else one whose model loads in a background thread
    (ONNX Runtime releases the GIL). A load error surfaces, typed, on first use."""
    if EXIT["child"] is not None:
        EXIT["child"].ask(text)
        return EXIT["child"]
    import threading

    from structaware_retrievers.encoders import DenseEncoder

    dense = DenseEncoder(threads=1)
    if hasattr(dense.backend, "prepack"):
        dense.backend.prepack = False

    def load() -> None:
        try:
            dense.model  # noqa: B018 - loads the model
        except Exception:  # noqa: BLE001, S110 - raised again, typed, when the query needs the model
            pass

    # not a daemon: interpreter exit waits for it (a thread killed inside ONNX Runtime aborts the process)
    thread = threading.Thread(target=load, name="structaware-model-load", daemon=False)
    thread.start()
    EXIT["settle"] = thread.join
    return dense
