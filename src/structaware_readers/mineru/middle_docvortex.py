"""MinerU 4.x ``middle_json.json``: the ``docvortex.middle`` schema (2.0; 4.0 alphas wrote 1.0). A block is ``{type,
index, bbox (0..1, top-left), content, level?, continues_prev?}``; ``content`` is inline spans, a LaTeX string, or
child blocks (lists, images, tables, charts, code).
"""

from __future__ import annotations

from typing import Any

from structaware_readers.common.limits import page_number
from structaware_readers.errors import MalformedInputError
from structaware_readers.mineru.drafts import (
    FURNITURE_TYPES,
    Draft,
    Extracted,
    as_text,
    code_mermaid,
    equation_text,
    int_level,
    norm_bbox,
    spans_text,
    table_from_body,
    visual_kind,
)
from structaware_readers.models import BlockKind

FORMAT = "docvortex_middle"


def document_info(data: dict, *, path: str | None) -> tuple[str, int | None, list[tuple[float, float] | None], str]:
    """``(parser_version, page_count, page_sizes, metadata_title)`` of a 4.x middle/structured_content."""
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    producer = meta.get("producer") if isinstance(meta.get("producer"), dict) else {}
    version = producer.get("version") if isinstance(producer.get("version"), str) else ""
    document = meta.get("document") if isinstance(meta.get("document"), dict) else {}
    title = document.get("title") if isinstance(document.get("title"), str) else ""
    page_count = document.get("page_count")
    page_count = (
        page_count if isinstance(page_count, int) and not isinstance(page_count, bool) and page_count > 0 else None
    )
    if page_count is not None:
        page_number(page_count, path=path, field="metadata.document.page_count", base=1)

    ext = data.get("extensions") if isinstance(data.get("extensions"), dict) else {}
    layout = ext.get("docvortex_layout") if isinstance(ext.get("docvortex_layout"), dict) else {}
    lpages = layout.get("pages") if isinstance(layout.get("pages"), list) else []
    by_idx: dict[int, tuple[float, float]] = {}
    for k, lp in enumerate(lpages):
        if not isinstance(lp, dict):
            raise MalformedInputError(
                "page entry must be an object", path=path, field=f"extensions.docvortex_layout.pages[{k}]"
            )
        w, h, pi = lp.get("width_pt"), lp.get("height_pt"), lp.get("page_idx", k)
        if isinstance(w, (int, float)) and isinstance(h, (int, float)) and isinstance(pi, int) and w > 0 and h > 0:
            page_number(pi, path=path, field=f"extensions.docvortex_layout.pages[{k}].page_idx")
            by_idx[pi] = (float(w), float(h))
    n = max([page_count or 0, *(i + 1 for i in by_idx)])
    sizes: list[tuple[float, float] | None] = [by_idx.get(i) for i in range(n)] if by_idx else []
    return version, page_count or (len(sizes) or None), sizes, title


def parse_docvortex_middle(data: dict, *, path: str | None) -> Extracted:
    """Convert a docvortex middle document into drafts (1-based pages, 0..1 bboxes). Raises ``MalformedInputError``."""
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, list):
        raise MalformedInputError("docvortex middle needs a 'pages' list", path=path, field="pages")
    version, page_count, sizes, meta_title = document_info(data, path=path)
    drafts: list[Draft] = []
    for p, page in enumerate(pages):
        pf = f"pages[{p}]"
        if not isinstance(page, dict):
            raise MalformedInputError("page must be an object", path=path, field=pf)
        pi = page.get("page_idx", p)
        page_number(pi, path=path, field=f"{pf}.page_idx")  # validated: 0 <= pi < MAX_PAGES
        blocks = page.get("blocks") or []
        if not isinstance(blocks, list):
            raise MalformedInputError("blocks must be a list", path=path, field=f"{pf}.blocks")
        for j, block in enumerate(blocks):
            fld = f"{pf}.blocks[{j}]"
            if not isinstance(block, dict):
                raise MalformedInputError("block must be an object", path=path, field=fld)
            d = block_draft(block, page=pi + 1, j=j, path=path, fld=fld)
            if d is not None:
                drafts.append(d)
    title = next((d.text for d in drafts if d.source_type == "doc_title" and d.text), "")
    return Extracted(
        drafts=drafts,
        input_format=FORMAT,
        parser_version=version,
        page_count=page_count or len(pages) or None,
        page_sizes=sizes,
        title=title,
        metadata_title=meta_title,
    )


