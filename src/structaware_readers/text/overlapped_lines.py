"""Text a parser read from lines printed on top of each other, put back in the order the page prints.

Where a cell's lines overlap, a parser may merge them into one and sort their glyphs left to right
(``RJuenv i2e0w2 d1ate:``), while the text layer keeps each line (``Review date:`` / ``Jun 2021``).
A stretch of runs is rewritten as the page's lines when a run is not printed by the page and its
characters are 2 to :data:`MAX_LINES` printed lines interleaved, switching at least
:data:`MIN_SWITCHES` times. A cell's two lines may share their lines of the text layer with other cells
(``Thyroid`` over ``Hormone Liothyronine 25 μg``, merged as ``THhoyrrmooidne``): around a run whose
letters and figures the page does not print in a row, a stretch of runs the page does not print, or
of :data:`SHORT_RUN` characters at most, is also read as whole runs of two lines next to each other,
one piece of each. No character is added or dropped; only order and spaces change.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import permutations

from structaware_readers.text.layer import PageWords, normal

#: Most lines of the page one stretch may interleave.
MAX_LINES = 4
#: Longest stretch (characters, white space aside) that is compared.
MAX_CHARS = 160
#: Fewest passes from one line's characters to another's in a stretch read from overlapping lines
#: (``RJuenv i2e0w2 d1ate:`` has 12); fewer is a parser's small reordering, not a merge of lines.
MIN_SWITCHES = 4
#: Longest run (characters) a stretch read from pieces of lines takes in that the page prints
#: (``at``, ``T``): a glyph or two of a merge can make a run that a page prints by chance.
SHORT_RUN = 3
#: Fewest characters of the unprinted run a stretch read from pieces of lines is sought around, and
#: most characters (white space aside) of such a stretch: two lines of one cell.
MIN_PIECE_RUN, MAX_PIECE_CHARS = 4, 60
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
    """``lines`` (with their spaces) joined by a space, a caret before each character ``marks`` flags
    that does not follow one flagged right before it on its line (``^1A+``, one raised run)."""
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
            raised = n in flagged[k] and not (n - 1 in flagged[k] and text and not text[-1].isspace())
            text.append(("^" if raised else "") + ch)
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
    pieces: _Pieces | None = None
    printed = _letters_and_figures(page.text)
    for b in bad:
        if any(s <= runs[b].start() < e for s, e, _ in done):
            continue
        found = _stretch(text, runs, sizes, b, (lines, squeezed, groups))
        if found is None and sizes[b] >= MIN_PIECE_RUN and _merged(runs[b].group(0), printed):
            pieces = pieces or _Pieces(lines)
            found = _piece_stretch(text, runs, sizes, b, set(bad), pieces)
        if found is not None:
            done.append(found)
    if not done:
        return text
    out, at = [], 0
    for s, e, new in sorted(done):
        out.append(text[at:s] + new)
        at = e
    return "".join(out) + text[at:]


_NOT_ALNUM = re.compile(r"[\W_]+")


@lru_cache(maxsize=8)
def _letters_and_figures(text: str) -> str:
    """``text`` without white space, punctuation and marks: a page's letters and figures in its order."""
    return _NOT_ALNUM.sub("", text)


def _merged(run: str, printed: str) -> bool:
    """True when the letters and figures of ``run`` are not printed in a row by the page (``printed``:
    :func:`_letters_and_figures`): ``'brain`` or ``April28,`` is a reading of the page, not a merge."""
    return _NOT_ALNUM.sub("", normal(run)) not in printed


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
            word, marks = _glyphs(text[runs[first].start() : runs[last].end()])
            if len(word) != len(marks):
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


def _glyphs(stretch: str) -> tuple[str, list[bool]]:
    """The characters of ``stretch`` (white space and carets aside, NFKC) and, for each, whether a
    caret stood before it; the word is longer than the flags when NFKC changed a character's count."""
    chars, marks = [], []
    caret = False
    for ch in _squeeze(stretch):
        if ch == "^":
            caret = True
            continue
        chars.append(ch)
        marks.append(caret)
        caret = False
    return normal("".join(chars)), marks


