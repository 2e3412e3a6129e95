"""LangChain vector store over a structaware index: LangChain's standard ``VectorStoreIntegrationTests``
on both engines (embedded Qdrant Edge, qdrant-client in-process), then the user's own embedding
model, the BM25 half, filters, the model guard, and units ingested by structaware read back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_tests")

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import VectorStore
from langchain_tests.integration_tests import VectorStoreIntegrationTests
from qdrant_client import QdrantClient

from langchain_structaware import StructureAwareVectorStore
from structaware_readers.errors import MalformedInputError, StoreError

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


@pytest.mark.integration  # the embedded engine writes a shard per test
class TestEdgeStoreStandard(VectorStoreIntegrationTests):
    """The standard suite on the embedded engine (a fresh index folder per test)."""

    @pytest.fixture()
    def vectorstore(self, tmp_path: Path) -> Iterator[VectorStore]:  # type: ignore[override]
        store = StructureAwareVectorStore(self.get_embeddings(), path=tmp_path / "index")
        yield store
        store.close()


class TestClientStoreStandard(VectorStoreIntegrationTests):
    """The standard suite through qdrant-client (in-process ``:memory:``)."""

    @pytest.fixture()
    def vectorstore(self, tmp_path: Path) -> Iterator[VectorStore]:  # type: ignore[override]
        store = StructureAwareVectorStore(
            self.get_embeddings(), client=QdrantClient(":memory:"), path=tmp_path / "cache"
        )
        yield store
        store.close()


def _docs() -> list[Document]:
    return [
        Document(
            page_content="Amlodipine 5 mg once daily for stage 2 hypertension.", metadata={"kind": "drug", "year": 2020}
        ),
        Document(
            page_content="Walk thirty minutes on most days of the week.", metadata={"kind": "lifestyle", "year": 2021}
        ),
        Document(
            page_content="Measure ambulatory blood pressure to confirm the diagnosis.", metadata={"kind": "diagnosis"}
        ),
    ]


@pytest.mark.integration
def test_from_documents_as_retriever_with_the_users_embedding_model(tmp_path: Path) -> None:
    emb = DeterministicFakeEmbedding(size=16)
    store = StructureAwareVectorStore.from_documents(_docs(), emb, path=tmp_path / "i")
    try:
        hits = store.as_retriever(search_kwargs={"k": 1}).invoke("amlodipine dose")
        assert [d.metadata["kind"] for d in hits] == ["drug"]
        # the collection's dense dimension and model id are the user's model
        assert store.index.store.dense_dim() == 16
        assert store.index.config()["dense"]["model_id"] == (
            "langchain_core.embeddings.fake.DeterministicFakeEmbedding"
        )
        # BM25 is kept: a sparse-only search finds the document by its words
        assert [d.metadata["kind"] for d in store.similarity_search("ambulatory", k=1, mode="sparse")] == ["diagnosis"]
        # dense-only by vector: the exact embedding of a stored text comes back first
        text = _docs()[1].page_content
        assert store.similarity_search_by_vector(emb.embed_query(text), k=1)[0].page_content == text
    finally:
        store.close()


@pytest.mark.integration
def test_filters_on_metadata(tmp_path: Path) -> None:
    store = StructureAwareVectorStore.from_documents(_docs(), DeterministicFakeEmbedding(size=8), path=tmp_path / "i")
    try:
        got = store.similarity_search("blood pressure", k=3, filter={"kind": ["drug", "lifestyle"]})
        assert sorted(d.metadata["kind"] for d in got) == ["drug", "lifestyle"]
        assert [d.metadata["kind"] for d in store.similarity_search("x", k=3, filter={"year": 2021})] == ["lifestyle"]
        assert store.similarity_search("x", k=3, filter={"year": "2021"}) == []  # 2021 is an int, not a string
        with pytest.raises(MalformedInputError):
            store.similarity_search("x", filter=["kind"])
    finally:
        store.close()


@pytest.mark.integration
def test_an_index_built_with_another_model_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "i"
    StructureAwareVectorStore.from_documents(_docs(), DeterministicFakeEmbedding(size=8), path=path).close()
    with pytest.raises(StoreError) as err:  # refused on open, before any embedding or write
        StructureAwareVectorStore(DeterministicFakeEmbedding(size=8), path=path, embedding_model_id="acme/v2")
    assert err.value.field == "dense.model_id" and "acme/v2" in str(err.value)
    assert "DeterministicFakeEmbedding" in str(err.value)
    # the fix in a LangChain user's terms (issue 27): an embedding, never structaware's DenseEncoder
    assert "pass the embedding" in err.value.message and "DenseEncoder" not in err.value.message
    # same model id, another dimension: refused before anything is written
    same_id = StructureAwareVectorStore(DeterministicFakeEmbedding(size=12), path=path)
    with pytest.raises(StoreError) as err:
        same_id.add_documents(_docs()[:1])
    assert "12" in str(err.value)
    assert same_id.index.store.count() == 3  # nothing written, nothing lost
    same_id.close()


@pytest.mark.integration
def test_units_ingested_by_structaware_are_read_as_loader_documents(tmp_path: Path) -> None:
    """One index: units ingested with structaware's own encoders, read through the LangChain store
    opened with structaware's encoder (StructureIndex given), and the loader's documents added back
    keep their unit provenance (pages, element ids) in the payload."""
    from langchain_structaware import StructureAwareLoader
    from structaware_retrievers.index.structure_index import StructureIndex

    with StructureIndex(tmp_path / "i") as index:
        index.ingest([MINERU_EN])
        store = StructureAwareVectorStore(DeterministicFakeEmbedding(size=4), index=index)
        hit = store.similarity_search("What is the blood pressure target for adults 57-59 y?", k=1, mode="sparse")[0]
        assert hit.metadata["unit_type"] == "table_row" and hit.metadata["page"] == 3
        assert "Adults 57-59 y" in hit.page_content
        by_type = store.similarity_search("recommendation", k=50, mode="sparse", filter={"unit_type": "recommendation"})
        assert by_type and {d.metadata["unit_type"] for d in by_type} == {"recommendation"}

    docs = StructureAwareLoader(str(MINERU_EN)).load()[:5]
    emb = DeterministicFakeEmbedding(size=8)
    store = StructureAwareVectorStore.from_documents(docs, emb, path=tmp_path / "j")
    try:
        back = store.get_by_ids([docs[0].id])
        assert back == [docs[0]]
        rec = store.index.store.retrieve([docs[0].id])[0]
        assert rec.payload["unit_type"] == docs[0].metadata["unit_type"]
        assert rec.payload["element_ids"] == docs[0].metadata["element_ids"]
        assert rec.payload["pages"] == docs[0].metadata["pages"]
    finally:
        store.close()
