"""No telemetry from any dependency by default.

structaware sends nothing. :func:`opt_out` runs when ``structaware_readers`` is imported and sets
``ORT_DISABLE_TELEMETRY=1`` (before ONNX Runtime initialises; ``disable_telemetry_events()`` too if
it was imported first) and ``HF_HUB_DISABLE_TELEMETRY=1``; Unstructured's ``DO_NOT_TRACK`` is set by
:mod:`structaware_readers.unstructured.load`. A variable the user set is left alone, and
``STRUCTAWARE_ALLOW_TELEMETRY=1`` leaves all of them alone.
"""

from __future__ import annotations

import os
import sys

__all__ = ["ENV_ALLOW", "OPT_OUT", "opt_out", "quiet_onnxruntime"]

#: Set to ``1`` to leave the dependencies' telemetry settings untouched.
ENV_ALLOW = "STRUCTAWARE_ALLOW_TELEMETRY"
#: The opt-out variables set (unless already set) when structaware is imported.
OPT_OUT = {"ORT_DISABLE_TELEMETRY": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


def _allowed() -> bool:
    return os.environ.get(ENV_ALLOW, "").strip() == "1"


def opt_out() -> None:
    """Set the :data:`OPT_OUT` variables that the user has not set (nothing when telemetry is allowed)."""
    if _allowed():
        return
    for var, value in OPT_OUT.items():
        os.environ.setdefault(var, value)
    quiet_onnxruntime()


def quiet_onnxruntime() -> None:
    """Stop ONNX Runtime's telemetry events if it is already imported (its env opt-out came too late)."""
    ort = sys.modules.get("onnxruntime")
    if ort is not None and not _allowed() and hasattr(ort, "disable_telemetry_events"):
        ort.disable_telemetry_events()
