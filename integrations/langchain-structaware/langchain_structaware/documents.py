"""Unit -> LangChain ``Document``: the conversion the loader and the retriever share.

``Document.id`` is the unit id; ``page_content`` is ``unit.embedding_text()`` (context, newline,
text: what structaware embeds). ``metadata`` is flat and holds every key of :data:`METADATA_KEYS`
(``None`` where it does not apply), so a ``document_prompt`` naming any of them never raises:
``source``, ``doc_id``, ``doc_name``, ``unit_id``, ``unit_type``, ``page`` (first page, 1-based,
unlike ``PyPDFLoader``), ``pages``, ``page_label``, ``citation``, ``context``, ``section_path``,
``section``, ``element_ids``, ``element_pages``, ``source_element_ids``, ``bboxes`` (0..1 of the
page, origin top-left), the ``grade*`` fields, ``table_id``, ``row_index``, ``flowchart_id``,
``ordinal``, and ``score``/``rank`` (set by the retriever).
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

#: Keys present in every ``Document.metadata`` this package produces.
METADATA_KEYS: tuple[str, ...] = (
    "source",
    "doc_id",
    "doc_name",
    "unit_id",
    "unit_type",
    "page",
    "pages",
    "page_label",
    "citation",
    "context",
    "section_path",
    "section",
    "element_ids",
    "element_pages",
    "source_element_ids",
    "bboxes",
    "grade",
    "grade_system",
    "grade_strength",
    "grade_certainty",
    "grade_direction",
    "grade_status",
    "grade_source",
    "table_id",
    "row_index",
    "flowchart_id",
    "ordinal",
    "score",
    "rank",
    "relevance",
)


def page_label(pages: list[int]) -> str:
    """``[3]`` -> ``"3"``; ``[3, 4]`` -> ``"3-4"``; ``[2, 5]`` -> ``"2,5"``; ``[]`` -> ``""``."""
    if not pages:
        return ""
    if len(pages) == 1:
        return str(pages[0])
    if pages == list(range(pages[0], pages[-1] + 1)):
        return f"{pages[0]}-{pages[-1]}"
    return ",".join(map(str, pages))


def unit_to_document(
    unit: Any, *, score: float | None = None, rank: int | None = None, relevance: float | None = None
) -> Document:
    """Convert a :class:`~structaware_readers.models.Unit` (and optionally its search score, rank and
    calibrated relevance, ``SearchHit.relevance``)."""
    label = page_label(list(unit.pages))
    grade = unit.grade
    metadata: dict[str, Any] = {
        "source": unit.source,
        "doc_id": unit.doc_id,
        "doc_name": unit.doc_name,
        "unit_id": unit.unit_id,
        "unit_type": unit.unit_type.value,
        "page": unit.pages[0] if unit.pages else None,
        "pages": list(unit.pages),
        "page_label": label,
        "citation": f"{unit.doc_name}, {'pp.' if len(unit.pages) > 1 else 'p.'} {label}",
        "context": unit.context,
        "section_path": list(unit.section_path),
        "section": " > ".join(unit.section_path),
        "element_ids": list(unit.element_ids),
        "element_pages": list(unit.element_pages),
        "source_element_ids": list(unit.source_element_ids),
        "bboxes": [list(b) if b is not None else None for b in unit.bboxes],
        "grade": (grade.grade or None) if grade else None,
        "grade_system": grade.system if grade else None,
        "grade_strength": (grade.strength or None) if grade else None,
        "grade_certainty": (grade.certainty or None) if grade else None,
        "grade_direction": (grade.direction or None) if grade else None,
        "grade_status": (grade.status or None) if grade else None,
        "grade_source": grade.source if grade else None,
        "table_id": unit.table.table_id if unit.table else None,
        "row_index": unit.table.row_index if unit.table else None,
        "flowchart_id": unit.flow.flowchart_id if unit.flow else None,
        "ordinal": unit.ordinal,
        "score": score,
        "rank": rank,
        "relevance": relevance,
    }
    return Document(id=unit.unit_id, page_content=unit.embedding_text(), metadata=metadata)


def document_to_unit(document: Document) -> Any | None:
    """The unit a ``Document`` made by :func:`unit_to_document` stands for, read back from its metadata;
    ``None`` for any other document (no ``unit_type``/``element_ids``/``doc_id`` metadata).

    ``unit.text`` is ``page_content`` without the leading context line. Table-row headers/cells and
    flowchart edge ends are not in the metadata, so ``unit.table``/``unit.flow`` come back ``None``.
    """
    from structaware_readers.models import Grade, Unit, UnitType

    meta = document.metadata
    if meta.get("unit_type") not in {t.value for t in UnitType} or not isinstance(meta.get("element_ids"), list):
        return None
    context = meta.get("context") or ""
    text = document.page_content
    if context and text.startswith(context + "\n"):
        text = text[len(context) + 1 :]
    grade = None
    if meta.get("grade_system"):
        grade = Grade(
            system=meta["grade_system"],
            grade=meta.get("grade") or "",
            strength=meta.get("grade_strength") or "",
            certainty=meta.get("grade_certainty") or "",
        )
    return Unit(
        unit_id=str(meta.get("unit_id") or document.id or ""),
        unit_type=meta["unit_type"],
        text=text,
        context=context,
        doc_id=meta.get("doc_id") or "",
        doc_name=meta.get("doc_name") or "",
        source=str(meta.get("source") or ""),
        pages=list(meta.get("pages") or []),
        element_ids=list(meta["element_ids"]),
        bboxes=[tuple(b) if b is not None else None for b in meta.get("bboxes") or []],
        element_pages=list(meta.get("element_pages") or []),
        section_path=list(meta.get("section_path") or []),
        grade=grade,
        ordinal=int(meta.get("ordinal") or 0),
    )
