"""MinerU 4.x ``structured_content.json``: the docvortex middle rendered to Markdown strings. Bboxes are 0..1; text
stays MinerU's Markdown.
"""

from __future__ import annotations

import re
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
    join_texts,
    norm_bbox,
    table_from_body,
    visual_kind,
)
from structaware_readers.mineru.middle_docvortex import document_info
from structaware_readers.models import BlockKind

FORMAT = "structured_content"

_LIST_MARK = re.compile(r"^\s*(?:[-*+]\s+)")
_CODE_FENCE = re.compile(r"^\s*(`{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)\n?\1\s*$", re.DOTALL)


def parse_structured_content(data: dict, *, path: str | None) -> Extracted:
    """Convert a 4.x structured_content document into drafts (1-based pages, 0..1 bboxes). Raises
    ``MalformedInputError``.
    """
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, list):
        raise MalformedInputError("structured_content needs a 'pages' list", path=path, field="pages")
    version, page_count, sizes, meta_title = document_info(data, path=path)
    drafts: list[Draft] = []
    for p, page in enumerate(pages):
        pf = f"pages[{p}]"
        if not isinstance(page, dict):
            raise MalformedInputError("page must be an object", path=path, field=pf)
        page_no = _page_no(page, p, path=path, fld=pf)
        blocks = page.get("blocks") or []
        if not isinstance(blocks, list):
            raise MalformedInputError("blocks must be a list", path=path, field=f"{pf}.blocks")
        for j, block in enumerate(blocks):
            fld = f"{pf}.blocks[{j}]"
            if not isinstance(block, dict):
                raise MalformedInputError("block must be an object", path=path, field=fld)
            d = _block_draft(block, page=page_no, j=j, path=path, fld=fld)
            if d is not None:
                drafts.append(d)
    title = next((d.text for d in drafts if d.source_type == "doc_title" and d.text), "")
    return Extracted(
        drafts=drafts,
        input_format=FORMAT,
        markdown_text=True,
        parser_version=version,
        page_count=page_count or len(pages) or None,
        page_sizes=sizes,
        title=title,
        metadata_title=meta_title,
    )


def _page_no(page: dict, position: int, *, path: str | None, fld: str) -> int:
    pi = page.get("page_idx", position)
    page_number(pi, path=path, field=f"{fld}.page_idx")  # validated: 0 <= pi < MAX_PAGES
    return pi + 1


def _block_draft(b: dict[str, Any], *, page: int, j: int, path: str | None, fld: str) -> Draft | None:
    t = b.get("type")
    if not isinstance(t, str) or not t:
        raise MalformedInputError("missing block type", path=path, field=f"{fld}.type")
    raw = b.get("content")
    content = "" if raw is None else raw
    if not isinstance(content, str):
        raise MalformedInputError("content must be a string", path=path, field=f"{fld}.content")
    content = content.strip()
    bbox = norm_bbox(b.get("bbox"), 1.0, 1.0, path=path, fld=f"{fld}.bbox")
    cont = bool(b.get("continues_prev"))
    base = dict(page=page, j=j, source_type=t, bbox=bbox, continues_prev=cont)
    caps = lambda key: join_texts(b.get(key), path=path, fld=f"{fld}.{key}")

    if t in ("doc_title", "paragraph_title", "title"):
        level = int_level(b.get("level")) or (1 if t == "doc_title" else 2)
        return Draft(kind=BlockKind.HEADING, text=content, level=level, **base)
    if t == "text":
        return Draft(kind=BlockKind.PARAGRAPH, text=content, **base)
    if t == "ref_text":
        return Draft(kind=BlockKind.REFERENCE, text=content, **base)
    if t in ("list", "index"):
        items = [_LIST_MARK.sub("", ln).strip() for ln in content.splitlines()]
        items = [x for x in items if x]
        kind = BlockKind.REFERENCE if b.get("sub_type") == "ref_text" else BlockKind.LIST
        return Draft(kind=kind, text="\n".join(items), items=items, **base)
    if t == "equation":
        return Draft(kind=BlockKind.EQUATION, text=equation_text(content), **base)
    if t in ("image", "chart"):
        kind, mermaid = visual_kind(b.get("sub_type"), content)
        return Draft(
            kind=kind, text=content, caption=caps("captions"), footnote=caps("footnotes"), mermaid=mermaid, **base
        )
    if t == "table":
        fence = _CODE_FENCE.match(content)  # a plain-text layout "table" is rendered as a code block
        if fence:
            content = fence.group(3).strip("\n")
        grid, fallback = table_from_body(content, path=path, fld=f"{fld}.content")
        ghost = not content and not b.get("image_source")
        return Draft(
            kind=BlockKind.TABLE,
            table=grid,
            text=fallback,
            caption=caps("captions"),
            footnote=caps("footnotes"),
            ghost=ghost,
            **base,
        )
    if t == "code":
        m = _CODE_FENCE.match(content)
        body, lang = (m.group(3), m.group(2)) if m else (content, None)
        mermaid = code_mermaid(content, lang)
        kind = BlockKind.FLOWCHART if mermaid is not None else BlockKind.CODE
        return Draft(
            kind=kind, text=body.strip(), caption=caps("captions"), footnote=caps("footnotes"), mermaid=mermaid, **base
        )
    if t == "page_footnote":
        return Draft(kind=BlockKind.FOOTNOTE, text=content, **base)
    if t in FURNITURE_TYPES:
        return Draft(kind=FURNITURE_TYPES[t], text=content, **base)
    return (
        Draft(kind=BlockKind.PARAGRAPH, text=as_text(content, path=path, fld=f"{fld}.content"), **base)
        if content
        else None
    )


__all__ = ["FORMAT", "parse_structured_content"]
