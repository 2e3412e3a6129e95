"""A hit as a picture: its page(s) from the PDF with the unit's own regions outlined.

A unit points at one element, so a reader can check an answer against that table row or algorithm
box. :func:`evidence_image` renders the unit's pages (pypdfium2) and outlines each region it was
read from: a row's own box, every row of a grouped hit, both boxes of a flow edge (pages side by
side). Bboxes are 0..1 of the displayed page, origin top-left; pixels are ``dpi / 72`` per point.
:class:`EvidencePicture` gives each region's pixel box. The PDF is found by
:func:`structaware_retrievers.pictures.source_pdf.source_pdf`; without it
:class:`~structaware_readers.errors.PdfNotFoundError` names the PDF needed.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from structaware_readers.models import BBox, Unit

if TYPE_CHECKING:
    from PIL import Image

    from structaware_retrievers.index.structure_index import SearchHit
    from structaware_retrievers.pictures.page_render import PageRenderer
    from structaware_retrievers.pictures.source_pdf import PdfArg, PdfSource

__all__ = [
    "DEFAULT_DPI",
    "DEFAULT_MARGIN",
    "OUTLINE_COLOR",
    "EvidencePicture",
    "Outline",
    "Panel",
    "evidence_image",
    "evidence_picture",
]

#: Resolution of a page picture, pixels per inch (1.5 pixels per PDF point: a Letter page is 918 x 1188).
DEFAULT_DPI = 108.0
#: Space kept around the regions when a picture is cropped, in PDF points (1/72 inch).
DEFAULT_MARGIN = 36.0
#: RGB of the outline drawn around each region (a colour print rarely uses).
OUTLINE_COLOR = (220, 0, 120)
#: The highlighter tint multiplied into each region (white paper turns this colour; black stays black).
TINT_COLOR = (255, 243, 160)
#: Grey between page panels, and their gap in pixels.
BACKGROUND = (232, 232, 232)
GAP = 16


@dataclass(frozen=True)
class Outline:
    """One outlined region of a picture: its unit element (``p{page}-e{j}``), 1-based ``page``, ``bbox`` as the unit
    has it (0..1 of the displayed page, origin top-left) and ``box``, its pixels in the picture (``x0 <= x < x1``).
    """

    element_id: str
    page: int
    bbox: BBox
    box: tuple[int, int, int, int]


@dataclass(frozen=True)
class Panel:
    """Where one 1-based ``page`` sits in a picture: top-left corner ``left, top`` and ``crop`` in pixels, at
    ``scale`` pixels per PDF point (``dpi / 72``).
    """

    page: int
    left: int
    top: int
    crop: tuple[int, int, int, int]
    page_size: tuple[int, int]
    scale: float


@dataclass
class EvidencePicture:
    """A rendered picture of one unit (see :func:`evidence_picture`); Jupyter shows it as its image."""

    image: Image.Image
    unit: Unit
    pdf: PdfSource
    panels: list[Panel]
    outlines: list[Outline]
    warnings: list[str] = field(default_factory=list)

    def png(self) -> bytes:
        """The picture as PNG bytes, with a ``structaware`` text chunk: the unit's id, document and
        every region's page, bbox and pixel box (JSON)."""
        from PIL.PngImagePlugin import PngInfo

        info = PngInfo()
        info.add_itxt("structaware", json.dumps(self.describe(), ensure_ascii=False))
        buffer = io.BytesIO()
        self.image.save(
            buffer, format="PNG", pnginfo=info, compress_level=3
        )  # level 6 (the default) is slower and larger here
        return buffer.getvalue()

    def describe(self) -> dict[str, Any]:
        """JSON-safe description: ``unit_id``, ``doc_id``, ``doc``, ``unit_type``, ``pages`` and ``outlines``
        (``element_id``, ``page``, ``bbox``, ``box``)."""
        u = self.unit
        return {
            "unit_id": u.unit_id,
            "doc_id": u.doc_id,
            "doc": u.doc_name,
            "unit_type": u.unit_type.value,
            "pages": [p.page for p in self.panels],
            "outlines": [
                {"element_id": o.element_id, "page": o.page, "bbox": list(o.bbox), "box": list(o.box)}
                for o in self.outlines
            ],
        }

    def _repr_png_(self) -> bytes:  # IPython's display hook
        return self.png()


def evidence_image(item: SearchHit | Unit, **options: Any) -> Image.Image:
    """The picture of a hit or unit as a PIL image: :func:`evidence_picture` (same arguments)``.image``."""
    return evidence_picture(item, **options).image


