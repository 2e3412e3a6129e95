"""The one data model of structaware: parsed document -> blocks -> evidence units (pydantic v2, framework-free).

Conventions: pages are 1-based (MinerU's 0-based ``page_idx`` converted on read); bounding boxes are
``(x0, y0, x1, y1)`` in ``0..1`` of the page as displayed (``/Rotate`` applied), origin top-left, whatever
the parser's units; element ids are ``p{page}-e{j}``, ``j`` the element's 0-based position on its page as
the parser emitted it (restoring reading order never renames one); lengths are characters, not tokens.
"""

from __future__ import annotations

from enum import Enum
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from structaware_readers.mermaid import Flowchart

#: Schema version written into every stored point; bump it when a unit field changes meaning.
SCHEMA_VERSION = "1"

BBox = tuple[float, float, float, float]
"""``(x0, y0, x1, y1)`` in 0..1 page fractions, origin top-left."""

#: Decimals a unit's bboxes keep (:attr:`Unit.bboxes`): a millionth of the page.
BBOX_DECIMALS = 6

#: Values of :attr:`TableGrid.grid_source` (see its docstring).
GRID_SOURCES = ("parser_html", "pdf_text_layer", "parser_text", "ocr_lines", "parser_blocks")


class BlockKind(str, Enum):
    """Typed element kinds, the vocabulary of paper section 2.2 plus page furniture."""

    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    TABLE = "table"
    FIGURE = "figure"
    CAPTION = "caption"
    EQUATION = "equation"
    CODE = "code"
    FLOWCHART = "flowchart"
    FOOTNOTE = "footnote"
    REFERENCE = "reference"
    FRONT_MATTER = "front_matter"  # contents lines, authors, notices (structaware_readers.structure.front_matter)
    # page furniture: kept as blocks (provenance, reading order) but never unit text
    HEADER = "header"
    FOOTER = "footer"
    PAGE_NUMBER = "page_number"
    ASIDE = "aside"

    @property
    def is_furniture(self) -> bool:
        return self in _FURNITURE


_FURNITURE = {BlockKind.HEADER, BlockKind.FOOTER, BlockKind.PAGE_NUMBER, BlockKind.ASIDE}