def block_draft(b: dict[str, Any], *, page: int, j: int, path: str | None, fld: str) -> Draft | None:
    """One docvortex block -> a draft (``None`` for an unknown block without text)."""
    t = b.get("type")
    if not isinstance(t, str) or not t:
        raise MalformedInputError("missing block type", path=path, field=f"{fld}.type")
    bbox = norm_bbox(b.get("bbox"), 1.0, 1.0, path=path, fld=f"{fld}.bbox")
    base = dict(page=page, j=j, source_type=t, bbox=bbox, continues_prev=bool(b.get("continues_prev")))
    text = lambda: spans_text(b.get("content"), path=path, fld=f"{fld}.content")

    if t in ("doc_title", "paragraph_title", "title"):
        level = int_level(b.get("level")) or (1 if t == "doc_title" else 2)
        return Draft(kind=BlockKind.HEADING, text=text(), level=level, **base)
    if t in ("text", "abstract"):
        return Draft(kind=BlockKind.PARAGRAPH, text=text(), **base)
    if t == "ref_text":
        return Draft(kind=BlockKind.REFERENCE, text=text(), **base)
    if t == "page_footnote":
        return Draft(kind=BlockKind.FOOTNOTE, text=text(), **base)
    if t in FURNITURE_TYPES:
        return Draft(kind=FURNITURE_TYPES[t], text=text(), **base)
    if t in ("equation", "interline_equation"):
        latex = as_text(b.get("content"), path=path, fld=f"{fld}.content")
        return Draft(kind=BlockKind.EQUATION, text=equation_text(latex), **base)
    if t in ("list", "index"):
        items = _list_items(b.get("content"), path=path, fld=f"{fld}.content")
        kind = BlockKind.REFERENCE if b.get("sub_type") == "ref_text" else BlockKind.LIST
        return Draft(kind=kind, text="\n".join(items), items=items, **base)
    if t in ("image", "chart", "table", "code"):
        return _visual(t, b, base, path=path, fld=fld)
    content = b.get("content")
    body = spans_text(content, path=path, fld=f"{fld}.content") if isinstance(content, (list, str)) else ""
    return Draft(kind=BlockKind.PARAGRAPH, text=body, **base) if body else None


def _children(b: dict, *, path: str | None, fld: str) -> list[tuple[int, dict]]:
    content = b.get("content") or []
    if not isinstance(content, list):
        raise MalformedInputError("content must be a list of child blocks", path=path, field=f"{fld}.content")
    out = []
    for k, child in enumerate(content):
        if not isinstance(child, dict) or not isinstance(child.get("type"), str):
            raise MalformedInputError(
                "child block must be an object with a type", path=path, field=f"{fld}.content[{k}]"
            )
        out.append((k, child))
    return out


def _visual(t: str, b: dict, base: dict, *, path: str | None, fld: str) -> Draft:
    body_text, body_field, has_image = "", f"{fld}.content", False
    captions: list[str] = []
    footnotes: list[str] = []
    for k, child in _children(b, path=path, fld=fld):
        ct, cf = child["type"], f"{fld}.content[{k}]"
        if ct.endswith("_body"):
            c = child.get("content")
            body_text = (
                spans_text(c, path=path, fld=f"{cf}.content")
                if isinstance(c, list)
                else as_text(c, path=path, fld=f"{cf}.content")
            )
            body_field = f"{cf}.content"
            has_image = bool(child.get("image_path") or child.get("image_url") or child.get("image_base64"))
        elif ct.endswith("_caption"):
            captions.append(spans_text(child.get("content"), path=path, fld=f"{cf}.content"))
        elif ct.endswith("_footnote"):
            footnotes.append(spans_text(child.get("content"), path=path, fld=f"{cf}.content"))
    caption = " ".join(c for c in captions if c)
    footnote = " ".join(f for f in footnotes if f)
    if t == "table":
        grid, fallback = table_from_body(body_text, path=path, fld=body_field)
        ghost = not body_text and not has_image
        return Draft(
            kind=BlockKind.TABLE, table=grid, text=fallback, caption=caption, footnote=footnote, ghost=ghost, **base
        )
    if t == "code":
        mermaid = code_mermaid(body_text, b.get("guess_lang"))
        kind = BlockKind.FLOWCHART if mermaid is not None else BlockKind.CODE
        return Draft(kind=kind, text=body_text, caption=caption, footnote=footnote, mermaid=mermaid, **base)
    kind, mermaid = visual_kind(b.get("sub_type"), body_text)
    return Draft(kind=kind, text=body_text, caption=caption, footnote=footnote, mermaid=mermaid, **base)


def _list_items(content: Any, *, path: str | None, fld: str) -> list[str]:
    """Leaf texts of a list/index block, depth-first (nested lists flattened)."""
    if content is None:
        return []
    if not isinstance(content, list):
        raise MalformedInputError("list content must be a list of child blocks", path=path, field=fld)
    out: list[str] = []
    for k, child in enumerate(content):
        cf = f"{fld}[{k}]"
        if not isinstance(child, dict):
            raise MalformedInputError("list child must be an object", path=path, field=cf)
        if child.get("type") in ("list", "index"):
            out.extend(_list_items(child.get("content"), path=path, fld=f"{cf}.content"))
            continue
        text = spans_text(child.get("content"), path=path, fld=f"{cf}.content")
        if text:
            out.append(text)
    return out


__all__ = ["FORMAT", "block_draft", "document_info", "parse_docvortex_middle"]
