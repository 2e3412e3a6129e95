"""Table footnotes split by their markers, so that each row carries the notes it marks.

A cell marks a note with a superscript (``^b``) or a bracketed letter after a word
(``Other income(a)``). Only markers some cell carries split the footnote text, so an ordinary word
never starts an entry; the rest is the table's general note. :func:`cell_legends` reads legend
entries for symbols printed as whole cells (``Xa: ...``).
"""

from __future__ import annotations

import re

_MARK = r"[A-Za-z]|\d{1,2}|[*†‡§¶#]{1,3}"
_CELL_MARK = re.compile(rf"\^\{{?({_MARK})\}}?(?![A-Za-z0-9])|(?<=[\w)%])\(([a-z]|\d{{1,2}})\)")


def cell_markers(cells: list[str]) -> list[str]:
    """Footnote markers (``^a`` -> ``"a"``) carried by ``cells``, in order, without repeats."""
    found: list[str] = []
    for cell in cells:
        for m in _CELL_MARK.finditer(cell):
            marker = m.group(1) or m.group(2)
            if marker not in found:
                found.append(marker)
    return found


def split_footnotes(footnote: str, markers: list[str]) -> tuple[dict[str, str], str]:
    """``(marker -> note text, general note)`` for a table's footnote text."""
    text = footnote.strip()
    if not text or not markers:
        return {}, text
    alts = "|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True))
    entry = re.compile(rf"(?:^|(?<=[.;:]\s)|(?<=\n))\(?({alts})(?:[).:]\s*|\s+)(?=\S)", re.MULTILINE)
    starts = list(entry.finditer(text))
    notes: dict[str, str] = {}
    general = [text[: starts[0].start()].strip()] if starts else [text]
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        body = text[m.end() : end].strip()
        if m.group(1) in notes:
            general.append(f"{m.group(1)} {body}")
        else:
            notes[m.group(1)] = body
    return notes, " ".join(g for g in general if g)


#: A legend key: a whole cell of at most this many characters.
MAX_LEGEND_KEY = 4
_NUMBER = re.compile(r"^[\d.,%-]+$")
#: where a legend entry ends: a sentence end (kept), or the space before the next label (``Abbreviations:``)
_ENTRY_END = re.compile(r"(?<=[a-z0-9)\]])[.;](?=\s|$)|\s(?=[A-Z][a-z]+:\s)")


def cell_legends(footnote: str, values: list[str]) -> dict[str, str]:
    """``{cell value: its explanation}`` for the whole-cell symbols ``values`` that ``footnote`` explains
    as ``KEY: text`` (see the module docstring); an entry runs to the next key's entry, to the end of
    its sentence or to the next label (``Abbreviations:``). Empty when no short cell value is a key."""
    short = {v.strip() for v in values if 0 < len(v.strip()) <= MAX_LEGEND_KEY}
    keys = sorted((v for v in short if " " not in v and not _NUMBER.match(v)), key=len, reverse=True)
    text = " ".join(footnote.split())
    if not keys or not text:
        return {}
    alts = "|".join(re.escape(k) for k in keys)
    starts = list(re.finditer(rf"(?:^|(?<=\s))({alts}):\s+(?=\S)", text))
    out: dict[str, str] = {}
    for k, m in enumerate(starts):
        end = starts[k + 1].start() if k + 1 < len(starts) else len(text)
        body = text[m.end() : end].strip()
        stop = _ENTRY_END.search(body)
        if stop:
            body = body[: stop.start() + (stop.group(0) in ".;")]
        if body and m.group(1) not in out:
            out[m.group(1)] = body.rstrip(" ;")
    return out


__all__ = ["cell_legends", "cell_markers", "split_footnotes"]
