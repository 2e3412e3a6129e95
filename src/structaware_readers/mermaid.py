"""Mermaid flowchart parser: ``flowchart``/``graph`` source -> nodes, labelled edges, subgraphs.

Paper section 2.3 builds one *flow path* unit per directed edge ``A -(label)-> B`` of a Mermaid
flowchart, and section 5 names the weakness of its regex-based extraction: nested structures
were missed and only English was covered. This module is a small scanner plus statement parser
(no dependencies) for the flowchart grammar as documented by Mermaid:

* headers ``graph``/``flowchart``/``flowchart-elk`` with ``TB``/``TD``/``BT``/``RL``/``LR`` (and
  the old ``>``/``<``/``^``/``v``); YAML front matter (``---`` / ``title: ...`` / ``---``) gives
  :attr:`Flowchart.title`; ``%%`` comments and ``%%{init: ...}%%`` directives are skipped;
* every node shape (``[ ]``, ``( )``, ``([ ])``, ``[[ ]]``, ``[( )]``, ``(( ))``, ``((( )))``,
  ``> ]``, ``{ }``, ``{{ }}``, ``[/ /]``, ``[\\ \\]``, ``[/ \\]``, ``[\\ /]``) and the
  ``A@{ shape: ..., label: "..." }`` form; quoted labels (which may hold brackets and arrows),
  Markdown strings ``"`**bold**`"``, ``<br>`` -> space, other HTML tags dropped, entities
  (``#quot;``, ``#35;``, ``&amp;``) decoded, ``fa:fa-icon`` names dropped, ``:::class`` suffixes;
* every link: ``-->``, ``---``, ``-.->``, ``-.-``, ``==>``, ``===``, ``--o``, ``--x``,
  ``<-->``, ``o--o``, ``x--x``, ``<==>``, ``<-.->``, longer ones (``--->``, ``====>``,
  ``-..->``), invisible ``~~~``; labels as ``-->|yes|``, ``-- yes -->``, ``-. maybe .->``,
  ``== sure ==>``, ``-- "quoted" -->``; edge ids ``A e1@--> B``;
* chains ``A --> B --> C`` and ``&`` groups ``A & B --> C & D`` (every pair);
* ``subgraph id [title]`` ... ``end``, nested to any depth, and edges to subgraph ids;
* ``style``, ``classDef``, ``class``, ``linkStyle``, ``click``, ``direction``, ``accTitle``,
  ``accDescr`` and edge-property lines (``e1@{ animate: true }``) are skipped;
* statements separated by newlines or ``;``; Unicode (e.g. Chinese) ids and labels.

Decisions
    * A bidirectional link (``<-->``, ``o--o``, ``x--x``: a marker at both ends) gives **two**
      edges, ``A -> B`` then ``B -> A``, with the same label.
    * Open links (``---``, ``-.-``, ``===``) are kept as edges in writing order (``head="open"``);
      invisible links (``~~~``) only position nodes and give **no** edge.
    * A node referenced without a shape gets its id as label; when a node is given several
      labels the last one wins (Mermaid's rule). Subgraph ids used as edge endpoints resolve to
      the subgraph title and are not listed in :attr:`Flowchart.nodes`.
    * Another Mermaid diagram type (``sequenceDiagram``, ``classDiagram``, ...) raises
      :class:`NotAFlowchartError` (a :class:`~structaware_readers.errors.MalformedInputError`),
      so callers can fall back to the figure text. Text with no diagram header, an unparsable
      statement (with ``strict=True``, the default) or a flowchart without any node raises
      :class:`~structaware_readers.errors.MalformedInputError` naming line and column. With
      ``strict=False`` a bad statement is skipped and listed in :attr:`Flowchart.skipped`.
    * Source wrapped in a Markdown fence (MinerU's ``content`` of a ``flowchart`` image is a
      ```` ```mermaid ```` block) is unwrapped first.
"""

from __future__ import annotations

import html
import html.entities
import re
from dataclasses import dataclass, field

from structaware_readers.errors import MalformedInputError

__all__ = [
    "FlowEdge",
    "Flowchart",
    "NotAFlowchartError",
    "find_mermaid_blocks",
    "parse_mermaid",
    "to_mermaid",
]


