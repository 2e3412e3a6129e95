"""The second stage in LlamaIndex: ``StructureAwareRetriever(rerank=...)``, ``StructureAwareVectorStore``
(``rerank`` per store and per query) and the node postprocessor ``StructureAwareRerank``, on a real
index of the public-domain CDC outpatient infection-prevention guide (``tests/fixtures/mineru/SOURCES.md``)
with the real default encoders and the embedded Qdrant engine."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.vector_stores.types import VectorStoreQuery

from conftest import SHARPS
from llama_index.postprocessor.structaware import StructureAwareRerank
from llama_index.retrievers.structaware import StructureAwareRetriever
from llama_index.vector_stores.structaware import StructureAwareVectorStore
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.search.rerank import Rerank

pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.fixture
def index(cdc_index):  # type: ignore[no-untyped-def]
    return cdc_index


def _ids(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.node_id for n in nodes]


def test_the_retriever_passes_rerank_through(index) -> None:
    from llama_index.retrievers.structaware import hits_to_nodes

    off = StructureAwareRetriever(index, similarity_top_k=5, rerank=False, min_score=0).retrieve(SHARPS)
    on = StructureAwareRetriever(index, similarity_top_k=5, min_score=0).retrieve(SHARPS)  # None: the product default
    assert _ids(off) == _ids(hits_to_nodes(index.query(SHARPS, k=5, rerank=False, min_score=0)))
    assert _ids(on) == _ids(hits_to_nodes(index.query(SHARPS, k=5, min_score=0)))
    # trap: the default is not the fused order on this question
    assert _ids(on) != _ids(off) and "sharps" not in off[0].node.text.lower()
    wide = StructureAwareRetriever(index, similarity_top_k=5, rerank=Rerank(pool=30), min_score=0).retrieve(SHARPS)
    assert _ids(wide) == _ids(hits_to_nodes(index.query(SHARPS, k=5, rerank=Rerank(pool=30), min_score=0)))
    with pytest.raises(MalformedInputError, match="rerank"):
        StructureAwareRetriever(index, rerank="yes")


def test_the_postprocessor_orders_nodes_as_the_index_does(index) -> None:
    nodes = StructureAwareRetriever(index, similarity_top_k=6, rerank=False, min_score=0).retrieve(SHARPS)
    expected = index.rerank(SHARPS, _ids(nodes))
    out = StructureAwareRerank(index).postprocess_nodes(list(reversed(nodes)), query_str=SHARPS)
    # the index's order whatever order the nodes come in, each node's score the stage score
    assert [(n.node.node_id, n.score) for n in out] == expected
    assert out[0].node.node_id != nodes[0].node.node_id  # trap: the fused first is not the stage's first
    assert "sharps" in out[0].node.text.lower()
    top = StructureAwareRerank(index, top_n=2).postprocess_nodes(nodes, query_str=SHARPS)
    assert [(n.node.node_id, n.score) for n in top] == expected[:2]
    again = asyncio.run(StructureAwareRerank(index, top_n=3).apostprocess_nodes(nodes, query_str=SHARPS))
    assert _ids(again) == [i for i, _ in expected[:3]]


def test_a_node_of_no_unit_of_the_index_raises_naming_it(index) -> None:
    nodes = StructureAwareRetriever(index, similarity_top_k=3, rerank=False, min_score=0).retrieve(SHARPS)
    stranger = NodeWithScore(
        node=TextNode(id_="chunk-from-elsewhere", text="Dispose of sharps in a container."), score=0.5
    )
    with pytest.raises(MalformedInputError, match="chunk-from-elsewhere") as err:
        StructureAwareRerank(index).postprocess_nodes([*nodes, stranger], query_str=SHARPS)
    assert err.value.field == "node_id"
    # a node under another id that carries its unit id in its metadata is that unit
    unit_id = nodes[1].node.node_id
    alias = NodeWithScore(node=TextNode(id_="other-store-id", text=nodes[1].node.text, metadata={"unit_id": unit_id}))
    out = StructureAwareRerank(index).postprocess_nodes([nodes[0], alias, nodes[2]], query_str=SHARPS)
    expected = index.rerank(SHARPS, _ids(nodes))
    assert [n.score for n in out] == [s for _, s in expected]
    assert {n.node.node_id for n in out} == {nodes[0].node.node_id, "other-store-id", nodes[2].node.node_id}
    with pytest.raises(MalformedInputError, match="query"):
        StructureAwareRerank(index).postprocess_nodes(nodes)
    for bad in ({"top_n": 0}, {"rerank": False}):
        with pytest.raises(MalformedInputError, match=next(iter(bad))):
            StructureAwareRerank(index, **bad)


def test_the_vector_store_reranks_its_first_hits_unless_told_not_to(index) -> None:
    store = StructureAwareVectorStore(index=index)
    query = VectorStoreQuery(query_str=SHARPS, query_embedding=index.dense.embed_query(SHARPS), similarity_top_k=8)
    off = store.query(query, rerank=False)
    on = store.query(query)
    # the first 5 (Rerank.pool) re-ordered as the index orders them, the rest in the fused order
    assert on.ids[:5] == [i for i, _ in index.rerank(SHARPS, off.ids[:5])] != off.ids[:5]
    assert on.ids[5:] == off.ids[5:]
    by_id = dict(zip(off.ids, off.similarities, strict=True))
    assert on.similarities == [by_id[i] for i in on.ids]  # each node keeps its fused score
    assert StructureAwareVectorStore(index=index, rerank=False).query(query).ids == off.ids
    # trap: a dense-only query keeps the dense order by default
    dense = VectorStoreQuery(query_embedding=query.query_embedding, similarity_top_k=8)
    assert store.query(dense).ids == store.query(dense, rerank=False).ids
    # as LlamaIndex users reach it: VectorStoreIndex(...).as_retriever(vector_store_kwargs=...)
    from llama_index.core import VectorStoreIndex

    from llama_index.embeddings.structaware import StructureAwareEmbedding

    vindex = VectorStoreIndex.from_vector_store(store, embed_model=StructureAwareEmbedding(encoder=index.dense))
    assert _ids(vindex.as_retriever(similarity_top_k=8).retrieve(SHARPS)) == on.ids
    assert (
        _ids(vindex.as_retriever(similarity_top_k=8, vector_store_kwargs={"rerank": False}).retrieve(SHARPS)) == off.ids
    )
    # the postprocessor takes the store's nodes too
    out = StructureAwareRerank(store.client).postprocess_nodes(
        [NodeWithScore(node=n, score=s) for n, s in zip(off.nodes, off.similarities, strict=True)], query_str=SHARPS
    )
    assert _ids(out) == [i for i, _ in index.rerank(SHARPS, off.ids)]
