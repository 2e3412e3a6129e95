"""The LangChain vector store's search types as LangChain users reach for them (issue 27):
``as_retriever(search_type="mmr")``, ``"similarity_score_threshold"``,
``similarity_search_with_relevance_scores``, ``max_marginal_relevance_search``, on both engines
(Qdrant Edge in a folder, qdrant-client in memory), with structaware's own offline embeddings."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document

from structaware_readers.errors import MalformedInputError, StoreError

# three near-copies about blood pressure, then other topics: MMR must not return the copies together
TEXTS = [
    "Measure blood pressure in both arms at the first visit.",
    "At the first visit, measure the blood pressure in both arms.",
    "Blood pressure should be measured in both arms at the first visit.",
    "Offer ambulatory blood pressure monitoring to confirm hypertension.",
    "Statins lower LDL cholesterol in adults with diabetes.",
    "Hand hygiene prevents infections in outpatient clinics.",
]


@pytest.fixture(params=[pytest.param("edge", marks=pytest.mark.integration), "client"])  # edge: shard files
def store(request: pytest.FixtureRequest, tmp_path: Path):
    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.vectorstores import StructureAwareVectorStore

    if request.param == "edge":
        kwargs = {"path": tmp_path / "ix"}
    else:
        from qdrant_client import QdrantClient

        kwargs = {"client": QdrantClient(":memory:"), "path": tmp_path / "cache"}
    docs = [
        Document(page_content=t, metadata={"n": i, "topic": "bp" if i < 4 else "other"}) for i, t in enumerate(TEXTS)
    ]
    vs = StructureAwareVectorStore.from_documents(
        docs, StructureAwareEmbeddings(), ids=[f"d{i}" for i in range(len(docs))], **kwargs
    )
    yield vs
    vs.close()


def test_mmr_as_langchain_users_write_it(store) -> None:
    question = "measure blood pressure in both arms"
    plain = store.as_retriever(search_kwargs={"k": 3}).invoke(question)
    assert {d.id for d in plain} == {"d0", "d1", "d2"}  # the three copies: what MMR is for
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 3, "fetch_k": 6, "lambda_mult": 0.3})
    mmr = retriever.invoke(question)
    assert len(mmr) == 3 and mmr[0].id in {"d0", "d1", "d2"}
    assert len({"d0", "d1", "d2"} & {d.id for d in mmr}) == 1  # one copy, then other evidence
    # lambda_mult=1: relevance only, the dense order
    dense = store.similarity_search(question, k=3, mode="dense")
    assert [d.id for d in store.max_marginal_relevance_search(question, k=3, fetch_k=6, lambda_mult=1.0)] == [
        d.id for d in dense
    ]
    # a filter applies before MMR picks
    other = store.max_marginal_relevance_search(question, k=2, fetch_k=6, filter={"topic": "other"})
    assert {d.id for d in other} == {"d4", "d5"}
    with pytest.raises(StoreError) as err:
        store.max_marginal_relevance_search(question, lambda_mult=1.5)
    assert err.value.field == "lambda_mult"


async def test_mmr_async(store) -> None:
    question = "measure blood pressure in both arms"
    got = await store.amax_marginal_relevance_search(question, k=3, fetch_k=6, lambda_mult=0.3)
    assert [d.id for d in got] == [
        d.id for d in store.max_marginal_relevance_search(question, k=3, fetch_k=6, lambda_mult=0.3)
    ]


def test_score_threshold_and_relevance_scores(store) -> None:
    question = "measure blood pressure in both arms"
    scored = store.similarity_search_with_relevance_scores(question, k=6)
    assert len(scored) == 6
    rel = {d.id: s for d, s in scored}
    assert all(0.0 <= s <= 1.0 for s in rel.values())
    assert min(rel["d0"], rel["d1"], rel["d2"]) > 0.9 and rel["d5"] < 0.5  # the answer vs hand hygiene
    retriever = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"score_threshold": 0.5, "k": 6}
    )
    kept = retriever.invoke(question)
    assert [d.id for d in kept] == [d.id for d, s in scored if s >= 0.5]
    assert 0 < len(kept) < 6
    # calibrated, not normalised per question: an off-topic question's best document stays low
    off = store.similarity_search_with_relevance_scores("football world cup results 1998", k=3)
    assert off and max(s for _, s in off) < 0.5
    assert retriever.invoke("football world cup results 1998") == []
    # a document's relevance does not depend on how the search ranked it
    dense = store.similarity_search_with_relevance_scores(question, k=3, mode="dense")
    assert all(s == pytest.approx(rel[d.id]) for d, s in dense)


def test_sparse_search_of_stop_words_says_so(store) -> None:
    with pytest.raises(MalformedInputError, match="no BM25 term"):
        store.similarity_search("the of and", k=2, mode="sparse")
    assert store.similarity_search("the of and", k=2)  # hybrid: the dense search answers
