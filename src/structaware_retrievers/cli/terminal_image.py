"""Pictures shown inside a terminal that can: the kitty graphics protocol and iTerm2's inline images.

Used by ``structaware show`` only when standard output is such a terminal (else it writes PNG
files). The protocol is read from the environment, never asked: kitty and Ghostty
(``TERM``/``KITTY_WINDOW_ID``) get kitty graphics, iTerm2 and WezTerm (``TERM_PROGRAM``,
``LC_TERMINAL``) get ``OSC 1337`` inline images.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import IO

__all__ = ["inline_protocol", "write_inline"]

_CHUNK = 4096


def inline_protocol(stream: IO[str], environ: Mapping[str, str] | None = None) -> str | None:
    """``"kitty"``, ``"iterm"`` or ``None``: what ``stream`` can show pictures with (``None`` when it is
    not a terminal, or a terminal that sets none of the variables in the module docstring)."""
    env = os.environ if environ is None else environ
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # closed or not a real stream
        return None
    term = env.get("TERM", "")
    if term in ("xterm-kitty", "xterm-ghostty") or env.get("KITTY_WINDOW_ID"):
        return "kitty"
    if env.get("TERM_PROGRAM") in ("iTerm.app", "WezTerm") or env.get("LC_TERMINAL") == "iTerm2":
        return "iterm"
    return None


def write_inline(png: bytes, stream: IO[str], protocol: str) -> None:
    """Show a PNG at the cursor of ``stream`` with ``protocol`` (:func:`inline_protocol`), then a newline.

    Raises:
        ValueError: an unknown protocol.
    """
    data = base64.b64encode(png).decode("ascii")
    if protocol == "kitty":
        chunks = [data[i : i + _CHUNK] for i in range(0, len(data), _CHUNK)] or [""]
        for i, chunk in enumerate(chunks):
            more = 1 if i < len(chunks) - 1 else 0
            head = f"a=T,f=100,m={more}" if i == 0 else f"m={more}"
            stream.write(f"\x1b_G{head};{chunk}\x1b\\")
    elif protocol == "iterm":
        stream.write(f"\x1b]1337;File=inline=1;size={len(png)};preserveAspectRatio=1:{data}\x07")
    else:
        raise ValueError(f"unknown inline image protocol {protocol!r}; expected 'kitty' or 'iterm'")
    stream.write("\n")
    stream.flush()
