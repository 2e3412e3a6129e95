"""StructureAwareNodeParser on a real MinerU fixture: one node per unit, metadata hygiene,
relationships, IngestionPipeline (cache + docstore) and VectorStoreIndex with the real encoder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import SimpleDirectoryReader, VectorStoreIndex
from llama_index.core.ingestion import DocstoreStrategy, IngestionCache, IngestionPipeline
from llama_index.core.node_parser import get_leaf_nodes, get_root_nodes
from llama_index.core.schema import Document, MetadataMode, NodeRelationship, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.vector_stores.utils import node_to_metadata_dict

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = "mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"


def fixture_path(rel: str, shared_rel: str | None = None) -> Path:
    """``tests/fixtures/<rel>`` (CC0 copies in the repo), else ``<repo>/../shared/fixtures/<shared_rel or rel>``."""
    for path in (REPO / "tests" / "fixtures" / rel, REPO.parent / "shared" / "fixtures" / (shared_rel or rel)):
        if path.exists():
            return path
    pytest.skip(f"fixture {rel} is in neither tests/fixtures nor ../shared/fixtures")


@pytest.fixture(scope="module")
def document() -> Document:
    from llama_index.readers.structaware import MinerUReader

    (doc,) = MinerUReader().load_data(fixture_path(MINERU_EN))
    return doc


@pytest.fixture(scope="module")
def units(document: Document) -> list:
    from llama_index.readers.structaware import parsed_from_document
    from structaware_readers.units import build_units

    return build_units(parsed_from_document(document))


@pytest.fixture(scope="module")
def nodes(document: Document) -> list[TextNode]:
    from llama_index.node_parser.structaware import StructureAwareNodeParser

    return StructureAwareNodeParser().get_nodes_from_documents([document])


def test_one_text_node_per_unit(nodes: list[TextNode], units: list) -> None:
    assert [n.node_id for n in nodes] == [u.unit_id for u in units]
    assert all(isinstance(n, TextNode) for n in nodes)
    for node, unit in zip(nodes, units, strict=True):
        assert node.text == unit.text
        assert node.metadata["context"] == unit.context
        assert node.metadata["unit_type"] == unit.unit_type.value
        assert node.metadata["page_label"] == str(unit.pages[0])  # str, 1-based
        assert node.metadata["page"] == unit.pages[0] >= 1
        assert node.metadata["element_ids"].split(",") == unit.element_ids
        assert json.loads(node.metadata["bboxes"]) == [list(b) if b else None for b in unit.bboxes]
        assert node.metadata["file_name"]
        # flat metadata: every vector store accepts it (flat_metadata=True raises otherwise)
        node_to_metadata_dict(node, flat_metadata=True)
    types = {n.metadata["unit_type"] for n in nodes}
    assert {"section", "table_row", "recommendation"} <= types


def test_what_embeddings_and_llms_see(nodes: list[TextNode]) -> None:
    row = next(n for n in nodes if n.metadata["unit_type"] == "table_row" and "57-59" in n.text)
    embed = row.get_content(MetadataMode.EMBED)
    assert embed == f"context: {row.metadata['context']}\n\n{row.text}"
    llm = row.get_content(MetadataMode.LLM)
    assert f"page_label: {row.metadata['page_label']}" in llm
    assert f"context: {row.metadata['context']}" in llm
    for hidden in ("bboxes", "element_ids", "structaware_document", "parser_version", '"blocks"'):
        assert hidden not in embed and hidden not in llm
    graded = next(n for n in nodes if n.metadata["unit_type"] == "recommendation" and "grade" in n.metadata)
    assert f"grade: {graded.metadata['grade']}" in graded.get_content(MetadataMode.LLM)


def test_relationships(nodes: list[TextNode], document: Document) -> None:
    for i, node in enumerate(nodes):
        source = node.relationships[NodeRelationship.SOURCE]
        assert source.node_id == document.id_ == node.ref_doc_id
        assert "structaware_document" not in source.metadata  # no document JSON copied into every node
        assert "structaware_document" not in node.metadata
        if i:
            assert node.relationships[NodeRelationship.PREVIOUS].node_id == nodes[i - 1].node_id
        if i < len(nodes) - 1:
            assert node.relationships[NodeRelationship.NEXT].node_id == nodes[i + 1].node_id
        assert NodeRelationship.PARENT not in node.relationships
    # the relationships carry no document JSON either
    assert "structaware_document" not in json.dumps(nodes[1].to_dict())


def test_parent_nodes_for_tables(document: Document, units: list) -> None:
    from llama_index.node_parser.structaware import StructureAwareNodeParser

    out = StructureAwareNodeParser(parent_nodes=True).get_nodes_from_documents([document])
    leaves, roots = get_leaf_nodes(out), get_root_nodes(out)
    assert [n.node_id for n in leaves] == [u.unit_id for u in units]
    parents = [n for n in out if NodeRelationship.CHILD in n.relationships]
    rows_by_table: dict[str, list[str]] = {}
    for u in units:
        if u.table is not None:
            rows_by_table.setdefault(u.table.table_id, []).append(u.unit_id)
    tables = [p for p in parents if p.metadata["unit_type"] == "table"]
    assert len(tables) == len(rows_by_table) >= 1
    by_id = {n.node_id: n for n in out}
    for table in tables:
        children = [c.node_id for c in table.relationships[NodeRelationship.CHILD]]
        assert children in rows_by_table.values()
        for child_id in children:
            assert by_id[child_id].relationships[NodeRelationship.PARENT].node_id == table.node_id
        assert "Adults" in table.text and table.node_id in {r.node_id for r in roots}
    # PREVIOUS/NEXT still chain the units only
    assert NodeRelationship.NEXT not in leaves[-1].relationships


def test_document_exclusions_are_copied(tmp_path: Path) -> None:
    """SimpleDirectoryReader's file size / dates must not leak into the node's embedding text."""
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from llama_index.readers.structaware import MinerUReader

    shutil.copy(fixture_path(MINERU_EN) / "content_list.rendered.json", tmp_path / "guideline.json")
    sdr = SimpleDirectoryReader(str(tmp_path), file_extractor={".json": MinerUReader()}, raise_on_error=True)
    docs = sdr.load_data()
    nodes = StructureAwareNodeParser().get_nodes_from_documents(docs)
    node = nodes[0]
    assert node.metadata["file_size"] > 0 and node.metadata["last_modified_date"]  # merged from the document
    embed, llm = node.get_content(MetadataMode.EMBED), node.get_content(MetadataMode.LLM)
    for key in ("file_size", "last_modified_date", "creation_date", "file_type", "file_path", "parser"):
        assert f"{key}:" not in embed
    for key in ("file_size", "last_modified_date", "structaware_document"):
        assert f"{key}:" not in llm


def test_ingestion_pipeline_with_cache_and_docstore(tmp_path: Path, document: Document, units: list) -> None:
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from llama_index.readers.structaware import parsed_from_document
    from structaware_readers.units import UnitOptions, build_units

    parser = StructureAwareNodeParser(max_section_chars=300)
    assert parser.to_dict()["max_section_chars"] == 300  # the cache key is str(to_dict())
    cache = IngestionCache()
    pipeline = IngestionPipeline(
        transformations=[parser],
        cache=cache,
        docstore=SimpleDocumentStore(),
        docstore_strategy=DocstoreStrategy.DUPLICATES_ONLY,
    )
    first = pipeline.run(documents=[document])
    # the option reaches the unit builder: shorter section parts -> more units than the default
    expected = build_units(parsed_from_document(document), UnitOptions(max_section_chars=300))
    assert [n.node_id for n in first] == [u.unit_id for u in expected]
    assert len(first) > len(units)
    assert len(cache.cache.get_all(collection=cache.collection)) == 1

    # second pipeline, same cache: the nodes come from the cache, identical
    again = IngestionPipeline(transformations=[StructureAwareNodeParser(max_section_chars=300)], cache=cache)
    second = again.run(documents=[document])
    assert [n.node_id for n in second] == [n.node_id for n in first]
    assert second[0].metadata == first[0].metadata

    # the docstore keeps the Document with its blocks: re-parsing later needs no parser run
    pipeline.persist(str(tmp_path / "pipeline"))
    store = SimpleDocumentStore.from_persist_path(str(tmp_path / "pipeline" / "docstore.json"))
    stored = store.get_document(document.id_)
    assert parsed_from_document(stored) == parsed_from_document(document)
    reparsed = StructureAwareNodeParser(max_section_chars=300).get_nodes_from_documents([stored])
    assert [n.node_id for n in reparsed] == [n.node_id for n in first]


async def test_async_parse_matches_sync(document: Document, nodes: list[TextNode]) -> None:
    from llama_index.node_parser.structaware import StructureAwareNodeParser

    out = await StructureAwareNodeParser().aget_nodes_from_documents([document])
    assert [n.node_id for n in out] == [n.node_id for n in nodes]


@pytest.mark.integration
def test_vector_store_index_with_the_default_encoder(nodes: list[TextNode]) -> None:
    from llama_index.embeddings.structaware import StructureAwareEmbedding

    embed = StructureAwareEmbedding()
    index = VectorStoreIndex(nodes, embed_model=embed)
    hits = index.as_retriever(similarity_top_k=3).retrieve("What is the blood pressure target for adults 57-59 y?")
    # dense search alone: rows of the blood pressure table, each with its header (which of its 60 rows,
    # alike but for the age band, comes first is for BM25's numbers: the structaware retriever's hybrid)
    for hit in hits:
        assert hit.node.metadata["unit_type"] == "table_row"
        assert "Blood pressure targets by population" in hit.node.get_content(metadata_mode="embed")
        assert "Population: Adults" in hit.node.get_content()
    assert len(embed.get_query_embedding("x")) == embed.dim == 384 + 512  # the default: MiniLM + USE halves


def test_plain_documents_pass_through_as_text_nodes(document: Document, units: list) -> None:
    """Issue 27: a document structaware did not read (a .txt from SimpleDirectoryReader) becomes plain
    text nodes with a warning naming it; the batch's structaware documents still become units."""
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from structaware_readers.errors import InputWarning

    notes = Document(text="First note. " * 300, metadata={"file_path": "/data/notes.txt", "file_name": "notes.txt"})
    with pytest.warns(InputWarning, match="notes.txt") as caught:
        out = StructureAwareNodeParser(plain_chunk_size=256, plain_chunk_overlap=0).get_nodes_from_documents(
            [notes, document]
        )
    assert len(caught) == 1  # the structaware document warns nothing
    plain = [n for n in out if n.ref_doc_id == notes.id_]
    assert len(plain) > 1 and all("unit_type" not in n.metadata for n in plain)
    assert plain[0].metadata["file_name"] == "notes.txt" and plain[0].text.startswith("First note.")
    assert [n.node_id for n in out if n.ref_doc_id == document.id_] == [u.unit_id for u in units]


