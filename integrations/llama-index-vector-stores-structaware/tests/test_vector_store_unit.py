"""Unit tests of ``llama-index-vector-stores-structaware``: nodes with LlamaIndex's ``MockEmbedding``
vectors stored, filtered and found again (BM25 fused in Qdrant)."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import TextNode
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters, VectorStoreQuery
from qdrant_client import QdrantClient

from llama_index.vector_stores.structaware import StructureAwareVectorStore
from structaware_readers.errors import ModelMismatchError

TEXTS = {
    "a": ("Offer metformin as first-line therapy to adults with type 2 diabetes.", "recommendation"),
    "b": ("Review the treatment plan every three to six months.", "section"),
    "c": ("Adults 65 and older: HbA1c target below 8.0 percent.", "table_row"),
}


@pytest.fixture
def store(tmp_path: Path):
    embed = MockEmbedding(embed_dim=8)
    s = StructureAwareVectorStore(
        tmp_path / "ix", client=QdrantClient(":memory:"), embed_model=embed, model_id="mock-8"
    )
    nodes = []
    for node_id, (text, kind) in TEXTS.items():
        node = TextNode(id_=node_id, text=text, metadata={"kind": kind})
        node.embedding = embed.get_text_embedding(text)
        nodes.append(node)
    assert sorted(s.add(nodes)) == sorted(TEXTS)
    yield s
    s.close()


def test_a_query_string_finds_its_node_by_bm25(store) -> None:
    embed = MockEmbedding(embed_dim=8)  # every vector equal: the order comes from the BM25 half
    q = "how often to review the treatment plan"
    res = store.query(VectorStoreQuery(query_str=q, query_embedding=embed.get_query_embedding(q), similarity_top_k=1))
    assert res.ids == ["b"] and "three to six months" in res.nodes[0].get_content()


def test_filters_and_deletes(store) -> None:
    embed = MockEmbedding(embed_dim=8)
    only_rows = MetadataFilters(filters=[MetadataFilter(key="kind", value="table_row")])
    q = "metformin"
    query = VectorStoreQuery(
        query_str=q, query_embedding=embed.get_query_embedding(q), similarity_top_k=3, filters=only_rows
    )
    res = store.query(query)
    assert res.ids == ["c"]  # the trap: the metformin node matches the words but not the filter
    store.delete_nodes(["c"])
    assert sorted(n.node_id for n in store.get_nodes()) == ["a", "b"]


@pytest.mark.integration  # the model is recorded in an index folder of the embedded engine
def test_an_index_of_another_model_is_refused(tmp_path: Path) -> None:
    first = StructureAwareVectorStore(tmp_path / "ix", embed_model=MockEmbedding(embed_dim=8), model_id="mock-8")
    first.add([TextNode(id_="n1", text="metformin", embedding=[1.0] * 8)])
    first.close()
    with pytest.raises(ModelMismatchError, match="mock-8"):
        StructureAwareVectorStore(tmp_path / "ix", embed_model=MockEmbedding(embed_dim=8), model_id="other-8")
