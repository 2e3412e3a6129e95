"""OCR of chosen PDF pages: render, read the lines, find the horizontal rules, cache the result.

:func:`read_pages` gives one :class:`PageRead` per page: the engine's lines (bboxes in 0..1 of the
page, origin top-left: the render covers the whole page) and the page's horizontal rules (table
rules, from the image: rows of dark pixels running across at least :data:`RULE_MIN_WIDTH` of the
page), which the layout step uses to cut table rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cache import OcrCache, Rule
from .engine import OcrEngine, OcrLine, default_engine
from .pages import OCR_DPI, open_pdf, render_page

#: A horizontal rule spans at least this share of the page width.
RULE_MIN_WIDTH = 0.25
#: A pixel darker than this (0..255 grey) can belong to a rule.
_DARK = 170


@dataclass
class PageRead:
    """What OCR read on one page.

    Attributes:
        page: 1-based page number.
        lines: text lines, bbox in 0..1 of the page (origin top-left), confidence 0..1.
        rules: horizontal rules ``(y, x0, x1)`` in 0..1 of the page.
        route: what read the page (e.g. ``"ocr:rapidocr PP-OCRv6 small 3.10.0@200dpi"``).
    """

    page: int
    lines: list[OcrLine]
    rules: list[Rule] = field(default_factory=list)
    route: str = ""


def horizontal_rules(image: Any) -> list[Rule]:
    """Horizontal rules of an RGB page image: ``(y, x0, x1)`` in 0..1, one per rule (top to bottom).

    A rule is a run of image rows (at most ~0.4 % of the height thick) in which one dark segment
    spans at least :data:`RULE_MIN_WIDTH` of the width; text rows never do (gaps between characters).
    """
    import numpy as np

    grey = np.asarray(image.convert("L"))
    h, w = grey.shape
    dark = grey < _DARK
    min_run = int(RULE_MIN_WIDTH * w)
    rules: list[Rule] = []
    candidates = np.nonzero(dark.sum(axis=1) >= min_run)[0]
    last_y = -10
    for y in candidates:
        row = dark[y]
        # longest run of dark pixels in this row (allowing 2-pixel breaks from scanning noise)
        padded = np.concatenate(([False], row, [False]))
        edges = np.flatnonzero(padded[1:] != padded[:-1])
        starts, ends = edges[0::2], edges[1::2]
        best: tuple[int, int] | None = None
        s0, e0 = None, None
        for s, e in zip(starts, ends):
            if s0 is not None and s - e0 <= 2:
                e0 = e
                continue
            if s0 is not None and (best is None or e0 - s0 > best[1] - best[0]):
                best = (s0, e0)
            s0, e0 = s, e
        if s0 is not None and (best is None or e0 - s0 > best[1] - best[0]):
            best = (s0, e0)
        if best is None or best[1] - best[0] < min_run:
            continue
        if y - last_y <= 2 and rules:  # the same (thick) rule
            last_y = y
            continue
        last_y = y
        rules.append((float(y) / h, float(best[0]) / w, float(best[1]) / w))
    return rules


def read_pages(
    pdf: str | Path | bytes,
    pages: list[int],
    *,
    doc_id: str | None = None,
    engine: OcrEngine | None = None,
    dpi: int = OCR_DPI,
    cache: OcrCache | None | bool = True,
) -> list[PageRead]:
    """OCR ``pages`` (1-based) of ``pdf``; cached per page when ``doc_id`` is given and ``cache`` is on.

    Raises:
        MissingExtraError: the OCR engine or pypdfium2 is not installed (``structaware[ocr]``).
        MalformedInputError: PDFium cannot open the PDF.
    """
    engine = engine or default_engine()
    route = f"ocr:{engine.name} {engine.version}@{dpi}dpi"
    store = (OcrCache() if cache is True else cache or None) if doc_id else None
    doc = open_pdf(pdf)
    out: list[PageRead] = []
    for page in pages:
        hit = store.load(doc_id, route, page) if store is not None and doc_id else None
        if hit is not None:
            out.append(PageRead(page, hit[0], hit[1], route))
            continue
        image = render_page(doc, page, dpi=dpi)
        lines = engine.read(image)
        rules = horizontal_rules(image)
        if store is not None and doc_id:
            store.store(doc_id, route, page, lines, rules)
        out.append(PageRead(page, lines, rules, route))
    return out
