"""The unit builder: a parsed document's blocks -> structure-aware evidence units.

Source: the reference paper, section 2.3 ("we traverse each page's typed elements in reading order,
tracking the most recent heading as the running section context, and emit one unit per structural
element in a single linear pass"), with the fixes for the weaknesses the paper names itself
(sections 4.3, 4.5, 5):

* **section** units: the paragraphs under a heading, with context ``Section: A > B > C`` (the whole
  heading path, not only the last heading). A long section is split at paragraph boundaries into
  parts of at most ``UnitOptions.max_section_chars`` characters (a single paragraph longer than that is
  split at sentence ends), so a unit stays focused instead of diluting its gold paragraph.
* **table_row** units: one per body row, rendered ``header: value, header: value`` with multi-row
  headers joined (``Dose / Adults``); context = ``Table: <caption> | Columns: h1; h2 | Section: <path>``.
  A full-width group row (one value spanning all columns) or a label-only row (first cell only) is
  not a unit of its own: its label is carried into the context of the rows below it
  (``Group: <label>``). In a mostly numeric table, leading number-free body rows are header lines the
  parser left in the body (a two-line header) and join the header. A table the parser left as
  space-aligned text (MinerU's flash tier on borderless tables: no grid) stays section text by
  default; with ``UnitOptions(text_table_rows=True)`` it gives one row unit per line with a label and
  a number (``Net income: $8,649, $11,948``, wrapped labels joined), its header lines as ``Columns:``
  (a trade-off measured in BENCHMARKS.md: less context, better page hits under a budget, lower
  Page Hit@5 without one).
* **flow_path** units: one per directed edge of a Mermaid flowchart, ``A -(label)-> B``; context =
  ``Flowchart: <figure title> | Section: <path>``. Node labels in any language.
* **recommendation** units: a paragraph or list item that carries an evidence grade or explicit
  recommendation wording (:mod:`structaware_readers.grades`), with the grade parsed into ``Unit.grade``;
  context = the parent section. Such paragraphs are *not* repeated inside the section unit.
* **figure** units (our addition): a figure's caption plus any text the parser read inside it, so a
  question about a figure lands on the figure element; a flowchart whose Mermaid source cannot be
  parsed falls back to a figure unit.

Decisions for the other element kinds: lists join their section (one line per item), except graded
items, which become recommendation units; equations, code, footnotes, references and stand-alone
captions join their section as text. Page furniture (headers, footers, page numbers, asides) never
becomes unit text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import takewhile

from pydantic import BaseModel, Field

from structaware_readers import grades, ids
from structaware_readers.errors import EmptyDocumentError, MalformedInputError
from structaware_readers.models import (
    BBox,
    Block,
    BlockKind,
    FlowEdgeInfo,
    Grade,
    ParsedDocument,
    TableGrid,
    TableRowInfo,
    Unit,
    UnitType,
)

_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*")
_TITLE_MAX_CHARS = 160


def _title(caption: str) -> str:
    """A caption shortened for a context string: its first sentence, at most 160 characters.

    Parsers sometimes glue a following paragraph onto a caption; the context must stay a title.
    """
    caption = " ".join(caption.split())
    if len(caption) <= _TITLE_MAX_CHARS:
        return caption
    first = ""
    for piece in _SENTENCE_END.split(caption):  # "Figure 1." alone is a label, not a title
        first = f"{first} {piece}".strip()
        if len(first) >= 24:
            break
    if len(first) > _TITLE_MAX_CHARS:
        first = caption[:_TITLE_MAX_CHARS].rsplit(" ", 1)[0]
    return first.rstrip()


class UnitOptions(BaseModel):
    """Settings of :func:`build_units` (lengths in characters)."""

    max_section_chars: int = Field(1000, ge=100, description="split a section into parts of at most this size")
    figure_units: bool = Field(True, description="emit figure units for captioned or text-bearing figures")
    recommendation_units: bool = Field(True, description="split graded paragraphs out of sections")
    include_context: bool = Field(True, description="False gives empty contexts (the paper's 4.4 ablation)")
    text_table_rows: bool = Field(
        False,
        description=(
            "one row unit per line of a table the parser left as space-aligned text (no grid); off: the"
            " table stays one section text. Measured on OHR-Bench (BENCHMARKS.md): -26% context and"
            " +0.08 page hit at a 1,000-character budget, but -0.03 Page Hit@5 with unlimited context"
        ),
    )


@dataclass
class _Part:
    """A piece of text taken from one block, with the block's provenance."""

    text: str
    block: Block


