"""Unit -> LangChain ``Document``: the conversion the loader and the retriever share.

``Document.id`` = ``unit.unit_id``; ``page_content`` = ``unit.embedding_text()`` (``context``, a
newline, then the unit text: what structaware embeds, paper section 2.4, so a LangChain vector
store fed by the loader embeds the same string).

``metadata`` is flat (no nested dicts) and **every key in** :data:`METADATA_KEYS` **is always
present** (``None`` when it does not apply), so a ``document_prompt`` naming any of them never
raises:

==================  ======================================================================
key                 value
==================  ======================================================================
``source``          the path the document was read from
``doc_id``          16 hex characters of the SHA-256 of the input file
``doc_name``        the file stem
``unit_id``         same as ``Document.id``
``unit_type``       ``section``, ``table_row``, ``flow_path``, ``recommendation``, ``figure`` (``reference``,
                    ``front_matter``: searched only when a filter names them)
``page``            first page, **1-based** ``int`` (LangChain's ``PyPDFLoader`` is 0-based)
``pages``           every page the unit covers, 1-based, sorted
``page_label``      ``"3"`` or ``"3-4"``: the pages as one string for citations
``citation``        ``"<doc_name>, p. 3"`` / ``"<doc_name>, pp. 3-4"``
``context``         the structural context string (``Section: A > B`` ...)
``section_path``    heading texts from the top of the document down to the unit
``section``         ``section_path`` joined with ``" > "``
``element_ids``     source element ids ``p{page}-e{j}`` in reading order
``element_pages``   the 1-based page of each element
``source_element_ids`` the parser's own element ids (Unstructured ``element_id``, as given), in
                    reading order; ``[]`` for MinerU
``bboxes``          one ``[x0, y0, x1, y1]`` (0..1 of the page, origin top-left) or ``None``
                    per element
``grade``           evidence grade label (``"A"``, ``"2A"``; what ``SearchFilter.grades`` matches)
                    or ``None``
``grade_system``, ``grade_strength``, ``grade_certainty``, ``grade_direction`` (``for``/``against``),
``grade_status``, ``grade_source`` (``sentence``, ``table_column``, ...): the rest of the parsed grade,
                    or ``None``
``table_id``, ``row_index``: table-row units (``row_index`` 0-based among body rows), else ``None``
``flowchart_id``    flow-path units, else ``None``
``ordinal``         0-based position of the unit in its document
``score``, ``rank`` retriever results: fused score and 1-based rank; ``None`` from the loader
==================  ======================================================================
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
