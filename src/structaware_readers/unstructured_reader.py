"""Unstructured output -> :class:`ParsedDocument`: the second parser next to MinerU.

Accepted inputs (:func:`read_unstructured`):

* a list of ``unstructured`` ``Element`` objects (anything with ``to_dict()``);
* a list of element dicts ``{type, element_id, text, metadata}`` (``elements_to_dicts``);
* a path to an elements JSON file as ``elements_to_json`` and the hosted API write it (a JSON
  array; also NDJSON from ``elements_to_ndjson``, and ``{"elements": [...]}``);
* a path to a raw document (pdf, docx, html, md, ...), partitioned by ``unstructured`` here.

**Offline use.** Unstructured 0.27.x needs the spaCy model ``en_core_web_sm`` 3.8.0 to classify
text and downloads it on first use; offline, ``partition_html``/``_md``/``_docx`` raise and
``partition_pdf(strategy="fast")`` silently returns no element. That model is not published as a
package on the Python package index (``pip download en_core_web_sm==3.8.0`` finds nothing), so
the raw-file route works only where the model is installed (its wheel from spaCy's model
releases); without it :class:`ParserUnavailableError` is raised before partitioning, never an
empty result (the check is the one ``spacy.load`` makes: an installed distribution named
``en_core_web_sm``). Formats also need their ``unstructured`` extras: HTML and DOCX work with the
base install plus ``python-docx``; Markdown needs ``unstructured[md]`` and PDF ``unstructured[pdf]``
(a missing extra is reported as :class:`ParserUnavailableError` too). ``DO_NOT_TRACK=1`` and
``UNSTRUCTURED_DISABLE_NOTICE=1`` are set (unless already set) before ``unstructured`` is imported,
to stop its telemetry and its stdout notice. The documented offline route is: partition where the
model exists, save with ``elements_to_json``, and read the JSON here.

Mapping (element ``type`` = Unstructured category; ``source_type`` keeps it):

==========================================  =============================================
``Title``                                   HEADING; level from the ``<hN>`` tag of
                                            ``text_as_html`` (HTML v2 output), else
                                            ``category_depth + 1``, else the numbering
                                            (:func:`headings.numbering_depth`), else
                                            1 + the number of Title ancestors (``parent_id``)
``NarrativeText``, ``UncategorizedText``,   PARAGRAPH (an HTML-v2 ``class="Footnote"`` element
``Text``, other text categories             is a FOOTNOTE)
``ListItem``                                LIST; consecutive items on one page under the same
                                            parent (nested items included), stacked one below
                                            the other, form **one** LIST block with ``items``
                                            (as MinerU's list blocks); an item in another
                                            column starts a new block
``Table``                                   TABLE; grid from ``text_as_html``
                                            (:func:`tables.parse_html_table`), else from
                                            ``table_as_cells``, else from text with line and
                                            cell breaks; no usable markup (absent, or
                                            ``<table></table>``) and a flat text: no grid, a
                                            warning, the text stays section text; markup
                                            missing words of ``text``: a warning, and
                                            ``TableGrid.text_outside_grid`` keeps the text
``TableChunk``                              the original table: expanded from ``orig_elements``
                                            when present, else rebuilt from the chunks sharing
                                            ``table_id`` (``chunk_index`` order, the first
                                            ``num_carried_over_header_rows`` rows of every later
                                            chunk dropped; ``extra_pages`` and
                                            ``TableGrid.body_row_pages`` set when the chunks
                                            lie on several pages)
``FigureCaption``                           its text becomes the ``caption`` of the figure/table
                                            it belongs to (by geometry with coordinates, else the
                                            neighbouring element in parser order, past stray
                                            text of at most 20 characters; "Table ..." /
                                            "Figure ..." prefixes decide between a previous and
                                            a next one), and no separate block is kept;
                                            a caption with no such neighbour stays a CAPTION
``Image``                                   FIGURE
``Formula``                                 EQUATION
``CodeSnippet``                             CODE, or FLOWCHART with ``Block.mermaid`` when it is
                                            Mermaid flowchart source (a ```` ```mermaid ````
                                            fence, or text starting ``flowchart``/``graph``:
                                            ``partition_md`` strips the fence)
``Header`` / ``Footer`` / ``PageNumber``    HEADER / FOOTER / PAGE_NUMBER (page furniture)
``PageBreak``, elements with no text        dropped (tables and images are kept)
``CompositeElement``                        its ``orig_elements`` (base64 zlib JSON) expanded
                                            and read as above; without them, a PARAGRAPH
==========================================  =============================================

Coordinates ``{points, system, layout_width, layout_height}`` are converted to 0..1 of the page
with a top-left origin: ``PixelSpace`` has a top-left origin; ``PointSpace`` and
``RelativeCoordinateSystem`` have a bottom-left origin (Unstructured's ``Orientation.CARTESIAN``)
and are flipped. Pages are ``metadata.page_number`` (1-based), 1 when absent (HTML, Markdown).
Block ids are ``p{page}-e{j}`` with ``j`` the 0-based position of the block's first element
among that page's elements in Unstructured's output order (after ``orig_elements`` expansion),
so ids have gaps where elements were dropped, grouped or merged. The reader keeps the parser's
order; :func:`structaware_readers.reading_order.restore_reading_order` restores a layout order.
"""

