"""Route a PDF page by page: the text layer where it can be read, OCR where there is none or it is garbage.

:func:`read_pdf` is what :func:`structaware_readers.load.loader.load_document` calls for a PDF.
MinerU reads the file; pages that are scanned or whose text layer is garbled
(:mod:`structaware_readers.ocr.text_layer`) are read by the OCR route (:func:`ocr_blocks`) instead.
When no page has a readable text layer, MinerU's own OCR tier reads it if installed
(:func:`mineru_ocr_ready`), else the OCR route reads every page. Blank pages are never read.
:attr:`ParsedDocument.page_routes` records which route read each page.

Raises :class:`~structaware_readers.errors.EmptyDocumentError` when every page is blank, and
:class:`~structaware_readers.errors.MissingExtraError` naming ``ocr`` and the pages when OCR is
needed but not installed; a document keeping its readable pages gets a warning instead.
"""

from __future__ import annotations

from pathlib import Path

from structaware_readers.errors import EmptyDocumentError, MissingExtraError
from structaware_readers.ids import doc_id_from_file
from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.ocr.engine import OcrEngine, default_engine
from structaware_readers.ocr.layout import page_blocks
from structaware_readers.ocr.pages import MIN_TEXT_CHARS, OCR_DPI, PageScan, scan_pages
from structaware_readers.ocr.read_pages import read_pages
from structaware_readers.structure.headings import heading_levels

#: MinerU's tier that reads scans with its own OCR models.
MINERU_OCR_TIER = "basic"


def mineru_ocr_ready() -> bool:
    """Whether a local MinerU can run its OCR tier offline: installed, with its models on disk."""
    try:
        from mineru.model.download import verify_model_repo
        from mineru.model.registry import small_model_repo

        return bool(verify_model_repo(small_model_repo()).ready)
    except Exception:  # noqa: BLE001 - not installed, another MinerU layout, no config: not ready
        return False


def read_pdf(path: str | Path, *, engine: OcrEngine | None = None, dpi: int = OCR_DPI) -> ParsedDocument:
    """Read a PDF, each page by the route that can read it (see the module docstring).

    Raises:
        As :func:`structaware_readers.mineru.read_mineru` for pages read from the text layer;
        MissingExtraError: no page can be read from its text layer (or MinerU refused the file) and
            neither ``structaware[ocr]`` nor MinerU's OCR models are there; the message names the
            extra and the pages;
        EmptyDocumentError: OCR found no text on any page.
    """
    from structaware_readers.mineru import read_mineru
    from structaware_readers.mineru.failures import ModelsMissingError

    try:
        scans = scan_pages(path)
    except MissingExtraError:
        return read_mineru(path)
    if all(s.blank for s in scans):
        raise EmptyDocumentError(
            f"nothing on any of its {len(scans)} page(s): no text, image or drawing"
            " (blank pages, or page content PDFium cannot decode: an unknown filter, a damaged stream)",
            path=path,
            field="pages",
        )
    need = [s for s in scans if s.needs_ocr]
    notes = _partly_unreadable(scans)
    if not any(s.text_chars >= MIN_TEXT_CHARS and not s.needs_ocr for s in scans):
        need = [s for s in scans if not s.blank]  # scans, garbled text layers, drawings without text
        if mineru_ocr_ready():
            from structaware_readers.mineru.pdf import parse_pdf

            doc = parse_pdf(path, tier=MINERU_OCR_TIER)
            return doc.model_copy(update={"page_routes": {s.page: f"mineru:{MINERU_OCR_TIER}" for s in need}})
        return _ocr_document(path, scans, need, engine=engine, dpi=dpi)
    try:
        doc = read_mineru(path)
    except ModelsMissingError as exc:  # MinerU judged the file by a sample of pages and wants its OCR models
        refused = f"MinerU did not read this PDF ({exc.message.split(' -- ')[0]}); every page read by OCR"
        return _ocr_document(path, scans, need, engine=engine, dpi=dpi, notes=[*notes, refused])
    if not need:
        return _noted(doc, notes)
    pages = [s.page for s in need]
    try:
        blocks, routes, warnings = ocr_blocks(path, pages, doc_id=doc.doc_id, engine=engine, dpi=dpi)
    except MissingExtraError as exc:  # the readable pages are read; the others are named, not lost silently
        lost = [
            f"page(s) {_page_list([s for s in need if s.reason == why])}: {why}, not read: {exc}"
            for why in _reasons(need)
        ]
        return _noted(doc, [*notes, *lost])
    kept = [b for b in doc.blocks if b.page not in set(pages)]
    merged = sorted([*kept, *blocks], key=lambda b: b.page)  # stable: each page keeps its own order
    return doc.model_copy(
        update={
            "blocks": merged,
            "page_routes": {**doc.page_routes, **routes},
            "warnings": [*doc.warnings, *notes, *warnings],
        }
    )


