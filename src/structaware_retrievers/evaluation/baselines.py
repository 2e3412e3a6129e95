"""Unit-construction methods compared in the evaluation (the reference paper, section 3.3), as units.

Every method cuts the same body text of the same :class:`ParsedDocument`, so differences come from
the cutting: ``flat`` (500-character windows, 50 overlap), ``heading`` (the same within each
section), ``page``, ``element`` (one unit per block, no context), ``struct``
(:func:`structaware_readers.units.build_units`) and ``struct_noctx`` (the context ablation). Chunk
and page units are not element-addressable, so their Element Hit is N/A.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from structaware_readers.errors import EmptyDocumentError
from structaware_readers.ids import unit_id
from structaware_readers.models import Block, BlockKind, ParsedDocument, Unit, UnitType

#: Flat-chunk window and overlap, in characters (paper 3.3).
CHUNK_CHARS = 500
CHUNK_OVERLAP = 50
#: Separator placed between blocks when body text is concatenated.
BLOCK_SEP = "\n\n"


def block_text(block: Block) -> str:
    """The text a block contributes to body text: caption, text and footnote (non-empty ones),
    joined by newlines. For tables ``text`` is the reader's plain-text grid rendering."""
    parts = [block.caption, block.text, block.footnote] if block.caption or block.footnote else [block.text]
    return "\n".join(p.strip() for p in parts if p and p.strip())


def block_pages(block: Block) -> list[int]:
    """1-based pages a block covers (its page plus pages it continues on after a cross-page merge)."""
    return sorted({block.page, *block.extra_pages})


def _body(doc: ParsedDocument) -> list[tuple[Block, str]]:
    body = [(b, block_text(b)) for b in doc.body_blocks()]
    body = [(b, t) for b, t in body if t]
    if not body:
        raise EmptyDocumentError("document has no body text", path=doc.source, field="blocks")
    return body


def _make_unit(
    doc: ParsedDocument,
    method: str,
    unit_type: UnitType,
    ordinal: int,
    text: str,
    blocks: Sequence[Block],
    section_path: list[str] | None = None,
) -> Unit:
    ids = [b.block_id for b in blocks]
    pages = sorted({p for b in blocks for p in block_pages(b)})
    return Unit(
        unit_id=unit_id(doc.doc_id, unit_type.value, ordinal, ids, extra=method),
        unit_type=unit_type,
        text=text,
        context="",
        doc_id=doc.doc_id,
        doc_name=doc.name,
        source=doc.source,
        pages=pages,
        element_ids=ids,
        bboxes=[b.bbox for b in blocks],
        element_pages=[b.page for b in blocks],
        section_path=list(section_path or []),
        ordinal=ordinal,
    )


