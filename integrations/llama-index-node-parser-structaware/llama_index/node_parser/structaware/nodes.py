"""Unit -> LlamaIndex ``TextNode``: the one conversion the node parser and the retriever share.

``node.id_`` is the unit id (a UUIDv5), ``node.text`` the unit text. Metadata is flat
(``str``/``int``/``float`` only, so every vector store accepts it): ``context`` is embedded and
shown to the LLM, ``page_label`` (first 1-based page) and ``file_name`` are shown to the LLM, and
the rest (``page``, ``pages``, ``unit_type``, ``doc_id``, ``section``, ``element_ids``, ``bboxes``
as 0..1 of the page with a top-left origin, table, flowchart and grade fields) is kept from both.

Other LlamaIndex vector stores write the LlamaIndex document id into ``doc_id``; filter on
``structaware_doc_id`` there.
"""

from __future__ import annotations

import json
from typing import Any

from llama_index.core.schema import NodeRelationship, ObjectType, RelatedNodeInfo, TextNode

#: Metadata keys visible in the embedding text.
EMBED_VISIBLE_KEYS = ("context",)
#: Metadata keys visible in the LLM text (``RetrieverTool``, response synthesis).
LLM_VISIBLE_KEYS = ("context", "page_label", "file_name", "grade")


def _join(values: list[Any]) -> str:
    return ",".join(str(v) for v in values)


def unit_metadata(unit: Any) -> dict[str, Any]:
    """Flat node metadata of a :class:`~structaware_readers.models.Unit` (see the module table)."""
    meta: dict[str, Any] = {
        "context": unit.context,
        "page_label": str(unit.pages[0]) if unit.pages else "",
        "file_name": unit.file_name,
        "page": unit.pages[0] if unit.pages else None,
        "pages": _join(unit.pages),
        "unit_type": unit.unit_type.value,
        "doc_id": unit.doc_id,
        "structaware_doc_id": unit.doc_id,
        "doc_name": unit.doc_name,
        "section": " > ".join(unit.section_path),
        "element_ids": _join(unit.element_ids),
        "element_pages": _join(unit.element_pages),
        "source_element_ids": _join(unit.source_element_ids),
        "bboxes": json.dumps([list(b) if b is not None else None for b in unit.bboxes]),
        "ordinal": unit.ordinal,
    }
    if unit.source:
        meta["file_path"] = unit.source  # SimpleDirectoryReader's key; node_to_unit reads it back
    if unit.grade is not None:
        if unit.grade.grade:
            meta["grade"] = unit.grade.grade
        meta["grade_system"] = unit.grade.system
        meta["grade_strength"] = unit.grade.strength
        meta["grade_certainty"] = unit.grade.certainty
        meta["grade_direction"] = unit.grade.direction
        meta["grade_status"] = unit.grade.status
        meta["grade_source"] = unit.grade.source
    if unit.table is not None:
        meta["table_id"] = unit.table.table_id
        meta["row_index"] = unit.table.row_index
    if unit.flow is not None:
        meta["flowchart_id"] = unit.flow.flowchart_id
    return meta


def excluded_keys(metadata: dict[str, Any], visible: tuple[str, ...]) -> list[str]:
    """Every key of ``metadata`` that is not in ``visible``."""
    return [k for k in metadata if k not in visible]


def document_link(unit: Any, metadata: dict[str, Any] | None = None) -> RelatedNodeInfo:
    """The ``SOURCE`` relationship of a unit's node: its document (id = ``doc_id``)."""
    return RelatedNodeInfo(
        node_id=unit.doc_id,
        node_type=ObjectType.DOCUMENT,
        metadata=metadata if metadata is not None else {"file_name": unit.file_name},
    )


def unit_to_node(unit: Any, *, source: RelatedNodeInfo | None = None) -> TextNode:
    """Convert a unit into a ``TextNode`` (id = unit id, flat metadata, ``SOURCE`` = its document).

    Args:
        unit: a :class:`~structaware_readers.models.Unit`.
        source: the ``SOURCE`` relationship to set; by default a link to ``unit.doc_id``.
    """
    meta = unit_metadata(unit)
    return TextNode(
        id_=unit.unit_id,
        text=unit.text,
        metadata=meta,
        excluded_embed_metadata_keys=excluded_keys(meta, EMBED_VISIBLE_KEYS),
        excluded_llm_metadata_keys=excluded_keys(meta, LLM_VISIBLE_KEYS),
        relationships={NodeRelationship.SOURCE: source or document_link(unit)},
    )


def element_boxes(node: Any) -> list[dict[str, Any]]:
    """Provenance of a unit node: ``[{"element_id", "page", "bbox"}]`` read back from its metadata.

    ``page`` is 1-based; ``bbox`` is ``(x0, y0, x1, y1)`` in 0..1 of the page, origin top-left, or
    ``None`` when the parser gave no box.
    """
    meta = node.metadata
    ids = [e for e in str(meta.get("element_ids", "")).split(",") if e]
    pages = [int(p) for p in str(meta.get("element_pages", "")).split(",") if p]
    boxes = json.loads(meta.get("bboxes") or "[]")
    return [
        {"element_id": e, "page": p, "bbox": tuple(b) if b is not None else None}
        for e, p, b in zip(ids, pages, boxes, strict=True)
    ]


def _split(value: Any) -> list[str]:
    return [v for v in str(value or "").split(",") if v]


def node_to_unit(node: Any) -> Any | None:
    """The unit a node made by :func:`unit_to_node` stands for, read back from its metadata; ``None``
    for a node that is not a structaware unit (no ``unit_type``/``element_ids`` metadata).

    Table-row headers/cells and flowchart edge ends are not in node metadata, so ``unit.table`` and
    ``unit.flow`` come back ``None``; everything else (text, context, document, 1-based pages,
    element ids, bboxes, section path, grade, ordinal) round-trips.
    """
    from structaware_readers.models import Grade, Unit, UnitType

    meta = node.metadata
    if meta.get("unit_type") not in {t.value for t in UnitType} or "element_ids" not in meta:
        return None
    boxes = json.loads(meta.get("bboxes") or "[]")
    grade = None
    if meta.get("grade_system"):
        grade = Grade(
            system=meta["grade_system"],
            grade=meta.get("grade", ""),
            strength=meta.get("grade_strength", ""),
            certainty=meta.get("grade_certainty", ""),
        )
    return Unit(
        unit_id=node.node_id,
        unit_type=meta["unit_type"],
        text=node.text,
        context=meta.get("context", ""),
        doc_id=meta.get("structaware_doc_id") or meta.get("doc_id", ""),
        doc_name=meta.get("doc_name", ""),
        source=str(meta.get("file_path", "")),
        pages=[int(p) for p in _split(meta.get("pages"))],
        element_ids=_split(meta.get("element_ids")),
        bboxes=[tuple(b) if b is not None else None for b in boxes],
        element_pages=[int(p) for p in _split(meta.get("element_pages"))],
        section_path=[s for s in str(meta.get("section", "")).split(" > ") if s],
        grade=grade,
        ordinal=int(meta.get("ordinal", 0)),
    )
