"""Text a parser read from lines printed on top of each other, put back in the order the page prints.

Where a cell's lines overlap, a parser may merge them into one and sort their glyphs left to right
(``RJuenv i2e0w2 d1ate:``), while the text layer keeps each line (``Review date:`` / ``Jun 2021``).
A stretch of runs is rewritten as the page's lines when a run is not printed by the page and its
characters are 2 to :data:`MAX_LINES` printed lines interleaved, switching at least
:data:`MIN_SWITCHES` times. No character is added or dropped; only order and spaces change.
"""

from __future__ import annotations

import re
from itertools import permutations

from structaware_readers.text.layer import PageWords, normal

#: Most lines of the page one stretch may interleave.
MAX_LINES = 4
#: Longest stretch (characters, white space aside) that is compared.
MAX_CHARS = 160
#: Fewest passes from one line's characters to another's in a stretch read from overlapping lines
#: (``RJuenv i2e0w2 d1ate:`` has 12); fewer is a parser's small reordering, not a merge of lines.
MIN_SWITCHES = 4
_RUN = re.compile(r"\S+")
_SPACE = re.compile(r"\s+")


def _squeeze(text: str) -> str:
    return _SPACE.sub("", text)


def _interleave(chars: str, lines: list[str]) -> list[int] | None:
    """Which line each of ``chars`` comes from (indexes into ``lines``), when ``chars`` is the
    characters of ``lines`` interleaved with each line's in its own order, passing from one line to
    another as seldom as can be; ``None`` otherwise."""
    if len(chars) != sum(len(li) for li in lines):
        return None
    State = tuple[tuple[int, ...], int]  # positions in the lines, the line of the last character
    best: dict[State, int] = {((0,) * len(lines), -1): 0}
    parents: list[dict[State, State]] = []
    for ch in chars:
        step: dict[State, int] = {}
        back: dict[State, State] = {}
        for (at, last), cost in best.items():
            for k, line in enumerate(lines):
                if at[k] < len(line) and line[at[k]] == ch:
                    nxt = (at[:k] + (at[k] + 1,) + at[k + 1 :], k)
                    c = cost + (last not in (-1, k))
                    if nxt not in step or c < step[nxt]:
                        step[nxt], back[nxt] = c, (at, last)
        if not step:
            return None
        parents.append(back)
        best = step
    ends = [st for st in best if st[0] == tuple(len(li) for li in lines)]
    if not ends:
        return None
    st = min(ends, key=lambda e: best[e])
    path: list[int] = []
    for back in reversed(parents):
        path.append(st[1])
        st = back[st]
    return path[::-1]


def _mixed_run(path: list[int], sizes: list[int]) -> bool:
    """True when one run (``sizes``: its characters, white space and carets aside, run by run) takes
    its characters from lines in turn, back and forth (``Oacstt``): glyphs merged, not whole words
    read in another order than the page's (a link set apart from its sentence)."""
    at = 0
    for size in sizes:
        if _switches(path[at : at + size]) >= 2:
            return True
        at += size
    return False


def _switches(path: list[int]) -> int:
    """How often the characters of ``path`` pass from one line to another."""
    return sum(1 for a, b in zip(path, path[1:]) if a != b)


def _written(lines: list[str], path: list[int], marks: list[bool]) -> str:
    """``lines`` (with their spaces) joined by a space, a caret before each character ``marks`` flags."""
    flagged: list[set[int]] = [set() for _ in lines]
    seen = [0] * len(lines)
    for k, mark in zip(path, marks):
        if mark:
            flagged[k].add(seen[k])
        seen[k] += 1
    out = []
    for k, line in enumerate(lines):
        n = 0
        text = []
        for ch in line:
            if ch.isspace():
                text.append(ch)
                continue
            text.append(("^" if n in flagged[k] else "") + ch)
            n += 1
        out.append("".join(text))
    return " ".join(out)


def _groups(page: PageWords) -> tuple[list[str], list[str], dict[int, list[tuple[int, int]]]]:
    """The page's lines, the same without white space, and the runs of 2 to :data:`MAX_LINES`
    consecutive lines by their length without white space: ``{length: [(first, count)]}``."""
    lines = [li.strip() for li in page.text.splitlines() if li.strip()]
    squeezed = [_squeeze(li) for li in lines]
    groups: dict[int, list[tuple[int, int]]] = {}
    for i in range(len(lines)):
        length = len(squeezed[i])
        for k in range(2, MAX_LINES + 1):
            if i + k > len(lines):
                break
            length += len(squeezed[i + k - 1])
            if length > MAX_CHARS:
                break
            groups.setdefault(length, []).append((i, k))
    return lines, squeezed, groups


def unshuffle(text: str, page: PageWords) -> str:
    """``text`` with each stretch read from overlapping lines written as the page's lines (module
    docstring); ``text`` itself when there is none."""
    runs = list(_RUN.finditer(text))
    bad = [
        i for i, m in enumerate(runs) if len(m.group(0)) >= 2 and normal(m.group(0).replace("^", "")) not in page.text
    ]
    if not bad:
        return text
    lines, squeezed, groups = _groups(page)
    sizes = [len(m.group(0).replace("^", "")) for m in runs]
    done: list[tuple[int, int, str]] = []  # (start, end, replacement) of text
    for b in bad:
        if any(s <= runs[b].start() < e for s, e, _ in done):
            continue
        found = _stretch(text, runs, sizes, b, (lines, squeezed, groups))
        if found is not None:
            done.append(found)
    if not done:
        return text
    out, at = [], 0
    for s, e, new in sorted(done):
        out.append(text[at:s] + new)
        at = e
    return "".join(out) + text[at:]


def _stretch(
    text: str,
    runs: list[re.Match[str]],
    sizes: list[int],
    b: int,
    page: tuple[list[str], list[str], dict[int, list[tuple[int, int]]]],
) -> tuple[int, int, str] | None:
    """The first stretch of whole runs around run ``b`` that interleaves 2+ consecutive page lines:
    ``(start, end, replacement)`` in ``text``, or ``None``."""
    lines, squeezed, groups = page
    for first in range(b, -1, -1):
        if sum(sizes[first : b + 1]) > MAX_CHARS:
            break
        total = sum(sizes[first:b])
        for last in range(b, len(runs)):
            total += sizes[last]
            if total > MAX_CHARS:
                break
            chars, marks = [], []
            caret = False
            for ch in _squeeze(text[runs[first].start() : runs[last].end()]):
                if ch == "^":
                    caret = True
                    continue
                chars.append(ch)
                marks.append(caret)
                caret = False
            word = normal("".join(chars))
            if len(word) != len(chars):
                continue
            ordered = None
            for i, k in groups.get(len(word), ()):
                group = squeezed[i : i + k]
                if not any(g[0] == word[0] for g in group):
                    continue
                ordered = ordered or sorted(word)
                if sorted("".join(group)) != ordered or any(word == "".join(p) for p in permutations(group)):
                    continue  # other characters, or the lines one after the other: a reading of the page
                path = _interleave(word, group)
                if path is not None and _switches(path) >= MIN_SWITCHES and _mixed_run(path, sizes[first : last + 1]):
                    return runs[first].start(), runs[last].end(), _written(lines[i : i + k], path, marks)
    return None


__all__ = ["MAX_LINES", "unshuffle"]
