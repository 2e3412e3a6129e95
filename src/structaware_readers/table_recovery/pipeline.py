"""The one entry point of table recovery: the stages run in order over a document."""

from __future__ import annotations

import logging
from pathlib import Path

from structaware_readers.errors import InputNotFoundError, MalformedInputError, MissingExtraError
from structaware_readers.models import BlockKind, ParsedDocument
from structaware_readers.table_recovery.pdfium_text import PdfiumText
from structaware_readers.table_recovery.record import PdfSource
from structaware_readers.table_recovery.shown_page import shown_page
from structaware_readers.table_recovery.stage1_select import needs_check, needs_parts_check, needs_recovery, select
from structaware_readers.table_recovery.stage2_find_pdf import find_pdf, open_pdf, pdf_label
from structaware_readers.table_recovery.stage3_split_tables import join_split_tables
from structaware_readers.table_recovery.stage4_text_layer import rebuild_from_text_layer
from structaware_readers.table_recovery.stage5_parser_text import from_parser_text
from structaware_readers.table_recovery.stage6_markup_check import (
    check_merged_parts,
    check_parser_markup,
    document_words,
)
from structaware_readers.table_recovery.stage7_continued import finish
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes, needs_row_boxes

__all__ = ["recover_table_grids", "recover_tables"]

log = logging.getLogger(__name__)


def recover_tables(doc: ParsedDocument, path: str | Path, pdf: PdfSource | bool | None) -> ParsedDocument:
    """``doc`` with its ungridded tables (and tables whose markup garbles the header, stacks items or is split into
    pieces) rebuilt from the PDF given or found, else its ungridded tables from the parser's text; then each table
    body row's own box from that PDF where the grid has none (stage 8). Raises ``InputNotFoundError``.
    """
    return _with_row_boxes(_with_table_grids(doc, path, pdf), path, pdf)


def _with_table_grids(doc: ParsedDocument, path: str | Path, pdf: PdfSource | bool | None) -> ParsedDocument:
    """Stages 1-7 with the PDF given, found (stage 2) or none."""
    checked = pdf is not False and any(needs_check(b) or needs_parts_check(b) for b in doc.blocks)
    if not needs_recovery(doc) and not checked:
        return doc
    if pdf is False:
        return recover_table_grids(doc, None)
    if pdf is not None and pdf is not True:
        return recover_table_grids(doc, pdf)
    found = find_pdf(path, name=doc.name)
    if found is None:
        return recover_table_grids(doc, None)
    try:
        return recover_table_grids(doc, found)
    except (MissingExtraError, MalformedInputError) as exc:  # a PDF found on the way is a bonus, not a requirement
        doc = doc.model_copy(update={"warnings": [*doc.warnings, f"the PDF found was not used: {exc}"]})
        return recover_table_grids(doc, None)


def _with_row_boxes(doc: ParsedDocument, path: str | Path, pdf: PdfSource | bool | None) -> ParsedDocument:
    """Stage 8: each table body row's own box from the PDF given or found, where the grid has none;
    ``doc`` itself without a PDF."""
    if pdf is False or not any(needs_row_boxes(b) for b in doc.blocks):
        return doc
    if pdf is None or pdf is True:
        found = find_pdf(path, name=doc.name)
        if found is None:
            return doc
        try:
            return add_row_boxes(doc, found)
        except (InputNotFoundError, MalformedInputError):  # a PDF found on the way is a bonus, not a requirement
            return doc
    return add_row_boxes(doc, pdf)


def recover_table_grids(doc: ParsedDocument, pdf: PdfSource | None = None) -> ParsedDocument:
    """Return ``doc`` (1-based pages, bboxes 0..1 of the page, origin top-left) with grids rebuilt for its ungridded
    table regions (the stages, in order); ``pdf=None`` uses the parser's space-aligned text only. A table that cannot
    be read gets a warning; ``doc`` itself when nothing needed recovery. Raises ``InputNotFoundError``,
    ``MalformedInputError`` (field ``pdf``), ``MissingExtraError`` (pdfplumber).
    """
    rec = select(doc, with_pdf=pdf is not None)
    if rec is None:
        return doc
    if pdf is None:
        for i in rec.targets:
            if rec.blocks[i].kind is BlockKind.TABLE:
                rec.blocks[i] = from_parser_text(rec.blocks[i], None, rec.warnings)
        return finish(rec)
    with open_pdf(pdf) as plumber:
        if len(plumber.pages) != doc.page_count:
            msg = (
                f"{pdf_label(pdf)} has {len(plumber.pages)} pages, the document {doc.page_count}: not its PDF;"
                " tables without cell structure are read from the parser's text only"
            )
            log.warning("%s: %s", doc.source, msg)
            return recover_table_grids(doc.model_copy(update={"warnings": [*doc.warnings, msg]}), None)
        if rec.checks or rec.parts:
            rec.vocabulary = document_words(
                [b.text for b in doc.blocks if not b.is_furniture and b.kind is not BlockKind.TABLE]
            )
        if rec.checks:
            rec.text = _pdfium_text(pdf)
        try:
            for page_number in rec.pages():
                page = shown_page(plumber, page_number)
                try:
                    join_split_tables(rec, page_number, page)
                    rebuild_from_text_layer(rec, page_number, page)
                    check_parser_markup(rec, page_number, page)
                finally:
                    page.root_page.close()  # pdfplumber caches a page's objects until it is closed
            check_merged_parts(rec, plumber)
        finally:
            if rec.text is not None:
                rec.text.close()
        rec.drop_absorbed()
    return finish(rec)


def _pdfium_text(pdf: PdfSource) -> PdfiumText | None:
    """``pdf`` opened with PDFium for stage 6's quick look; ``None`` when PDFium cannot open what
    pdfplumber did (stage 6 then parses every checked page with pdfplumber)."""
    try:
        return PdfiumText(pdf)
    except (InputNotFoundError, MalformedInputError) as exc:
        log.debug("%s: PDFium cannot open it (%s); markup is checked with pdfplumber alone", pdf_label(pdf), exc)
        return None
