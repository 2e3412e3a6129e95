"""MinerU ``middle.json`` with the ``pdf_info`` schema (magic-pdf 0.7 through mineru 3.x)."""

from __future__ import annotations

import re
from typing import Any

from structaware_readers.common.limits import page_number
from structaware_readers.errors import MalformedInputError
from structaware_readers.mineru.drafts import (
    FURNITURE_TYPES,
    Draft,
    Extracted,
    classify_discarded,
    code_mermaid,
    equation_text,
    int_level,
    norm_bbox,
    table_from_body,
    visual_kind,
)
from structaware_readers.models import BlockKind

FORMAT = "middle_pdf_info"

_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def parse_pdf_info(data: dict, *, path: str | None) -> Extracted:
    """Convert a ``pdf_info`` middle.json into drafts (1-based pages, bboxes / page_size). Raises
    ``MalformedInputError``.
    """
    pdf_info = data.get("pdf_info") if isinstance(data, dict) else None
    if not isinstance(pdf_info, list):
        raise MalformedInputError("middle.json needs a 'pdf_info' list", path=path, field="pdf_info")
    version = data.get("_version_name") if isinstance(data.get("_version_name"), str) else ""
    drafts: list[Draft] = []
    sizes: dict[int, tuple[float, float]] = {}
    max_page = 0
    for p, page in enumerate(pdf_info):
        pf = f"pdf_info[{p}]"
        if not isinstance(page, dict):
            raise MalformedInputError("page must be an object", path=path, field=pf)
        pi = page.get("page_idx", p)
        page_number(pi, path=path, field=f"{pf}.page_idx")  # validated: 0 <= pi < MAX_PAGES
        page_no = pi + 1
        max_page = max(max_page, page_no)
        w, h = _page_size(page.get("page_size"), path=path, fld=f"{pf}.page_size")
        if w and h:
            sizes[page_no] = (w, h)
        if "para_blocks" not in page:
            raise MalformedInputError("page has no para_blocks", path=path, field=f"{pf}.para_blocks")
        para = page.get("para_blocks") or []
        disc = page.get("discarded_blocks") or []
        for key, blocks in (("para_blocks", para), ("discarded_blocks", disc)):
            if not isinstance(blocks, list):
                raise MalformedInputError(f"{key} must be a list", path=path, field=f"{pf}.{key}")
        ctx = _Ctx(path=path, w=w, h=h)
        j = 0
        for key, blocks in (("para_blocks", para), ("discarded_blocks", disc)):
            for k, block in enumerate(blocks):
                fld = f"{pf}.{key}[{k}]"
                if not isinstance(block, dict):
                    raise MalformedInputError("block must be an object", path=path, field=fld)
                d = _block_draft(block, page=page_no, j=j, ctx=ctx, fld=fld, discarded=key == "discarded_blocks")
                j += 1
                if d is not None:
                    drafts.append(d)
    page_count = max(max_page, len(pdf_info)) or None
    page_sizes = [sizes.get(i) for i in range(1, (page_count or 0) + 1)]
    return Extracted(
        drafts=drafts,
        input_format=FORMAT,
        parser_version=version,
        page_count=page_count,
        page_sizes=page_sizes if sizes else [],
    )


class _Ctx:
    __slots__ = ("h", "path", "w")

    def __init__(self, *, path: str | None, w: float, h: float):
        self.path, self.w, self.h = path, w, h

    def bbox(self, raw: Any, fld: str):
        return norm_bbox(raw, self.w, self.h, path=self.path, fld=fld) if self.w and self.h else None


def _page_size(raw: Any, *, path: str | None, fld: str) -> tuple[float, float]:
    if raw is None:
        return 0.0, 0.0
    if (
        not isinstance(raw, (list, tuple))
        or len(raw) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in raw)
    ):
        raise MalformedInputError(
            f"page_size must be [width, height] in points, got {raw!r}"[:200], path=path, field=fld
        )
    return float(raw[0]), float(raw[1])


# ------------------------------------------------------------------------ text


def _join_spans(a: str, b: str) -> str:
    """Spans of one line: one space between them (MinerU pads inline equations the same way)."""
    if not a:
        return b
    if not b:
        return a
    if a[-1].isspace() or b[0].isspace():
        return a + b
    return a + " " + b


def _is_cjk_text(text: str) -> bool:
    """Block language as MinerU's renderer sees it: CJK when CJK characters are >= 20 % of letters."""
    cjk = len(_CJK.findall(text))
    letters = sum(1 for ch in text if ch.isalnum())
    return cjk > 0 and cjk >= 0.2 * letters


