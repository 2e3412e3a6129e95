"""Route a PDF page by page: the text layer where there is one, OCR where there is none.

:func:`read_pdf` is what :func:`structaware_readers.loader.load_document` calls for a PDF:

* every page has a usable text layer (or pypdfium2 is not installed): MinerU reads the file as
  before (:func:`structaware_readers.mineru.read_mineru`);
* some pages have none (scanned pages inside a born-digital file): MinerU reads the file, and the
  blocks of those pages are replaced by the OCR route's (:func:`ocr_blocks`); without
  ``structaware[ocr]`` the document keeps its text-layer pages and a warning names the others;
* no page has one (a scan): when MinerU's own OCR tier (``basic``) is installed with its models
  (:func:`mineru_ocr_ready`), MinerU reads it with that tier; otherwise the OCR route reads every page
  and the document is built from its blocks alone (``parser="ocr"``).

Which route read each page is in :attr:`ParsedDocument.page_routes` (pages the parser read from
the text layer are not listed) and each OCR block's ``source_type`` starts with ``ocr``. Low-confidence
lines are kept, and counted in one warning per page; a page where OCR found no text is a warning
naming the page.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import EmptyDocumentError, MissingExtraError
from ..ids import doc_id_from_file
from ..headings import heading_levels
from ..models import Block, BlockKind, ParsedDocument
from .engine import OcrEngine
from .layout import page_blocks
from .pages import OCR_DPI, scan_pages
from .read_pages import read_pages

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
        As :func:`structaware_readers.mineru.read_mineru` for pages with a text layer;
        MissingExtraError: a scan and neither ``structaware[ocr]`` nor MinerU's OCR models are there;
        EmptyDocumentError: OCR found no text on any page.
    """
    from ..mineru import read_mineru

    try:
        scans = scan_pages(path)
    except MissingExtraError:
        return read_mineru(path)
    need = [s.page for s in scans if s.needs_ocr]
    if not need:
        return read_mineru(path)
    if len(need) == len(scans):
        if mineru_ocr_ready():
            from ..mineru.pdf import parse_pdf

            doc = parse_pdf(path, tier=MINERU_OCR_TIER)
            return doc.model_copy(update={"page_routes": {p: f"mineru:{MINERU_OCR_TIER}" for p in need}})
        return _ocr_document(path, scans, engine=engine, dpi=dpi)
    doc = read_mineru(path)
    try:
        blocks, routes, warnings = ocr_blocks(path, need, doc_id=doc.doc_id, engine=engine, dpi=dpi)
    except MissingExtraError as exc:  # the text-layer pages are read; the others are named, not lost silently
        pages = ", ".join(map(str, need))
        return doc.model_copy(update={"warnings": [*doc.warnings, f"page(s) {pages}: no text layer, not read: {exc}"]})
    kept = [b for b in doc.blocks if b.page not in set(need)]
    merged = sorted([*kept, *blocks], key=lambda b: b.page)  # stable: each page keeps its own order
    return doc.model_copy(
        update={"blocks": merged, "page_routes": {**doc.page_routes, **routes}, "warnings": [*doc.warnings, *warnings]}
    )


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
            warnings.append(f"page {read.page}: no text layer and OCR read no text on it (blank, a picture, or unreadable)")
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


def _ocr_document(path: str | Path, scans: list, *, engine: OcrEngine | None, dpi: int) -> ParsedDocument:
    p = Path(path)
    doc_id = doc_id_from_file(p)
    blocks, routes, warnings = ocr_blocks(p, [s.page for s in scans], doc_id=doc_id, engine=engine, dpi=dpi)
    if not any(b.text.strip() for b in blocks if not b.is_furniture):
        raise EmptyDocumentError("no text layer on any page and OCR read no text", path=p, field="pages")
    from .engine import default_engine

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
        warnings=warnings,
        page_routes=routes,
    )
