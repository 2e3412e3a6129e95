"""Serving an index: the HTTP server and its search page, the client the CLI's fast path asks, and the
MCP server. :func:`make_server` is imported on first access (PEP 562), so the CLI can reach
:mod:`structaware_retrievers.serve.client` without loading the server."""

from __future__ import annotations

from importlib import import_module

_NAMES = frozenset({"DEFAULT_HOST", "DEFAULT_PORT", "QueryServer", "make_server"})


def __getattr__(name: str) -> object:
    if name in _NAMES:
        return getattr(import_module("structaware_retrievers.serve.app"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_NAMES)  # noqa: PLE0605 - a list of the names served above
