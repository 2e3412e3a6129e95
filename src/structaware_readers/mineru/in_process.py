"""MinerU's Python API in this process: the local route of a parse worker.

:func:`structaware_readers.mineru.pdf.parse_pdf` runs ``mineru-kit`` in a subprocess per PDF by
default, so every PDF pays MinerU's imports (about half of a short PDF's parse time, issue 24).
A long-lived parse worker (:mod:`structaware_readers.parse_workers`) calls :func:`enable` once at
start; from then on ``parse_pdf`` calls MinerU's public Python API (``mineru.parser.MinerUParser``)
in the worker itself, so the imports are paid once per worker, not once per PDF. The middle JSON is
the same as ``mineru-kit parse -f middle_json`` writes (``ParseResult.to_json()``), and the parse
cache stores it the same way.

In-process MinerU cannot be interrupted: the worker pool enforces the time-out by killing the
worker's process group. Not for an ordinary caller's process: MinerU reconfigures global logging
and may start ``spawn`` render processes of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from ..errors import MissingExtraError, ParserUnavailableError
from .failures import mineru_failure

__all__ = ["enable", "enabled", "parse_in_process"]

_enabled = False
#: MinerU's log level in a worker: its progress lines would fill the worker's error log.
_WORKER_LOG_LEVEL = "WARNING"


def enable() -> None:
    """Make :func:`~structaware_readers.mineru.pdf.parse_pdf` run MinerU in this process (a parse
    worker's setting, for the rest of the process)."""
    global _enabled
    _enabled = True


def enabled() -> bool:
    """Whether :func:`enable` was called in this process."""
    return _enabled


def parse_in_process(pdf: Path, *, tier: str, allow_model_download: bool = False) -> dict[str, Any]:
    """Parse ``pdf`` with MinerU's Python API; return its middle JSON (a plain JSON object).

    Raises:
        MissingExtraError: MinerU is not installed.
        MalformedInputError / ParserUnavailableError: MinerU's failure, mapped as for a
            ``mineru-kit`` run (:func:`~structaware_readers.mineru.failures.mineru_failure`).
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
            result = MinerUParser(tier=tier).parse(source)  # type: ignore[arg-type]
            text = result.to_json()
    except MineruError as exc:
        raise mineru_failure(str(exc), path=pdf, tier=tier, code=getattr(exc, "code", None)) from exc
    except (MemoryError, RecursionError):
        raise
    except Exception as exc:  # noqa: BLE001 - MinerU's own failure (what mineru-kit prints as "Failed to parse")
        raise mineru_failure(f"{type(exc).__name__}: {exc}", path=pdf, tier=tier) from exc
    middle = json.loads(text)
    if not isinstance(middle, dict):
        raise ParserUnavailableError("MinerU's middle JSON is not an object", path=pdf, field="middle_json")
    return middle