class _Pieces:
    """A page's lines as pieces: each span of whole consecutive runs of a line, its first run, its text
    (spaces kept), its characters (white space aside) and their count; a line's pieces are listed when
    first needed."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.counts = [Counter(_squeeze(line)) for line in lines]
        self.firsts: dict[str, list[tuple[int, int, str]]] = {}  # first character -> (line, run, run's characters)
        for i, line in enumerate(lines):
            for k, run in enumerate(_RUN.findall(line)):
                self.firsts.setdefault(run[0], []).append((i, k, run))
        self.spans: dict[int, list[tuple[int, str, str, Counter[str]]]] = {}
        self.keys: dict[int, dict[str, list[tuple[str, str]]]] = {}

    def of(self, i: int) -> list[tuple[int, str, str, Counter[str]]]:
        """The pieces of line ``i``: ``(first run, text, characters, their count)``."""
        if i not in self.spans:
            line = self.lines[i]
            runs = list(_RUN.finditer(line))
            spans = []
            for a in range(len(runs)):
                for z in range(a, len(runs)):
                    text = line[runs[a].start() : runs[z].end()]
                    squeezed = _squeeze(text)
                    if len(squeezed) > MAX_CHARS:
                        break
                    spans.append((a, text, squeezed, Counter(squeezed)))
            self.spans[i] = spans
        return self.spans[i]

    def by_characters(self, j: int) -> dict[str, list[tuple[str, str]]]:
        """The pieces of line ``j`` by their characters sorted: ``(characters, text)``."""
        if j not in self.keys:
            found: dict[str, list[tuple[str, str]]] = {}
            for _a, text, squeezed, _count in self.of(j):
                found.setdefault("".join(sorted(squeezed)), []).append((squeezed, text))
            self.keys[j] = found
        return self.keys[j]

    def pair(self, word: str) -> tuple[list[str], list[int]] | None:
        """Two pieces, of a line and of the line before or after it, whose characters interleaved make
        ``word``: ``(texts, path)``, texts in the page's order and the path (as :func:`_interleave` gives
        it) indexing them; the first such pair, ``None`` when none does or ``word`` is both read one
        after the other. The piece ``word`` starts with begins with a run whose characters ``word``
        holds in their order, and its line and the other together hold every character of ``word``:
        so only a few lines are read."""
        need = Counter(word)
        starts: dict[int, set[int]] = {}
        for i, a, run in self.firsts.get(word[0], ()):
            chars = iter(word)
            if all(ch in chars for ch in run):
                starts.setdefault(i, set()).add(a)
        for i, runs in starts.items():
            for j in (i - 1, i + 1):
                if not 0 <= j < len(self.lines) or any(
                    k > self.counts[i][c] + self.counts[j][c] for c, k in need.items()
                ):
                    continue  # the two lines do not hold the word's characters
                seconds = self.by_characters(j)
                for a, text, squeezed, count in self.of(i):
                    if a not in runs or len(squeezed) >= len(word) or any(k > need[c] for c, k in count.items()):
                        continue
                    rest = "".join(sorted((need - count).elements()))
                    for other, other_text in seconds.get(rest, ()):
                        found = self._interleaved(word, (squeezed, text), (other, other_text), j < i)
                        if found is not None:
                            return found
        return None

    @staticmethod
    def _interleaved(
        word: str, first: tuple[str, str], second: tuple[str, str], above: bool
    ) -> tuple[list[str], list[int]] | None:
        a, b = first[0], second[0]
        if word in (a + b, b + a):
            return None  # the pieces one after the other: a reading of the page
        path = _interleave(word, [a, b])
        if path is None:
            return None
        if above:  # the second piece's line comes first on the page
            return [second[1], first[1]], [1 - k for k in path]
        return [first[1], second[1]], path


def _piece_stretch(
    text: str, runs: list[re.Match[str]], sizes: list[int], b: int, bad: set[int], pieces: _Pieces
) -> tuple[int, int, str] | None:
    """The longest stretch of whole runs around run ``b``, each run not printed by the page or of
    :data:`SHORT_RUN` characters at most, that interleaves a piece of a line and one of the next
    (module docstring): ``(start, end, replacement)`` in ``text``, or ``None``. The longest: a short
    run at its end may be a glyph or two of the merge (``... at`` for ``applicator at``)."""

    def loose(k: int) -> bool:
        return k in bad or sizes[k] <= SHORT_RUN

    lo, hi = b, b
    while lo > 0 and loose(lo - 1) and sum(sizes[lo - 1 : hi + 1]) <= MAX_PIECE_CHARS:
        lo -= 1
    while hi + 1 < len(runs) and loose(hi + 1) and sum(sizes[lo : hi + 2]) <= MAX_PIECE_CHARS:
        hi += 1
    stretches = [(first, last) for first in range(lo, b + 1) for last in range(b, hi + 1)]
    for first, last in sorted(stretches, key=lambda fl: fl[0] - fl[1]):  # the longest first
        word, marks = _glyphs(text[runs[first].start() : runs[last].end()])
        found = pieces.pair(word) if len(word) == len(marks) else None
        if found is None:
            continue
        texts, path = found
        if _switches(path) >= MIN_SWITCHES and _mixed_run(path, sizes[first : last + 1]):
            return runs[first].start(), runs[last].end(), _written(texts, path, marks)
    return None


__all__ = ["MAX_LINES", "SHORT_RUN", "unshuffle"]