_LIST_MARKER = re.compile(
    r"^\s*(?:[-*+\u2022\u00b7\u25aa\u25e6\u25cf\u2013]\s|\(?\d{1,3}[.)）、]\s*\S|[（(]\d{1,3}[)）]|[\u2460-\u2473])"
)
_SENTENCE_END = re.compile(r"[.!?;:。！？；：][\"'”’)）]*\s*$")


def _join_lines(lines: list[str]) -> str:
    """Lines of one block: CJK blocks are concatenated; Latin blocks are joined with a space, a
    line-end hyphen is kept without a space (``LLaMA-`` + ``13B``) or removed before a
    lower-case continuation (``lan-`` + ``guage``)."""
    lines = [ln for ln in lines if ln]
    if not lines:
        return ""
    if _is_cjk_text("".join(lines)):
        return "".join(lines)
    text = lines[0]
    for ln in lines[1:]:
        if text.endswith("-"):
            if len(text) >= 2 and text[-2].isalpha() and ln[0].islower():
                text = text[:-1] + ln
            else:
                text += ln
        else:
            text += " " + ln
    return text


def _span_text(span: dict) -> str:
    t = span.get("type")
    content = span.get("content")
    if not isinstance(content, str):
        return ""
    if t == "inline_equation":
        return f"${content.strip()}$" if content.strip() else ""
    if t == "interline_equation":
        return equation_text(content)
    return content


def _line_text(line: Any, *, path: str | None, fld: str) -> str:
    if not isinstance(line, dict):
        raise MalformedInputError("line must be an object", path=path, field=fld)
    spans = line.get("spans") or []
    if not isinstance(spans, list):
        raise MalformedInputError("spans must be a list", path=path, field=f"{fld}.spans")
    text = ""
    for span in spans:
        if isinstance(span, dict):
            text = _join_spans(text, _span_text(span).strip())
    return text.strip()


def _lines_text(lines: Any, *, path: str | None, fld: str) -> str:
    if not lines:
        return ""
    if not isinstance(lines, list):
        raise MalformedInputError("lines must be a list", path=path, field=fld)
    return _join_lines([_line_text(ln, path=path, fld=f"{fld}[{i}]") for i, ln in enumerate(lines)]).strip()


def _list_items_from_lines(lines: list, *, path: str | None, fld: str) -> list[str]:
    """List/index blocks without ``blocks`` (pipeline output; some VLM outputs, MinerU #4180):
    items start at lines flagged ``is_list_start_line``; when no line carries that flag, at
    lines that start with a list marker (bullet, ``1.``, ``(1)``, ``①``), else at lines
    that follow a line ending a sentence, so items are never fused into one."""
    flagged = any(isinstance(line, dict) and "is_list_start_line" in line for line in lines or [])
    texts = [_line_text(ln, path=path, fld=f"{fld}[{i}]") for i, ln in enumerate(lines or [])]
    marked = not flagged and any(_LIST_MARKER.match(t) for t in texts)
    groups: list[list] = []
    prev = ""
    for line, text in zip(lines or [], texts):
        if flagged:
            starts = isinstance(line, dict) and bool(line.get("is_list_start_line"))
        elif marked:
            starts = bool(_LIST_MARKER.match(text))
        else:
            starts = bool(_SENTENCE_END.search(prev))
        if not groups or starts:
            groups.append([])
        groups[-1].append(line)
        if text:
            prev = text
    items = [_lines_text(g, path=path, fld=fld) for g in groups]
    return [i for i in items if i]


# ---------------------------------------------------------------------- blocks


