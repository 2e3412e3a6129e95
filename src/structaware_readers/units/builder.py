"""The pass over a document's body blocks in reading order: section units, the heading path, ids.

Source: the reference paper, section 2.3; see the package docstring for every unit kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from structaware_readers import ids
from structaware_readers.errors import EmptyDocumentError
from structaware_readers.grades.document import DocumentGrading, profile_document
from structaware_readers.models import (
    NON_EVIDENCE_TYPES,
    BBox,
    Block,
    BlockKind,
    FlowEdgeInfo,
    Grade,
    ParsedDocument,
    TableRowInfo,
    Unit,
    UnitType,
)
from structaware_readers.structure.false_headings import false_heading_kind
from structaware_readers.units.abbreviations import attach_expansions
from structaware_readers.units.boxed_text import close_box, is_box_label, open_box
from structaware_readers.units.common import sentences
from structaware_readers.units.context import SectionPart
from structaware_readers.units.discussion import Discussion
from structaware_readers.units.figures import emit_figure
from structaware_readers.units.filing_cover import read_filing_cover
from structaware_readers.units.flowcharts import emit_flowchart
from structaware_readers.units.grade_marks import grade_context
from structaware_readers.units.options import UnitOptions
from structaware_readers.units.recommendations import add_element, emit_if_recommendation, takes_body
from structaware_readers.units.repeated_statements import merge_repeated
from structaware_readers.units.table_rows import emit_table

#: Parser element types that are already chunks of several elements (Unstructured
#: ``chunk_by_title`` output read without ``orig_elements``): one unit each.
PARSER_CHUNKS = frozenset({"CompositeElement"})


#: A table's label at the start of a title: ``Table 1``, ``TABLE 2-3``, ``Tab. A.1``, ``表 1``, ``表2``.
_TABLE_LABEL = re.compile(r"^(?:table|tab\.)\s*[A-Z]?\d+(?:[.\-–]\d+)*\b|^表\s*[A-Z]?\d+", re.IGNORECASE)
#: Longest lead-in sentence (characters, ending with ``:``) read as a table's title.
LEAD_IN_CHARS = 300
#: Longest title line (characters, no sentence end) read as a table's title.
LEAD_IN_TITLE_CHARS = 150
#: A heading needs this many letters (any script) to open a section (see :meth:`UnitBuilder.on_heading`).
MIN_HEADING_LETTERS = 2
#: A sentence that says it describes the table after it ("The following table presents goodwill
#: attributed to ...", "... as shown in the table below.").
_DESCRIBES_TABLE = re.compile(r"(?i)\b(?:the following tables?|the tables? below|as follows)\b")
#: A note, source line or footnote before a table is not its title.
_NOT_A_TITLE = re.compile(r"(?i)^(?:notes?|sources?|abbreviations?)\b|^[*†‡]|^\(?[a-z0-9]\)\s")
#: A title names something: a word of two letters or more (``11,171`` or ``(2.5)`` titles nothing).
_HAS_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass
class UnitBuilder:
    """State of one pass over a document's body blocks (paper section 2.3); handlers per block kind
    live in the sibling modules, which receive the builder as their :class:`~.context.EmitContext`
    and call :meth:`emit` and :meth:`flush_section`."""

    doc: ParsedDocument
    options: UnitOptions
    units: list[Unit] = field(default_factory=list)
    path: list[tuple[int, Block]] = field(default_factory=list)  # heading stack (level, block)
    pending: list[SectionPart] = field(default_factory=list)  # section parts since the last heading
    pending_heading: Block | None = None  # heading not yet attached to a section unit
    extras: list[str] = field(default_factory=list)  # id discriminator per unit (row/edge index)
    outlined: list[tuple[int, int]] = field(default_factory=list)  # per unit: start, count of refs not in its id
    links: list[list[int]] = field(default_factory=list)  # per unit: positions of the units it links to
    keys: list[int] = field(default_factory=list)  # reading-order position of each unit's first block
    position: dict[str, int] = field(default_factory=dict)
    grading: DocumentGrading = field(default_factory=DocumentGrading)  # the document's grade signals
    open_rec: bool = False  # the last thing emitted is a recommendation (a grade line may follow)
    previous: Block | None = None  # the body block handled just before the current one
    following: Block | None = None  # the body block after the current one (a grade line may follow a recommendation)
    document: str = ""  # "Document: <filing>" for table row contexts (UnitOptions.document_context)
    discussion: Discussion = field(default_factory=Discussion)  # what a discussion section discusses
    box: Block | None = None  # the heading of an open box (a sidebar label paragraph), see .boxed_text
    aside: list[SectionPart] = field(default_factory=list)  # reference or front matter text since the last flush
    aside_type: UnitType | None = None  # the unit type of ``aside``
    body_block: str = ""  # the block a colon-ended recommendation took as its body (its list's items follow)

    def __post_init__(self) -> None:
        self.grading = profile_document(self.doc)
        self.position = {b.block_id: i for i, b in enumerate(self.doc.blocks)}
        cover = read_filing_cover(self.doc) if self.options.document_context else None
        self.document = f"Document: {cover.label()}" if cover is not None else ""

    # -- helpers ---------------------------------------------------------------------------
    @property
    def section_path(self) -> list[str]:
        return [b.text.strip() for _, b in self.path if b.text.strip()]

    def section_context(self, *, discussed: bool = True) -> str:
        """``Section: A > B`` and, under a discussion heading, the recommendations it discusses
        (:mod:`.discussion`; not with ``discussed=False``, for a recommendation of its own)."""
        path = self.section_path
        section = f"Section: {' > '.join(path)}" if path else ""
        return " | ".join(s for s in (section, self.discussion.context() if discussed else "") if s)

    def emit(
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
        more_refs: list[tuple[str, BBox | None, int]] | None = None,
    ) -> None:
        """Append a unit; ``refs`` overrides the (element id, bbox, page) taken from ``blocks`` (an element once
        per bbox there; once in all from ``blocks``); ``more_refs``: regions outlined too, not in its id."""
        text = text.strip()
        if not text:
            return
        statement, follows = unit_type is UnitType.RECOMMENDATION and table is None, self.open_rec
        if statement and self.discussion.level is not None and not follows and self.pending:
            self.flush_section()  # the text so far discusses earlier statements: its units first, at their own index
        element_ids: list[str] = []
        bboxes: list[BBox | None] = []
        element_pages: list[int] = []
        seen: set[tuple[str, BBox | None]] = set()
        for eid, box, page in refs or [ref for b in blocks for ref in b.element_refs()]:
            # given refs may name one element for several regions (an edge's two boxes)
            key = (eid, box if refs else None)
            if key in seen:
                continue
            seen.add(key)
            element_ids.append(eid)
            bboxes.append(box)
            element_pages.append(page)
        self.outlined.append((len(element_ids), len(more_refs or [])))
        for eid, box, page in more_refs or []:
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
                source_element_ids=list(dict.fromkeys(p for b in blocks for p in b.parser_ids)),
                section_path=self.section_path,
                grade=grade,
                table=table,
                flow=flow,
            )
        )
        if statement:
            self.discussion.on_statement(follows_statement=follows)  # a new group inside a discussion
        self.links.append([] if unit_type in NON_EVIDENCE_TYPES else self.discussion.linked())
        self.open_rec = unit_type is UnitType.RECOMMENDATION
        if statement:
            self.discussion.on_recommendation(text, len(self.units) - 1)
        self.extras.append(extra)
        self.keys.append(min(self.position[b.block_id] for b in blocks))

    def finalize(self) -> list[Unit]:
        """Order units by their first element's reading-order position, then assign ordinals and ids. A
        recommendation is emitted as soon as it is met while its section waits for the next heading; sorting
        (stable) restores document order, so PREVIOUS/NEXT links follow the page."""
        order = sorted(range(len(self.units)), key=lambda i: self.keys[i])
        final: list[Unit] = []
        for ordinal, i in enumerate(order):
            unit = self.units[i]
            unit.ordinal = ordinal
            start, count = self.outlined[i]
            eids = unit.element_ids[:start] + unit.element_ids[start + count :]
            unit.unit_id = ids.unit_id(self.doc.doc_id, unit.unit_type.value, ordinal, eids, self.extras[i])
            final.append(unit)
        for unit, links in zip(self.units, self.links):
            unit.linked_ids = [self.units[j].unit_id for j in links]
        return final

    def lead_in(self, table: Block) -> str:
        """The text that titles ``table`` when the parser gave it no caption: the paragraph just
        before it in reading order (same page or the page before), if it reads as a title (at most
        :data:`LEAD_IN_TITLE_CHARS` characters, no sentence end: ``CONSOLIDATED STATEMENTS OF CASH
        FLOWS``) or as a lead-in sentence (at most :data:`LEAD_IN_CHARS`, ending with ``:`` or saying it
        describes the table: ``... are summarized as follows (in millions):``, ``The following table
        presents goodwill attributed to ...``). Empty otherwise, and for a paragraph without a word
        (a stray figure such as ``11,171`` titles nothing). The paragraph stays section text."""
        prev = self.previous
        if prev is None or prev.kind not in (BlockKind.PARAGRAPH, BlockKind.CAPTION):
            return ""
        if not (prev.page == table.page or prev.page + 1 == table.page or table.page in prev.extra_pages):
            return ""
        text = " ".join(prev.text.split())
        if _NOT_A_TITLE.match(text) or not _HAS_WORD.search(text):
            return ""
        if len(text) <= LEAD_IN_CHARS and (text.endswith(":") or _DESCRIBES_TABLE.search(text)):
            return text
        if len(text) <= LEAD_IN_TITLE_CHARS and not text.endswith((".", "!", "?", "。")):
            return text
        return ""

    # -- sections --------------------------------------------------------------------------
    def flush_section(self) -> None:
        """Emit the pending paragraphs as one or more section units, split at paragraph ends, and the
        pending reference or front matter text as units of their own type."""
        self.flush_aside()
        if not self.pending:
            return
        self._emit_parts(UnitType.SECTION, self.pending, self.pending_heading)
        self.pending = []
        self.pending_heading = None

    def flush_aside(self) -> None:
        """Emit the pending reference or front matter text (``reference`` / ``front_matter`` units,
        split like sections); a heading with no section text yet goes with them."""
        if not self.aside or self.aside_type is None:
            return
        heading = None
        if not self.pending and self.pending_heading is not None:
            heading, self.pending_heading = self.pending_heading, None
        self._emit_parts(self.aside_type, self.aside, heading)
        self.aside = []
        self.aside_type = None

    def _emit_parts(self, unit_type: UnitType, parts: list[SectionPart], heading: Block | None) -> None:
        context = self.section_context()
        limit = self.options.max_section_chars
        group: list[SectionPart] = []
        size = 0
        for part in self._split_long(parts, limit):
            if group and size + len(part.text) + 1 > limit:
                self._emit_group(unit_type, group, context, heading)
                heading = None
                group, size = [], 0
            group.append(part)
            size += len(part.text) + 1
        if group:
            self._emit_group(unit_type, group, context, heading)

    def _emit_group(self, unit_type: UnitType, parts: list[SectionPart], context: str, heading: Block | None) -> None:
        blocks = ([heading] if heading is not None else []) + [p.block for p in parts]
        self.emit(unit_type, "\n".join(p.text for p in parts), context, blocks)

    @staticmethod
    def _split_long(parts: list[SectionPart], limit: int) -> Iterator[SectionPart]:
        for part in parts:
            if len(part.text) <= limit:
                yield part
                continue
            piece = ""
            for sentence in sentences(part.text):  # slices of the text: pieces cut, never rewritten
                if piece.strip() and len(piece.rstrip()) + len(sentence.rstrip()) + 1 > limit:
                    yield SectionPart(piece.strip(), part.block)
                    piece = ""
                piece += sentence
            if piece.strip():
                yield SectionPart(piece.strip(), part.block)

    # -- block handlers --------------------------------------------------------------------
    def on_heading(self, block: Block) -> None:
        """Open a section; a "heading" with fewer than :data:`MIN_HEADING_LETTERS` letters (``$``,
        ``5 $``, ``(1,837) $``, ``31.1``, a rule of underscores: table cells and numbers a parser
        typed as titles) or a person's name is text of the current section instead, not a level of the
        path (:mod:`structaware_readers.structure.false_headings`; a name in a list of people was typed
        FRONT_MATTER by :mod:`structaware_readers.structure.front_matter`); one that is a bibliography entry
        is a ``reference`` unit's text, and a contents line a ``front_matter`` unit's."""
        false_kind = false_heading_kind(block.text)
        if false_kind in _FALSE_HEADING_TYPES:
            self.add_aside(block, block.text, _FALSE_HEADING_TYPES[false_kind])
            return
        if false_kind or sum(ch.isalpha() for ch in block.text) < MIN_HEADING_LETTERS:
            self.on_text(block, block.text)
            return
        self.flush_section()
        level = block.level or 1
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, block))
        self.pending_heading = block
        self.discussion.on_heading(level, block.text)

    def on_text(self, block: Block, text: str) -> None:
        """Section text; a recommendation unit instead when it is one; the text of a ``reference``
        or ``front_matter`` unit for a REFERENCE or FRONT_MATTER block (never a recommendation: a
        bibliography entry or a contents line may quote a grade)."""
        text = text.strip()
        if not text:
            return
        aside = _ASIDE_TYPES.get(block.kind)
        if aside is not None:
            self.add_aside(block, text, aside)
            return
        if self.options.recommendation_units and (
            self.take_body(block, text) or emit_if_recommendation(self, block, text)
        ):
            return
        self.add_section_text(block, text)

    def take_body(self, block: Block, text: str) -> bool:
        """``text`` taken into the recommendation just emitted when that ends with a colon
        (:func:`~.recommendations.takes_body`)."""
        if not (self.open_rec and self.units) or not takes_body(
            self.units[-1], block, text, self.body_block, self.grading
        ):
            return False
        self.body_block = block.block_id
        return True

    def add_section_text(self, block: Block, text: str) -> None:
        """Append ``text`` (from ``block``) to the section being collected."""
        self.flush_aside()
        self.pending.append(SectionPart(text, block))
        self.open_rec = False

    def add_aside(self, block: Block, text: str, unit_type: UnitType) -> None:
        """Append ``text`` (from ``block``) to the pending ``reference`` / ``front_matter`` text, kept
        out of the section so that it never dilutes a section unit."""
        text = text.strip()
        if not text:
            return
        if self.aside_type is not unit_type:
            self.flush_aside()
        self.aside.append(SectionPart(text, block))
        self.aside_type = unit_type
        self.open_rec = False

    def attach_grade_line(self, block: Block, text: str, grade: Grade) -> bool:
        """Attach a text that is only a grade to the ungraded recommendation emitted just before it
        (WHO style: the strength and certainty in the next paragraph); False when there is none."""
        if not (self.open_rec and self.units):
            return False
        unit = self.units[-1]
        if unit.grade is not None and unit.grade.source != "document_default":
            return False
        unit.grade = grade.model_copy(update={"source": "next_paragraph"})
        unit.context = grade_context(unit.context, unit.grade)  # the grade line: metadata, not statement text
        add_element(unit, block)
        return True

    def on_chunk(self, block: Block) -> None:
        """A chunk the parser's own chunker made (and that could not be expanded into its
        elements) stays one unit of its own, in the current section."""
        self.flush_section()
        self.on_text(block, block.text)
        self.flush_section()

    def on_list(self, block: Block) -> None:
        """One part per item: a graded item becomes its own recommendation unit, the others stay
        in the section as separate lines."""
        items = block.items or [line for line in block.text.splitlines() if line.strip()]
        for item in items:
            self.on_text(block, item)


#: False headings (:func:`~structaware_readers.structure.false_headings.false_heading_kind`) that are never evidence.
_FALSE_HEADING_TYPES = {"reference": UnitType.REFERENCE, "toc": UnitType.FRONT_MATTER}
#: Block kinds whose text makes units of a type of its own, not section text.
_ASIDE_TYPES = {BlockKind.REFERENCE: UnitType.REFERENCE, BlockKind.FRONT_MATTER: UnitType.FRONT_MATTER}


def _is_table_title(block: Block, following: Block | None) -> bool:
    """A heading that is the title of the table right after it (``Table 1. Recommended targets``
    typed as a title by the parser, the table without a caption): it becomes that table's caption
    and opens no section."""
    return (
        block.kind is BlockKind.HEADING
        and following is not None
        and following.kind is BlockKind.TABLE
        and not following.caption.strip()
        and _TABLE_LABEL.match(" ".join(block.text.split())) is not None
    )


def build_units(doc: ParsedDocument, options: UnitOptions | None = None) -> list[Unit]:
    """Build the structure-aware evidence units of ``doc`` (paper section 2.3).

    Args:
        doc: a parsed document whose ``blocks`` are in reading order.
        options: :class:`UnitOptions`; defaults are used when ``None``.

    Returns:
        Units in document order; ``Unit.ordinal`` is the position in this list, ids are deterministic.

    Raises:
        EmptyDocumentError: the document has no body block with text, so no unit can be built.
    """
    options = options or UnitOptions()
    builder = UnitBuilder(doc=doc, options=options)
    blocks = list(doc.body_blocks())
    for i, block in enumerate(blocks):
        if _is_table_title(block, blocks[i + 1] if i + 1 < len(blocks) else None):
            # the caption of the table after it, in its rows' context, and no section of its own
            blocks[i + 1] = blocks[i + 1].model_copy(update={"caption": " ".join(block.text.split())})
            continue
        builder.following = blocks[i + 1] if i + 1 < len(blocks) else None
        close_box(builder, block)
        kind = block.kind
        if kind is BlockKind.HEADING:
            builder.on_heading(block)
        elif kind is BlockKind.TABLE:
            emit_table(builder, block)
        elif kind is BlockKind.FLOWCHART:
            emit_flowchart(builder, block)
        elif kind is BlockKind.FIGURE:
            emit_figure(builder, block)
        elif kind is BlockKind.LIST or (kind in _ASIDE_TYPES and block.items):
            builder.on_list(block)
        elif kind is BlockKind.CAPTION:
            builder.on_text(block, block.text)
        elif kind is BlockKind.PARAGRAPH and is_box_label(block.text):
            open_box(builder, block)  # "Sidebar 5: Initiating Antibiotic Therapy": the heading of the text after it
        elif block.source_type in PARSER_CHUNKS:
            builder.on_chunk(block)
        else:  # paragraph, equation, code, footnote, reference
            builder.on_text(block, block.text)
        builder.previous = block
    builder.flush_section()
    if not builder.units:
        # a document made only of headings still yields units: one per heading
        for block in doc.body_blocks():
            if block.kind is BlockKind.HEADING and block.text.strip():
                builder.emit(UnitType.SECTION, block.text, "", [block])
    if not builder.units:
        raise EmptyDocumentError("no body text to build units from", path=doc.source, field="blocks")
    units = builder.finalize()
    if options.abbreviation_expansions:
        attach_expansions(doc, units)
    return merge_repeated(units) if options.merge_repeated_statements else units
