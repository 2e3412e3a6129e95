"""The character scanner over a flowchart's body: node ids, node shapes and their labels, ``@{...}``
attributes, and links with their labels, strokes, heads and edge ids (:class:`Scanner`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from structaware_readers.mermaid.labels import clean_label, unquote

__all__ = ["Link", "NodeRef", "ParseError", "Scanner"]

# shapes: opener -> accepted closers (longest openers first)
_SHAPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("(((", (")))",)),
    ("((", ("))",)),
    ("([", ("])",)),
    ("[[", ("]]",)),
    ("[(", (")]",)),
    ("[/", ("/]", "\\]")),
    ("[\\", ("\\]", "/]")),
    ("{{", ("}}",)),
    ("(", (")",)),
    ("[", ("]",)),
    ("{", ("}",)),
    (">", ("]",)),
)
_FAMILY = {"(": ("(", ")"), "[": ("[", "]"), "{": ("{", "}"), ">": ("[", "]")}

_LINK_FULL = (
    # (regex, stroke); groups: s = start marker, body, h = head
    (re.compile(r"(?P<s>[<ox])?(?P<body>-{2,})(?P<h>[>ox])?"), "normal"),
    (re.compile(r"(?P<s>[<ox])?(?P<body>={2,})(?P<h>[>ox])?"), "thick"),
    (re.compile(r"(?P<s>[<ox])?(?P<body>-\.+-)(?P<h>[>ox])?"), "dotted"),
)
_LINK_TEXT_START = (
    # start token, stroke, end-arrow regex
    (re.compile(r"(?P<s>[<ox])?--(?![->])"), "normal", re.compile(r"-{2,}(?P<h>[>ox])|-{3,}")),
    (re.compile(r"(?P<s>[<ox])?==(?![=>])"), "thick", re.compile(r"={2,}(?P<h>[>ox])|={3,}")),
    (re.compile(r"(?P<s>[<ox])?-\.(?![.\-])"), "dotted", re.compile(r"\.+-(?P<h>[>ox])?")),
)
_HEADS = {">": "arrow", "o": "circle", "x": "cross", None: "open", "": "open"}
_INVISIBLE = re.compile(r"~{3,}")
_EDGE_ID = re.compile(r"([A-Za-z_][\w-]*)@(?=[<ox]?[-=~])")


@dataclass
class Link:
    stroke: str
    head: str
    bidirectional: bool
    label: str = ""
    edge_id: str = ""
    invisible: bool = False


@dataclass
class NodeRef:
    node_id: str
    label: str | None  # None: no shape/label given here


class ParseError(Exception):
    def __init__(self, pos: int, message: str):
        self.pos = pos
        self.message = message
        super().__init__(message)


class Scanner:
    """Character scanner over the flowchart body, with the token readers the parser needs."""

    def __init__(self, src: str, pos: int = 0):
        self.src = src
        self.pos = pos

    # --- basics
    def eof(self) -> bool:
        return self.pos >= len(self.src)

    def peek(self, n: int = 1) -> str:
        return self.src[self.pos : self.pos + n]

    def context(self) -> str:
        """Up to 12 characters from the scanner, on the current line (for error messages)."""
        return self.src[self.pos : self.pos + 12].split("\n", 1)[0]

    def skip_ws(self) -> None:
        """Skip spaces, tabs and ``%%`` comments (not newlines)."""
        src = self.src
        while self.pos < len(src):
            ch = src[self.pos]
            if ch in " \t\r":
                self.pos += 1
            elif src.startswith("%%", self.pos):
                nl = src.find("\n", self.pos)
                self.pos = len(src) if nl < 0 else nl
            else:
                break

    def at_separator(self) -> bool:
        return self.eof() or self.src[self.pos] in "\n;"

    def skip_to_eol(self, *, stop_at_semicolon: bool = False) -> None:
        src = self.src
        in_quote = False
        while self.pos < len(src):
            ch = src[self.pos]
            if ch == '"':
                in_quote = not in_quote
            elif ch == "\n" or (stop_at_semicolon and ch == ";" and not in_quote):
                return
            self.pos += 1

    def rest_of_line(self) -> str:
        nl = self.src.find("\n", self.pos)
        end = len(self.src) if nl < 0 else nl
        text = self.src[self.pos : end]
        self.pos = end
        return text

    # --- ids
    @staticmethod
    def _id_char(ch: str) -> bool:
        return ch.isalnum() or ch == "_" or (ord(ch) > 127 and not ch.isspace())

    def read_id(self) -> str | None:
        src, start = self.src, self.pos
        i = start
        while i < len(src):
            ch = src[i]
            if self._id_char(ch):
                i += 1
            elif ch == "-" and i > start and i + 1 < len(src) and self._id_char(src[i + 1]):
                i += 1  # internal dash: "no-treatment" (but "A-->B", "A-.->B" stop at the dash)
            elif ch == "." and i > start:
                i += 1  # dots in bare ids ("v1.2", a sentence id ending "...进行预约."): no link starts with "."
            else:
                break
        if i == start:
            return None
        self.pos = i
        return src[start:i]

    def peek_word(self) -> str:
        m = re.match(r"[A-Za-z][\w-]*", self.src[self.pos :])
        return m.group(0) if m else ""

    # --- node text
    def read_quoted(self) -> str:
        """A ``"..."`` string (may span lines); the scanner is on the opening quote."""
        end = self.src.find('"', self.pos + 1)
        if end < 0:
            raise ParseError(self.pos, "unterminated quoted text")
        text = self.src[self.pos + 1 : end]
        self.pos = end + 1
        return text

    def read_shape(self) -> str | None:
        """Label of a node shape starting at the scanner, or ``None`` when no shape starts here."""
        for opener, closers in _SHAPES:  # noqa: B007 - the pair at the break is read below
            if self.src.startswith(opener, self.pos):
                break
        else:
            return None
        start = self.pos
        self.pos += len(opener)
        # quoted label: "..." then the closer
        save = self.pos
        self.skip_ws()
        if self.peek() == '"':
            text = self.read_quoted()
            self.skip_ws()
            for closer in closers:
                if self.src.startswith(closer, self.pos):
                    self.pos += len(closer)
                    return text
            self.pos = save  # not a pure quoted label: read it as plain text
        else:
            self.pos = save
        open_ch, close_ch = _FAMILY[opener[0]]
        depth = 0
        src = self.src
        i = self.pos
        while i < len(src):
            if depth == 0:
                for closer in closers:
                    if src.startswith(closer, i):
                        text = src[self.pos : i]
                        self.pos = i + len(closer)
                        return text
            ch = src[i]
            if ch == "\n":
                break
            if ch == open_ch:
                depth += 1
            elif ch == close_ch and depth > 0:
                depth -= 1
            i += 1
        raise ParseError(start, f"node shape {opener!r} is not closed by {' or '.join(map(repr, closers))}")

    def read_attributes(self) -> dict[str, str]:
        """``@{ key: value, ... }``: the scanner is on ``@``; returns the string values by key."""
        start = self.pos
        i = self.pos + 2
        src = self.src
        in_quote = ""
        while i < len(src):
            ch = src[i]
            if in_quote:
                if ch == in_quote:
                    in_quote = ""
            elif ch in "\"'":
                in_quote = ch
            elif ch == "}":
                break
            i += 1
        else:
            raise ParseError(start, "'@{' is not closed by '}'")
        body = src[start + 2 : i]
        self.pos = i + 1
        attrs: dict[str, str] = {}
        for m in re.finditer(r"([A-Za-z][\w-]*)\s*:\s*(\"[^\"]*\"|'[^']*'|[^,\n]*)", body):
            attrs[m.group(1)] = unquote(m.group(2))
        return attrs

    # --- links
    def read_link(self) -> Link | None:
        """A link (with its label and edge id) starting at the scanner, or ``None``."""
        start = self.pos
        edge_id = ""
        if m := _EDGE_ID.match(self.src, self.pos):
            edge_id = m.group(1)
            self.pos = m.end()
        link = self._read_link_body()
        if link is None:
            self.pos = start
            return None
        link.edge_id = edge_id
        # |label| after the arrow
        save = self.pos
        self.skip_ws()
        if self.peek() == "|":
            search_from = self.pos + 1
            while search_from < len(self.src) and self.src[search_from] in " \t":
                search_from += 1
            if self.src.startswith('"', search_from):  # |"a | b"|: the bar inside quotes is text
                close_quote = self.src.find('"', search_from + 1)
                if close_quote > 0:
                    search_from = close_quote + 1
            end = self.src.find("|", search_from)
            nl = self.src.find("\n", self.pos + 1)
            if end < 0 or (0 <= nl < end):
                raise ParseError(self.pos, "edge label '|' is not closed on its line")
            pipe_label = clean_label(unquote(self.src[self.pos + 1 : end]))
            self.pos = end + 1
            link.label = pipe_label or link.label
        else:
            self.pos = save
        return link

    def _read_link_body(self) -> Link | None:
        src, pos = self.src, self.pos
        if m := _INVISIBLE.match(src, pos):
            self.pos = m.end()
            return Link("invisible", "open", False, invisible=True)
        full: tuple[re.Match[str], str] | None = None
        for rx, stroke in _LINK_FULL:
            m = rx.match(src, pos)
            if not m:
                continue
            body, head = m.group("body"), m.group("h")
            if head is None and stroke != "dotted" and len(body) < 3:
                continue  # "--" / "==" alone start a text label
            if m.group("s") and m.group("s") in "ox" and not head:
                continue
            full = (m, stroke)
            break
        if full is not None:
            m, stroke = full
            head = m.group("h")
            # "A --ok--> B": a head letter glued to a word is the start of a text label when a
            # closing arrow follows on the line (Mermaid itself reads "---oB" as a circle edge)
            if head in ("o", "x") and m.end() < len(src) and Scanner._id_char(src[m.end()]):
                text_link = self._read_text_link()
                if text_link is not None:
                    return text_link
                self.pos = pos
            self.pos = m.end()
            return Link(stroke, _HEADS[head], bool(m.group("s")) and bool(head))
        return self._read_text_link()

    def _read_text_link(self) -> Link | None:
        src, pos = self.src, self.pos
        for start_rx, stroke, end_rx in _LINK_TEXT_START:
            m = start_rx.match(src, pos)
            if not m:
                continue
            i = m.end()
            nl = src.find("\n", i)
            line_end = len(src) if nl < 0 else nl
            # quoted text
            j = i
            while j < line_end and src[j] in " \t":
                j += 1
            if j < line_end and src[j] == '"':
                q = src.find('"', j + 1)
                if q < 0 or q > line_end:
                    continue
                text = src[j + 1 : q]
                k = q + 1
                while k < line_end and src[k] in " \t":
                    k += 1
                em = end_rx.match(src, k)
                if not em:
                    continue
            else:
                semi = src.find(";", i, line_end)
                stmt_end = line_end if semi < 0 else semi  # an unquoted label ends with its statement
                em = next(
                    (
                        e
                        for e in end_rx.finditer(src, i, stmt_end)
                        # "-- go--on -->": a head letter glued to a word is still label text
                        if not (
                            e.groupdict().get("h") in ("o", "x")
                            and e.end() < stmt_end
                            and Scanner._id_char(src[e.end()])
                        )
                    ),
                    None,
                )
                if not em or em.start() == i:
                    continue
                text = src[i : em.start()]
            if not text.strip():
                continue
            head = em.groupdict().get("h")
            self.pos = em.end()
            return Link(stroke, _HEADS[head], bool(m.group("s")) and bool(head), label=clean_label(text))
        return None
