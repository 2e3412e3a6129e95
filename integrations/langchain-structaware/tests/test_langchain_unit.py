"""Unit tests of ``langchain-structaware``: the loader, the vector store on LangChain's
``DeterministicFakeEmbedding``, the retriever and the compressor on a small index embedded by a
letter-count model (ranking is tested on the real model in the core suite)."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from qdrant_client import QdrantClient

from langchain_structaware import (
    METADATA_KEYS,
    StructureAwareEmbeddings,
    StructureAwareLoader,
    StructureAwareRerank,
    StructureAwareRetriever,
    StructureAwareVectorStore,
    document_to_unit,
)
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders import DenseEncoder


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, letter_index):
    ix = letter_index(tmp_path_factory.mktemp("lc"))
    yield ix
    ix.close()


def test_the_loader_gives_one_document_per_unit_with_every_key(guide_dir: Path) -> None:
    docs = StructureAwareLoader(guide_dir).load()
    assert sorted(d.metadata["unit_type"] for d in docs) == ["recommendation", "section", "table_row", "table_row"]
    assert all(set(METADATA_KEYS) <= d.metadata.keys() and d.metadata["page"] == 1 for d in docs)
    row = next(d for d in docs if "65 and older" in d.page_content)
    assert document_to_unit(row).unit_id == row.id
    assert document_to_unit(Document(page_content="a note", metadata={})) is None


def test_the_vector_store_on_a_fake_embedding_filters(tmp_path: Path) -> None:
    store = StructureAwareVectorStore(
        DeterministicFakeEmbedding(size=16), path=tmp_path / "ix", client=QdrantClient(":memory:")
    )
    try:
        store.add_documents(
            [
                Document(page_content="Offer metformin as first-line therapy.", metadata={"kind": "rec"}, id="1"),
                Document(page_content="Metformin tablets are taken with meals.", metadata={"kind": "note"}, id="2"),
            ]
        )
        (hit,) = store.similarity_search("metformin", k=2, filter={"kind": "note"})
        assert hit.id == "2"  # the trap: document 1 matches the word but not the filter
    finally:
        store.close()


def test_the_retriever_and_the_compressor(index) -> None:
    retriever = StructureAwareRetriever(index=index, k=1, mode="sparse", min_score=0, group_size=1)
    (row,) = retriever.invoke("HbA1c target adults 65 and older")
    assert row.metadata["unit_type"] == "table_row" and "< 8.0%" in row.page_content
    docs = StructureAwareRetriever(index=index, k=4, min_score=0, group_size=1, rerank=False).invoke("metformin")
    rerank = StructureAwareRerank(index=index, top_n=1)
    (best,) = rerank.compress_documents(list(reversed(docs)), "first-line therapy with metformin")
    assert best.metadata["unit_type"] == "recommendation" and "relevance_score" in best.metadata
    with pytest.raises(MalformedInputError, match="filter"):
        StructureAwareRetriever(index=index, filter={"page": {"$regex": "1"}})


def test_embeddings_wrap_the_dense_encoder(letter_model) -> None:
    embed = StructureAwareEmbeddings(encoder=DenseEncoder(model=letter_model))
    assert embed.embed_query("aaa") == pytest.approx([1.0] + [0.0] * 25)
    assert len(embed.embed_documents(["abc", "xyz"])) == 2