class TableGrid(BaseModel):
    """A table as a rectangular grid, with row and column spans already expanded.

    ``header_rows`` and ``body_rows`` are lists of rows; every row has exactly ``n_cols`` cells
    (a cell covered by a ``rowspan``/``colspan`` repeats the spanning cell's text).

    ``grid_source`` says where the rows and columns came from (one of :data:`GRID_SOURCES`):

    ``"parser_html"`` (the parser's table markup: MinerU ``table_body``/``html``, Unstructured
    ``text_as_html``, Markdown / LaTeX tables), ``"pdf_text_layer"`` (the PDF's text layer inside the
    table's region: :mod:`structaware_readers.table_recovery`), ``"parser_text"`` (the parser's own
    space-aligned text, no PDF at hand; rows without bboxes), ``"ocr_lines"`` (OCR lines of a page
    without a text layer: :mod:`structaware_readers.ocr`), ``"parser_blocks"`` (positions of the
    parser's loose text blocks: :mod:`structaware_readers.loose_tables`).

    ``body_row_pages``, ``body_row_bboxes``, ``body_row_cell_bboxes`` are aligned with ``body_rows`` when known (else
    empty): a row unit then points at its own row and merged cells, not the table; ``header_row_*`` with ``header_rows``.
    """

    model_config = ConfigDict(frozen=False)

    header_rows: list[list[str]] = Field(default_factory=list)
    body_rows: list[list[str]] = Field(default_factory=list)
    body_row_pages: list[int] = Field(
        default_factory=list,
        description="1-based page of each body row when a table was merged across pages; empty = the block's page",
    )
    title: str = Field(
        "",
        description="text of the table's title rows (a leading row with one text spanning the table, or a short label"
        " above the real header): caption material, never a column header; '' when there is none",
    )
    text_outside_grid: str = Field(
        "",
        description="the parser's own text of the table when its markup holds only part of it (Unstructured"
        " ``Table.text`` with words no cell of ``text_as_html`` has); kept searchable as section text",
    )
    body_row_bboxes: list[BBox | None] = Field(
        default_factory=list,
        description=(
            "bbox (0..1 of the page, origin top-left) of each body row on its page, when the grid was rebuilt"
            " from positioned text; empty = unknown (a row then points at its table block's bbox)"
        ),
    )
    #: bbox (0..1 of the page, top-left) of each header row on the first body row's page, and its merged cells' as
    #: ``body_row_cell_bboxes``; empty = unknown. A header row read as a body row points at its own lines.
    header_row_bboxes: list[BBox | None] = Field(default_factory=list)
    header_row_cell_bboxes: list[list[tuple[int, int, BBox]]] = Field(default_factory=list)
    #: per body row, (0-based column, 1-based page, bbox) of each merged cell it shares printed outside its own bbox
    body_row_cell_bboxes: list[list[tuple[int, int, BBox]]] = Field(default_factory=list)
    grid_source: str = Field("parser_html", description="where the grid came from: one of GRID_SOURCES")
    turned: bool = Field(
        False,
        description=(  # tables.rotated turned it back; table_recovery.stage6_markup_check
            "the parser read the table a quarter turn round (cells read from a turned image): its PDF text layer is tried"
        ),
    )

    @field_validator("grid_source")
    @classmethod
    def _check_grid_source(cls, v: str) -> str:
        if v not in GRID_SOURCES:
            raise ValueError(f"grid_source must be one of {', '.join(GRID_SOURCES)}, not {v!r}")
        return v

    @property
    def n_cols(self) -> int:
        rows = self.header_rows + self.body_rows
        return max((len(r) for r in rows), default=0)

    def column_headers(self, sep: str = " / ") -> list[str]:
        """One header string per column; multi-row headers are joined top-down with ``sep``.

        Repeated text from an expanded colspan is collapsed so that a header spanning three
        columns over three sub-headers gives ``"Dose / Adults"``, not ``"Dose / Dose / Adults"``.
        A column with no header text gets ``""`` (no invented name: a row's text then gives that
        column's value alone).
        """
        headers: list[str] = []
        for c in range(self.n_cols):
            parts: list[str] = []
            for row in self.header_rows:
                cell = row[c].strip() if c < len(row) else ""
                if cell and (not parts or parts[-1] != cell):
                    parts.append(cell)
            headers.append(sep.join(parts))
        return headers


