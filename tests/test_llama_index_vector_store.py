"""LlamaIndex vector store over a structaware index, modelled on LlamaIndex's own vector store tests
(class check, add/get/delete/clear, ref_doc_id deletes, embeddings returned, typed ``in``/``nin``
filters, hybrid queries), on both engines (embedded Qdrant Edge and qdrant-client ``:memory:``),
plus the acceptance path: an ``IngestionPipeline`` with a non-default embedding model
(``MockEmbedding``) fills the store and ``VectorStoreIndex`` answers through it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import VectorStoreIndex
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.llms.mock import MockLLM
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
)
from qdrant_client import QdrantClient

from llama_index.vector_stores.structaware import StructureAwareVectorStore
from structaware_readers.errors import MalformedInputError, StoreError

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
IDS = [
    "11111111-1111-1111-1111-111111111111",
    "22222222-2222-2222-2222-222222222222",
    "33333333-3333-3333-3333-333333333333",
]
DIM = 4


def _nodes() -> list[TextNode]:
    texts = ["hello world", "goodbye sun", "quiet moon rises"]
    keys = [1, 2, "3"]  # the third is a string: an int filter must not match it
    refs = ["test-0", "test-0", "test-1"]
    return [
        TextNode(
            id_=i,
            text=t,
            metadata={"some_key": k, "tag": t.split()[0], "rank": n, **({"note": "x"} if n == 0 else {})},
            relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=r)},
            embedding=[float(n + 1), 1.0, 0.0, float(n)],
        )
        for n, (i, t, k, r) in enumerate(zip(IDS, texts, keys, refs, strict=True))
    ]


@pytest.fixture(params=[pytest.param("edge", marks=pytest.mark.integration), "client"])  # edge: shard files
def vector_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StructureAwareVectorStore]:
    emb = MockEmbedding(embed_dim=DIM)
    if request.param == "edge":
        store = StructureAwareVectorStore(tmp_path / "index", embed_model=emb)
    else:
        store = StructureAwareVectorStore(tmp_path / "cache", client=QdrantClient(":memory:"), embed_model=emb)
    store.add(_nodes())
    yield store
    store.close()


def _f(*filters: MetadataFilter | MetadataFilters, condition: str = "and") -> MetadataFilters:
    return MetadataFilters(filters=list(filters), condition=condition)


def test_class() -> None:
    names_of_base_classes = [b.__name__ for b in StructureAwareVectorStore.__mro__]
    assert BasePydanticVectorStore.__name__ in names_of_base_classes


def test_records_the_users_model_and_dimension(vector_store: StructureAwareVectorStore) -> None:
    config = vector_store.client.config()
    assert config["dense"]["model_id"] == "llama-index:MockEmbedding:unknown" == vector_store.model_id
    assert config["dense"]["dim"] == DIM == vector_store.client.store.dense_dim()


def test_delete_nodes_and_get_nodes(vector_store: StructureAwareVectorStore) -> None:
    vector_store.delete_nodes(node_ids=[IDS[0]])
    existing = vector_store.get_nodes(node_ids=IDS)
    assert [n.node_id for n in existing] == IDS[1:]


def test_get_nodes_come_back_as_added_with_embeddings(vector_store: StructureAwareVectorStore) -> None:
    got = vector_store.get_nodes(node_ids=[IDS[2], IDS[0]])
    assert [n.node_id for n in got] == [IDS[2], IDS[0]]
    original = {n.node_id: n for n in _nodes()}
    for node in got:
        assert node.text == original[node.node_id].text
        assert node.metadata == original[node.node_id].metadata
        assert node.ref_doc_id == original[node.node_id].ref_doc_id
        vec = original[node.node_id].embedding
        norm = sum(x * x for x in vec) ** 0.5  # cosine collection: Qdrant stores unit-length vectors
        assert node.embedding == pytest.approx([x / norm for x in vec], abs=1e-6)


def test_delete_by_ref_doc_id_and_clear(vector_store: StructureAwareVectorStore) -> None:
    vector_store.delete("test-0")
    assert [n.node_id for n in vector_store.get_nodes()] == [IDS[2]]
    vector_store.clear()
    assert vector_store.get_nodes() == []
    q = VectorStoreQuery(query_embedding=[1.0] * DIM, query_str="moon", similarity_top_k=3)
    assert vector_store.query(q).nodes == []


async def test_async_delete_get_and_query(vector_store: StructureAwareVectorStore) -> None:
    await vector_store.adelete_nodes(node_ids=[IDS[0]])
    assert len(await vector_store.aget_nodes(node_ids=IDS)) == 2
    res = await vector_store.aquery(VectorStoreQuery(query_embedding=[1.0] * DIM, query_str="moon", similarity_top_k=1))
    assert res.ids == [IDS[2]]
    await vector_store.aclear()
    assert await vector_store.aget_nodes() == []


def test_filters_with_types(vector_store: StructureAwareVectorStore) -> None:
    def count(flt: MetadataFilters) -> int:
        return len(vector_store.get_nodes(filters=flt))

    assert count(_f(MetadataFilter(key="some_key", value=[1, 2], operator=FilterOperator.IN))) == 2
    assert count(_f(MetadataFilter(key="some_key", value=[1, 2], operator=FilterOperator.NIN))) == 1
    assert count(_f(MetadataFilter(key="some_key", value=["3"], operator=FilterOperator.IN))) == 1
    assert count(_f(MetadataFilter(key="some_key", value=3, operator=FilterOperator.EQ))) == 0
    assert count(_f(MetadataFilter(key="some_key", value=1, operator=FilterOperator.NE))) == 2


def test_filters_is_empty_or_not_nested_and_ranges(vector_store: StructureAwareVectorStore) -> None:
    def ids(flt: MetadataFilters) -> list[str]:
        return sorted(n.node_id for n in vector_store.get_nodes(filters=flt))

    assert ids(_f(MetadataFilter(key="note", value=None, operator=FilterOperator.IS_EMPTY))) == IDS[1:]
    either = _f(MetadataFilter(key="tag", value="hello"), MetadataFilter(key="tag", value="quiet"), condition="or")
    assert ids(either) == [IDS[0], IDS[2]]
    assert ids(_f(MetadataFilter(key="tag", value="hello"), condition="not")) == IDS[1:]
    nested = _f(
        MetadataFilter(key="rank", value=0, operator=FilterOperator.GT),
        _f(MetadataFilter(key="tag", value="quiet"), condition="not"),
    )
    assert ids(nested) == [IDS[1]]
    assert ids(_f(MetadataFilter(key="rank", value=1, operator=FilterOperator.LTE))) == IDS[:2]
    with pytest.raises(MalformedInputError) as err:
        vector_store.get_nodes(filters=_f(MetadataFilter(key="tag", value="he", operator=FilterOperator.TEXT_MATCH)))
    assert err.value.field == "filter.tag" and "'text_match'" in err.value.message


def test_query_modes_and_filters(vector_store: StructureAwareVectorStore) -> None:
    # hybrid (default): the BM25 half finds "moon" although the dense vectors know nothing of it
    hybrid = vector_store.query(VectorStoreQuery(query_embedding=[1.0] * DIM, query_str="moon", similarity_top_k=1))
    assert hybrid.ids == [IDS[2]] and len(hybrid.similarities) == 1
    sparse = vector_store.query(
        VectorStoreQuery(query_str="goodbye", similarity_top_k=3, mode=VectorStoreQueryMode.SPARSE)
    )
    assert sparse.ids == [IDS[1]]
    # dense only (no query string): the nearest stored embedding first
    dense = vector_store.query(VectorStoreQuery(query_embedding=[3.0, 1.0, 0.0, 2.0], similarity_top_k=1))
    assert dense.ids == [IDS[2]]
    flt = _f(MetadataFilter(key="some_key", value=[1, 2], operator=FilterOperator.IN))
    filtered = vector_store.query(
        VectorStoreQuery(query_embedding=[1.0] * DIM, query_str="moon", similarity_top_k=3, filters=flt)
    )
    assert sorted(filtered.ids) == IDS[:2]
    by_doc = vector_store.query(VectorStoreQuery(query_embedding=[1.0] * DIM, similarity_top_k=3, doc_ids=["test-1"]))
    assert by_doc.ids == [IDS[2]]
    with pytest.raises(StoreError):  # a query embedding of another dimension
        vector_store.query(VectorStoreQuery(query_embedding=[1.0] * (DIM + 1), similarity_top_k=1))


@pytest.mark.integration
def test_another_model_is_refused_on_open(tmp_path: Path) -> None:
    path = tmp_path / "index"
    store = StructureAwareVectorStore(path, embed_model=MockEmbedding(embed_dim=DIM))
    store.add(_nodes())
    store.close()
    with pytest.raises(StoreError) as err:
        StructureAwareVectorStore(path, embed_model=MockEmbedding(embed_dim=DIM), model_id="acme/embed-v2")
    assert err.value.field == "dense.model_id"
    # the fix in a LlamaIndex user's terms (issue 27): an embed_model, never structaware's DenseEncoder
    assert "pass the embed_model" in err.value.message and "DenseEncoder" not in err.value.message
    from structaware_retrievers.index.structure_index import StructureIndex

    with pytest.raises(StoreError):  # structaware's own CLI/index with its default model: refused too
        StructureIndex(path)


@pytest.mark.integration
def test_ingestion_pipeline_with_mock_embedding_fills_the_store_and_vector_store_index_answers(tmp_path: Path) -> None:
    """The acceptance path: structaware's reader and node parser, a non-default embedding model."""
    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from llama_index.readers.structaware import MinerUReader

    embed_model = MockEmbedding(embed_dim=8)
    store = StructureAwareVectorStore(tmp_path / "index", embed_model=embed_model)
    docs = MinerUReader().load_data(MINERU_EN)
    pipeline = IngestionPipeline(transformations=[StructureAwareNodeParser(), embed_model], vector_store=store)
    nodes = pipeline.run(documents=docs)
    assert nodes and store.client.store.count() == len(nodes)
    assert store.client.store.dense_dim() == 8

    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)
    question = "What is the blood pressure target for adults 57-59 y?"
    # MockEmbedding gives every text the same vector, so the dense half cannot rank; hybrid
    # still answers through the store (fused in Qdrant), and the BM25 half alone ranks the row first
    hybrid = index.as_retriever(similarity_top_k=3).retrieve(question)
    assert len(hybrid) == 3 and all(h.node.metadata["doc_name"] for h in hybrid)
    assert hybrid[0].score >= hybrid[1].score >= hybrid[2].score
    hits = index.as_retriever(similarity_top_k=3, vector_store_query_mode="sparse").retrieve(question)
    top = hits[0].node
    assert top.metadata["unit_type"] == "table_row" and top.metadata["page"] == 3
    assert "Adults 57-59 y" in top.text
    # the point is the unit: provenance at the top level of the payload, as `structaware ingest` writes it
    payload = store.client.store.retrieve([top.node_id])[0].payload
    assert payload["pages"] == [3] and payload["element_ids"] == top.metadata["element_ids"].split(",")
    table_rows = index.as_retriever(
        similarity_top_k=100, filters=_f(MetadataFilter(key="unit_type", value="table_row"))
    ).retrieve("blood pressure")
    assert len(table_rows) == 60

    engine = index.as_query_engine(llm=MockLLM(), similarity_top_k=2, vector_store_query_mode="sparse")
    response = engine.query("Blood pressure target for adults 57-59 y?")
    assert response.source_nodes and response.source_nodes[0].node.node_id == top.node_id

    # re-running the pipeline replaces, never duplicates (deterministic unit ids)
    IngestionPipeline(transformations=[StructureAwareNodeParser(), embed_model], vector_store=store).run(documents=docs)
    assert store.client.store.count() == len(nodes)
    store.close()