class NotAFlowchartError(MalformedInputError):
    """The Mermaid source is a diagram of another type (``diagram_type``), not a flowchart."""

    def __init__(self, message: str, *, diagram_type: str, path: str | None = None, field: str | None = None):
        self.diagram_type = diagram_type
        super().__init__(message, path=path, field=field)


@dataclass
class FlowEdge:
    """One directed edge of a flowchart.

    Attributes:
        source, target: node (or subgraph) ids as written in the source.
        label: the edge text (``"yes"`` in ``A -->|yes| B``), cleaned; ``""`` when unlabelled.
        source_label, target_label: the display labels of both ends (node text, or the subgraph
            title for a subgraph id), cleaned.
        edge_id: the Mermaid edge id (``e1`` in ``A e1@--> B``) or ``""``.
        stroke: ``"normal"``, ``"dotted"`` or ``"thick"``.
        head: arrow head at the target: ``"arrow"``, ``"open"`` (no head), ``"circle"``, ``"cross"``.
        bidirectional: the link had markers at both ends (this edge is one of its two edges).
        element_ids: ids of the document elements that state this edge (``p{page}-e{j}``), when
            the chart was read from a document rather than from one Mermaid source (an algorithm's
            text description: the paragraph that says ``If the answer is "Yes" to Box 2, then Box
            3``, and the algorithm's image); empty for parsed Mermaid source.
    """

    source: str
    target: str
    label: str = ""
    source_label: str = ""
    target_label: str = ""
    edge_id: str = ""
    stroke: str = "normal"
    head: str = "arrow"
    bidirectional: bool = False
    element_ids: list[str] = field(default_factory=list)

    def text(self) -> str:
        """The flow-path unit text: ``"A label -(yes)-> B label"``, or ``"A -> B"`` when unlabelled."""
        if self.label:
            return f"{self.source_label} -({self.label})-> {self.target_label}"
        return f"{self.source_label} -> {self.target_label}"


@dataclass
class Flowchart:
    """A parsed Mermaid flowchart.

    Attributes:
        direction: ``"TB"``, ``"TD"``, ``"BT"``, ``"RL"`` or ``"LR"`` as written (``"TB"`` when
            absent; the old ``>``/``<``/``^``/``v`` become ``LR``/``RL``/``BT``/``TB``).
        nodes: node id -> display label, in order of first appearance.
        edges: edges in source order (chains left to right, ``&`` groups source-major).
        title: front-matter ``title``, or ``""``.
        subgraphs: subgraph id -> ids of the nodes mentioned inside it, at any depth, in order of
            first mention there.
        subgraph_titles: subgraph id -> its title (the id when no title is given).
        subgraph_parents: subgraph id -> id of the enclosing subgraph (nested subgraphs only).
        skipped: statements skipped with ``strict=False``, as ``"line N: <statement>"``.
    """

    direction: str = "TB"
    nodes: dict[str, str] = field(default_factory=dict)
    edges: list[FlowEdge] = field(default_factory=list)
    title: str = ""
    subgraphs: dict[str, list[str]] = field(default_factory=dict)
    subgraph_titles: dict[str, str] = field(default_factory=dict)
    subgraph_parents: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def label(self, node_id: str) -> str:
        """Display label of a node or subgraph id (the id itself when unknown)."""
        if node_id in self.nodes:
            return self.nodes[node_id]
        return self.subgraph_titles.get(node_id, node_id)

    def edge_texts(self) -> list[str]:
        """One unit text per edge, ``["A label -(yes)-> B label", "B label -> C label", ...]``."""
        return [e.text() for e in self.edges]


# ---------------------------------------------------------------------------------------------
# Markdown fences


_FENCE_OPEN = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t]*$")


def find_mermaid_blocks(markdown: str) -> list[str]:
    """The contents of every ```` ```mermaid ```` / ``~~~mermaid`` fenced block, in order.

    Fences follow CommonMark: up to 3 spaces of indent, 3+ backticks or tildes, closed by a fence
    of the same character at least as long; the info string's first word must be ``mermaid``
    (any case; MyST ``{mermaid}`` too). The opening indent is removed from content lines. A block
    left open runs to the end of the text (CommonMark). Other fenced blocks are skipped whole, so
    a mermaid fence shown inside a longer fence is not returned.

    Args:
        markdown: Markdown text.

    Returns:
        Block contents without the fence lines (``""`` for an empty block); ``[]`` when none.

    Raises:
        TypeError: ``markdown`` is not a string.
    """
    if not isinstance(markdown, str):
        raise TypeError(f"find_mermaid_blocks expects str, got {type(markdown).__name__}")
    return [content for info, content in _fenced_blocks(markdown) if _is_mermaid_info(info)]