@dataclass
class _Builder:
    doc: ParsedDocument
    options: UnitOptions
    units: list[Unit] = field(default_factory=list)
    path: list[tuple[int, Block]] = field(default_factory=list)  # heading stack (level, block)
    pending: list[_Part] = field(default_factory=list)  # section parts since the last heading
    pending_heading: Block | None = None  # heading not yet attached to a section unit
    extras: list[str] = field(default_factory=list)  # id discriminator per unit (row/edge index)
    keys: list[int] = field(default_factory=list)  # reading-order position of each unit's first block
    position: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.position = {b.block_id: i for i, b in enumerate(self.doc.blocks)}

    # -- helpers ---------------------------------------------------------------------------
    @property
    def section_path(self) -> list[str]:
        return [b.text.strip() for _, b in self.path if b.text.strip()]

    def _section_context(self) -> str:
        path = self.section_path
        return f"Section: {' > '.join(path)}" if path else ""

    def _emit(
        self,
        unit_type: UnitType,
        text: str,
        context: str,
        blocks: list[Block],
        *,
        pages: list[int] | None = None,
        grade: Grade | None = None,
        table: TableRowInfo | None = None,
        flow: FlowEdgeInfo | None = None,
        extra: str = "",
        refs: list[tuple[str, BBox | None, int]] | None = None,
    ) -> None:
        """Append a unit; ``refs`` overrides the (element id, bbox, page) taken from ``blocks``."""
        text = text.strip()
        if not text:
            return
        element_ids: list[str] = []
        bboxes: list[BBox | None] = []
        element_pages: list[int] = []
        for eid, box, page in refs or [(b.block_id, b.bbox, b.page) for b in blocks]:
            if eid in element_ids:
                continue
            element_ids.append(eid)
            bboxes.append(box)
            element_pages.append(page)
        if pages is None:
            page_set = {b.page for b in blocks}
            for b in blocks:
                page_set.update(b.extra_pages)
            pages = sorted(page_set)
        self.units.append(
            Unit(
                unit_id="",  # assigned by finalize() once units are in reading order
                unit_type=unit_type,
                text=text,
                context=context if self.options.include_context else "",
                doc_id=self.doc.doc_id,
                doc_name=self.doc.name,
                source=self.doc.source,
                pages=pages,
                element_ids=element_ids,
                bboxes=bboxes,
                element_pages=element_pages,
                section_path=self.section_path,
                grade=grade,
                table=table,
                flow=flow,
            )
        )
        self.extras.append(extra)
        self.keys.append(min(self.position[b.block_id] for b in blocks))

    def finalize(self) -> list[Unit]:
        """Order units by their first element's reading-order position, then assign ordinals and ids.

        A recommendation is emitted as soon as it is met while its section waits for the next
        heading; sorting (stable) restores document order, so PREVIOUS/NEXT links follow the page.
        """
        order = sorted(range(len(self.units)), key=lambda i: self.keys[i])
        final: list[Unit] = []
        for ordinal, i in enumerate(order):
            unit = self.units[i]
            unit.ordinal = ordinal
            unit.unit_id = ids.unit_id(
                self.doc.doc_id, unit.unit_type.value, ordinal, unit.element_ids, self.extras[i]
            )
            final.append(unit)
        return final

    # -- sections --------------------------------------------------------------------------
    def flush_section(self) -> None:
        """Emit the pending paragraphs as one or more section units, split at paragraph ends."""
        if not self.pending:
            return
        context = self._section_context()
        limit = self.options.max_section_chars
        group: list[_Part] = []
        size = 0
        heading = self.pending_heading
        for part in self._split_long(self.pending, limit):
            if group and size + len(part.text) + 1 > limit:
                self._emit_section(group, context, heading)
                heading = None
                group, size = [], 0
            group.append(part)
            size += len(part.text) + 1
        if group:
            self._emit_section(group, context, heading)
        self.pending = []
        self.pending_heading = None

    def _emit_section(self, parts: list[_Part], context: str, heading: Block | None) -> None:
        blocks = ([heading] if heading is not None else []) + [p.block for p in parts]
        self._emit(UnitType.SECTION, "\n".join(p.text for p in parts), context, blocks)

    @staticmethod
    def _split_long(parts: list[_Part], limit: int) -> Iterator[_Part]:
        for part in parts:
            if len(part.text) <= limit:
                yield part
                continue
            piece = ""
            for sentence in _SENTENCE_END.split(part.text):
                if piece and len(piece) + len(sentence) + 1 > limit:
                    yield _Part(piece.strip(), part.block)
                    piece = ""
                piece = f"{piece} {sentence}" if piece else sentence
            if piece.strip():
                yield _Part(piece.strip(), part.block)

    # -- block handlers --------------------------------------------------------------------
    def on_heading(self, block: Block) -> None:
        self.flush_section()
        level = block.level or 1
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, block))
        self.pending_heading = block

    def on_text(self, block: Block, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if self.options.recommendation_units:
            grade = grades.detect_grade(text)
            if grade is not None or grades.is_recommendation(text):
                self._emit(UnitType.RECOMMENDATION, text, self._section_context(), [block], grade=grade)
                return
        self.pending.append(_Part(text, block))

    def on_list(self, block: Block) -> None:
        items = block.items or [line for line in block.text.splitlines() if line.strip()]
        for item in items:
            self.on_text(block, item)

    def on_table(self, block: Block) -> None:
        grid = block.table
        if grid is None or not (grid.body_rows or grid.header_rows):
            if not (self.options.text_table_rows and self._on_text_table(block)):
                # a table the parser could not structure at all: keep its text in the section
                self.on_text(block, "\n".join(t for t in (block.caption, block.text, block.footnote) if t))
            return
        self.flush_section()
        grid = _repair_header(grid)
        headers = grid.column_headers()
        rows = grid.body_rows or grid.header_rows
        caption = block.caption.strip()
        head = f"Table: {_title(caption)}" if caption else "Table"
        base_context = " | ".join(
            s for s in (head, f"Columns: {'; '.join(headers)}", self._section_context()) if s
        )
        group = ""
        for i, row in enumerate(rows):
            cells = [c.strip() for c in row]
            non_empty = [c for c in cells if c]
            if not non_empty:
                continue
            if len(cells) > 1 and len(set(non_empty)) == 1 and len(non_empty) == len(cells):
                group = non_empty[0]  # a full-width group row labels the rows below it
                continue
            if len(cells) > 2 and len(non_empty) == 1 and cells[0] and not _NUMBER.search(cells[0]):
                group = cells[0]  # a label-only row ("Loans reported as trading assets:") heads a group
                continue
            pairs = [f"{h}: {c}" for h, c in zip(headers, cells) if c]
            text = ", ".join(pairs)
            context = f"{base_context} | Group: {group}" if group else base_context
            page = grid.body_row_pages[i] if i < len(grid.body_row_pages) else None
            self._emit(
                UnitType.TABLE_ROW,
                text,
                context,
                [block],
                pages=[page] if page else None,
                refs=[_row_element(block, page)] if page else None,
                grade=grades.detect_grade(text),
                table=TableRowInfo(
                    table_id=block.block_id, row_index=i, headers=headers, cells=cells, caption=caption
                ),
                extra=f"row{i}",
            )

    def _on_text_table(self, block: Block) -> bool:
        """Rows of a table the parser left as space-aligned text (MinerU flash on borderless tables).

        A line with a label and at least one number is a row: cells are split at runs of two or more
        spaces, the row text is ``label: value, value``; lines before the first row form the column
        header context; a label-only line after that heads a group. Returns False (nothing emitted)
        when fewer than two lines look like rows: the text then stays in its section.
        """
        lines = [line for line in block.text.splitlines() if line.strip()]
        parsed = [_text_row(line) for line in lines]
        if sum(1 for row in parsed if row is not None and _is_data_row(row)) < 2:
            return False
        self.flush_section()
        caption = block.caption.strip()
        header: list[str] = []
        group = ""
        section = self._section_context()
        seen_data = False
        pending: list[str] = []  # number-free lines since the last row
        for i, (line, row) in enumerate(zip(lines, parsed)):
            if row is None or not _is_data_row(row):
                text = " ".join(line.split())
                if seen_data and row is not None:
                    header, group, pending = [text], "", []  # a new header line starts a new block of columns
                else:
                    pending.append(text)
                continue
            label, values = row
            # a label wrapped over several lines: "Nonaccrual loans" / "retained(a)  $ 842  $ 689"
            while pending and (label[:1].islower() or label[:1] == "(" or pending[-1].endswith(("-", "/"))):
                prefix = pending.pop()
                label = f"{prefix}{'' if prefix.endswith('-') else ' '}{label}"
            if not seen_data:
                header = header + pending  # column header lines ("Three months ended June 30,", "2022 2021")
            elif pending:
                group = pending[-1]  # a label-only line heads the rows below it
            pending = []
            seen_data = True
            head = f"Table: {_title(caption)}" if caption else "Table"
            columns = f"Columns: {' / '.join(header)}" if header else ""
            context = " | ".join(x for x in (head, columns, section, f"Group: {group}" if group else "") if x)
            self._emit(
                UnitType.TABLE_ROW,
                f"{label}: {', '.join(values)}" if label else ", ".join(values),
                context,
                [block],
                table=TableRowInfo(
                    table_id=block.block_id, row_index=i, headers=header, cells=[label, *values], caption=caption
                ),
                extra=f"line{i}",
            )
        return True

    def on_flowchart(self, block: Block) -> None:
        from structaware_readers.mermaid import parse_mermaid

        try:
            # lenient: one bad line from a vision model must not lose the whole chart
            chart = parse_mermaid(block.mermaid or "", path=self.doc.source, strict=False)
        except MalformedInputError:
            self.on_figure(block)
            return
        if not chart.edges:
            self.on_figure(block)
            return
        # the figure's caption, else the Mermaid front-matter title; never the source's first line
        title = _title(block.caption.strip()) if block.caption.strip() else chart.title
        self.flush_section()
        head = f"Flowchart: {title}" if title else "Flowchart"
        context = " | ".join(s for s in (head, self._section_context()) if s)
        for j, edge in enumerate(chart.edges):
            label = f" -({edge.label})-> " if edge.label else " -> "
            text = f"{edge.source_label}{label}{edge.target_label}"
            self._emit(
                UnitType.FLOW_PATH,
                text,
                context,
                [block],
                flow=FlowEdgeInfo(
                    flowchart_id=block.block_id,
                    source=edge.source_label,
                    target=edge.target_label,
                    label=edge.label,
                    title=title,
                ),
                extra=f"edge{j}",
            )

    def on_figure(self, block: Block) -> None:
        if not self.options.figure_units:
            return
        caption = block.caption.strip()
        body = block.text.strip()
        if not caption and not body:
            return
        self.flush_section()
        head = f"Figure: {_title(caption)}" if caption else "Figure"
        context = " | ".join(s for s in (head, self._section_context()) if s)
        self._emit(UnitType.FIGURE, "\n".join(t for t in (caption, body) if t), context, [block])


_NUMBER = re.compile(r"\d")
_CELL_SPLIT = re.compile(r"\s{2,}|\t")
_CURRENCY = {"$", "€", "£", "¥", "%", "¢"}


def _text_row(line: str) -> tuple[str, list[str]] | None:
    """``(label, values)`` for a space-aligned table line with at least one number, else None."""
    cells = [c.strip() for c in _CELL_SPLIT.split(line.strip()) if c.strip()]
    merged: list[str] = []
    for cell in cells:  # "$   8,649" -> "$8,649"
        if merged and merged[-1] in _CURRENCY:
            merged[-1] = merged[-1] + cell
        else:
            merged.append(cell)
    if not any(_NUMBER.search(c) for c in merged):
        return None
    label_cells = list(takewhile(lambda c: not _NUMBER.search(c), merged))
    return " ".join(label_cells), merged[len(label_cells):]


_YEAR = re.compile(r"(?:19|20)\d\d")


def _is_data_row(row: tuple[str, list[str]]) -> bool:
    """A labelled line with a value that is not a bare year (year-only lines are column headers)."""
    label, values = row
    return bool(label) and any(not _YEAR.fullmatch(v.strip("()$% ,")) for v in values)


def _repair_header(grid: TableGrid) -> TableGrid:
    """Move leading number-free body rows into the header of a mostly numeric table.

    Parsers often take only the first line of a two-line header (``"Three months ended"`` over
    ``"2022 | 2021"``); when most body rows carry numbers, leading rows with none are header rows.
    """
    body = grid.body_rows
    numeric = sum(1 for row in body if any(_NUMBER.search(c) for c in row[1:]))
    if not grid.header_rows or len(body) < 3 or numeric < len(body) / 2:
        return grid
    k = 0
    while k < len(body) - 1 and not any(_NUMBER.search(c) for c in body[k]):
        distinct = {c.strip() for c in body[k] if c.strip()}
        if len(distinct) < 2:  # a group label row or an empty row, not a header line
            break
        k += 1
    if k == 0:
        return grid
    pages = grid.body_row_pages[k:] if grid.body_row_pages else []
    return TableGrid(header_rows=grid.header_rows + body[:k], body_rows=body[k:], body_row_pages=pages)


def _row_element(block: Block, page: int) -> tuple[str, BBox | None, int]:
    """The element a table row sits in: the table itself, or the continuation part on ``page``."""
    if page != block.page and page in block.extra_pages:
        k = block.extra_pages.index(page)
        eid = block.extra_ids[k] if k < len(block.extra_ids) else block.block_id
        return eid, block.extra_bboxes[k] if k < len(block.extra_bboxes) else None, page
    return block.block_id, block.bbox, block.page


def build_units(doc: ParsedDocument, options: UnitOptions | None = None) -> list[Unit]:
    """Build the structure-aware evidence units of ``doc`` (paper section 2.3).

    Args:
        doc: a parsed document whose ``blocks`` are in reading order.
        options: :class:`UnitOptions`; defaults are used when ``None``.

    Returns:
        Units in document order; ``Unit.ordinal`` is the position in this list, and ids are
        deterministic (the same document bytes give the same ids).

    Raises:
        EmptyDocumentError: the document has no body block with text, so no unit can be built.
    """
    options = options or UnitOptions()
    builder = _Builder(doc=doc, options=options)
    for block in doc.body_blocks():
        kind = block.kind
        if kind is BlockKind.HEADING:
            builder.on_heading(block)
        elif kind is BlockKind.TABLE:
            builder.on_table(block)
        elif kind is BlockKind.FLOWCHART:
            builder.on_flowchart(block)
        elif kind is BlockKind.FIGURE:
            builder.on_figure(block)
        elif kind is BlockKind.LIST:
            builder.on_list(block)
        elif kind is BlockKind.CAPTION:
            builder.on_text(block, block.text)
        else:  # paragraph, equation, code, footnote, reference
            builder.on_text(block, block.text)
    builder.flush_section()
    if not builder.units:
        # a document made only of headings still yields units: one per heading
        for block in doc.body_blocks():
            if block.kind is BlockKind.HEADING and block.text.strip():
                builder._emit(UnitType.SECTION, block.text, "", [block])
    if not builder.units:
        raise EmptyDocumentError("no body text to build units from", path=doc.source, field="blocks")
    return builder.finalize()