class Block(BaseModel):
    """One typed layout element of a parsed document (paper section 2.2: element ``e_ij``).

    Attributes:
        block_id: stable id ``p{page}-e{j}`` (see module docstring).
        kind: the element type.
        text: plain text of the element (Markdown inline math kept as ``$...$``). For a table,
            a plain-text rendering of its grid; for a list, the items joined by newlines.
        page: 1-based page number.
        bbox: normalised box (0..1, top-left origin) or ``None`` when the parser gave none.
        level: heading depth (1 = top) for headings, derived from numbering where present.
        table: parsed grid for tables.
        caption: caption text for tables, figures, flowcharts and code blocks.
        footnote: footnote text attached to a table or figure.
        items: list items for lists.
        mermaid: Mermaid source for flowcharts.
        flowchart: the flowchart already read, when a reader built it from the document rather than
            from Mermaid source (an algorithm's text description,
            :mod:`structaware_readers.algorithms`): its edges name the elements that state them
            (``FlowEdge.element_ids``); ``mermaid`` then holds the same chart written as Mermaid.
        source_type: the parser's own type name for this element (e.g. ``"image"``, ``"Title"``).
        parser_ids: the parser's own element ids behind this block (Unstructured ``element_id``;
            several when the reader merged elements, e.g. list items or table chunks).
        continues_prev: the parser says this element continues the previous one across a page
            break (MinerU 4.x ``continues_prev``); readers merge such tables before unit building.
        extra_pages: further 1-based pages covered by this block after a cross-page merge,
            with ``extra_bboxes`` and ``extra_ids`` (the merged continuation elements' own ids,
            ``p{page}-e{j}``; may be empty when the parser merged them itself) aligned to them.
    """

    model_config = ConfigDict(use_enum_values=False)

    block_id: str
    kind: BlockKind
    text: str = ""
    page: int = Field(ge=1)
    bbox: BBox | None = None
    level: int | None = None
    table: TableGrid | None = None
    caption: str = ""
    footnote: str = ""
    items: list[str] = Field(default_factory=list)
    mermaid: str | None = None
    flowchart: Flowchart | None = None
    source_type: str = ""
    parser_ids: list[str] = Field(default_factory=list)
    continues_prev: bool = False
    extra_pages: list[int] = Field(default_factory=list)
    extra_bboxes: list[BBox | None] = Field(default_factory=list)
    extra_ids: list[str] = Field(default_factory=list)

    @field_validator("bbox")
    @classmethod
    def _check_bbox(cls, v: BBox | None) -> BBox | None:
        if v is None:
            return None
        x0, y0, x1, y1 = (float(c) for c in v)
        if not all(-0.01 <= c <= 1.01 for c in (x0, y0, x1, y1)):
            raise ValueError(f"bbox {v} is not normalised to 0..1")
        clamp = lambda c: min(1.0, max(0.0, c))
        return (clamp(x0), clamp(y0), clamp(x1), clamp(y1))

    @property
    def is_furniture(self) -> bool:
        return self.kind.is_furniture

    def element_refs(self) -> list[tuple[str, BBox | None, int]]:
        """``(element id, bbox, page)`` of this block and of each continuation merged into it (a
        paragraph or table joined across pages, an algorithm's description joined to its image), in
        order; continuations without an id are left out."""
        refs = [(self.block_id, self.bbox, self.page)]
        if self.extra_ids and len(self.extra_ids) == len(self.extra_pages) == len(self.extra_bboxes):
            refs += [(i, box, p) for i, box, p in zip(self.extra_ids, self.extra_bboxes, self.extra_pages) if i]
        return refs


class ParsedDocument(BaseModel):
    """A parsed document: its identity and its blocks in reading order.

    Attributes:
        doc_id: 16 hex characters of the SHA-256 of the input file's bytes (for a parser output
            folder or zip: of its primary JSON file), so the same file always gets the same id.
        source: the path the document was read from, as given.
        name: the file stem used for display and to match benchmark questions (``doc`` field).
        parser: ``"mineru"`` or ``"unstructured"``.
        parser_version: version string the parser wrote into its output, or ``""``.
        input_format: detected input format (e.g. ``"content_list"``, ``"docvortex_middle"``).
        page_count: number of pages (>= 1).
        page_sizes: ``(width, height)`` per page in PDF points when known, else ``None`` entries.
        title: document title if the parser found one.
        blocks: all blocks, in reading order, page furniture included.
        page_routes: pages read without a text layer and what read them (OCR route or MinerU's OCR tier).
        warnings: problems met while reading that did not stop it, each naming its page and element
            (e.g. a table whose grid could not be read and stays section text); also logged.
    """

    doc_id: str
    source: str
    name: str
    parser: str
    parser_version: str = ""
    input_format: str = ""
    page_count: int = Field(ge=1)
    page_sizes: list[tuple[float, float] | None] = Field(default_factory=list)
    title: str = ""
    blocks: list[Block] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    page_routes: dict[int, str] = Field(
        default_factory=dict,
        description=(
            "1-based page -> what read it, for pages not read from the text layer by ``parser``: "
            "'ocr:<engine> <version>@<dpi>dpi' (structaware's OCR route) or 'mineru:<tier>' (MinerU's OCR)"
        ),
    )

    def body_blocks(self) -> list[Block]:
        """Blocks that may become unit text (page furniture removed), in reading order."""
        return [b for b in self.blocks if not b.is_furniture]

    def block(self, block_id: str) -> Block:
        """The block holding element ``block_id``: its own id, or a continuation merged into it.

        A table continued across pages is one block; the continuation parts keep their own element
        ids (``Block.extra_ids``), which units of rows on later pages point at.

        Raises:
            KeyError: no block has or absorbed that element id.
        """
        for b in self.blocks:
            if b.block_id == block_id or block_id in b.extra_ids:
                return b
        raise KeyError(block_id)


