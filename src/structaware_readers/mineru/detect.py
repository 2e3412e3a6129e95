"""Which MinerU output format a parsed JSON value is, decided by its content (never its file name).

Formats: ``docvortex_middle`` (4.x), ``middle_pdf_info`` (0.7 .. 3.x middle.json), ``structured_content``
(4.x), ``content_list_v2`` (3.x+), ``content_list``. Model outputs (no reading order) and Unstructured
element lists raise :class:`UnknownFormatError` naming the file to use instead.
:data:`FORMAT_PREFERENCE` picks the richest rendering when a folder holds several.
"""

from __future__ import annotations

from typing import Any

from structaware_readers.errors import UnknownFormatError

DOCVORTEX_MIDDLE = "docvortex_middle"
MIDDLE_PDF_INFO = "middle_pdf_info"
STRUCTURED_CONTENT = "structured_content"
CONTENT_LIST_V2 = "content_list_v2"
CONTENT_LIST = "content_list"

#: Richest first: docvortex middle > pdf_info middle > structured_content > content_list_v2 > content_list.
FORMAT_PREFERENCE: tuple[str, ...] = (
    DOCVORTEX_MIDDLE,
    MIDDLE_PDF_INFO,
    STRUCTURED_CONTENT,
    CONTENT_LIST_V2,
    CONTENT_LIST,
)

_V1_TYPES = {
    "text",
    "title",
    "equation",
    "image",
    "chart",
    "table",
    "list",
    "index",
    "code",
    "ref_text",
    "phonetic",
    "header",
    "footer",
    "page_number",
    "aside_text",
    "page_footnote",
    "discarded",
    "interline_equation",
}
_V1_FIELDS = {"page_idx", "text", "text_level", "bbox", "img_path", "table_body", "list_items", "code_body"}


def detect_format(data: Any, *, path: str | None = None) -> str:
    """Name the MinerU format of an already-parsed JSON value (see the module table). Raises ``UnknownFormatError``."""
    if isinstance(data, dict):
        schema = data.get("schema")
        if schema == "docvortex.middle":
            return DOCVORTEX_MIDDLE
        if schema == "docvortex.model":
            raise UnknownFormatError(
                "this is MinerU 4.x model_output.json (docvortex.model, no reading order); "
                "read middle_json.json or structured_content.json instead",
                path=path,
                field="schema",
            )
        if isinstance(data.get("pdf_info"), list):
            return MIDDLE_PDF_INFO
        pages = data.get("pages")
        if isinstance(pages, list):
            if schema is None and "schema_version" in data:
                return DOCVORTEX_MIDDLE
            if (
                schema is None
                and all(isinstance(p, dict) for p in pages)
                and (not pages or any("blocks" in p or "page_idx" in p for p in pages))
            ):
                return STRUCTURED_CONTENT
        if isinstance(data.get("elements"), list):
            raise UnknownFormatError("this looks like Unstructured output, not MinerU", path=path, field="elements")
        keys = ", ".join(sorted(map(str, data))[:8])
        raise UnknownFormatError(f"JSON object matches no MinerU format (keys: {keys})", path=path, field="$")

    if isinstance(data, list):
        if not data:
            return CONTENT_LIST
        if all(isinstance(p, list) for p in data):
            items = [it for p in data for it in p]
            if not items:
                return CONTENT_LIST_V2
            dicts = [it for it in items if isinstance(it, dict)]
            if any(isinstance(it.get("type"), str) and isinstance(it.get("content"), dict) for it in dicts):
                return CONTENT_LIST_V2
            if dicts and all(isinstance(it.get("type"), str) for it in dicts):
                if any("angle" in it for it in dicts) or all(isinstance(it.get("content"), str) for it in dicts):
                    raise UnknownFormatError(
                        "this is a MinerU VLM _model.json (raw model blocks, no reading order); "
                        "read the _middle.json or _content_list.json of the same run",
                        path=path,
                        field="$",
                    )
            raise UnknownFormatError("list of lists matches no MinerU format", path=path, field="$")
        if isinstance(data[0], dict):
            first = data[0]
            if "layout_dets" in first:
                raise UnknownFormatError(
                    "this is a MinerU pipeline _model.json (layout detections); "
                    "read the _middle.json or _content_list.json of the same run",
                    path=path,
                    field="[0].layout_dets",
                )
            if "element_id" in first and "metadata" in first:
                raise UnknownFormatError(
                    "this looks like Unstructured elements JSON, not MinerU", path=path, field="[0]"
                )
            if any(
                isinstance(it, dict)
                and isinstance(it.get("type"), str)
                and it["type"] in _V1_TYPES
                and (_V1_FIELDS & it.keys())
                for it in data
            ):
                return CONTENT_LIST
        raise UnknownFormatError("JSON array matches no MinerU format", path=path, field="$")

    raise UnknownFormatError(f"JSON {type(data).__name__} matches no MinerU format", path=path, field="$")


__all__ = [
    "CONTENT_LIST",
    "CONTENT_LIST_V2",
    "DOCVORTEX_MIDDLE",
    "FORMAT_PREFERENCE",
    "MIDDLE_PDF_INFO",
    "STRUCTURED_CONTENT",
    "detect_format",
]