_SOURCE_FENCE = re.compile(r"```[ \t]*mermaid[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_SOURCE_START = re.compile(
    r"^\s*(?:flowchart|graph)(?:[ \t]+(?:TB|TD|BT|RL|LR)\b|[ \t]*(?:;|\n|$)|[ \t]+[^\n]*?(?:--|==|-\.))",
    re.IGNORECASE,
)


def find_flowchart_source(text: str) -> str | None:
    """Mermaid flowchart source held by a parser's code or figure text, or ``None``: the first
    ```` ```mermaid ```` fence, else the whole text when it starts with a ``flowchart``/``graph``
    header (a direction, ``;``, a line end, or a link on the same line: one-line charts such as
    ``graph LR A-->B`` count; ``graph = build()`` does not)."""
    if not text:
        return None
    if m := _SOURCE_FENCE.search(text):
        return m.group(1).strip("\n").strip() or None
    if _SOURCE_START.match(text):
        return text.strip()
    return None


def _is_mermaid_info(info: str) -> bool:
    word = info.split()[0] if info.split() else ""
    return word.strip("{}").lower() == "mermaid"


def _fenced_blocks(markdown: str) -> list[tuple[str, str]]:
    lines = markdown.splitlines()
    blocks: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m or (m.group(2)[0] == "`" and "`" in m.group(3)):
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        close = re.compile(r"^ {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$")
        body: list[str] = []
        i += 1
        while i < len(lines) and not close.match(lines[i]):
            line = lines[i]
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            body.append(line[strip:])
            i += 1
        i += 1  # the closing fence (or past the end)
        blocks.append((info, "\n".join(body)))
    return blocks


# ---------------------------------------------------------------------------------------------
# labels


