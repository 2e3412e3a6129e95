"""MinerU ``content_list_v2.json`` (mineru 3.0+, also rendered by 4.x): a list of pages of items. Shape: ``list[page]
-> list[{type, content: {...}, bbox}]``, the page index the array position (0-based), ``bbox`` integers 0..1000
(divided by 1000 here).
"""

from __future__ import annotations

from typing import Any

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
    spans_text,
    table_from_body,
    visual_kind,
)
from structaware_readers.models import BlockKind

FORMAT = "content_list_v2"
_SCALE = 1000.0


def parse_content_list_v2(data: list, *, path: str | None) -> Extracted:
    """Convert a content_list_v2 array of pages into drafts (page = array position + 1). Raises
    ``MalformedInputError``.
    """
    if not isinstance(data, list):
        raise MalformedInputError("content_list_v2 must be a JSON array of pages", path=path, field="$")
    drafts: list[Draft] = []
    for p, page_items in enumerate(data):
        if not isinstance(page_items, list):
            raise MalformedInputError("page must be a list of items", path=path, field=f"[{p}]")
        for j, item in enumerate(page_items):
            fld = f"[{p}][{j}]"
            if not isinstance(item, dict):
                raise MalformedInputError("item must be an object", path=path, field=fld)
            t = item.get("type")
            if not isinstance(t, str) or not t:
                raise MalformedInputError("missing item type", path=path, field=f"{fld}.type")
            content = item.get("content")
            if content is None:
                content = {}
            if not isinstance(content, dict):
                raise MalformedInputError("content must be an object", path=path, field=f"{fld}.content")
            bbox = norm_bbox(item.get("bbox"), _SCALE, _SCALE, path=path, fld=f"{fld}.bbox")
            d = item_draft(t, content, item, page=p + 1, j=j, bbox=bbox, path=path, fld=fld)
            if d is not None:
                drafts.append(d)
    return Extracted(drafts=drafts, input_format=FORMAT, markdown_text=True, page_count=len(data) or None)


def item_draft(
    t: str, c: dict[str, Any], item: dict[str, Any], *, page: int, j: int, bbox, path: str | None, fld: str
) -> Draft | None:
    """One v2 item -> a draft (``c`` is the item's ``content`` object)."""
    cf = f"{fld}.content"
    spans = lambda key: spans_text(c.get(key), path=path, fld=f"{cf}.{key}")
    joined = lambda key: join_texts(c.get(key), path=path, fld=f"{cf}.{key}")
    base = dict(page=page, j=j, source_type=t, bbox=bbox)

    if t == "title":
        level = int_level(c.get("level")) or 1
        return Draft(kind=BlockKind.HEADING, text=spans("title_content"), level=level, **base)
    if t == "paragraph":
        return Draft(kind=BlockKind.PARAGRAPH, text=spans("paragraph_content"), **base)
    if t in ("equation_interline", "equation"):
        return Draft(
            kind=BlockKind.EQUATION,
            text=equation_text(as_text(c.get("math_content"), path=path, fld=f"{cf}.math_content")),
            **base,
        )
    if t in ("image", "chart"):
        body = (
            as_text(c.get("content"), path=path, fld=f"{cf}.content")
            if not isinstance(c.get("content"), list)
            else spans("content")
        )
        kind, mermaid = visual_kind(c.get("sub_type", item.get("sub_type")), body)
        return Draft(
            kind=kind,
            text=body,
            caption=joined(f"{t}_caption") or joined("image_caption"),
            footnote=joined(f"{t}_footnote") or joined("image_footnote"),
            mermaid=mermaid,
            **base,
        )
    if t == "table":
        html = c.get("html")
        if html is not None and not isinstance(html, str):
            raise MalformedInputError("html must be a string", path=path, field=f"{cf}.html")
        grid, fallback = table_from_body(html or "", path=path, fld=f"{cf}.html")
        src = c.get("image_source")
        img = src.get("path") if isinstance(src, dict) else src
        ghost = not (html or "").strip() and not img
        return Draft(
            kind=BlockKind.TABLE,
            table=grid,
            text=fallback,
            caption=joined("table_caption"),
            footnote=joined("table_footnote"),
            ghost=ghost,
            **base,
        )
    if t in ("list", "index"):
        items = list_items(c.get("list_items"), path=path, fld=f"{cf}.list_items")
        kind = BlockKind.REFERENCE if c.get("list_type") == "reference_list" else BlockKind.LIST
        return Draft(kind=kind, text="\n".join(items), items=items, **base)
    if t in ("code", "algorithm"):
        body = spans(f"{t}_content")
        mermaid = code_mermaid(body, c.get("code_language"))
        kind = BlockKind.FLOWCHART if mermaid is not None else BlockKind.CODE
        return Draft(
            kind=kind,
            text=body,
            caption=joined(f"{t}_caption"),
            footnote=joined(f"{t}_footnote"),
            mermaid=mermaid,
            **base,
        )
    if t == "page_footnote":
        return Draft(kind=BlockKind.FOOTNOTE, text=spans("page_footnote_content"), **base)
    if t in FURNITURE_TYPES:
        return Draft(kind=FURNITURE_TYPES[t], text=spans(f"{t}_content"), **base)
    # unknown type: keep any text it carries
    body = spans(f"{t}_content")
    return Draft(kind=BlockKind.PARAGRAPH, text=body, **base) if body else None


def list_items(raw: Any, *, path: str | None, fld: str) -> list[str]:
    """Flatten v2 ``list_items`` (items may nest a ``list_items`` of their own) into strings."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise MalformedInputError("list_items must be a list", path=path, field=fld)
    out: list[str] = []
    for k, it in enumerate(raw):
        f = f"{fld}[{k}]"
        if isinstance(it, str):
            text = it.strip()
        elif isinstance(it, dict):
            ic = it.get("item_content")
            if isinstance(ic, dict):  # a nested list: {"list_type", "list_items"}
                text, nested = "", ic.get("list_items")
            else:
                text = spans_text(ic, path=path, fld=f"{f}.item_content")
                nested = it.get("list_items")
            if nested:
                if text:
                    out.append(text)
                out.extend(list_items(nested, path=path, fld=f"{f}.list_items"))
                continue
        else:
            raise MalformedInputError("list item must be an object", path=path, field=f)
        if text:
            out.append(text)
    return out


__all__ = ["FORMAT", "item_draft", "list_items", "parse_content_list_v2"]
