"""Algorithms described in text become flowchart blocks, placed on the algorithm's own page.

Guidelines that draw an algorithm as an image often print an outline of every box and branch in an
appendix (:mod:`.alt_text`). :func:`attach_described_algorithms` reads each module's outline into a
:class:`~structaware_readers.mermaid.Flowchart` and makes it a FLOWCHART block (``flow_path`` units,
one per edge): the algorithm's image block when it is found (its units then point at the image and
at the outline paragraphs), else the outline's first paragraph. The outline paragraphs leave the
body; they live on as the block's text and provenance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from structaware_readers.algorithms.alt_text import Description, parse_alt_text
from structaware_readers.mermaid import Flowchart, FlowEdge, to_mermaid
from structaware_readers.models import BBox, Block, BlockKind, ParsedDocument

__all__ = ["attach_described_algorithms", "figure_titles", "is_title_like", "module_key"]

#: The title of an outline: ``Appendix K: Alternative Text Descriptions of Algorithms``.
_ALT_TITLE = re.compile(r"\bAlternative\s+Text\s+Descriptions?\s+of\s+(?:the\s+)?(?P<subject>[^.:]{1,80})", re.I)
#: Longest paragraph read as an outline's title (the title is sometimes a bold paragraph).
_TITLE_CHARS = 160
#: ``Module A``, ``Module 2`` in a heading (not ``Modules``).
_MODULE = re.compile(r"\bModule\s+(?P<key>[A-Z]|\d{1,2})\b(?P<rest>.*)$")
_TEXT_KINDS = (BlockKind.PARAGRAPH, BlockKind.LIST)
#: Smallest figure (fraction of the page area) taken for an algorithm's image.
MIN_IMAGE_AREA = 0.05
#: Pages between a module's heading and its image (the image may start the next page).
_HEADING_PAGES = 1


@dataclass
class _Module:
    title: str  # "Module A: Screening and Diagnosis", or the outline's subject ("Algorithm")
    key: str  # "A", or "" when the outline has no modules
    blocks: list[Block] = field(default_factory=list)


def module_key(text: str) -> str:
    """``"A"`` for a text naming ``Module A`` (``"A. Module A: Screening and Diagnosis"``), else ``""``."""
    m = _MODULE.search(" ".join(text.split()))
    return m.group("key") if m else ""


def _module_title(text: str) -> str:
    text = " ".join(text.split())
    m = _MODULE.search(text)
    if m:
        return f"Module {m.group('key')}{m.group('rest')}".strip()
    t = _ALT_TITLE.search(text)
    return t.group("subject").strip().rstrip(".").capitalize() if t else text


def _is_outline_title(block: Block) -> bool:
    if block.kind is BlockKind.HEADING:
        return _ALT_TITLE.search(block.text) is not None
    text = block.text.strip().strip("*")
    return block.kind is BlockKind.PARAGRAPH and len(text) <= _TITLE_CHARS and _ALT_TITLE.match(text) is not None


def _outlines(blocks: list[Block]) -> list[tuple[int, _Module]]:
    """(index of the outline title's block, module) for every module of every outline, blocks from
    the first paragraph that states a box on."""
    found: list[tuple[int, _Module]] = []
    current: _Module | None = None
    start = -1
    for i, b in enumerate(blocks):
        if b.is_furniture or b.kind is BlockKind.FOOTNOTE:
            continue
        if _is_outline_title(b):
            current, start = _Module(_module_title(b.text), module_key(b.text)), i
            found.append((start, current))
        elif current is None:
            continue
        elif b.kind is BlockKind.HEADING and module_key(b.text):
            current = _Module(_module_title(b.text), module_key(b.text))
            found.append((start, current))
        elif b.kind is BlockKind.HEADING and current.key and not current.blocks:
            # a module title the parser split into two headings ("... After Mild" / "Traumatic Brain Injury")
            current.title = f"{current.title} {' '.join(b.text.split())}"
        elif b.kind in _TEXT_KINDS:
            if current.blocks or _STATES_A_BOX.search(b.text):
                current.blocks.append(b)
        else:
            current = None
    return [(s, m) for s, m in found if m.blocks]


_STATES_A_BOX = re.compile(r"\bBox\s+\d{1,3}\b")


def _area(box: BBox | None) -> float:
    return 0.0 if box is None else max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def figure_titles(blocks: list[Block]) -> dict[str, str]:
    """The title of each figure block (by id): its caption; else the title-like blocks just before
    it (:func:`is_title_like`, joined: parsers split a long title into two, ``D. Module D: ...
    Requiring Iodinated`` / ``Contrast``); else the last heading before it. A title more than a page
    before the figure does not count; ``""`` when there is none."""
    titles: dict[str, str] = {}
    run: list[Block] = []
    heading: Block | None = None
    for b in blocks:
        if b.is_furniture:
            continue
        if b.kind in (BlockKind.FIGURE, BlockKind.FLOWCHART):
            lead = run or ([heading] if heading is not None else [])
            near = lead and b.page - lead[0].page <= _HEADING_PAGES
            titles[b.block_id] = b.caption.strip() or (" ".join(" ".join(t.text.split()) for t in lead) if near else "")
            run = []
            continue
        if is_title_like(b):
            run.append(b)
            if b.kind is BlockKind.HEADING:
                heading = b
        else:
            run = []
    return titles


def _find_image(
    blocks: list[Block], titles: dict[str, str], end: int, module: _Module, taken: set[str]
) -> Block | None:
    """The first figure before ``blocks[end]`` whose title names the module (or, for an outline
    without modules, holds its subject's words)."""
    words = set(re.findall(r"[a-z]{3,}", module.title.lower())) - {"module"}
    for b in blocks[:end]:
        if b.kind not in (BlockKind.FIGURE, BlockKind.FLOWCHART) or b.block_id in taken:
            continue
        if _area(b.bbox) < MIN_IMAGE_AREA:
            continue
        title = titles.get(b.block_id, "")
        if not title or _ALT_TITLE.search(title):
            continue
        if module.key:
            if module_key(title) == module.key:
                return b
        elif words and words <= set(re.findall(r"[a-z]{3,}", title.lower())):
            return b
    return None


def is_title_like(block: Block) -> bool:
    """A heading, or a short paragraph that reads as one (at most :data:`_TITLE_CHARS` characters, no
    sentence end): parsers type an algorithm page's title (``A. Module A: Assessment and Diagnosis
    of Asthma``) as a paragraph as often as a heading."""
    if block.kind is BlockKind.HEADING:
        return True
    text = " ".join(block.text.split())
    return (
        block.kind is BlockKind.PARAGRAPH
        and 0 < len(text) <= _TITLE_CHARS
        and not text.endswith((".", ";", ":", "?", "!", "。"))
    )


def _flowchart(desc: Description, title: str, spans: list[tuple[int, int, Block]], image: Block | None) -> Flowchart:
    """The chart of one module; each edge names the image (when found) and the outline paragraphs
    whose text overlaps the statement that gives the edge or a statement that gives one of its two
    boxes' text (the answer of ``If the answer is "No" to Box 3, then Box 6`` is often quoted in the
    next item, ``Box 6, in the shape of a hexagon, asks the question: "..."``), in reading order."""
    chart = Flowchart(direction="TB", title=title)
    for number, box in desc.boxes.items():
        chart.nodes[number] = f"Box {number}: {box.text}" if box.text else f"Box {number}"
    for e in desc.edges:
        stated = [(e.start, e.end)] + [
            (box.start, box.end) for box in (desc.boxes[e.source], desc.boxes[e.target]) if box.end > box.start
        ]
        ids = [
            rid
            for s, t, b in spans
            if any(s < end and start < t for start, end in stated)
            for rid, _, _ in b.element_refs()
        ]
        if image is not None:
            ids.insert(0, image.block_id)
        chart.edges.append(
            FlowEdge(
                source=e.source,
                target=e.target,
                label=e.label,
                source_label=chart.nodes[e.source],
                target_label=chart.nodes[e.target],
                element_ids=list(dict.fromkeys(ids)),
            )
        )
    return chart


def attach_described_algorithms(doc: ParsedDocument) -> ParsedDocument:
    """Return ``doc`` with every algorithm outline read into a flowchart block (module docstring);
    ``doc`` itself when it has none. Blocks must be in reading order.

    Each module whose algorithm image is not found adds a warning naming the outline's page.
    """
    blocks = doc.blocks
    outlines = _outlines(blocks)
    if not outlines:
        return doc
    titles = figure_titles(blocks)
    replace: dict[str, Block] = {}  # block id -> the flowchart block that takes its place
    drop: set[str] = set()
    warnings = list(doc.warnings)
    taken: set[str] = set()
    for start, module in outlines:
        spans: list[tuple[int, int, Block]] = []
        parts: list[str] = []
        pos = 0
        for b in module.blocks:
            spans.append((pos, pos + len(b.text), b))
            parts.append(b.text)
            pos += len(b.text) + 1
        text = "\n".join(parts)
        desc = parse_alt_text(text)
        if not desc.edges:
            continue
        image = _find_image(blocks, titles, start, module, taken)
        chart = _flowchart(desc, module.title, spans, image)
        outline_refs = [r for b in module.blocks for r in b.element_refs()]
        if image is not None:
            taken.add(image.block_id)
            base = image
        else:
            base = module.blocks[0]
            warnings.append(
                f"p.{base.page}: the algorithm '{module.title}' described in text has no image found"
                f" (a figure after a heading naming it): its flow paths point at the description only"
            )
        for b in module.blocks:
            drop.add(b.block_id)
        own = {base.block_id, *base.extra_ids}
        extra = [r for r in outline_refs if r[0] not in own]
        replace[base.block_id] = base.model_copy(
            update={
                "kind": BlockKind.FLOWCHART,
                "caption": base.caption.strip() or module.title,
                "text": text,
                "mermaid": to_mermaid(chart),
                "flowchart": chart,
                "extra_ids": [*_own_extra_ids(base), *(r[0] for r in extra)],
                "extra_pages": [*base.extra_pages, *(r[2] for r in extra)],
                "extra_bboxes": [*_own_extra_bboxes(base), *(r[1] for r in extra)],
                "parser_ids": list(
                    dict.fromkeys([*base.parser_ids, *(p for b in module.blocks for p in b.parser_ids)])
                ),
            }
        )
    if not replace:
        return doc
    out = [replace.get(b.block_id, b) for b in blocks if b.block_id in replace or b.block_id not in drop]
    return doc.model_copy(update={"blocks": out, "warnings": warnings})


def _own_extra_ids(b: Block) -> list[str]:
    return b.extra_ids if len(b.extra_ids) == len(b.extra_pages) else [""] * len(b.extra_pages)


def _own_extra_bboxes(b: Block) -> list[BBox | None]:
    return b.extra_bboxes if len(b.extra_bboxes) == len(b.extra_pages) else [None] * len(b.extra_pages)
