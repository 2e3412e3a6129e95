"""OCR of chosen PDF pages: render, read the lines, find the horizontal rules, cache the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from structaware_readers.ocr.cache import OcrCache, Rule
from structaware_readers.ocr.engine import OcrEngine, OcrLine, default_engine
from structaware_readers.ocr.pages import OCR_DPI, open_pdf, render_page

#: A horizontal rule spans at least this share of the page width.
RULE_MIN_WIDTH = 0.25
#: Version of :func:`horizontal_rules`: cached pages whose rules another version found get them again.
RULES_VERSION = 2
#: Ink is this many grey levels (0..255) darker than the page background.
_INK_CONTRAST = 25
#: A run of rule rows thicker than this share of the page height is a shaded band, not a rule.
_BAND_MIN = 0.005
#: Breaks in a rule up to this share of the page width are bridged.
_RULE_GAP = 0.006


@dataclass
class PageRead:
    """What OCR read on one page (1-based ``page``): ``lines`` with bbox in 0..1 of the page (origin top-left) and
    confidence 0..1, horizontal ``rules`` as ``(y, x0, x1)`` in 0..1, and the ``route`` that read it.
    """

    page: int
    lines: list[OcrLine]
    rules: list[Rule] = field(default_factory=list)
    route: str = ""


def horizontal_rules(image: Any) -> list[Rule]:
    """Horizontal rules of an RGB page image: ``(y, x0, x1)`` in 0..1, one per rule (top to bottom)."""
    import numpy as np

    grey = np.asarray(image.convert("L"), dtype=np.int16)
    h, w = grey.shape
    ink = grey < int(np.median(grey)) - _INK_CONTRAST
    ink[2:-2] = ink[2:-2] | ink[:-4] | ink[1:-3] | ink[3:-1] | ink[4:]  # a rule scanned askew steps between rows
    min_run = int(RULE_MIN_WIDTH * w)
    bridge = max(2, int(_RULE_GAP * w))
    found: list[list[tuple[int, int, int]]] = []  # runs of adjacent rule rows: (y, x0, x1)
    for y in np.nonzero(ink.sum(axis=1) >= min_run * 0.9)[0]:
        xs = np.flatnonzero(ink[y])
        breaks = np.flatnonzero(np.diff(xs) > bridge)
        starts = np.concatenate(([0], breaks + 1))
        ends = np.concatenate((breaks, [len(xs) - 1]))
        spans = xs[ends] - xs[starts] + 1
        k = int(np.argmax(spans))
        filled = ends[k] - starts[k] + 1
        if spans[k] < min_run or filled < 0.9 * spans[k]:
            continue
        row = (int(y), int(xs[starts[k]]), int(xs[ends[k]]) + 1)
        if found and y - found[-1][-1][0] <= 2:
            found[-1].append(row)  # the same rule, one pixel row further (thick, blurred or askew)
        else:
            found.append([row])
    rules: list[Rule] = []
    for run in found:
        if run[-1][0] - run[0][0] > _BAND_MIN * h:  # a shaded band (a header row's fill): its two edges
            x0, x1 = min(r[1] for r in run), max(r[2] for r in run)
            rules.extend(
                [
                    (float(run[0][0]) / h, float(x0) / w, float(x1) / w),
                    (float(run[-1][0]) / h, float(x0) / w, float(x1) / w),
                ]
            )
            continue
        widest = max(r[2] - r[1] for r in run)
        whole = [r for r in run if r[2] - r[1] == widest]  # the rows where the rule is whole: their middle
        y, x0, x1 = whole[len(whole) // 2]
        rules.append((float(y) / h, float(x0) / w, float(x1) / w))
    return rules


def read_pages(
    pdf: str | Path | bytes,
    pages: list[int],
    *,
    doc_id: str | None = None,
    engine: OcrEngine | None = None,
    dpi: int = OCR_DPI,
    cache: OcrCache | bool | None = True,
) -> list[PageRead]:
    """OCR ``pages`` (1-based) of ``pdf``; cached per page when ``doc_id`` is given and ``cache`` is on. Raises
    ``MissingExtraError``, ``MalformedInputError``.
    """
    engine = engine or default_engine()
    route = f"ocr:{engine.name} {engine.version}@{dpi}dpi"
    store = (OcrCache() if cache is True else cache or None) if doc_id else None
    key = f"{route}#r{getattr(engine, 'revision', 0)}"  # the cache's key: the route and structaware's reading of it
    doc = open_pdf(pdf)
    out: list[PageRead] = []
    try:
        for page in pages:
            hit = store.load(doc_id, key, page, RULES_VERSION) if store is not None and doc_id else None
            if hit is not None and hit[1] is not None:
                out.append(PageRead(page, hit[0], hit[1], route))
                continue
            image = render_page(doc, page, dpi=dpi)
            lines = hit[0] if hit is not None else engine.read(image)  # rules found another way: lines kept
            rules = horizontal_rules(image)
            if store is not None and doc_id:
                store.store(doc_id, key, page, lines, rules, RULES_VERSION)
            out.append(PageRead(page, lines, rules, route))
    finally:
        doc.close()  # closed here, not left to the garbage collector or the exit
    return out