class UnitType(str, Enum):
    """Evidence unit types: the paper's four (section 2.3), figure units, and two kinds of text that is
    not evidence (:data:`NON_EVIDENCE_TYPES`: bibliography entries; contents lines, authors, notices).
    ``chunk``, ``page``, ``element``: the evaluation baselines of paper 3.3, never built by the builder."""

    SECTION = "section"
    TABLE_ROW = "table_row"
    FLOW_PATH = "flow_path"
    RECOMMENDATION = "recommendation"
    FIGURE = "figure"
    REFERENCE = "reference"
    FRONT_MATTER = "front_matter"
    # evaluation baselines (paper 3.3)
    CHUNK = "chunk"
    PAGE = "page"
    ELEMENT = "element"


NON_EVIDENCE_TYPES = (UnitType.REFERENCE, UnitType.FRONT_MATTER)  # searched only when a filter names them


class Grade(BaseModel):
    """An evidence grade parsed from recommendation text, as the guideline writes it.

    Attributes:
        system: grading system, e.g. ``"NCCN"``, ``"GRADE"``, ``"ACC/AHA"``, ``"ESC"`` (class
            I/IIa/IIb/III + level A/B/C), ``"ESMO/ESC"`` (bracketed ``[I, A]``), ``"CN"`` (Chinese
            consensus Ⅱa类推荐 + 证据等级), ``"CDC/ACIP"`` (recommendation category A/B + evidence
            type 1-4), ``"USPSTF"``, ``"Oxford"``, ``"SIGN"``, ``"CSCO"``, ``"KDIGO"``, ``"letter"``,
            ``"zh"`` (Chinese 推荐等级/证据等级 wording); :data:`structaware_readers.grades.SYSTEM_PRECEDENCE`.
        grade: the grade label as normalised text, e.g. ``"2A"``, ``"A"``, ``"I"``, ``"IIa"``,
            ``"1B"``; what the ``grade=`` filter matches (payload ``grade_label``).
        strength: recommendation strength when stated: ``"strong"``, ``"conditional"``,
            ``"weak"`` (English; Chinese 强/弱, KDIGO 1/2 too), ``"good practice statement"`` (GRADE/WHO).
        certainty: certainty/quality of evidence when stated: ``"high"``, ``"moderate"``,
            ``"low"``, ``"very low"``, or a level such as ``"B-NR"``, ``"2++"``, ``"1a"``.
        direction: ``"for"`` or ``"against"`` when the grade or the wording states it
            (``Strong against``, ACC/AHA class III, USPSTF D, 不推荐), ``"neither"`` for VA/DoD
            ``Neither for nor against`` (insufficient evidence either way; no strength), else ``""``.
        status: the revision status printed with the grade (VA/DoD ``"Reviewed, New-replaced"``), else ``""``.
        preference: the NCCN preference tier (``"preferred"``, ``"other recommended"``, ``"useful in certain
            circumstances"``: ``Olaparib (category 1, preferred)``), else ``""``.
        source: where the grade was read: ``"sentence"`` (the statement itself), ``"table_column"``
            (a grade column of a recommendation table), ``"next_paragraph"`` (a grade line after
            the statement, WHO style), ``"heading"`` (the title printed over the statement, a WHO
            box: ``Preventing relapse (2015 – good practice statement)``), ``"document_default"``
            (e.g. NCCN "All recommendations are category 2A unless otherwise indicated").
        raw: the matched text span(s), as printed.
    """

    system: str
    grade: str = ""
    strength: str = ""
    certainty: str = ""
    direction: str = ""
    status: str = ""
    preference: str = ""
    source: str = "sentence"
    raw: str = ""


class TableRowInfo(BaseModel):
    """Type-specific metadata of a ``table_row`` unit."""

    table_id: str
    row_index: int = Field(ge=0, description="0-based index among the table's body rows")
    headers: list[str]
    cells: list[str]
    caption: str = ""


class FlowEdgeInfo(BaseModel):
    """Type-specific metadata of a ``flow_path`` unit: one directed edge."""

    flowchart_id: str
    source: str
    target: str
    label: str = ""
    title: str = ""


