"""No telemetry from any dependency by default.

structaware itself sends nothing. Some dependencies would, unless told not to:

* **ONNX Runtime** (run by fastembed for the dense model) creates a device id under
  ``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and uploads usage events on Linux and macOS
  since 1.2x. ``ORT_DISABLE_TELEMETRY=1`` set *before* ONNX Runtime initialises is its full opt-out
  (nothing created, nothing sent); ONNX Runtime's own ``disable_telemetry_events()`` only stops
  events after initialisation, and is called too when ONNX Runtime was imported before structaware.
* **Hugging Face Hub** (fastembed's model downloads): ``HF_HUB_DISABLE_TELEMETRY=1``.
* **Unstructured**: ``DO_NOT_TRACK=1`` (and ``UNSTRUCTURED_DISABLE_NOTICE=1``), set by
  :mod:`structaware_readers.unstructured.load` right before it imports ``unstructured``.

:func:`opt_out` runs when ``structaware_readers`` is imported (every structaware module imports
it first), and sets each variable only when the user has not set it, so an explicit ``=0`` wins.
Set ``STRUCTAWARE_ALLOW_TELEMETRY=1`` to leave all of them alone.
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