def _block_draft(b: dict, *, page: int, j: int, ctx: _Ctx, fld: str, discarded: bool) -> Draft | None:
    path = ctx.path
    t = b.get("type")
    if not isinstance(t, str) or not t:
        raise MalformedInputError("missing block type", path=path, field=f"{fld}.type")
    bbox = ctx.bbox(b.get("bbox"), f"{fld}.bbox")
    base = dict(page=page, j=j, source_type=t, bbox=bbox)
    lines_text = lambda: _lines_text(b.get("lines"), path=path, fld=f"{fld}.lines")

    if discarded:
        text = lines_text()
        if t == "page_footnote":
            return Draft(kind=BlockKind.FOOTNOTE, text=text, **base)
        kind = FURNITURE_TYPES.get(t) or classify_discarded(text, bbox)
        return Draft(kind=kind, text=text, **base)

    if t == "title":
        return Draft(kind=BlockKind.HEADING, text=lines_text(), level=int_level(b.get("level")) or 1, **base)
    if t in ("list", "index"):
        sub = b.get("blocks")
        if isinstance(sub, list) and sub:
            items = []
            for k, s in enumerate(sub):
                if not isinstance(s, dict):
                    raise MalformedInputError("sub-block must be an object", path=path, field=f"{fld}.blocks[{k}]")
                it = _lines_text(s.get("lines"), path=path, fld=f"{fld}.blocks[{k}].lines")
                if it:
                    items.append(it)
        else:
            lines = b.get("lines") or []
            if not isinstance(lines, list):
                raise MalformedInputError("lines must be a list", path=path, field=f"{fld}.lines")
            items = _list_items_from_lines(lines, path=path, fld=f"{fld}.lines")
        kind = BlockKind.REFERENCE if b.get("sub_type") == "ref_text" else BlockKind.LIST
        return Draft(kind=kind, text="\n".join(items), items=items, **base)
    if t == "interline_equation":
        latex = ""
        for line in b.get("lines") or []:
            for span in (line.get("spans") or []) if isinstance(line, dict) else []:
                if isinstance(span, dict) and isinstance(span.get("content"), str):
                    latex = _join_spans(latex, span["content"].strip())
        return Draft(kind=BlockKind.EQUATION, text=equation_text(latex), **base)
    if t in ("image", "table", "chart", "code"):
        return _visual(t, b, base, ctx=ctx, fld=fld)
    if t == "ref_text":
        return Draft(kind=BlockKind.REFERENCE, text=lines_text(), **base)
    if t == "page_footnote":
        return Draft(kind=BlockKind.FOOTNOTE, text=lines_text(), **base)
    if t in FURNITURE_TYPES:
        return Draft(kind=FURNITURE_TYPES[t], text=lines_text(), **base)
    if t == "discarded":
        text = lines_text()
        return Draft(kind=classify_discarded(text, bbox), text=text, **base)
    # text, abstract, phonetic and any future text-like type
    return Draft(kind=BlockKind.PARAGRAPH, text=lines_text(), **base)


def _visual(t: str, b: dict, base: dict, *, ctx: _Ctx, fld: str) -> Draft:
    path = ctx.path
    sub = b.get("blocks") or []
    if not isinstance(sub, list):
        raise MalformedInputError("blocks must be a list", path=path, field=f"{fld}.blocks")
    body_text, body_html, body_field = "", "", f"{fld}.blocks"
    has_image, deleted = False, False
    captions: list[str] = []
    footnotes: list[str] = []
    for k, s in enumerate(sub):
        sf = f"{fld}.blocks[{k}]"
        if not isinstance(s, dict) or not isinstance(s.get("type"), str):
            raise MalformedInputError("sub-block must be an object with a type", path=path, field=sf)
        st = s["type"]
        if st.endswith("_body"):
            deleted = deleted or bool(s.get("lines_deleted"))
            if t == "code":  # keep the code's line breaks
                lines = s.get("lines") or []
                body_text = "\n".join(
                    _lines_text([ln], path=path, fld=f"{sf}.lines[{li}]") for li, ln in enumerate(lines)
                ).strip("\n")
                continue
            for li, line in enumerate(s.get("lines") or []):
                for si, span in enumerate((line.get("spans") or []) if isinstance(line, dict) else []):
                    if not isinstance(span, dict):
                        continue
                    has_image = has_image or bool(span.get("image_path"))
                    for key in ("html", "latex"):
                        if isinstance(span.get(key), str) and span[key].strip():
                            body_html = span[key]
                            body_field = f"{sf}.lines[{li}].spans[{si}].{key}"
                            break
                    if isinstance(span.get("content"), str):  # code text, or image-analysis text
                        body_text = _join_spans(body_text, span["content"].strip())
        elif st.endswith("_caption"):
            captions.append(_lines_text(s.get("lines"), path=path, fld=f"{sf}.lines"))
        elif st.endswith("_footnote"):
            footnotes.append(_lines_text(s.get("lines"), path=path, fld=f"{sf}.lines"))
    caption = " ".join(c for c in captions if c)
    footnote = " ".join(f for f in footnotes if f)
    if t == "table":
        grid, fallback = table_from_body(body_html, path=path, fld=body_field)
        ghost = not body_html.strip() and (deleted or not has_image)
        return Draft(
            kind=BlockKind.TABLE,
            table=grid,
            text=fallback or ("" if grid else body_text),
            caption=caption,
            footnote=footnote,
            ghost=ghost,
            **base,
        )
    if t == "code":
        mermaid = code_mermaid(body_text, b.get("guess_lang"))
        kind = BlockKind.FLOWCHART if mermaid is not None else BlockKind.CODE
        return Draft(kind=kind, text=body_text, caption=caption, footnote=footnote, mermaid=mermaid, **base)
    kind, mermaid = visual_kind(b.get("sub_type"), body_text)
    return Draft(kind=kind, text=body_text, caption=caption, footnote=footnote, mermaid=mermaid, **base)


__all__ = ["FORMAT", "parse_pdf_info"]
