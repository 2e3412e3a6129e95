"""Loading a document: detect the input, route a PDF (MinerU, OCR), read, recover tables, run the structure passes.

:func:`load_document` is imported on first access (PEP 562).
"""

from __future__ import annotations

from importlib import import_module


def __getattr__(name: str) -> object:
    if name in ("load_document", "detect_input"):
        return getattr(import_module("structaware_readers.load.loader"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["detect_input", "load_document"]
