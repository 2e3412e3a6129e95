"""A structaware node as a picture: its page(s) with the unit's own regions outlined.

A thin face over :func:`structaware_retrievers.pictures.evidence_image.evidence_image`: the node's unit is read
back from its metadata (:func:`~llama_index.node_parser.structaware.nodes.node_to_unit`: pages, element
ids, bboxes, and ``file_path``, the indexed source), so a notebook shows a retrieved node in one line::

    from llama_index.node_parser.structaware import evidence_image
    evidence_image(retriever.retrieve("...")[0])
"""

from __future__ import annotations

from typing import Any

from llama_index.node_parser.structaware.nodes import node_to_unit

__all__ = ["evidence_image"]


def evidence_image(node: Any, *, pdf: Any = None, **options: Any) -> Any:
    """The PIL image of a structaware node (or a ``NodeWithScore`` holding one): its page(s) rendered
    with every region of its unit outlined (a table row; every row of a grouped table hit).

    Args:
        node: a ``TextNode`` made by ``StructureAwareNodeParser`` or ``StructureAwareRetriever``.
        pdf: the PDF, a folder of ``<doc_name>.pdf`` files or a mapping by ``doc_id``/``doc_name``
            (default: the node's ``file_path``, where the index says the document came from;
            :func:`structaware_retrievers.pictures.source_pdf.source_pdf`).
        options: ``crop``, ``margin`` (PDF points), ``dpi``, ``pages``, as
            :func:`structaware_retrievers.pictures.evidence_image.evidence_picture` takes them.

    Raises:
        TypeError: the node is not a structaware unit.
        PdfNotFoundError: the PDF is not at hand (the message names the file needed).
    """
    from structaware_retrievers.pictures.evidence_image import evidence_image as picture

    inner = getattr(node, "node", node)  # a NodeWithScore
    unit = node_to_unit(inner)
    if unit is None:
        raise TypeError(
            f"node {getattr(inner, 'node_id', '?')} is not a structaware unit (no unit_type/element_ids metadata)"
        )
    return picture(unit, pdf=pdf, **options)