_BR = re.compile(r"<\s*br\s*/?\s*>", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")
_MERMAID_ENTITY = re.compile(r"#([A-Za-z][A-Za-z0-9]{1,31}|[0-9]{1,7});")
_FA_ICON = re.compile(r"\bfa[bsr]?:fa-[\w-]+")
_MD_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_MD_EM = re.compile(r"(?<![\w*])([*_])(?=\S)(.+?)(?<=\S)\1(?![\w*])")


def _entity(m: re.Match[str]) -> str:
    name = m.group(1)
    if name.isdigit():
        return f"&#{name};"
    if name + ";" in html.entities.html5:
        return f"&{name};"
    return m.group(0)


def _clean_label(text: str) -> str:
    """Label text as a reader sees it: Markdown/HTML markup removed, entities decoded, one line."""
    text = text.strip()
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":  # Markdown string
        text = text[1:-1]
        text = _MD_STRONG.sub(r"\2", text)
        text = _MD_EM.sub(r"\2", text)
    text = _BR.sub(" ", text)
    text = _TAG.sub("", text)
    text = _FA_ICON.sub("", text)
    text = _MERMAID_ENTITY.sub(_entity, text)
    text = html.unescape(text)
    return " ".join(text.split())


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


# ---------------------------------------------------------------------------------------------
# scanner


_DIAGRAM_TYPES = (
    "sequenceDiagram", "classDiagram-v2", "classDiagram", "stateDiagram-v2", "stateDiagram", "erDiagram",
    "gantt", "pie", "journey", "gitGraph", "mindmap", "timeline", "quadrantChart", "requirementDiagram",
    "C4Context", "C4Container", "C4Component", "C4Dynamic", "C4Deployment", "sankey-beta", "sankey",
    "xychart-beta", "xychart", "block-beta", "block", "packet-beta", "packet", "kanban", "architecture-beta",
    "architecture", "radar-beta", "treemap-beta", "treemap", "zenuml", "info",
)
_HEADER = re.compile(r"(?P<kw>flowchart-elk|flowchart|graph)(?![\w-])[ \t]*(?P<dir>TB|TD|BT|RL|LR|[<>^v])?(?![\w])")
_OLD_DIRECTIONS = {">": "LR", "<": "RL", "^": "BT", "v": "TB"}
_FRONT_MATTER = re.compile(r"\A\s*---[ \t]*\n(.*?)\n[ \t]*---[ \t]*(?:\n|\Z)", re.S)
_DIRECTIVE = re.compile(r"%%\{.*?\}%%", re.S)
_SKIP_KEYWORDS = {"style", "classDef", "class", "linkStyle", "click", "direction", "accTitle", "accDescr"}

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
class _Link:
    stroke: str
    head: str
    bidirectional: bool
    label: str = ""
    edge_id: str = ""
    invisible: bool = False


@dataclass
class _NodeRef:
    node_id: str
    label: str | None  # None: no shape/label given here


class _ParseError(Exception):
    def __init__(self, pos: int, message: str):
        self.pos = pos
        self.message = message
        super().__init__(message)


class _Scanner:
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
            raise _ParseError(self.pos, "unterminated quoted text")
        text = self.src[self.pos + 1 : end]
        self.pos = end + 1
        return text

    def read_shape(self) -> str | None:
        """Label of a node shape starting at the scanner, or ``None`` when no shape starts here."""
        for opener, closers in _SHAPES:
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
        raise _ParseError(start, f"node shape {opener!r} is not closed by {' or '.join(map(repr, closers))}")

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
            raise _ParseError(start, "'@{' is not closed by '}'")
        body = src[start + 2 : i]
        self.pos = i + 1
        attrs: dict[str, str] = {}
        for m in re.finditer(r"([A-Za-z][\w-]*)\s*:\s*(\"[^\"]*\"|'[^']*'|[^,\n]*)", body):
            attrs[m.group(1)] = _unquote(m.group(2))
        return attrs

    # --- links
    def read_link(self) -> _Link | None:
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
                raise _ParseError(self.pos, "edge label '|' is not closed on its line")
            pipe_label = _clean_label(_unquote(self.src[self.pos + 1 : end]))
            self.pos = end + 1
            link.label = pipe_label or link.label
        else:
            self.pos = save
        return link

    def _read_link_body(self) -> _Link | None:
        src, pos = self.src, self.pos
        if m := _INVISIBLE.match(src, pos):
            self.pos = m.end()
            return _Link("invisible", "open", False, invisible=True)
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
            if head in ("o", "x") and m.end() < len(src) and _Scanner._id_char(src[m.end()]):
                text_link = self._read_text_link()
                if text_link is not None:
                    return text_link
                self.pos = pos
            self.pos = m.end()
            return _Link(stroke, _HEADS[head], bool(m.group("s")) and bool(head))
        return self._read_text_link()

    def _read_text_link(self) -> _Link | None:
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
                        if not (e.groupdict().get("h") in ("o", "x") and e.end() < stmt_end
                                and _Scanner._id_char(src[e.end()]))
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
            return _Link(stroke, _HEADS[head], bool(m.group("s")) and bool(head), label=_clean_label(text))
        return None


# ---------------------------------------------------------------------------------------------
# parser


class _Parser:
    def __init__(self, body: str, offset: int, *, path: str | None, field_name: str, strict: bool):
        self.sc = _Scanner(body, offset)
        self.path = path
        self.field = field_name
        self.strict = strict
        self.chart = Flowchart()
        self.explicit: set[str] = set()  # nodes given a label somewhere
        self.stack: list[str] = []  # open subgraphs
        self.edge_ids: set[str] = set()

    # --- errors
    def _where(self, pos: int) -> tuple[int, int]:
        src = self.sc.src
        line = src.count("\n", 0, pos) + 1
        col = pos - (src.rfind("\n", 0, pos) + 1) + 1
        return line, col

    def _line_text(self, pos: int) -> str:
        src = self.sc.src
        a = src.rfind("\n", 0, pos) + 1
        b = src.find("\n", pos)
        return src[a : len(src) if b < 0 else b].strip()

    def error(self, pos: int, message: str) -> MalformedInputError:
        line, col = self._where(pos)
        return MalformedInputError(f"line {line}, column {col}: {message}", path=self.path, field=self.field)

    # --- driver
    def parse(self) -> Flowchart:
        sc = self.sc
        while True:
            sc.skip_ws()
            if sc.eof():
                break
            if sc.peek() in "\n;":
                sc.pos += 1
                continue
            start = sc.pos
            try:
                self.statement()
            except _ParseError as exc:
                if self.strict:
                    raise self.error(exc.pos, f"{exc.message} in {self._line_text(exc.pos)!r}") from None
                line, _ = self._where(start)
                self.chart.skipped.append(f"line {line}: {self._line_text(start)}")
                sc.pos = start
                sc.skip_to_eol()
        if self.stack and self.strict:
            raise self.error(len(sc.src), f"subgraph {self.stack[-1]!r} is not closed by 'end'")
        self.finish()
        return self.chart

    def statement(self) -> None:
        sc = self.sc
        word = sc.peek_word()
        after = sc.src[sc.pos + len(word) : sc.pos + len(word) + 1] if word else ""
        ends_word = after == "" or after in " \t\n;:{"
        if word == "subgraph" and ends_word:
            sc.pos += len(word)
            self.open_subgraph()
            return
        if word == "end" and ends_word and after != ":" and after != "{":
            sc.pos += len(word)
            if not self.stack:
                raise _ParseError(sc.pos - 3, "'end' without an open subgraph")
            self.stack.pop()
            self.expect_separator()
            return
        if word in _SKIP_KEYWORDS and ends_word:
            if word == "accDescr" and sc.src[sc.pos + len(word) :].lstrip(" \t").startswith("{"):
                close = sc.src.find("}", sc.pos)
                sc.pos = len(sc.src) if close < 0 else close + 1
            else:
                sc.skip_to_eol(stop_at_semicolon=word in ("style", "classDef", "class", "linkStyle"))
            return
        if (m := re.match(r"([A-Za-z_][\w-]*)@\{", sc.src[sc.pos :])) and m.group(1) in self.edge_ids:
            sc.pos += len(m.group(1))
            sc.read_attributes()  # edge properties (animation, curve): not content
            self.expect_separator()
            return
        self.chain()

    def expect_separator(self) -> None:
        sc = self.sc
        sc.skip_ws()
        if not sc.at_separator():
            raise _ParseError(sc.pos, f"unexpected {sc.context()!r}")

    def open_subgraph(self) -> None:
        sc = self.sc
        sc.skip_ws()
        raw = sc.rest_of_line().strip().rstrip(";").strip()
        if not raw:
            raise _ParseError(sc.pos, "subgraph without an id or title")
        if m := re.fullmatch(r"([^\s\[\]\"]+)\s*\[(.*)\]", raw):
            sub_id, title = m.group(1), _clean_label(_unquote(m.group(2)))
        elif len(raw) >= 2 and raw[0] == raw[-1] == '"':
            sub_id = title = _clean_label(raw[1:-1])
        else:
            sub_id, title = raw, _clean_label(raw)
        self.chart.subgraphs.setdefault(sub_id, [])
        self.chart.subgraph_titles[sub_id] = title or sub_id
        if self.stack:
            self.chart.subgraph_parents[sub_id] = self.stack[-1]
        self.stack.append(sub_id)

    # --- node groups and chains
    def node(self) -> _NodeRef | None:
        sc = self.sc
        start = sc.pos
        node_id = sc.read_id()
        if node_id is None:
            return None
        label: str | None = None
        if sc.peek(2) == "@{":
            attrs = sc.read_attributes()
            if "label" in attrs:
                label = attrs["label"]
        else:
            save = sc.pos
            sc.skip_ws()
            nxt = sc.peek()
            if nxt in "[({" or (nxt == ">" and sc.pos == save):
                label = sc.read_shape()
            else:
                sc.pos = save
        if sc.peek(3) == ":::":
            sc.pos += 3
            if sc.read_id() is None:
                raise _ParseError(sc.pos, "':::' without a class name")
        if node_id in ("end", "subgraph"):
            raise _ParseError(start, f"{node_id!r} is a keyword, not a node id")
        return _NodeRef(node_id, None if label is None else _clean_label(label))

    def group(self) -> list[_NodeRef] | None:
        sc = self.sc
        first = self.node()
        if first is None:
            return None
        refs = [first]
        while True:
            save = sc.pos
            sc.skip_ws()
            if sc.peek() != "&":
                sc.pos = save
                return refs
            sc.pos += 1
            sc.skip_ws()
            nxt = self.node()
            if nxt is None:
                raise _ParseError(sc.pos, "expected a node after '&'")
            refs.append(nxt)

    def chain(self) -> None:
        sc = self.sc
        groups: list[list[_NodeRef]] = []
        links: list[_Link] = []
        first = self.group()
        if first is None:
            raise _ParseError(sc.pos, f"expected a node id, got {sc.context()!r}")
        groups.append(first)
        while True:
            sc.skip_ws()
            if sc.at_separator():
                break
            link = sc.read_link()
            if link is None:
                raise _ParseError(sc.pos, f"expected a link or the end of the statement, got {sc.context()!r}")
            sc.skip_ws()
            target = self.group()
            if target is None:
                raise _ParseError(sc.pos, f"expected a node after the link, got {sc.context()!r}")
            links.append(link)
            groups.append(target)
        self.commit(groups, links)

    def commit(self, groups: list[list[_NodeRef]], links: list[_Link]) -> None:
        chart = self.chart
        for refs in groups:
            for ref in refs:
                if ref.node_id not in chart.nodes:
                    chart.nodes[ref.node_id] = ref.node_id
                if ref.label is not None:
                    chart.nodes[ref.node_id] = ref.label or ref.node_id
                    self.explicit.add(ref.node_id)
                for sub_id in self.stack:
                    members = chart.subgraphs[sub_id]
                    if ref.node_id not in members:
                        members.append(ref.node_id)
        for k, link in enumerate(links):
            if link.edge_id:
                self.edge_ids.add(link.edge_id)
            if link.invisible:
                continue
            for src in groups[k]:
                for dst in groups[k + 1]:
                    pairs = [(src.node_id, dst.node_id)]
                    if link.bidirectional:
                        pairs.append((dst.node_id, src.node_id))
                    for a, b in pairs:
                        chart.edges.append(
                            FlowEdge(
                                source=a,
                                target=b,
                                label=link.label,
                                edge_id=link.edge_id,
                                stroke=link.stroke,
                                head=link.head,
                                bidirectional=link.bidirectional,
                            )
                        )

    def finish(self) -> None:
        chart = self.chart
        # subgraph ids used as edge ends are subgraphs, not nodes
        for sub_id in chart.subgraphs:
            if sub_id in chart.nodes and sub_id not in self.explicit:
                del chart.nodes[sub_id]
                for members in chart.subgraphs.values():
                    if sub_id in members:
                        members.remove(sub_id)
        for edge in chart.edges:
            edge.source_label = chart.label(edge.source)
            edge.target_label = chart.label(edge.target)


def _unwrap_fence(src: str) -> str:
    stripped = src.lstrip()
    if not (stripped.startswith("```") or stripped.startswith("~~~")):
        return src
    blocks = _fenced_blocks(src)
    mermaid = [content for info, content in blocks if _is_mermaid_info(info)]
    if mermaid:
        return mermaid[0]
    return blocks[0][1] if blocks else src


def _blank(text: str) -> str:
    """``text`` with every character but newlines replaced by spaces (keeps line/column numbers)."""
    return re.sub(r"[^\n]", " ", text)


def parse_mermaid(src: str, *, path: str | None = None, field: str = "mermaid", strict: bool = True) -> Flowchart:
    """Parse Mermaid flowchart source into nodes, labelled edges and subgraphs.

    Args:
        src: Mermaid source (``flowchart TD`` / ``graph LR`` ...), optionally with YAML front
            matter, or a Markdown fence holding it (the first ``mermaid`` fence is used).
        path: file the source came from, named in errors.
        field: field name for errors (default ``"mermaid"``).
        strict: raise on the first statement that does not parse (default); with ``False`` the
            statement is skipped and recorded in :attr:`Flowchart.skipped`.

    Returns:
        A :class:`Flowchart`; ``edges`` may be empty (a flowchart of lone nodes is valid).

    Raises:
        NotAFlowchartError: the source is another Mermaid diagram type (``sequenceDiagram``,
            ``classDiagram``, ...); a subclass of ``MalformedInputError``.
        MalformedInputError: empty source, no ``flowchart``/``graph`` header, a statement that
            does not parse (strict mode; the message gives line and column of the source after
            fence unwrapping), an unclosed subgraph (strict mode), or no node at all.
        TypeError: ``src`` is not a string.

    Source: Mermaid flowchart syntax; paper sections 2.3 (flow-path units) and 5 (nested
    structures missed by regex extraction).
    """
    if not isinstance(src, str):
        raise TypeError(f"parse_mermaid expects str, got {type(src).__name__}")
    text = _unwrap_fence(src).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise MalformedInputError("empty Mermaid source", path=path, field=field)

    title = ""
    if fm := _FRONT_MATTER.match(text):
        for line in fm.group(1).splitlines():
            if m := re.match(r"title\s*:\s*(.*?)\s*$", line):
                title = _clean_label(_unquote(m.group(1)))
        text = _blank(text[: fm.end()]) + text[fm.end() :]
    text = _DIRECTIVE.sub(lambda m: _blank(m.group(0)), text)

    # the header: first non-blank, non-comment content
    sc = _Scanner(text)
    while True:
        sc.skip_ws()
        if sc.peek() == "\n":
            sc.pos += 1
            continue
        break
    if sc.eof():
        raise MalformedInputError("Mermaid source has no diagram header", path=path, field=field)
    m = _HEADER.match(text, sc.pos)
    if m is None:
        word = re.match(r"[\w-]+", text[sc.pos :])
        first = word.group(0) if word else text[sc.pos : sc.pos + 20]
        known = {t.lower(): t for t in _DIAGRAM_TYPES}
        if first.lower() in known:
            raise NotAFlowchartError(
                f"a Mermaid {known[first.lower()]} is not a flowchart",
                diagram_type=known[first.lower()],
                path=path,
                field=field,
            )
        raise MalformedInputError(
            f"expected a 'flowchart' or 'graph' header, got {first!r}", path=path, field=field
        )
    direction = m.group("dir") or "TB"
    direction = _OLD_DIRECTIONS.get(direction, direction)

    parser = _Parser(text, m.end(), path=path, field_name=field, strict=strict)
    chart = parser.parse()
    chart.direction = direction
    chart.title = title
    if not chart.nodes and not chart.edges:
        detail = f"; skipped: {chart.skipped[0]}" if chart.skipped else ""
        raise MalformedInputError(f"flowchart has no nodes{detail}", path=path, field=field)
    return chart


# ---------------------------------------------------------------------------------------------
# writer


_PLAIN_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Words Mermaid reads as keywords, never usable as bare node ids.
_RESERVED_IDS = {"end", "graph", "flowchart", "subgraph", "style", "class", "classDef", "click", "linkStyle", "direction"}


def _quote(text: str) -> str:
    return '"' + " ".join(text.split()).replace("#", "#35;").replace('"', "#quot;") + '"'


def to_mermaid(chart: Flowchart) -> str:
    """Mermaid flowchart source for ``chart``: a front-matter title when it has one, the direction,
    one line per node (its label quoted, ``"`` and ``#`` written as Mermaid entities) and one per edge
    (``A -->|"label"| B``, open links as ``---``). Node ids that are not plain identifiers (``"16"``,
    ``"Box 2"``) become ``n<position>``. :func:`parse_mermaid` reads the result back to the same
    labels and edges (subgraphs and link strokes are not written)."""
    ids: dict[str, str] = {}
    for i, node in enumerate([*chart.nodes, *(e for edge in chart.edges for e in (edge.source, edge.target))]):
        if node not in ids:
            plain = _PLAIN_ID.fullmatch(node) is not None and node not in _RESERVED_IDS
            ids[node] = node if plain else f"n{i}"
    lines = []
    if chart.title:
        lines += ["---", f"title: {_quote(chart.title)}", "---"]
    lines.append(f"flowchart {chart.direction or 'TB'}")
    for node, mid in ids.items():
        lines.append(f"    {mid}[{_quote(chart.label(node))}]")
    for edge in chart.edges:
        link = "---" if edge.head == "open" else "-->"
        label = f"|{_quote(edge.label)}|" if edge.label else ""
        lines.append(f"    {ids[edge.source]} {link}{label} {ids[edge.target]}")
    return "\n".join(lines) + "\n"