def char_windows(length: int, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[tuple[int, int]]:
    """``[start, end)`` character windows of ``size`` with ``overlap`` covering ``range(length)``. Raises
    ``ValueError``.
    """
    if overlap < 0 or size <= overlap:
        raise ValueError(f"need 0 <= overlap < size, got size={size}, overlap={overlap}")
    if length <= 0:
        return []
    out = []
    start = 0
    while True:
        end = min(start + size, length)
        out.append((start, end))
        if end >= length:
            return out
        start += size - overlap


def joined_text(body: Sequence[tuple[Block, str]]) -> tuple[str, list[tuple[int, int, Block]]]:
    """Join block texts with :data:`BLOCK_SEP`; return the text and each block's ``[start, end)``
    character span in it, in order."""
    spans: list[tuple[int, int, Block]] = []
    pieces: list[str] = []
    pos = 0
    for i, (b, t) in enumerate(body):
        if i:
            pieces.append(BLOCK_SEP)
            pos += len(BLOCK_SEP)
        spans.append((pos, pos + len(t), b))
        pieces.append(t)
        pos += len(t)
    return "".join(pieces), spans


def body_text(doc: ParsedDocument) -> tuple[str, list[tuple[int, int, Block]]]:
    """The document's body text in reading order (furniture excluded, blocks joined by a blank line) and each block's
    character span: the text every chunking baseline and peer cuts. Raises ``EmptyDocumentError``.
    """
    return joined_text(_body(doc))


def blocks_in_span(spans: Sequence[tuple[int, int, Block]], start: int, end: int) -> list[Block]:
    """Blocks whose characters intersect ``[start, end)``, in order."""
    return [b for s, e, b in spans if s < end and e > start]


def _chunk_blocks(
    doc: ParsedDocument,
    method: str,
    body: Sequence[tuple[Block, str]],
    first_ordinal: int,
    size: int,
    overlap: int,
    section_path: list[str] | None = None,
) -> list[Unit]:
    text, spans = joined_text(body)
    units: list[Unit] = []
    for start, end in char_windows(len(text), size, overlap):
        chunk = text[start:end]
        if not chunk.strip():
            continue
        covered = blocks_in_span(spans, start, end)
        units.append(_make_unit(doc, method, UnitType.CHUNK, first_ordinal + len(units), chunk, covered, section_path))
    return units


def make_chunk_unit(doc: ParsedDocument, method: str, ordinal: int, text: str, blocks: Sequence[Block]) -> Unit:
    """A ``chunk`` unit with the provenance of ``blocks`` (for peer pipelines' chunks)."""
    return _make_unit(doc, method, UnitType.CHUNK, ordinal, text, blocks)


def flat_chunks(doc: ParsedDocument, *, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[Unit]:
    """Flat chunks over the whole body text (method ``flat``); see the module docstring.

    Raises:
        EmptyDocumentError: the document has no body text.
    """
    return _chunk_blocks(doc, "flat", _body(doc), 0, size, overlap)


def heading_chunks(doc: ParsedDocument, *, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[Unit]:
    """Heading-aware chunks (method ``heading``): split before each heading, then 500/50 windows inside each section.
    ``section_path`` holds the section's heading text (one entry) when there is one. The unit's ``context`` stays
    empty: the heading is text of the section's first chunk. Raises ``EmptyDocumentError``.
    """
    sections: list[list[tuple[Block, str]]] = []
    for b, t in _body(doc):
        if b.kind == BlockKind.HEADING or not sections:
            sections.append([])
        sections[-1].append((b, t))
    units: list[Unit] = []
    for sec in sections:
        head = [sec[0][1]] if sec[0][0].kind == BlockKind.HEADING else []
        units.extend(_chunk_blocks(doc, "heading", sec, len(units), size, overlap, head))
    return units


def page_units(doc: ParsedDocument) -> list[Unit]:
    """One unit per page holding body text (method ``page``): the page's body blocks joined by a blank line, in reading
    order. A block merged across pages belongs to its first page. Raises ``EmptyDocumentError``.
    """
    by_page: dict[int, list[tuple[Block, str]]] = {}
    for b, t in _body(doc):
        by_page.setdefault(b.page, []).append((b, t))
    units = []
    for page in sorted(by_page):
        items = by_page[page]
        text = BLOCK_SEP.join(t for _, t in items)
        u = _make_unit(doc, "page", UnitType.PAGE, len(units), text, [b for b, _ in items])
        units.append(u)
    return units


def element_units(doc: ParsedDocument) -> list[Unit]:
    """One unit per body block, its text alone without context (method ``element``, the paper's "OCR element"
    baseline). A table is one element. Raises ``EmptyDocumentError``.
    """
    return [_make_unit(doc, "element", UnitType.ELEMENT, i, t, [b]) for i, (b, t) in enumerate(_body(doc))]


def structure_units(doc: ParsedDocument) -> list[Unit]:
    """Structure-aware units (method ``struct``) from the unit builder, default options."""
    from structaware_readers.units import build_units

    return build_units(doc)


@dataclass(frozen=True)
class Method:
    """A unit-construction method under evaluation."""

    key: str
    label: str
    element_addressable: bool
    build: Callable[[ParsedDocument], list[Unit]]


def structure_units_without_context(doc: ParsedDocument) -> list[Unit]:
    """The context ablation of paper 4.4 (method ``struct_noctx``): the same structure-aware units
    with ``context`` empty (``UnitOptions(include_context=False)``), so only unit text is searched."""
    from structaware_readers.units import UnitOptions, build_units

    return build_units(doc, UnitOptions(include_context=False))


METHODS: dict[str, Method] = {
    m.key: m
    for m in (
        Method("flat", "Flat chunk", False, flat_chunks),
        Method("heading", "Heading chunk", False, heading_chunks),
        Method("page", "Page-level", False, page_units),
        Method("element", "Per-element", True, element_units),
        Method("struct", "Struct-aware", True, structure_units),
        Method("struct_noctx", "Struct-aware, no ctx", True, structure_units_without_context),
    )
}
#: The method every other method is compared against in significance tests.
REFERENCE_METHOD = "struct"


def get_method(key: str) -> Method:
    """The :class:`Method` named ``key``.

    Raises:
        ValueError: unknown key (the message lists the known ones).
    """
    try:
        return METHODS[key]
    except KeyError:
        raise ValueError(f"unknown method {key!r}; expected one of {sorted(METHODS)}") from None