from __future__ import annotations

import base64
import importlib.metadata
import importlib.util
import json
import logging
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from structaware_readers import ids
from structaware_readers.errors import (
    EmptyDocumentError,
    InputNotFoundError,
    MalformedInputError,
    MissingExtraError,
    ParserUnavailableError,
    UnknownFormatError,
)
from structaware_readers.headings import numbering_depth
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument, TableGrid
from structaware_readers.reading_order import caption_target
from structaware_readers.tables import grid_to_text, parse_html_table
from structaware_readers.tables.coverage import missing_words

__all__ = ["SPACY_MODEL", "read_unstructured", "spacy_model_installed"]

log = logging.getLogger(__name__)

#: The spaCy model Unstructured 0.27.x needs to classify text (``unstructured/nlp/tokenize.py``).
SPACY_MODEL = "en_core_web_sm"

_JSON_SUFFIXES = {".json", ".ndjson", ".jsonl"}
#: Text documents that may start with "[" or "{" and are still documents, not elements JSON.
_TEXT_DOCUMENT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".html", ".htm", ".xml", ".csv", ".tsv", ".rst", ".org"}
_PARAGRAPH_TYPES = {"NarrativeText", "UncategorizedText", "Text"}
_FURNITURE = {"Header": BlockKind.HEADER, "Footer": BlockKind.FOOTER, "PageNumber": BlockKind.PAGE_NUMBER}
_KEEP_EMPTY = {"Table", "TableChunk", "Image"}
_CAPTION_KINDS = (BlockKind.TABLE, BlockKind.FIGURE, BlockKind.FLOWCHART)
_HEADING_TAG = re.compile(r"^\s*<h([1-6])\b", re.IGNORECASE)
_FOOTNOTE_CLASS = re.compile(r"^\s*<\w+[^>]*\bclass\s*=\s*[\"']?Footnote\b")
_MERMAID_FENCE = re.compile(r"```\s*mermaid[^\n]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_MERMAID_HEADER = re.compile(r"^\s*(?:flowchart|graph)(?:\s+(?:TB|TD|BT|RL|LR))?\s*(?:;|\n|$)")
_TABLE_PREFIX = re.compile(r"^\s*(?:table|tab\.|表)", re.IGNORECASE)
_FIGURE_PREFIX = re.compile(r"^\s*(?:figure|fig\.?|图|圖)", re.IGNORECASE)
_LIST_MAX_GAP = 0.05  # page fraction between stacked list items of one list
_STRAY_TEXT_CHARS = 20  # short text between a figure and its caption (axis labels) is skipped
_OUT_OF_PAGE = 0.05  # coordinates this far outside the page are an error, closer ones are clamped


def read_unstructured(
    src: str | Path | Iterable[Any],
    *,
    name: str | None = None,
    partition_kwargs: Mapping[str, Any] | None = None,
) -> ParsedDocument:
    """Read Unstructured elements into a :class:`ParsedDocument` (blocks in the parser's order).

    Args:
        src: a list (any iterable) of ``Element`` objects or element dicts, a path to an elements JSON / NDJSON
            file, or a path to a raw document that ``unstructured.partition.auto.partition``
            can read (see the module docstring for what that needs offline).
        name: display name; default: the stem of the original document's ``metadata.filename``,
            else the file name without ``.json`` and a document extension
            (``report.pdf.json`` -> ``report``), else ``"document"``.
        partition_kwargs: extra keyword arguments for ``partition`` (raw files only), e.g.
            ``{"strategy": "fast"}``.

    Returns:
        ``ParsedDocument`` with ``parser="unstructured"``, ``input_format`` = the elements'
        ``metadata.filetype`` (MIME type, e.g. ``"application/pdf"``) or ``"elements"``,
        ``doc_id`` from the bytes of the JSON file (raw file: of that file; in-memory elements:
        of their canonical JSON, ``json.dumps(dicts, indent=4, sort_keys=True)``), pages
        1-based, bboxes in 0..1 with a top-left origin, ``page_sizes`` in points for
        ``PointSpace`` coordinates (else ``None``).

    Raises:
        InputNotFoundError: the path does not exist.
        UnknownFormatError: a JSON file that is not a list of Unstructured elements, or a folder.
        MalformedInputError: an element misses ``type``, has a bad ``page_number``,
            ``coordinates``, ``orig_elements`` or table markup (the message names the element
            index and field).
        ParserUnavailableError: a raw file, and ``unstructured`` or its spaCy model is missing,
            or partitioning failed.
        EmptyDocumentError: no element, or no body block with text.
    """
    dicts, source, doc_id, version = _load(src, partition_kwargs)
    records = _expand(dicts, source)
    blocks = _Builder(records, source).build()
    body = [b for b in blocks if not b.is_furniture and (b.text.strip() or b.table is not None)]
    if not body:
        raise EmptyDocumentError("no body element with text", path=source, field="elements")
    pages = max(r.page for r in records)
    sizes: list[tuple[float, float] | None] = [None] * pages
    for r in records:
        if r.page_size is not None and sizes[r.page - 1] is None:
            sizes[r.page - 1] = r.page_size
    filetype = next((r.md.get("filetype") for r in records if isinstance(r.md.get("filetype"), str)), None)
    return ParsedDocument(
        doc_id=doc_id,
        source=source,
        name=name or _default_name(src, records),
        parser="unstructured",
        parser_version=version,
        input_format=filetype or "elements",
        page_count=pages,
        page_sizes=sizes,
        blocks=blocks,
    )


# ------------------------------------------------------------------------------------------
# loading


def _load(
    src: str | Path | Iterable[Any], partition_kwargs: Mapping[str, Any] | None
) -> tuple[list[Any], str, str, str]:
    """(element dicts, source label, doc_id, parser version) for any accepted input."""
    if isinstance(src, (str, Path)):
        path = Path(src)
        if not path.exists():
            raise InputNotFoundError("no such file", path=path)
        if path.is_dir():
            raise UnknownFormatError("a folder: pass one elements JSON file or document", path=path)
        suffix = path.suffix.lower()
        if suffix in _JSON_SUFFIXES or (suffix not in _TEXT_DOCUMENT_SUFFIXES and _starts_like_json(path)):
            return _read_json(path), str(src), ids.doc_id_from_file(path), ""
        dicts, version = _partition(path, partition_kwargs or {})
        return dicts, str(src), ids.doc_id_from_file(path), version
    if isinstance(src, Mapping) and isinstance(src.get("elements"), list):
        src = src["elements"]
    if isinstance(src, (bytes, bytearray, Mapping)) or not isinstance(src, Iterable):
        raise UnknownFormatError(
            f"expected a path or a list of elements, got {type(src).__name__}", path="<elements>"
        )
    dicts = []
    for i, el in enumerate(src):
        if isinstance(el, Mapping):
            dicts.append(dict(el))
        elif callable(getattr(el, "to_dict", None)):
            dicts.append(el.to_dict())
        else:
            raise MalformedInputError(
                f"not an element or element dict: {type(el).__name__}", path="<elements>", field=f"[{i}]"
            )
    canonical = json.dumps(dicts, indent=4, sort_keys=True, default=str).encode("utf-8")
    filename = next(
        (d["metadata"]["filename"] for d in dicts
         if isinstance(d.get("metadata"), Mapping) and isinstance(d["metadata"].get("filename"), str)),
        None,
    )
    return dicts, filename or "<elements>", ids.doc_id_from_bytes(canonical), ""


def _starts_like_json(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"[", b"{")


def _read_json(path: Path) -> list[Any]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnknownFormatError(f"not UTF-8 text: {exc}", path=path) from exc
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        # NDJSON (elements_to_ndjson): one element per line
        try:
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise UnknownFormatError(f"not JSON: {exc}", path=path) from exc
    if isinstance(data, Mapping) and isinstance(data.get("elements"), list):
        data = data["elements"]
    if not isinstance(data, list):
        raise UnknownFormatError("not a list of Unstructured elements", path=path, field="(root)")
    if not data:
        raise EmptyDocumentError("the elements list is empty", path=path, field="(root)")
    first = data[0]
    if not (isinstance(first, Mapping) and "type" in first and ("element_id" in first or "metadata" in first)):
        raise UnknownFormatError(
            "not an Unstructured elements JSON (first item has no type/element_id/metadata)", path=path, field="[0]"
        )
    return data


def _partition(path: Path, kwargs: Mapping[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """Partition a raw file with ``unstructured`` (needs its spaCy model, see module docstring)."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
    try:
        from unstructured.__version__ import __version__ as version
        from unstructured.partition.auto import partition
    except ImportError as exc:
        raise MissingExtraError(
            "unstructured", "unstructured", "partitioning a raw document (or pass an elements JSON)", path=path
        ) from exc
    if not spacy_model_installed():
        raise ParserUnavailableError(
            f"unstructured needs the spaCy model {SPACY_MODEL} 3.8.0 to partition documents and "
            "would try to download it; install its wheel from spaCy's model releases, or partition "
            "elsewhere and pass the elements JSON (elements_to_json)",
            path=path,
            field=SPACY_MODEL,
        )
    try:
        elements = partition(filename=str(path), **dict(kwargs))
    except Exception as exc:  # noqa: BLE001 - any parser failure becomes one typed error
        raise ParserUnavailableError(f"unstructured could not partition the file: {exc}", path=path) from exc
    if not elements:
        raise EmptyDocumentError("unstructured returned no element", path=path, field="elements")
    return [e.to_dict() for e in elements], str(version)


def spacy_model_installed() -> bool:
    """Whether the spaCy model Unstructured needs is installed the way ``spacy.load`` finds it
    (an installed distribution named ``en_core_web_sm`` that can be imported)."""
    try:
        importlib.metadata.distribution(SPACY_MODEL)
    except importlib.metadata.PackageNotFoundError:
        return False
    return importlib.util.find_spec(SPACY_MODEL) is not None


def _default_name(src: Any, records: list[_Record]) -> str:
    filename = next((r.md["filename"] for r in records if isinstance(r.md.get("filename"), str)), None)
    if filename:
        return Path(filename).stem
    if isinstance(src, (str, Path)):
        p = Path(src)
        stem = p.name[: -len(p.suffix)] if p.suffix.lower() in _JSON_SUFFIXES else p.stem
        inner = Path(stem)
        return inner.stem if inner.suffix and len(inner.suffix) <= 6 else stem
    return "document"


# ------------------------------------------------------------------------------------------
# elements -> records (validated, expanded, positioned)


@dataclass
class _Record:
    """One Unstructured element, validated, with its page, position and normalised box."""

    type: str
    text: str
    md: dict[str, Any]
    element_id: str
    page: int
    j: int
    bbox: BBox | None
    page_size: tuple[float, float] | None
    where: str  # "[i]" / "[i].orig_elements[k]", for error messages


def _expand(dicts: list[Any], source: str) -> list[_Record]:
    flat: list[tuple[dict[str, Any], str]] = []
    seen: set[str] = set()

    def visit(d: Any, where: str) -> None:
        if not isinstance(d, Mapping):
            raise MalformedInputError("element is not an object", path=source, field=where)
        etype = d.get("type")
        if not isinstance(etype, str) or not etype:
            raise MalformedInputError("missing element type", path=source, field=f"{where}.type")
        md = d.get("metadata") or {}
        if not isinstance(md, Mapping):
            raise MalformedInputError("metadata is not an object", path=source, field=f"{where}.metadata")
        orig = md.get("orig_elements")
        if orig and etype in ("CompositeElement", "TableChunk", "Table"):
            children = _decode_orig(orig, source, f"{where}.metadata.orig_elements")
            for k, child in enumerate(children):
                eid = child.get("element_id") if isinstance(child, Mapping) else None
                if isinstance(eid, str) and eid in seen:
                    continue  # an element split over several chunks is listed by each of them
                if isinstance(eid, str):
                    seen.add(eid)
                visit(child, f"{where}.orig_elements[{k}]")
            return
        flat.append((dict(d), where))

    for i, d in enumerate(dicts):
        visit(d, f"[{i}]")

    records: list[_Record] = []
    per_page: dict[int, int] = {}
    for d, where in flat:
        md = dict(d.get("metadata") or {})
        page = md.get("page_number", 1)
        if page is None:
            page = 1
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise MalformedInputError(
                f"page_number must be an integer >= 1, got {page!r}", path=source, field=f"{where}.metadata.page_number"
            )
        j = per_page.get(page, 0)
        per_page[page] = j + 1
        bbox, size = _coordinates(md.get("coordinates"), source, f"{where}.metadata.coordinates")
        text = d.get("text")
        if text is None:
            text = ""
        if not isinstance(text, str):
            raise MalformedInputError("text is not a string", path=source, field=f"{where}.text")
        eid = d.get("element_id")
        records.append(
            _Record(
                type=d["type"], text=text, md=md, element_id=eid if isinstance(eid, str) else "",
                page=page, j=j, bbox=bbox, page_size=size, where=where,
            )
        )
    return records


def _decode_orig(value: Any, source: str, where: str) -> list[Any]:
    """``orig_elements``: base64 of zlib-compressed JSON (``elements_to_base64_gzipped_json``)."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise MalformedInputError("orig_elements is not a string", path=source, field=where)
    try:
        data = json.loads(zlib.decompress(base64.b64decode(value)).decode("utf-8"))
    except (ValueError, zlib.error) as exc:
        raise MalformedInputError(f"orig_elements cannot be decoded: {exc}", path=source, field=where) from exc
    if not isinstance(data, list):
        raise MalformedInputError("orig_elements does not hold a list", path=source, field=where)
    return data


def _coordinates(coords: Any, source: str, where: str) -> tuple[BBox | None, tuple[float, float] | None]:
    """Normalised top-left bbox (and the page size in points for PointSpace) from ``coordinates``."""
    if coords is None:
        return None, None
    if not isinstance(coords, Mapping):
        raise MalformedInputError("coordinates is not an object", path=source, field=where)
    points = coords.get("points")
    if not points:
        return None, None
    system = coords.get("system") or "PixelSpace"
    if system == "RelativeCoordinateSystem":
        width = height = 1.0
    else:
        width, height = coords.get("layout_width"), coords.get("layout_height")
    try:
        width, height = float(width), float(height)  # type: ignore[arg-type]
        xs = [float(p[0]) for p in points]
        ys = [float(p[1]) for p in points]
    except (TypeError, ValueError, IndexError) as exc:
        raise MalformedInputError(f"bad points or layout size: {exc}", path=source, field=where) from exc
    if not (width > 0 and height > 0):
        raise MalformedInputError("layout_width/layout_height must be > 0", path=source, field=where)
    if system == "PixelSpace":
        y_top = [y / height for y in ys]
    elif system in ("PointSpace", "RelativeCoordinateSystem"):
        y_top = [1.0 - y / height for y in ys]  # bottom-left origin: flip
    else:
        raise MalformedInputError(f"unknown coordinate system {system!r}", path=source, field=f"{where}.system")
    x_rel = [x / width for x in xs]
    box = (min(x_rel), min(y_top), max(x_rel), max(y_top))
    if any(c < -_OUT_OF_PAGE or c > 1 + _OUT_OF_PAGE for c in box):
        raise MalformedInputError(f"box {box} lies outside the page", path=source, field=f"{where}.points")
    clamp = lambda c: min(1.0, max(0.0, c))  # noqa: E731
    size = (width, height) if system == "PointSpace" else None
    return (clamp(box[0]), clamp(box[1]), clamp(box[2]), clamp(box[3])), size


# ------------------------------------------------------------------------------------------
# records -> blocks


class _Builder:
    def __init__(self, records: list[_Record], source: str):
        self.records = records
        self.source = source
        self.by_id = {r.element_id: r for r in records if r.element_id}
        self.blocks: list[Block] = []
        self.caption_blocks: set[int] = set()
        self.warnings: list[str] = []  # tables that could not be read (fully), with page and element

    def build(self) -> list[Block]:
        chunks = self._table_chunks()
        i = 0
        n = len(self.records)
        while i < n:
            r = self.records[i]
            if r.type == "ListItem":
                run = [r]
                while i + 1 < n and self._continues_list(run, self.records[i + 1]):
                    i += 1
                    run.append(self.records[i])
                self._emit_list(run)
            elif r.type == "TableChunk":
                tid = r.md.get("table_id")
                group = chunks.get(tid) if isinstance(tid, str) else None
                if group is None:
                    self._emit_table([r])
                elif group[0] is r:
                    self._emit_table(group)
                # later chunks of a rebuilt table: already emitted with the first one
            else:
                self._emit_one(r)
            i += 1
        self._attach_captions()
        return self.blocks

    # -- single elements -------------------------------------------------------------------

    def _emit_one(self, r: _Record) -> None:
        t = r.type
        if t == "PageBreak":
            return
        if not r.text.strip() and t not in _KEEP_EMPTY:
            return
        text = r.text.strip()
        if t in _FURNITURE:
            self._add(r, _FURNITURE[t], text)
        elif t == "Title":
            self._add(r, BlockKind.HEADING, text, level=self._heading_level(r))
        elif t == "Table":
            self._emit_table([r])
        elif t == "Image":
            self._add(r, BlockKind.FIGURE, text)
        elif t == "FigureCaption":
            self.caption_blocks.add(len(self.blocks))
            self._add(r, BlockKind.CAPTION, text)
        elif t == "Formula":
            self._add(r, BlockKind.EQUATION, text)
        elif t == "CodeSnippet":
            mermaid = _mermaid_source(r.text)
            if mermaid is not None:
                self._add(r, BlockKind.FLOWCHART, mermaid, mermaid=mermaid)
            else:
                self._add(r, BlockKind.CODE, r.text.strip("\n"))
        elif isinstance(r.md.get("text_as_html"), str) and _FOOTNOTE_CLASS.match(r.md["text_as_html"]):
            self._add(r, BlockKind.FOOTNOTE, text)
        else:  # NarrativeText, UncategorizedText, Text, CompositeElement without orig, Address, ...
            self._add(r, BlockKind.PARAGRAPH, text)

    def _add(self, r: _Record, kind: BlockKind, text: str, **extra: Any) -> Block:
        return self._append([r], kind, text, bbox=r.bbox, **extra)

    def _append(self, recs: list[_Record], kind: BlockKind, text: str, **extra: Any) -> Block:
        first = recs[0]
        if "parser_ids" in Block.model_fields:  # forward-compatible provenance field (see report)
            extra["parser_ids"] = [x.element_id for x in recs if x.element_id]
        block = Block(
            block_id=f"p{first.page}-e{first.j}",
            kind=kind,
            text=text,
            page=first.page,
            source_type=first.type,
            **extra,
        )
        self.blocks.append(block)
        return block

    def _heading_level(self, r: _Record) -> int:
        html = r.md.get("text_as_html")
        if isinstance(html, str) and (m := _HEADING_TAG.match(html)):
            return int(m.group(1))
        depth = r.md.get("category_depth")
        if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0 and not isinstance(html, str):
            return depth + 1
        numbered = numbering_depth(r.text)
        if numbered is not None:
            return numbered
        level, seen, parent = 1, {r.element_id}, r.md.get("parent_id")
        while isinstance(parent, str) and parent in self.by_id and parent not in seen:
            seen.add(parent)
            up = self.by_id[parent]
            if up.type == "Title":
                level += 1
            parent = up.md.get("parent_id")
        return level

    # -- lists -----------------------------------------------------------------------------

    def _continues_list(self, run: list[_Record], nxt: _Record) -> bool:
        if nxt.type != "ListItem" or nxt.page != run[0].page or not nxt.text.strip():
            return False
        run_ids = {x.element_id for x in run if x.element_id}
        same_parent = nxt.md.get("parent_id") == run[0].md.get("parent_id") or nxt.md.get("parent_id") in run_ids
        if not same_parent:
            return False
        prev = run[-1]
        if (prev.bbox is None) != (nxt.bbox is None):
            return False
        if prev.bbox is None or nxt.bbox is None:
            return True
        a, b = prev.bbox, nxt.bbox
        x_overlap = min(a[2], b[2]) - max(a[0], b[0]) > 0
        return x_overlap and b[1] >= a[1] and b[1] - a[3] <= _LIST_MAX_GAP

    def _emit_list(self, run: list[_Record]) -> None:
        items = [x.text.strip() for x in run if x.text.strip()]
        if not items:
            return
        boxes = [x.bbox for x in run if x.bbox is not None]
        self._append(run, BlockKind.LIST, "\n".join(items), items=items, bbox=_union(boxes) if boxes else None)

    # -- tables ----------------------------------------------------------------------------

    def _table_chunks(self) -> dict[str, list[_Record]]:
        """TableChunks without orig_elements, grouped by ``table_id`` in ``chunk_index`` order."""
        groups: dict[str, list[_Record]] = {}
        for r in self.records:
            tid = r.md.get("table_id")
            if r.type == "TableChunk" and isinstance(tid, str):
                groups.setdefault(tid, []).append(r)
        for tid, group in groups.items():
            indexes = [g.md.get("chunk_index", k) for k, g in enumerate(group)]
            if len(set(indexes)) != len(indexes):
                raise MalformedInputError(
                    f"table_id {tid} has repeated chunk_index values {indexes}",
                    path=self.source, field=f"{group[0].where}.metadata.chunk_index",
                )
            group.sort(key=lambda g: g.md.get("chunk_index", 0))
        return groups

    def _emit_table(self, chunks: list[_Record]) -> None:
        grid = self._table_grid(chunks)
        first = chunks[0]
        text = grid_to_text(grid) if grid is not None else "\n".join(c.text.strip() for c in chunks if c.text.strip())
        extra_pages: list[int] = []
        extra_bboxes: list[BBox | None] = []
        for c in chunks[1:]:
            if c.page != first.page and c.page not in extra_pages:
                extra_pages.append(c.page)
                extra_bboxes.append(c.bbox)
        same_page = [c.bbox for c in chunks if c.page == first.page and c.bbox is not None]
        prev = self.blocks[-1] if self.blocks else None
        # a "Table 5 ..." Title right before the table (its parent) names it: the table's caption too
        caption = (
            prev.text
            if prev is not None and prev.kind is BlockKind.HEADING and prev.page == first.page
            and _TABLE_PREFIX.match(prev.text)
            else ""
        )
        self._append(
            chunks, BlockKind.TABLE, text, table=grid, caption=caption,
            bbox=_union(same_page) if same_page else None,
            extra_pages=extra_pages, extra_bboxes=extra_bboxes,
        )

    def _table_grid(self, chunks: list[_Record]) -> TableGrid | None:
        """The table's grid, or None when it has no usable markup (the text then stays section text)."""
        if len(chunks) == 1:
            return self._one_grid(chunks[0])
        if not all(isinstance(c.md.get("text_as_html"), str) and c.md["text_as_html"].strip() for c in chunks):
            # text-only chunks: the split text, joined back
            return self._text_grid(chunks[0], " ".join(c.text.strip() for c in chunks))
        grids = [self._one_grid(c) for c in chunks]
        if any(g is None for g in grids):
            return None
        merged = TableGrid(header_rows=list(grids[0].header_rows), body_rows=list(grids[0].body_rows))
        row_pages = [chunks[0].page] * len(merged.body_rows)
        for c, g in zip(chunks[1:], grids[1:]):
            carried = c.md.get("num_carried_over_header_rows") or 0
            if not isinstance(carried, int) or carried < 0:
                raise MalformedInputError(
                    f"num_carried_over_header_rows must be an integer >= 0, got {carried!r}",
                    path=self.source, field=f"{c.where}.metadata.num_carried_over_header_rows",
                )
            rows = [*g.header_rows, *g.body_rows][carried:]
            merged.body_rows.extend(rows)
            row_pages.extend([c.page] * len(rows))
        if len(set(row_pages)) > 1:
            merged.body_row_pages = row_pages
        width = merged.n_cols
        merged.header_rows = [r + [""] * (width - len(r)) for r in merged.header_rows]
        merged.body_rows = [r + [""] * (width - len(r)) for r in merged.body_rows]
        return merged

    def _one_grid(self, r: _Record) -> TableGrid | None:
        """Grid of one ``Table``: from ``text_as_html``, else ``table_as_cells``, else line-structured text.

        Markup with no row (``<table></table>``) counts as missing; markup that holds only part of
        ``Table.text`` keeps its grid and ``text_outside_grid`` (both with a warning naming the page
        and element); a one-line text is never split into invented cells.
        """
        html = r.md.get("text_as_html")
        field = f"{r.where}.metadata.text_as_html"
        cells = r.md.get("table_as_cells")
        if not (isinstance(html, str) and html.strip()) and cells:
            html = _cells_to_html(cells, self.source, f"{r.where}.metadata.table_as_cells")
            field = f"{r.where}.metadata.table_as_cells"
        if not (isinstance(html, str) and html.strip()):
            return self._text_grid(r, r.text)
        try:
            grid = parse_html_table(html, path=self.source, field=field)
        except MalformedInputError as exc:
            self._warn(r, f"table markup cannot be read ({exc.args[0] if exc.args else exc}); its text stays section text")
            return None
        missing = missing_words(grid, r.text)
        if missing:
            self._warn(
                r,
                f"table markup holds only part of the table text (no cell has {', '.join(missing[:6])});"
                " the whole text stays searchable",
            )
            grid = grid.model_copy(update={"text_outside_grid": r.text.strip()})
        return grid

    def _text_grid(self, r: _Record, text: str) -> TableGrid | None:
        """A grid from text with line and cell breaks (tabs, `` | ``, 2+ spaces), else None (and a warning)."""
        grid = _grid_from_text(text)
        if grid is None:
            self._warn(r, "table has no markup (text_as_html/table_as_cells); its text stays section text")
        return grid

    def _warn(self, r: _Record, message: str) -> None:
        text = f"page {r.page}, element {r.element_id or r.where}: {message}"
        self.warnings.append(text)
        log.warning("%s: %s", self.source, text)

    # -- captions --------------------------------------------------------------------------

    def _attach_captions(self) -> None:
        if not self.caption_blocks:
            return
        drop: set[int] = set()
        for ci in sorted(self.caption_blocks):
            cap = self.blocks[ci]
            target = self._caption_target(ci, cap)
            if target is None:
                continue
            target.caption = f"{target.caption}\n{cap.text}" if target.caption else cap.text
            drop.add(ci)
        self.blocks = [b for k, b in enumerate(self.blocks) if k not in drop]

    def _caption_target(self, ci: int, cap: Block) -> Block | None:
        page = [b for b in self.blocks if b.page == cap.page]
        if cap.bbox is not None:
            candidates = [b for b in page if b.kind in _CAPTION_KINDS]
            return caption_target(cap, candidates, page)
        neighbours = [b for b in (self._neighbour(ci, -1), self._neighbour(ci, +1)) if b is not None]
        if not neighbours:
            return None
        for prefix, kind in ((_TABLE_PREFIX, BlockKind.TABLE), (_FIGURE_PREFIX, BlockKind.FIGURE)):
            if prefix.match(cap.text):
                return next((b for b in neighbours if b.kind is kind), None)
        return neighbours[0]


    def _neighbour(self, ci: int, step: int) -> Block | None:
        """The figure/table next to block ``ci`` in parser order on its page (no bbox), looking
        past short stray text (axis labels OCR'd next to a chart, at most 20 characters)."""
        k = ci + step
        while 0 <= k < len(self.blocks) and self.blocks[k].page == self.blocks[ci].page:
            b = self.blocks[k]
            if b.kind in _CAPTION_KINDS:
                return b if b.bbox is None else None
            if b.kind is not BlockKind.PARAGRAPH or len(b.text) > _STRAY_TEXT_CHARS:
                return None
            k += step
        return None


# ------------------------------------------------------------------------------------------
# helpers


def _union(boxes: Iterable[BBox]) -> BBox:
    xs0, ys0, xs1, ys1 = zip(*boxes)
    return (min(xs0), min(ys0), max(xs1), max(ys1))


def _mermaid_source(text: str) -> str | None:
    """Mermaid flowchart source of a code snippet, or ``None`` when it is other code."""
    if m := _MERMAID_FENCE.search(text):
        return m.group(1).strip("\n")
    if _MERMAID_HEADER.match(text):
        return text.strip("\n")
    return None


def _grid_from_text(text: str) -> TableGrid | None:
    """Rows from text that has them (two or more lines, cells split at tabs, `` | `` or 2+ spaces,
    at least two lines with two cells), else None: a flat text is never split into invented cells."""
    rows = [
        [c.strip() for c in re.split(r"\t| \| |\s{2,}", line.strip()) if c.strip()]
        for line in text.splitlines()
        if line.strip()
    ]
    rows = [r for r in rows if r]
    if sum(1 for r in rows if len(r) >= 2) < 2:
        return None
    width = max(len(r) for r in rows)
    return TableGrid(body_rows=[r + [""] * (width - len(r)) for r in rows])


def _cells_to_html(cells: Any, source: str, where: str) -> str:
    """``table_as_cells`` (``[{content, x, y, w, h}]``, 0-based column/row, spans) -> HTML."""
    if not isinstance(cells, list):
        raise MalformedInputError("table_as_cells is not a list", path=source, field=where)
    origin: dict[tuple[int, int], Mapping[str, Any]] = {}
    covered: set[tuple[int, int]] = set()
    n_rows = n_cols = 0
    for k, c in enumerate(cells):
        try:
            x, y = int(c["x"]), int(c["y"])
            w, h = max(1, int(c.get("w", 1))), max(1, int(c.get("h", 1)))
        except (KeyError, TypeError, ValueError) as exc:
            raise MalformedInputError(f"cell needs integer x, y: {exc}", path=source, field=f"{where}[{k}]") from exc
        origin[(y, x)] = {**c, "w": w, "h": h}
        covered.update((y + dy, x + dx) for dy in range(h) for dx in range(w) if (dy, dx) != (0, 0))
        n_rows, n_cols = max(n_rows, y + h), max(n_cols, x + w)
    rows = []
    for y in range(n_rows):
        tds = []
        for x in range(n_cols):
            if (y, x) in origin:
                c = origin[(y, x)]
                span = (f' colspan="{c["w"]}"' if c["w"] > 1 else "") + (f' rowspan="{c["h"]}"' if c["h"] > 1 else "")
                tds.append(f"<td{span}>{escape(str(c.get('content') or ''))}</td>")
            elif (y, x) not in covered:
                tds.append("<td></td>")
        rows.append("<tr>" + "".join(tds) + "</tr>")
    return "<table>" + "".join(rows) + "</table>"
