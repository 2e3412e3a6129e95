"""Pydantic's first validation error in the words of a :class:`MalformedInputError`.

Pydantic words a validator's own ``ValueError`` as ``"Value error, <message>"`` and an unknown
keyword as ``"Extra inputs are not permitted"``; the faces show the message alone, and name the
closest known field for a misspelt one.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from pydantic import ValidationError


def first_problem(exc: ValidationError, known: Iterable[str]) -> tuple[str, str]:
    """``(field, message)`` of ``exc``'s first error: the dotted location (``""`` for the model
    itself) and a message without pydantic's prefix; an unknown field's message lists ``known``."""
    errors = exc.errors()
    if not errors:
        return "", str(exc)
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = ".".join(str(part) for part in first["loc"])
    if first["type"] == "extra_forbidden":
        names = sorted(known)
        close = difflib.get_close_matches(str(first["loc"][-1]) if first["loc"] else "", names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        return loc, f"not a known field ({hint}known: {', '.join(names)})"
    cause = (first.get("ctx") or {}).get("error")
    message = str(cause) if first["type"] == "value_error" and cause is not None else first["msg"]
    return loc, message
