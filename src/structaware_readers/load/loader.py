"""One entry point for every input: detect what a path holds by its content and read it.

Inputs: a PDF (MinerU, with OCR for pages without a usable text layer:
:func:`structaware_readers.load.pdf_route.read_pdf`), any MinerU output (JSON, folder, zip),
an Unstructured elements JSON, or another raw file Unstructured can partition offline.

``reading_order``: ``"parser"`` keeps the parser's order, ``"layout"`` restores it from the bboxes
(:mod:`structaware_readers.structure.reading_order`), ``"auto"`` (default) keeps MinerU's and
restores Unstructured's for page-image formats, whose order follows the PDF text stream.
:func:`prepare_document` is the one structure pass every reader's output goes through (furniture,
reading order, continued paragraphs, references, front matter, algorithms).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from structaware_readers.common.inputs import existing_path
from structaware_readers.common.limits import json_start
from structaware_readers.errors import (
    InputNotFoundError,
    MalformedInputError,
    ParserUnavailableError,
    UnknownFormatError,
)
from structaware_readers.models import BlockKind, ParsedDocument

if TYPE_CHECKING:
    from structaware_readers.text.layer import PdfTextLayer

log = logging.getLogger(__name__)
ReadingOrder = Literal["auto", "parser", "layout"]

_UNSTRUCTURED_RAW = {".docx", ".doc", ".html", ".htm", ".md", ".markdown", ".pptx", ".txt", ".rtf", ".odt", ".epub"}
_PAGE_IMAGE_FILETYPES = ("application/pdf", "image/")


def detect_input(path: str | Path) -> Literal["pdf", "mineru", "unstructured", "raw"]:
    """Classify an input path by content (magic bytes or JSON shape), not by its name alone.

    Raises:
        InputNotFoundError: ``path`` does not exist.
        UnknownFormatError: a file whose content matches no supported input.
    """
    p = existing_path(path)
    if p.is_dir():
        return "mineru"
    if not p.is_file():  # a named pipe or a device: reading it could block forever
        raise UnknownFormatError("not a regular file (a named pipe, socket or device)", path=p, field="content")
    if p.suffix.lower() == ".zip":
        return "mineru"
    with open(p, "rb") as fh:
        head = fh.read(1024)
        if b"%PDF-" in head:  # the PDF spec allows junk before the header
            return "pdf"
        fh.seek(0)
        stripped = json_start(fh, chunk=8192)
    if stripped[:1] in (b"[", b"{"):
        return "unstructured" if _looks_like_unstructured_json(stripped) else "mineru"
    if p.suffix.lower() in _UNSTRUCTURED_RAW:
        return "raw"
    if p.suffix.lower() == ".pdf":
        raise UnknownFormatError("file is named .pdf but has no %PDF- header", path=p, field="content")
    raise UnknownFormatError(
        "not a PDF, a MinerU output, an Unstructured elements JSON or a document Unstructured can partition",
        path=p,
        field="content",
    )


def _looks_like_unstructured_json(head: bytes) -> bool:
    """Unstructured elements carry ``element_id`` and ``metadata`` keys in their first element.

    Decided on the file's first bytes so that a large MinerU JSON is not parsed twice (here and
    by its reader); MinerU formats have no ``element_id`` key.
    """
    text = head.decode("utf-8", errors="ignore")
    return '"element_id"' in text and '"metadata"' in text


def load_document(
    path: str | Path,
    *,
    reading_order: ReadingOrder = "auto",
    pdf: str | Path | bytes | bool | None = None,
) -> ParsedDocument:
    """Read any supported input into a :class:`ParsedDocument` with blocks in reading order.

    Args:
        path: PDF, MinerU output (file, folder or zip), Unstructured elements JSON, or a raw file.
        reading_order: ``"auto"``, ``"parser"`` or ``"layout"`` (see the module docstring).
        pdf: the PDF the parser output was made from, used to rebuild the grids of tables the parser
            left without cells (:mod:`structaware_readers.table_recovery`): a path or the PDF's
            bytes; ``None`` (default) finds it (the input itself when it is a PDF, a PDF inside or
            beside a MinerU output: :func:`~structaware_readers.table_recovery.stage2_find_pdf.find_pdf`);
            ``False`` never uses one. Without a PDF, a table's own space-aligned text (MinerU flash
            tier) is read as its grid where it can be.

    Raises:
        InputNotFoundError, UnknownFormatError, MalformedInputError, EmptyDocumentError,
        ParserUnavailableError: from detection and the readers; each names the file and the field.
            A ``pdf`` path that does not exist or is no readable PDF raises
            ``InputNotFoundError`` / ``MalformedInputError`` with field ``pdf``.
    """
    if reading_order not in ("auto", "parser", "layout"):
        raise MalformedInputError(f"must be 'auto', 'parser' or 'layout', not {reading_order!r}", field="reading_order")
    kind = detect_input(path)
    if kind == "pdf":  # page by page: the text layer through MinerU, pages without one through OCR
        from structaware_readers.load.pdf_route import read_pdf

        doc = read_pdf(path)
    elif kind == "mineru":
        from structaware_readers.mineru import read_mineru

        doc = read_mineru(path)
    else:
        from structaware_readers.unstructured import read_unstructured

        doc = read_unstructured(path)
    from structaware_readers.table_recovery import recover_tables

    doc = recover_tables(doc, path, pdf)
    doc = prepare_document(doc, reading_order, pdf=_pdf_source(path, doc, pdf))
    _log_tables_without_grid(doc, path)
    return doc


def _log_tables_without_grid(doc: ParsedDocument, path: str | Path) -> None:
    """One warning line per document for the tables still without a grid once every recovery has run
    (the readers log theirs at debug level: a grid rebuilt later from the PDF makes them moot)."""
    pages = [b.page for b in doc.blocks if b.kind is BlockKind.TABLE and b.table is None]
    if pages:
        shown = sorted(set(pages))
        log.warning(
            "%s: %d table(s) without cell structure on page%s %s: their text stays section text, no row units"
            " (each named in ParsedDocument.warnings)",
            path, len(pages), "s" if len(shown) > 1 else "", ", ".join(map(str, shown[:20])) + (", ..." if len(shown) > 20 else ""),
        )  # fmt: skip


def _pdf_source(
    path: str | Path, doc: ParsedDocument, pdf: str | Path | bytes | bool | None
) -> str | Path | bytes | None:
    """The PDF behind ``path``: the one given, else the one found in or beside it; ``None`` for ``False``."""
    if pdf is False:
        return None
    if pdf is not None and pdf is not True:
        return pdf
    from structaware_readers.table_recovery import find_pdf

    return find_pdf(path, name=doc.name)


def prepare_document(
    doc: ParsedDocument, reading_order: ReadingOrder = "auto", *, pdf: str | Path | bytes | None = None
) -> ParsedDocument:
    """The one structure pass every reader's output goes through before units are built.

    In order: text as a reader sees it (:mod:`~structaware_readers.text.as_read`), boxed statements
    made paragraphs, text restored from ``pdf``'s text layer, page furniture, loose tables,
    reading order, headings, continued paragraphs, numbered entries cut at their number, references,
    front matter, algorithms and charts (images need ``pdf`` and the ``ocr`` extra), unread figures
    named in the warnings.

    Returns ``doc`` itself when nothing changes, else a copy.

    Raises:
        MalformedInputError: ``reading_order`` is not ``"auto"``, ``"parser"`` or ``"layout"`` (a ``ValueError``).
    """
    from structaware_readers.algorithms import attach_described_algorithms
    from structaware_readers.algorithms.chart_regions import gather_chart_regions
    from structaware_readers.algorithms.unread import note_unread_figures
    from structaware_readers.loose_tables import gather_loose_tables
    from structaware_readers.structure.boxed_statements import read_boxed_statements
    from structaware_readers.structure.continuations import join_continued_paragraphs
    from structaware_readers.structure.entry_numbers import join_entry_numbers
    from structaware_readers.structure.front_matter import mark_front_matter
    from structaware_readers.structure.furniture import mark_furniture
    from structaware_readers.structure.heading_pass import settle_headings
    from structaware_readers.structure.references import mark_references
    from structaware_readers.text.as_read import read_as_printed

    doc = read_boxed_statements(read_as_printed(doc))
    layer = None
    if pdf is not None:
        doc, layer = _with_text_layer(doc, pdf)
    doc = gather_loose_tables(mark_furniture(doc), pdf)
    doc = settle_headings(apply_reading_order(doc, reading_order), pdf)
    hyphen = None if layer is None else layer.line_end_hyphen
    doc = mark_front_matter(mark_references(join_entry_numbers(join_continued_paragraphs(doc, hyphen))))
    doc = gather_chart_regions(attach_described_algorithms(doc))
    if pdf is not None:
        doc = _with_algorithm_images(_with_description_lines(doc, pdf), pdf)
    return note_unread_figures(doc)


def _with_description_lines(doc: ParsedDocument, pdf: str | Path | bytes) -> ParsedDocument:
    """The description paragraphs flowchart edges point at, fitted to the PDF's text layer
    (:func:`~structaware_readers.algorithms.box_places.fit_description_lines`); a PDF PDFium cannot
    read leaves ``doc`` as it is (the text layer pass has warned)."""
    from structaware_readers.algorithms.box_places import fit_description_lines

    try:
        return fit_description_lines(doc, pdf)
    except (InputNotFoundError, MalformedInputError, OSError, RuntimeError):  # pdfium errors are RuntimeErrors
        return doc


def _with_text_layer(doc: ParsedDocument, pdf: str | Path | bytes) -> tuple[ParsedDocument, PdfTextLayer | None]:
    """Blocks given back the spaces and hyphens the PDF prints (:mod:`structaware_readers.text.restore`), and the
    text layer read (kept to join paragraphs a page break hyphenates); a PDF PDFium cannot read leaves ``doc`` as
    it is, with a warning, and no layer."""
    from structaware_readers.text.layer import PdfTextLayer
    from structaware_readers.text.restore import restore_from_text_layer

    try:
        layer = PdfTextLayer(pdf)
        return restore_from_text_layer(doc, layer), layer
    except (InputNotFoundError, MalformedInputError, OSError, RuntimeError) as exc:  # pdfium errors are RuntimeErrors
        warning = f"text not checked against the PDF text layer: {exc}"
        return doc.model_copy(update={"warnings": [*doc.warnings, warning]}), None


def _with_algorithm_images(doc: ParsedDocument, pdf: str | Path | bytes) -> ParsedDocument:
    """Algorithm images left unread, read from the PDF (its text layer over the image, else the default
    OCR engine) when the ``ocr`` extra is installed; the boxes of algorithms read from a text
    description placed on their images the same way (:mod:`structaware_readers.algorithms.box_places`)."""
    from structaware_readers.algorithms.box_places import described_images, place_described_boxes
    from structaware_readers.algorithms.images import algorithm_images, engine_lines, read_algorithm_images

    if not algorithm_images(doc) and not described_images(doc):
        return doc
    try:
        read_lines = engine_lines()
        return read_algorithm_images(place_described_boxes(doc, pdf, read_lines=read_lines), pdf, read_lines=read_lines)
    except ParserUnavailableError:  # OpenCV / the OCR engine not installed or without its weights
        return doc  # note_unread_figures names the images
    except (MalformedInputError, OSError, ValueError, RuntimeError) as exc:  # pdfium errors are RuntimeErrors
        return doc.model_copy(update={"warnings": [*doc.warnings, f"algorithm images not read from the PDF: {exc}"]})


def apply_reading_order(doc: ParsedDocument, reading_order: ReadingOrder = "auto") -> ParsedDocument:
    """Return ``doc`` with its blocks in the order ``reading_order`` asks for (see module docstring).

    ``"auto"`` restores the order only for Unstructured output of page-image formats (PDF, images)
    that carries bboxes; MinerU's own layout order is kept. Returns a copy when blocks move.

    Raises:
        MalformedInputError: ``reading_order`` is not ``"auto"``, ``"parser"`` or ``"layout"`` (a ``ValueError``).
    """
    if reading_order not in ("auto", "parser", "layout"):
        raise MalformedInputError(f"must be 'auto', 'parser' or 'layout', not {reading_order!r}", field="reading_order")
    restore = reading_order == "layout" or (
        reading_order == "auto" and doc.parser == "unstructured" and _unstructured_order_untrusted(doc)
    )
    if not restore:
        return doc
    from structaware_readers.structure.reading_order import restore_reading_order

    return doc.model_copy(update={"blocks": restore_reading_order(doc.blocks)})


def _unstructured_order_untrusted(doc: ParsedDocument) -> bool:
    """Unstructured's order is the text-stream order for page-image formats: restore it there."""
    has_boxes = any(b.bbox is not None for b in doc.blocks)
    return has_boxes and doc.input_format.startswith(_PAGE_IMAGE_FILETYPES)
