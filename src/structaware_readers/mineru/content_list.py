"""MinerU ``content_list.json`` (v1): a flat list of items, magic-pdf 0.x through mineru 4.x."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from structaware_readers.common.limits import page_number
from structaware_readers.errors import MalformedInputError
from structaware_readers.mineru.drafts import (
    FURNITURE_TYPES,
    Draft,
    Extracted,
    as_text,
    classify_discarded,
    code_mermaid,
    equation_text,
    int_level,
    join_texts,
    norm_bbox,
    table_from_body,
    visual_kind,
)
from structaware_readers.models import BlockKind

FORMAT = "content_list"
_SCALE = 1000.0


def parse_content_list(data: list, *, path: str | None) -> Extracted:
    """Convert a content_list v1 array into drafts (1-based pages, bboxes / 1000). Raises ``MalformedInputError``."""
    if not isinstance(data, list):
        raise MalformedInputError("content_list must be a JSON array", path=path, field="$")
    drafts: list[Draft] = []
    per_page: dict[int, int] = defaultdict(int)
    page = 1
    for i, item in enumerate(data):
        fld = f"[{i}]"
        if not isinstance(item, dict):
            raise MalformedInputError("item must be an object", path=path, field=fld)
        t = item.get("type")
        if not isinstance(t, str) or not t:
            raise MalformedInputError("missing item type", path=path, field=f"{fld}.type")
        if "page_idx" in item and item["page_idx"] is not None:
            pi = item["page_idx"]
            page_number(pi, path=path, field=f"{fld}.page_idx")  # validated: 0 <= pi < MAX_PAGES
            page = pi + 1
        j = per_page[page]
        per_page[page] += 1
        bbox = norm_bbox(item.get("bbox"), _SCALE, _SCALE, path=path, fld=f"{fld}.bbox")
        d = _item_draft(item, t, page, j, bbox, path=path, fld=fld)
        if d is not None:
            drafts.append(d)
    return Extracted(drafts=drafts, input_format=FORMAT, markdown_text=True)


def _item_draft(item: dict[str, Any], t: str, page: int, j: int, bbox, *, path: str | None, fld: str) -> Draft | None:
    text = lambda key: as_text(item.get(key), path=path, fld=f"{fld}.{key}")
    joined = lambda *keys: next(
        (join_texts(item[k], path=path, fld=f"{fld}.{k}") for k in keys if item.get(k) is not None), ""
    )
    base = dict(page=page, j=j, source_type=t, bbox=bbox)

    if t in ("text", "title"):
        level = int_level(item.get("text_level")) or (1 if t == "title" else None)
        kind = BlockKind.HEADING if level else BlockKind.PARAGRAPH
        return Draft(kind=kind, text=text("text"), level=level, **base)
    if t in ("equation", "interline_equation"):
        return Draft(kind=BlockKind.EQUATION, text=equation_text(text("text") or text("latex")), **base)
    if t in ("image", "chart"):
        content = text("content")
        kind, mermaid = visual_kind(item.get("sub_type"), content)
        cap_keys = ("image_caption", "img_caption") if t == "image" else ("chart_caption", "image_caption")
        foot_keys = ("image_footnote", "img_footnote") if t == "image" else ("chart_footnote", "image_footnote")
        return Draft(
            kind=kind, text=content, caption=joined(*cap_keys), footnote=joined(*foot_keys), mermaid=mermaid, **base
        )
    if t == "table":
        body = item.get("table_body")
        if body is not None and not isinstance(body, str):
            raise MalformedInputError("table_body must be a string", path=path, field=f"{fld}.table_body")
        img = item.get("img_path")
        grid, fallback = table_from_body(body or "", path=path, fld=f"{fld}.table_body")
        ghost = not (body or "").strip() and not img
        return Draft(
            kind=BlockKind.TABLE,
            table=grid,
            text=fallback,
            caption=joined("table_caption"),
            footnote=joined("table_footnote"),
            ghost=ghost,
            **base,
        )
    if t in ("list", "index"):  # index = a table of contents (4.x)
        items_raw = item.get("list_items")
        if items_raw is None:
            items_raw = []
        if not isinstance(items_raw, list):
            raise MalformedInputError("list_items must be a list", path=path, field=f"{fld}.list_items")
        items = [as_text(x, path=path, fld=f"{fld}.list_items[{k}]") for k, x in enumerate(items_raw)]
        if t == "index":  # 4.x renders TOC entries as indented "- label" lines
            items = [re.sub(r"^[-*+]\s+", "", x) for x in items]
        items = [x for x in items if x]
        kind = BlockKind.REFERENCE if item.get("sub_type") == "ref_text" else BlockKind.LIST
        return Draft(kind=kind, text="\n".join(items), items=items, **base)
    if t == "code":
        body = text("code_body") or text("text")
        mermaid = code_mermaid(body, item.get("guess_lang"))
        kind = BlockKind.FLOWCHART if mermaid is not None else BlockKind.CODE
        return Draft(
            kind=kind,
            text=body,
            caption=joined("code_caption"),
            footnote=joined("code_footnote"),
            mermaid=mermaid,
            **base,
        )
    if t == "ref_text":
        return Draft(kind=BlockKind.REFERENCE, text=text("text"), **base)
    if t == "page_footnote":
        return Draft(kind=BlockKind.FOOTNOTE, text=text("text"), **base)
    if t in FURNITURE_TYPES:
        return Draft(kind=FURNITURE_TYPES[t], text=text("text"), **base)
    if t == "discarded":
        body = text("text")
        return Draft(kind=classify_discarded(body, bbox), text=body, **base)
    # unknown or minor types (phonetic, abstract, future additions): keep their text as a paragraph
    body = text("text")
    return Draft(kind=BlockKind.PARAGRAPH, text=body, **base) if body else None


__all__ = ["FORMAT", "parse_content_list"]
