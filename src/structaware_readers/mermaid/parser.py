"""The statement parser of a flowchart's body (:class:`Parser`: nodes, chains, ``&`` groups,
subgraphs, skipped statements) and :func:`parse_mermaid`, which finds the header and front matter
first. The grammar and the decisions are in the package docstring."""

from __future__ import annotations

import re

from structaware_readers.errors import MalformedInputError
from structaware_readers.mermaid.fences import unwrap_fence
from structaware_readers.mermaid.labels import clean_label, unquote
from structaware_readers.mermaid.model import Flowchart, FlowEdge, NotAFlowchartError
from structaware_readers.mermaid.scanner import Link, NodeRef, ParseError, Scanner

__all__ = ["Parser", "parse_mermaid"]

_DIAGRAM_TYPES = (
    "sequenceDiagram",
    "classDiagram-v2",
    "classDiagram",
    "stateDiagram-v2",
    "stateDiagram",
    "erDiagram",
    "gantt",
    "pie",
    "journey",
    "gitGraph",
    "mindmap",
    "timeline",
    "quadrantChart",
    "requirementDiagram",
    "C4Context",
    "C4Container",
    "C4Component",
    "C4Dynamic",
    "C4Deployment",
    "sankey-beta",
    "sankey",
    "xychart-beta",
    "xychart",
    "block-beta",
    "block",
    "packet-beta",
    "packet",
    "kanban",
    "architecture-beta",
    "architecture",
    "radar-beta",
    "treemap-beta",
    "treemap",
    "zenuml",
    "info",
)
_HEADER = re.compile(r"(?P<kw>flowchart-elk|flowchart|graph)(?![\w-])[ \t]*(?P<dir>TB|TD|BT|RL|LR|[<>^v])?(?![\w])")
_OLD_DIRECTIONS = {">": "LR", "<": "RL", "^": "BT", "v": "TB"}
_FRONT_MATTER = re.compile(r"\A\s*---[ \t]*\n(.*?)\n[ \t]*---[ \t]*(?:\n|\Z)", re.S)
_DIRECTIVE = re.compile(r"%%\{.*?\}%%", re.S)
_SKIP_KEYWORDS = {"style", "classDef", "class", "linkStyle", "click", "direction", "accTitle", "accDescr"}


class Parser:
    def __init__(self, body: str, offset: int, *, path: str | None, field_name: str, strict: bool):
        self.sc = Scanner(body, offset)
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
            except ParseError as exc:
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
                raise ParseError(sc.pos - 3, "'end' without an open subgraph")
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
            raise ParseError(sc.pos, f"unexpected {sc.context()!r}")

    def open_subgraph(self) -> None:
        sc = self.sc
        sc.skip_ws()
        raw = sc.rest_of_line().strip().rstrip(";").strip()
        if not raw:
            raise ParseError(sc.pos, "subgraph without an id or title")
        if m := re.fullmatch(r"([^\s\[\]\"]+)\s*\[(.*)\]", raw):
            sub_id, title = m.group(1), clean_label(unquote(m.group(2)))
        elif len(raw) >= 2 and raw[0] == raw[-1] == '"':
            sub_id = title = clean_label(raw[1:-1])
        else:
            sub_id, title = raw, clean_label(raw)
        self.chart.subgraphs.setdefault(sub_id, [])
        self.chart.subgraph_titles[sub_id] = title or sub_id
        if self.stack:
            self.chart.subgraph_parents[sub_id] = self.stack[-1]
        self.stack.append(sub_id)

    # --- node groups and chains
    def node(self) -> NodeRef | None:
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
                raise ParseError(sc.pos, "':::' without a class name")
        if node_id in ("end", "subgraph"):
            raise ParseError(start, f"{node_id!r} is a keyword, not a node id")
        return NodeRef(node_id, None if label is None else clean_label(label))

    def group(self) -> list[NodeRef] | None:
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
                raise ParseError(sc.pos, "expected a node after '&'")
            refs.append(nxt)

    def chain(self) -> None:
        sc = self.sc
        groups: list[list[NodeRef]] = []
        links: list[Link] = []
        first = self.group()
        if first is None:
            raise ParseError(sc.pos, f"expected a node id, got {sc.context()!r}")
        groups.append(first)
        while True:
            sc.skip_ws()
            if sc.at_separator():
                break
            link = sc.read_link()
            if link is None:
                raise ParseError(sc.pos, f"expected a link or the end of the statement, got {sc.context()!r}")
            sc.skip_ws()
            target = self.group()
            if target is None:
                raise ParseError(sc.pos, f"expected a node after the link, got {sc.context()!r}")
            links.append(link)
            groups.append(target)
        self.commit(groups, links)

    def commit(self, groups: list[list[NodeRef]], links: list[Link]) -> None:
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


def _blank(text: str) -> str:
    """``text`` with every character but newlines replaced by spaces (keeps line/column numbers)."""
    return re.sub(r"[^\n]", " ", text)


def parse_mermaid(src: str, *, path: str | None = None, field: str = "mermaid", strict: bool = True) -> Flowchart:
    """Parse Mermaid flowchart source (optionally with YAML front matter, or in a Markdown fence) into nodes, labelled
    edges and subgraphs; ``strict=False`` skips a statement that does not parse and records it in
    :attr:`Flowchart.skipped`. Raises ``NotAFlowchartError`` (another diagram type), ``MalformedInputError`` (no
    header, a bad statement in strict mode with line and column, no node), ``TypeError``.
    """
    if not isinstance(src, str):
        raise TypeError(f"parse_mermaid expects str, got {type(src).__name__}")
    text = unwrap_fence(src).replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        raise MalformedInputError("empty Mermaid source", path=path, field=field)

    title = ""
    if fm := _FRONT_MATTER.match(text):
        for line in fm.group(1).splitlines():
            if m := re.match(r"title\s*:\s*(.*?)\s*$", line):
                title = clean_label(unquote(m.group(1)))
        text = _blank(text[: fm.end()]) + text[fm.end() :]
    text = _DIRECTIVE.sub(lambda m: _blank(m.group(0)), text)

    # the header: first non-blank, non-comment content
    sc = Scanner(text)
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
        raise MalformedInputError(f"expected a 'flowchart' or 'graph' header, got {first!r}", path=path, field=field)
    direction = m.group("dir") or "TB"
    direction = _OLD_DIRECTIONS.get(direction, direction)

    parser = Parser(text, m.end(), path=path, field_name=field, strict=strict)
    chart = parser.parse()
    chart.direction = direction
    chart.title = title
    if not chart.nodes and not chart.edges:
        detail = f"; skipped: {chart.skipped[0]}" if chart.skipped else ""
        raise MalformedInputError(f"flowchart has no nodes{detail}", path=path, field=field)
    return chart
