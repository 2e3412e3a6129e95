"""MinerU's Python API in this process: the local route of a parse worker.

A long-lived parse worker (:mod:`structaware_retrievers.index.parse_workers`) calls :func:`enable`
once; then :func:`~structaware_readers.mineru.pdf.parse_pdf` calls ``mineru.parser.MinerUParser`` in
the worker instead of a ``mineru-kit`` subprocess per PDF, so MinerU's imports are paid once per
worker. The middle JSON and the parse cache are the same.

In a flash parse, :func:`parse_in_process` points MinerU's figure-crop rendering
(:data:`VISUAL_CROP_HOOKS`) at no-ops for its span: the middle JSON holds none of those images, so
the units never use them. In-process MinerU cannot be interrupted (the pool kills the worker's
process group on time-out) and reconfigures logging: not for an ordinary caller's process.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from structaware_readers.errors import MissingExtraError, ParserUnavailableError
from structaware_readers.mineru.failures import mineru_failure

__all__ = ["VISUAL_CROP_HOOKS", "enable", "enabled", "parse_in_process", "without_visual_crops"]

_enabled = False
#: MinerU's log level in a worker: its progress lines would fill the worker's error log.
_WORKER_LOG_LEVEL = "WARNING"


#: The module of MinerU's flash branch and the names in it that render and attach image crops.
VISUAL_CROP_HOOKS = (
    "mineru.backend.analysis.pdf.window",
    ("attach_visual_block_images_from_pdf", "get_document_render_session"),
)


def _attach_no_crops(*args: Any, **kwargs: Any) -> None:
    """Stands for ``attach_visual_block_images_from_pdf``: attaches nothing."""


def _no_render_session(*args: Any, **kwargs: Any) -> None:
    """Stands for ``get_document_render_session``: no render processes."""


@contextlib.contextmanager
def without_visual_crops(tier: str) -> Iterator[bool]:
    """For the ``with`` block, MinerU's flash tier renders no image crops (module docstring); yields
    whether the hooks were replaced (``False``: another tier, or a MinerU without those names).
    Not thread-safe: a parse worker runs one parse at a time."""
    module_name, names = VISUAL_CROP_HOOKS
    module = None
    if tier == "flash":
        with contextlib.suppress(ImportError):
            module = importlib.import_module(module_name)
    saved = {name: getattr(module, name, None) for name in names}
    if module is None or any(not callable(v) for v in saved.values()):
        yield False
        return
    setattr(module, names[0], _attach_no_crops)
    setattr(module, names[1], _no_render_session)
    try:
        yield True
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def enable() -> None:
    """Make :func:`~structaware_readers.mineru.pdf.parse_pdf` run MinerU in this process (a parse
    worker's setting, for the rest of the process)."""
    global _enabled
    _enabled = True


def enabled() -> bool:
    """Whether :func:`enable` was called in this process."""
    return _enabled


def parse_in_process(pdf: Path, *, tier: str, allow_model_download: bool = False) -> dict[str, Any]:
    """Parse ``pdf`` with MinerU's Python API; return its middle JSON (a plain JSON object). Raises
    ``MissingExtraError``, ``MalformedInputError``.
    """
    if not allow_model_download:
        os.environ["MINERU_MODEL_SOURCE"] = "local"  # as for the subprocess: fail fast on missing models
    try:
        from mineru.errors import MineruError
        from mineru.parser import MinerUParser
        from mineru.utils.logger import configure_global_log_level
    except ImportError as exc:
        raise MissingExtraError("mineru", "mineru", "parsing a PDF in a parse worker") from exc

    configure_global_log_level(_WORKER_LOG_LEVEL)
    try:
        with tempfile.TemporaryDirectory(prefix="structaware-mineru-") as tmp:
            source = pdf
            if pdf.suffix.lower() != ".pdf":  # MinerU routes by file extension
                source = Path(tmp) / "input.pdf"
                shutil.copyfile(pdf, source)
            with without_visual_crops(tier):
                result = MinerUParser(tier=tier).parse(source)  # type: ignore[arg-type]
            text = result.to_json()
    except MineruError as exc:
        raise mineru_failure(str(exc), path=pdf, tier=tier, code=getattr(exc, "code", None)) from exc
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # MinerU's own failure (what mineru-kit prints as "Failed to parse")
        raise mineru_failure(f"{type(exc).__name__}: {exc}", path=pdf, tier=tier) from exc
    middle = json.loads(text)
    if not isinstance(middle, dict):
        raise ParserUnavailableError("MinerU's middle JSON is not an object", path=pdf, field="middle_json")
    return middle
