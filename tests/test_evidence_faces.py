"""Both framework faces give a hit's picture in one line: a LlamaIndex node, a LangChain document."""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.errors import PdfNotFoundError
from structaware_retrievers.index.structure_index import StructureIndex

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EN_PDF = FIXTURES / "pdf" / "synthetic_guideline_en.pdf"
QUESTION = "clinic target for adults 57-59 y"


pytestmark = pytest.mark.usefixtures("offline_env")


def _boxes_in(image, unit_bboxes: list) -> None:
    """Every bbox of the unit (on the one page shown) is outlined in the image, just outside the box."""
    from structaware_retrievers.pictures.evidence_image import OUTLINE_COLOR

    for x0, y0, _x1, y1 in unit_bboxes:
        left, top, bottom = round(x0 * image.width), round(y0 * image.height), round(y1 * image.height)
        assert image.getpixel((left - 1, (top + bottom) // 2)) == OUTLINE_COLOR


def test_a_llama_index_node_gives_its_picture(tiny_en_index_dir: Path) -> None:
    pytest.importorskip("llama_index.retrievers.structaware")
    from llama_index.node_parser.structaware import evidence_image, node_to_unit
    from llama_index.retrievers.structaware import StructureAwareRetriever
    from llama_index.retrievers.structaware import evidence_image as same

    assert same is evidence_image
    with StructureIndex(tiny_en_index_dir) as ix:
        (top,) = StructureAwareRetriever(ix, similarity_top_k=1).retrieve(QUESTION)
        unit = node_to_unit(top.node)
        assert unit.source == top.node.metadata["file_path"]  # where the index says the document came from
        with pytest.raises(PdfNotFoundError, match=r"synthetic_guideline_en\.pdf"):
            evidence_image(top)  # the index holds MinerU's output, without the PDF beside it
        image = evidence_image(top, pdf=EN_PDF, pages=[unit.element_pages[0]])
        _boxes_in(image, [b for b, p in zip(unit.bboxes, unit.element_pages) if p == unit.element_pages[0]])
        with pytest.raises(TypeError, match="not a structaware unit"):
            from llama_index.core.schema import TextNode

            evidence_image(TextNode(text="plain"), pdf=EN_PDF)


def test_a_langchain_document_gives_its_picture(tiny_en_index_dir: Path) -> None:
    pytest.importorskip("langchain_structaware")
    from langchain_core.documents import Document

    from langchain_structaware import StructureAwareRetriever, document_to_unit, evidence_image

    with StructureIndex(tiny_en_index_dir) as ix:
        (top,) = StructureAwareRetriever(index=ix, k=1).invoke(QUESTION)
        unit = document_to_unit(top)
        image = evidence_image(top, pdf={unit.doc_name: EN_PDF}, pages=[unit.element_pages[0]])
        _boxes_in(image, [b for b, p in zip(unit.bboxes, unit.element_pages) if p == unit.element_pages[0]])
        cropped = evidence_image(top, pdf=EN_PDF, crop=True)
        assert cropped.height < image.height
        with pytest.raises(TypeError, match="not a structaware unit"):
            evidence_image(Document(page_content="plain"), pdf=EN_PDF)
