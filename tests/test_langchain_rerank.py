"""The second stage in LangChain: ``StructureAwareRetriever(rerank=...)`` (and per call),
``StructureAwareVectorStore`` (``rerank`` per store and in ``search_kwargs``) and the document compressor
``StructureAwareRerank``, on a real index of the public-domain CDC outpatient infection-prevention guide
(``tests/fixtures/mineru/SOURCES.md``) with the real default encoders and the embedded Qdrant engine."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import BaseDocumentCompressor, Document

from conftest import SHARPS
from langchain_structaware import StructureAwareRerank, StructureAwareRetriever, StructureAwareVectorStore
from langchain_structaware.embeddings import StructureAwareEmbeddings
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.search.rerank import Rerank

pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.fixture
def index(cdc_index):  # type: ignore[no-untyped-def]
    return cdc_index


def _ids(docs: list[Document]) -> list[str]:
    return [d.id for d in docs]


def test_the_retriever_passes_rerank_through(index) -> None:
    from langchain_structaware.retriever import hits_to_documents

    off = StructureAwareRetriever(index=index, k=5, rerank=False, min_score=0).invoke(SHARPS)
    on = StructureAwareRetriever(index=index, k=5, min_score=0).invoke(SHARPS)  # None: the product default
    assert _ids(off) == _ids(hits_to_documents(index.query(SHARPS, k=5, rerank=False, min_score=0)))
    assert _ids(on) == _ids(hits_to_documents(index.query(SHARPS, k=5, min_score=0)))
    assert _ids(on) != _ids(off) and "sharps" not in off[0].page_content.lower()  # trap: not the fused order
    # per call, over the retriever's own setting
    assert _ids(StructureAwareRetriever(index=index, k=5, min_score=0).invoke(SHARPS, rerank=False)) == _ids(off)
    wide = StructureAwareRetriever(index=index, k=5, rerank=False, min_score=0).invoke(SHARPS, rerank=Rerank(pool=30))
    assert _ids(wide) == _ids(hits_to_documents(index.query(SHARPS, k=5, rerank=Rerank(pool=30), min_score=0)))
    with pytest.raises(MalformedInputError, match="rerank"):
        StructureAwareRetriever(index=index, rerank="yes")


def test_the_compressor_orders_documents_as_the_index_does(index) -> None:
    docs = StructureAwareRetriever(index=index, k=6, rerank=False, min_score=0).invoke(SHARPS)
    expected = index.rerank(SHARPS, _ids(docs))
    compressor = StructureAwareRerank(index=index)
    assert isinstance(compressor, BaseDocumentCompressor)
    out = compressor.compress_documents(list(reversed(docs)), SHARPS)
    # the index's order whatever order the documents come in; the stage score where LangChain's
    # rerankers put theirs, the search's score kept
    assert [(d.id, d.metadata["relevance_score"]) for d in out] == expected
    assert out[0].id != docs[0].id and "sharps" in out[0].page_content.lower()  # trap: the fused first
    by_id = {d.id: d for d in docs}
    assert all(d.metadata["score"] == by_id[d.id].metadata["score"] for d in out)
    assert all("relevance_score" not in d.metadata for d in docs)  # copies: the inputs are not changed
    top = StructureAwareRerank(index=index, top_n=2).compress_documents(docs, SHARPS)
    assert [(d.id, d.metadata["relevance_score"]) for d in top] == expected[:2]
    again = asyncio.run(StructureAwareRerank(index=index, top_n=3).acompress_documents(docs, SHARPS))
    assert _ids(list(again)) == [i for i, _ in expected[:3]]
    assert compressor.compress_documents([], SHARPS) == []


def test_a_document_of_no_unit_of_the_index_raises_naming_it(index) -> None:
    docs = StructureAwareRetriever(index=index, k=3, rerank=False, min_score=0).invoke(SHARPS)
    stranger = Document(id="chunk-from-elsewhere", page_content="Dispose of sharps in a container.")
    with pytest.raises(MalformedInputError, match="chunk-from-elsewhere") as err:
        StructureAwareRerank(index=index).compress_documents([*docs, stranger], SHARPS)
    assert err.value.field == "document"
    with pytest.raises(MalformedInputError, match="no id"):
        StructureAwareRerank(index=index).compress_documents([Document(page_content="no id at all")], SHARPS)
    # a document another store gave its own id is its unit by metadata["unit_id"] (as the loader writes it)
    alias = Document(id="other-store-id", page_content=docs[1].page_content, metadata=dict(docs[1].metadata))
    out = StructureAwareRerank(index=index).compress_documents([docs[0], alias, docs[2]], SHARPS)
    assert [d.metadata["relevance_score"] for d in out] == [s for _, s in index.rerank(SHARPS, _ids(docs))]
    assert "other-store-id" in _ids(out)
    for bad in ({"top_n": 0}, {"rerank": False}):
        with pytest.raises(MalformedInputError, match=next(iter(bad))):
            StructureAwareRerank(index=index, **bad)


def test_the_vector_store_reranks_its_first_hits_unless_told_not_to(index) -> None:
    store = StructureAwareVectorStore(StructureAwareEmbeddings(encoder=index.dense), index=index)
    off = store.similarity_search_with_score(SHARPS, k=8, rerank=False)
    on = store.similarity_search_with_score(SHARPS, k=8)
    off_ids, on_ids = [d.id for d, _ in off], [d.id for d, _ in on]
    # the first 5 (Rerank.pool) re-ordered as the index orders them, the rest in the fused order
    assert on_ids[:5] == [i for i, _ in index.rerank(SHARPS, off_ids[:5])] != off_ids[:5]
    assert on_ids[5:] == off_ids[5:]
    assert {d.id: s for d, s in on} == {d.id: s for d, s in off}  # each document keeps its fused score
    assert _ids(store.as_retriever(search_kwargs={"k": 8, "rerank": False}).invoke(SHARPS)) == off_ids
    assert (
        _ids(StructureAwareVectorStore(store.embeddings, index=index, rerank=False).similarity_search(SHARPS, k=8))
        == off_ids
    )
    # relevance-scored searches (a score threshold) keep the order of their scores unless asked
    scored = store.similarity_search_with_relevance_scores(SHARPS, k=8)
    # in the fused order, each with its calibrated relevance in [0, 1] (not sorted: not the order's score)
    assert [d.id for d, _ in scored] == off_ids and all(0 <= s <= 1 for _, s in scored)
    assert [d.id for d, _ in store.similarity_search_with_relevance_scores(SHARPS, k=8, rerank=True)] == on_ids
    # trap: a dense-only search keeps the dense order by default
    dense = store.similarity_search(SHARPS, k=8, mode="dense")
    assert _ids(dense) == _ids(store.similarity_search(SHARPS, k=8, mode="dense", rerank=False))