def evidence_picture(
    item: SearchHit | Unit,
    *,
    pdf: PdfArg = None,
    crop: bool = False,
    margin: float = DEFAULT_MARGIN,
    dpi: float = DEFAULT_DPI,
    pages: list[int] | None = None,
    renderer: PageRenderer | None = None,
) -> EvidencePicture:
    """Render the page(s) of a hit or unit with its own regions outlined (see the module docstring).

    ``item``: a ``SearchHit`` (its unit with its table-group rows) or a ``Unit``; ``pdf``: the PDF, a folder or a
    mapping by document (default: where the index says it came from); ``margin`` in PDF points (1/72 inch) when
    ``crop``; ``dpi`` in pixels per inch; ``pages`` 1-based. Returns an :class:`EvidencePicture` (image, panels,
    pixel boxes, warnings). Raises ``PdfNotFoundError`` (names the file it needs), ``MalformedInputError``,
    ``ValueError`` (a page the unit is not on, ``dpi`` or ``margin`` out of range), ``TypeError``.
    """
    from PIL import Image, ImageChops, ImageDraw

    from structaware_retrievers.pictures.page_render import default_renderer
    from structaware_retrievers.pictures.source_pdf import source_pdf

    unit = _unit_of(item)
    if not 9 <= dpi <= 600:
        raise ValueError(f"dpi must be within 9..600, got {dpi}")
    if margin < 0:
        raise ValueError(f"margin must be >= 0 PDF points, got {margin}")
    regions, warnings = _regions(unit)
    wanted = sorted({p for p, _, _ in regions}) or sorted(set(unit.pages))
    if pages is not None:
        unknown = sorted(set(pages) - set(unit.pages) - {p for p, _, _ in regions})
        if unknown:
            raise ValueError(f"unit {unit.unit_id} is not on page(s) {unknown}; its pages are {unit.pages}")
        wanted = sorted(set(pages))
    if not wanted:
        raise ValueError(f"unit {unit.unit_id} has no page")
    the_pdf = source_pdf(unit, pdf)
    renderer = renderer or default_renderer()
    scale = dpi / 72.0
    width_px = max(1, round(2 * scale))  # outline width
    shown: list[tuple[Image.Image, Panel, list[Outline]]] = []
    left = 0
    for page in wanted:
        full = renderer.render(the_pdf, page, scale)
        fw, fh = full.size
        outlines = [Outline(eid, page, bbox, _pixels(bbox, fw, fh)) for p, eid, bbox in regions if p == page]
        draw = ImageDraw.Draw(full)
        for o in outlines:
            x0, y0, x1, y1 = o.box
            if x1 > x0 and y1 > y0:
                tinted = ImageChops.multiply(full.crop(o.box), Image.new("RGB", (x1 - x0, y1 - y0), TINT_COLOR))
                full.paste(tinted, o.box[:2])
            w = width_px
            draw.rectangle((x0 - w, y0 - w, x1 + w - 1, y1 + w - 1), outline=OUTLINE_COLOR, width=w)
        box = (0, 0, fw, fh)
        if crop and outlines:
            pad = round(margin * scale) + width_px
            box = (
                max(0, min(o.box[0] for o in outlines) - pad),
                max(0, min(o.box[1] for o in outlines) - pad),
                min(fw, max(o.box[2] for o in outlines) + pad),
                min(fh, max(o.box[3] for o in outlines) + pad),
            )
        part = full.crop(box) if box != (0, 0, fw, fh) else full
        panel = Panel(page, left, 0, box, (fw, fh), scale)
        moved = [
            Outline(
                o.element_id,
                o.page,
                o.bbox,
                (o.box[0] - box[0] + left, o.box[1] - box[1], o.box[2] - box[0] + left, o.box[3] - box[1]),
            )
            for o in outlines
        ]
        shown.append((part, panel, moved))
        left += part.width + GAP
    width = left - GAP
    height = max(part.height for part, _, _ in shown)
    if len(shown) == 1:
        image = shown[0][0]
    else:
        image = Image.new("RGB", (width, height), BACKGROUND)
        for part, panel, _ in shown:
            image.paste(part, (panel.left, panel.top))
    return EvidencePicture(
        image=image,
        unit=unit,
        pdf=the_pdf,
        panels=[panel for _, panel, _ in shown],
        outlines=[o for _, _, moved in shown for o in moved],
        warnings=warnings,
    )


def _unit_of(item: Any) -> Unit:
    if isinstance(item, Unit):
        return item
    from structaware_retrievers.index.structure_index import SearchHit

    if isinstance(item, SearchHit):
        from structaware_retrievers.search.evidence import hit_unit

        return hit_unit(item)
    raise TypeError(
        f"expected a SearchHit or a Unit, got {type(item).__name__} (a LlamaIndex node or a LangChain"
        " document: use the evidence_image of its integration)"
    )


def _regions(unit: Unit) -> tuple[list[tuple[int, str, BBox]], list[str]]:
    """``(page, element id, bbox)`` of every region of ``unit`` (each once, in unit order) and a
    warning per element without a bbox."""
    seen: set[tuple[int, BBox]] = set()
    regions: list[tuple[int, str, BBox]] = []
    warnings: list[str] = []
    for eid, bbox, page in zip(unit.element_ids, unit.bboxes, unit.element_pages):
        if bbox is None:
            warnings.append(f"{unit.doc_name or unit.doc_id}: element {eid} (page {page}) has no bbox: not outlined")
            continue
        key = (page, tuple(bbox))
        if key not in seen:
            seen.add(key)
            regions.append((page, eid, tuple(bbox)))  # type: ignore[arg-type]
    return regions, warnings


def _pixels(bbox: BBox, width: int, height: int) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = bbox
    box = (round(x0 * width), round(y0 * height), round(x1 * width), round(y1 * height))
    return (
        min(max(box[0], 0), width),
        min(max(box[1], 0), height),
        min(max(box[2], 0), width),
        min(max(box[3], 0), height),
    )