@pytest.mark.integration
def test_units_ingested_by_structaware_are_read_through_vector_store_index(tmp_path: Path) -> None:
    """One index for the CLI and LlamaIndex: `structaware ingest` (default encoder), then the store
    with structaware's own embedding model answers through VectorStoreIndex."""
    from llama_index.embeddings.structaware import StructureAwareEmbedding
    from structaware_retrievers.index.structure_index import StructureIndex

    with StructureIndex(tmp_path / "index") as idx:
        idx.ingest([MINERU_EN])
    embed_model = StructureAwareEmbedding()
    store = StructureAwareVectorStore(tmp_path / "index", embed_model=embed_model)
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)
    top = index.as_retriever(similarity_top_k=1).retrieve("What is the blood pressure target for adults 57-59 y?")[0]
    assert top.node.metadata["unit_type"] == "table_row" and "Adults 57-59 y" in top.node.text
    assert top.node.metadata["page_label"] == "3"
    # a document added through LlamaIndex lands beside the ingested units and is found by both faces
    store.add([TextNode(text="Dietary sodium below 2 g per day lowers blood pressure.", metadata={"kind": "note"})])
    sodium = index.as_retriever(similarity_top_k=1).retrieve("dietary sodium")[0]
    assert sodium.node.metadata == {"kind": "note"}
    store.close()
    with StructureIndex(tmp_path / "index") as idx:
        hit = idx.query("dietary sodium", k=1, mode="sparse")[0]
        assert hit.unit.unit_type.value == "chunk" and hit.unit.text.startswith("Dietary sodium")