def _page_list(scans: list[PageScan]) -> str:
    """Page numbers with runs folded: ``1-24, 26, 28-30``."""
    spans: list[list[int]] = []
    for n in sorted(s.page for s in scans):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _reasons(need: list[PageScan]) -> list[str]:
    """The distinct reasons pages need OCR, in page order."""
    return list(dict.fromkeys(s.reason for s in need))


def _partly_unreadable(scans: list[PageScan]) -> list[str]:
    """Warnings for pages kept from a text layer of which a notable share is unreadable."""
    return [
        f"page {s.page}: {s.quality.unreadable_share:.0%} of its text layer is unreadable (a font without a Unicode map?);"
        " read from the text layer, check it against the page"
        for s in scans
        if s.quality is not None and s.quality.suspect and not s.needs_ocr
    ]


def _noted(doc: ParsedDocument, notes: list[str]) -> ParsedDocument:
    return doc.model_copy(update={"warnings": [*doc.warnings, *notes]}) if notes else doc


def ocr_blocks(
    pdf: str | Path, pages: list[int], *, doc_id: str | None = None, engine: OcrEngine | None = None, dpi: int = OCR_DPI
) -> tuple[list[Block], dict[int, str], list[str]]:
    """Blocks of ``pages`` read by OCR, the route of each page, and the warnings (unreadable pages, low confidence)."""
    blocks: list[Block] = []
    routes: dict[int, str] = {}
    warnings: list[str] = []
    for read in read_pages(pdf, pages, doc_id=doc_id, engine=engine, dpi=dpi):
        routes[read.page] = read.route
        result = page_blocks(read.page, read.lines, read.rules)
        if not any(b.text.strip() for b in result.blocks):
            warnings.append(
                f"page {read.page}: no text layer and OCR read no text on it (blank, a picture, or unreadable)"
            )
        if result.low_confidence:
            n = len(result.low_confidence)
            warnings.append(
                f"page {read.page}: {n} OCR line{'s' if n > 1 else ''} read with low confidence (kept; check them against the page),"
                f" e.g. {result.low_confidence[0].text!r}"
            )
        blocks.extend(result.blocks)
    headings = [b for b in blocks if b.kind is BlockKind.HEADING]
    for b, level in zip(headings, heading_levels([(b.text, None) for b in headings])):
        b.level = level
    return blocks, routes, warnings


def _ocr_document(
    path: str | Path,
    scans: list[PageScan],
    need: list[PageScan],
    *,
    engine: OcrEngine | None,
    dpi: int,
    notes: list[str] = (),
) -> ParsedDocument:
    """Every page but the blank ones read by OCR; ``need`` (the pages no text layer reads) names them when the
    engine is missing."""
    p = Path(path)
    doc_id = doc_id_from_file(p)
    try:
        blocks, routes, warnings = ocr_blocks(
            p, [s.page for s in scans if not s.blank], doc_id=doc_id, engine=engine, dpi=dpi
        )
    except MissingExtraError as exc:
        why = "; ".join(f"page(s) {_page_list([s for s in need if s.reason == r])}: {r}" for r in _reasons(need) if r)
        why = why or "MinerU's model-free tier did not read it"
        raise MissingExtraError(
            str(exc.field or "rapidocr"), exc.extra, f"Reading this PDF by OCR ({why})", path=p
        ) from exc
    if not any(b.text.strip() for b in blocks if not b.is_furniture):
        raise EmptyDocumentError("no text layer on any page and OCR read no text", path=p, field="pages")
    eng = engine or default_engine()
    return ParsedDocument(
        doc_id=doc_id,
        source=str(path),
        name=p.stem,
        parser="ocr",
        parser_version=f"{eng.name} {eng.version}",
        input_format="pdf_image",
        page_count=len(scans),
        page_sizes=[s.size for s in scans],
        blocks=blocks,
        warnings=[*notes, *warnings],
        page_routes=routes,
    )