def test_a_damaged_structaware_document_is_an_error() -> None:
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from structaware_readers.errors import MalformedInputError

    bad = Document(text="x", metadata={"file_path": "/data/x.json", "structaware_document": "{not json"})
    with pytest.raises(MalformedInputError) as err:
        StructureAwareNodeParser().get_nodes_from_documents([bad])
    assert "/data/x.json" in str(err.value) and "structaware_document" in str(err.value)


def test_structaware_doc_id_survives_other_vector_stores(tmp_path: Path) -> None:
    """With filename_as_id=True the LlamaIndex document id is the file path, and other packages'
    vector stores write it into the flat doc_id key (node_to_metadata_dict); structaware's document id
    stays filterable under structaware_doc_id (issue 27)."""
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from llama_index.readers.structaware import MinerUReader, parsed_from_document

    shutil.copy(fixture_path(MINERU_EN) / "content_list.rendered.json", tmp_path / "guideline.json")
    docs = SimpleDirectoryReader(
        str(tmp_path), file_extractor={".json": MinerUReader()}, filename_as_id=True
    ).load_data()
    doc_id = parsed_from_document(docs[0]).doc_id
    node = StructureAwareNodeParser().get_nodes_from_documents(docs)[0]
    assert node.ref_doc_id == docs[0].id_ != doc_id and "guideline.json" in node.ref_doc_id
    payload = node_to_metadata_dict(node, remove_text=True, flat_metadata=False)  # what e.g. Qdrant's store writes
    assert payload["doc_id"] == node.ref_doc_id  # LlamaIndex's meaning of the flat key
    assert payload["structaware_doc_id"] == doc_id
    assert "structaware_doc_id" not in node.get_content(MetadataMode.EMBED)


def test_unit_options_reach_the_builder() -> None:
    from llama_index.node_parser.structaware import StructureAwareNodeParser

    opts = StructureAwareNodeParser(text_table_rows=True, max_section_chars=400)._unit_options()
    assert opts.text_table_rows is True and opts.max_section_chars == 400
    assert StructureAwareNodeParser()._unit_options().text_table_rows is False