class Unit(BaseModel):
    """A structure-aware evidence unit (paper section 2.3), the thing that is indexed and retrieved.

    ``text`` is the unit's content and ``context`` its structural context string; encoders embed
    ``context + "\\n" + text`` (paper section 2.4, see :meth:`embedding_text`).

    Attributes:
        unit_id: deterministic UUID (string form): same document bytes -> same ids.
        unit_type: one of :class:`UnitType`.
        text: content text.
        context: ``"Section: A > B"`` for sections and recommendations; caption + headers +
            section for table rows; figure title for flow paths.
        doc_id, doc_name, source: the document's id, name and source path.
        pages: sorted 1-based pages the unit covers.
        element_ids: ids of the source blocks, in reading order.
        bboxes: one normalised bbox (or ``None``) per entry of ``element_ids``, rounded to
            :data:`BBOX_DECIMALS` decimals.
        element_pages: the 1-based page of each entry of ``element_ids``.
        source_element_ids: the parser's own ids of the elements behind the unit
            (Unstructured ``element_id``, as given: UUID or hash; ``Block.parser_ids``), in
            reading order, so a user holding the parser's elements can map a hit back to them;
            empty for parsers without element ids (MinerU).
        section_path: heading texts from the top of the document down to the unit.
        grade: parsed evidence grade (recommendation units, and rows/sections that carry one).
        table: row metadata (``table_row`` units).
        flow: edge metadata (``flow_path`` units).
        ordinal: 0-based position of the unit in the document's unit sequence.
        linked_ids: ids of units this one elaborates (a discussion: its recommendations); a search hit brings one up.
        expansions: long forms of abbreviations the unit uses unspelt (:meth:`search_text`; never handed over).
    """

    unit_id: str
    unit_type: UnitType
    text: str
    context: str = ""
    doc_id: str
    doc_name: str = ""
    source: str = ""
    pages: list[int]
    element_ids: list[str]
    bboxes: list[BBox | None]
    element_pages: list[int]
    source_element_ids: list[str] = Field(default_factory=list)
    section_path: list[str] = Field(default_factory=list)
    grade: Grade | None = None
    table: TableRowInfo | None = None
    flow: FlowEdgeInfo | None = None
    ordinal: int = 0
    linked_ids: list[str] = Field(default_factory=list)
    expansions: list[str] = Field(default_factory=list)

    @field_validator("bboxes")
    @classmethod
    def _round_bboxes(cls, v: list[BBox | None]) -> list[BBox | None]:
        # 6 decimals (a millionth of the page): a stored payload reads back equal (Qdrant Edge
        # returns a float's 17th significant digit changed, and an unchanged unit looked changed)
        return [None if b is None else tuple(round(x, BBOX_DECIMALS) for x in b) for b in v]  # type: ignore[misc]

    def embedding_text(self) -> str:
        """The text both encoders embed: ``context``, a newline, then ``text`` (paper 2.4)."""
        return f"{self.context}\n{self.text}" if self.context else self.text

    def search_text(self) -> str:
        """What BM25 indexes: :meth:`embedding_text`, then the :attr:`expansions` (one line)."""
        return f"{self.embedding_text()}\n{'; '.join(self.expansions)}" if self.expansions else self.embedding_text()

    @property
    def file_name(self) -> str:
        """The name of the file the unit was read from (``source``'s last part), else ``doc_name``:
        LlamaIndex's ``file_name`` metadata key."""
        return PurePath(self.source).name if self.source else self.doc_name

    def to_payload(self) -> dict[str, Any]:
        """JSON-safe flat dict of every field, as stored in a Qdrant point payload, plus ``page``
        (the first page), ``grade_label`` and ``file_name`` (:attr:`file_name`) for filters."""
        data = self.model_dump(mode="json")
        data["page"] = self.pages[0] if self.pages else None
        data["file_name"] = self.file_name
        data["grade_label"] = (self.grade.grade or None) if self.grade else None  # no label: empty for filters
        data["schema_version"] = SCHEMA_VERSION
        return data

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Unit:
        data = {k: v for k, v in payload.items() if k in cls.model_fields}
        return cls.model_validate(data)
