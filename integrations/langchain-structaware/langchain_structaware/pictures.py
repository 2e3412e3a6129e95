"""A structaware LangChain document as a picture: its page(s) with the unit's own regions outlined.

A thin face over :func:`structaware_retrievers.pictures.evidence_image.evidence_image`: the document's unit is
read back from its metadata (:func:`~langchain_structaware.documents.document_to_unit`: pages, element
ids, bboxes, and ``source``, the indexed source), so a notebook shows a retrieved document in one line::

    from langchain_structaware import evidence_image
    evidence_image(retriever.invoke("...")[0])
"""

from __future__ import annotations

from typing import Any

from langchain_core.documents import Document

from langchain_structaware.documents import document_to_unit

__all__ = ["evidence_image"]


def evidence_image(document: Document, *, pdf: Any = None, **options: Any) -> Any:
    """The PIL image of a structaware document: its page(s) rendered with every region of its unit
    outlined (a table row; every row of a grouped table hit).

    Args:
        document: a ``Document`` made by ``StructureAwareLoader``, ``StructureAwareRetriever`` or
            ``StructureAwareVectorStore``.
        pdf: the PDF, a folder of ``<doc_name>.pdf`` files or a mapping by ``doc_id``/``doc_name``
            (default: the document's ``source``, where the index says it came from;
            :func:`structaware_retrievers.pictures.source_pdf.source_pdf`).
        options: ``crop``, ``margin`` (PDF points), ``dpi``, ``pages``, as
            :func:`structaware_retrievers.pictures.evidence_image.evidence_picture` takes them.

    Raises:
        TypeError: the document is not a structaware unit.
        PdfNotFoundError: the PDF is not at hand (the message names the file needed).
    """
    from structaware_retrievers.pictures.evidence_image import evidence_image as picture

    unit = document_to_unit(document)
    if unit is None:
        raise TypeError(f"document {document.id!r} is not a structaware unit (no unit_type/element_ids metadata)")
    return picture(unit, pdf=pdf, **options)
