"""StructureAwareRetriever over a real StructureIndex (tmp folder, default offline encoders) built
from a real MinerU fixture: nodes with provenance, top-k, filters, async, query engine and tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.llms.mock import MockLLM
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.tools import RetrieverTool
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from structaware_retrievers.search.results import hit_unit

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = "mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"
QUESTION = "What is the blood pressure target for adults 57-59 y?"

# Ranked lists are compared in dense mode only. The table rows tie in BM25 (same tokens, same
# length), and Qdrant does not promise an order among equal scores, so below rank 1 sparse and
# fused (RRF) lists may differ between two identical queries. The 57-59 y row is first in dense
# and sparse alike, so hybrid top-1 is stable and is checked as such.


def fixture_path(rel: str, shared_rel: str | None = None) -> Path:
    """``tests/fixtures/<rel>`` (CC0 copies in the repo), else ``<repo>/../shared/fixtures/<shared_rel or rel>``."""
    for path in (REPO / "tests" / "fixtures" / rel, REPO.parent / "shared" / "fixtures" / (shared_rel or rel)):
        if path.exists():
            return path
    pytest.skip(f"fixture {rel} is in neither tests/fixtures nor ../shared/fixtures")


@pytest.fixture(scope="module")
def parsed():
    from structaware_readers.mineru import read_mineru

    return read_mineru(fixture_path(MINERU_EN))


@pytest.fixture(scope="module")
def index(en_index):
    return en_index  # the session's index of the English guideline (conftest), read only here


def F(key: str, value, op: FilterOperator = FilterOperator.EQ) -> MetadataFilter:
    return MetadataFilter(key=key, value=value, operator=op)


def test_nodes_carry_unit_and_provenance(index) -> None:
    from llama_index.core.base.base_retriever import BaseRetriever

    from llama_index.retrievers.structaware import StructureAwareRetriever

    retriever = StructureAwareRetriever(index, similarity_top_k=5, mode="dense")
    assert isinstance(retriever, BaseRetriever)
    results = retriever.retrieve(QUESTION)
    assert len(results) == 5 and all(isinstance(r, NodeWithScore) for r in results)
    hits = index.query(QUESTION, k=5, mode="dense")
    assert [r.node.node_id for r in results] == [h.unit.unit_id for h in hits]
    assert [r.score for r in results] == pytest.approx([h.score for h in hits])
    (hybrid_top,) = StructureAwareRetriever(index, similarity_top_k=1).retrieve(QUESTION)
    assert hybrid_top.node.node_id == index.query(QUESTION, k=1)[0].unit.unit_id
    assert "57-59" in hybrid_top.node.text  # BM25 reads the numbers; dense alone ranks the table's rows
    # the unit a hit hands over (hit_unit): its best row, with the other matched rows of its table when
    # the dense ranking put several first (pages: every row's, sorted; which rows come first differs between
    # machines: the table's rows differ only by their numbers)
    top, unit = results[0].node, hit_unit(hits[0])
    assert top.metadata["unit_type"] == "table_row" and "Adults" in top.text
    assert top.metadata["page_label"] == str(unit.pages[0])
    assert top.metadata["element_ids"].split(",") == unit.element_ids
    assert json.loads(top.metadata["bboxes"])[0] == list(unit.bboxes[0])
    assert top.ref_doc_id == unit.doc_id


def test_similarity_top_k_and_modes(index) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever

    # every hit kept (min_score=0): the modes rank the same units as the index
    assert len(StructureAwareRetriever(index, min_score=0).retrieve(QUESTION)) == 2  # LlamaIndex's default
    dense = StructureAwareRetriever(index, similarity_top_k=3, mode="dense", min_score=0).retrieve(QUESTION)
    assert [r.node.node_id for r in dense] == [
        h.unit.unit_id for h in index.query(QUESTION, k=3, mode="dense", min_score=0)
    ]
    sparse = StructureAwareRetriever(index, similarity_top_k=3, mode="sparse", min_score=0).retrieve(QUESTION)
    expected = index.query(QUESTION, k=3, mode="sparse", min_score=0)
    assert sparse[0].node.node_id == expected[0].unit.unit_id  # the row is the only exact BM25 match
    assert [r.score for r in sparse] == pytest.approx([h.score for h in expected])  # BM25 scores, not RRF
    assert sparse[0].score > 5 * sparse[1].score
    dbsf = StructureAwareRetriever(index, similarity_top_k=3, fusion="dbsf", min_score=0).retrieve(QUESTION)
    assert len(dbsf) == 3 and "57-59" in dbsf[0].node.text


def test_metadata_filters_map_to_search_filter(index, parsed) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever

    rows = StructureAwareRetriever(  # every hit kept: the filter is under test
        index, similarity_top_k=5, min_score=0, filters=MetadataFilters(filters=[F("unit_type", "table_row")])
    ).retrieve("hypertension diagnosis")
    assert len(rows) == 5 and {r.node.metadata["unit_type"] for r in rows} == {"table_row"}

    page_filter = MetadataFilters(filters=[F("page", 2, FilterOperator.GTE), F("page", 3, FilterOperator.LTE)])
    paged = StructureAwareRetriever(index, similarity_top_k=10, filters=page_filter).retrieve("blood pressure")
    assert paged
    for r in paged:
        pages = [int(p) for p in r.node.metadata["pages"].split(",")]
        assert any(2 <= p <= 3 for p in pages)

    either = MetadataFilters(
        filters=[F("unit_type", "recommendation"), F("unit_type", "section")], condition=FilterCondition.OR
    )
    mixed = StructureAwareRetriever(index, similarity_top_k=8, filters=either).retrieve("blood pressure")
    assert {r.node.metadata["unit_type"] for r in mixed} <= {"recommendation", "section"}

    other_doc = MetadataFilters(filters=[F("doc_id", ["0000000000000000"], FilterOperator.IN)])
    assert StructureAwareRetriever(index, filters=other_doc).retrieve(QUESTION) == []
    same_doc = MetadataFilters(filters=[F("doc_id", parsed.doc_id)])
    assert len(StructureAwareRetriever(index, filters=same_doc).retrieve(QUESTION)) == 2


def test_metadata_filters_read_into_the_filter_language() -> None:
    from llama_index.retrievers.structaware import to_filter_group
    from structaware_retrievers.query.filters import FilterGroup, KeyFilter

    got = to_filter_group(
        MetadataFilters(
            filters=[
                F("doc_id", ["a", "b"], FilterOperator.IN),
                MetadataFilters(filters=[F("doc_id", "b"), F("grade", "A")], condition=FilterCondition.OR),
                F("page_label", "3", FilterOperator.GT),
            ]
        )
    )
    assert got == FilterGroup(
        "and",
        (
            KeyFilter("doc_id", "in", ["a", "b"]),
            FilterGroup("or", (KeyFilter("doc_id", "==", "b"), KeyFilter("grade", "==", "A"))),
            KeyFilter("page_label", ">", "3"),
        ),
    )
    assert to_filter_group(None) is None and to_filter_group(MetadataFilters(filters=[])) is None


@pytest.mark.parametrize(
    ("filters", "error", "field", "words"),
    [
        (
            MetadataFilters(filters=[F("context", "x", FilterOperator.TEXT_MATCH)]),
            "UnsupportedFilterError",
            "filter.context",
            "'text_match'",
        ),
        (
            MetadataFilters(filters=[F("unit_typ", "section")]),
            "UnknownFilterError",
            "filter.unit_typ",
            "did you mean 'unit_type'",
        ),
        (MetadataFilters(filters=[F("page", "three")]), "MalformedInputError", "filter.page", "expected a number"),
        (
            MetadataFilters(filters=[F("page", [], FilterOperator.IN)]),
            "MalformedInputError",
            "filter.page",
            "empty list",
        ),
        (
            MetadataFilters(filters=[F("grade", "A", FilterOperator.GT)]),
            "MalformedInputError",
            "filter.grade",
            "needs a number",
        ),
    ],
)
def test_unsupported_filters_raise_clear_errors(index, filters, error, field, words) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever
    from structaware_readers.errors import MalformedInputError

    with pytest.raises(MalformedInputError) as err:  # at construction, before any search
        StructureAwareRetriever(index, filters=filters)
    assert type(err.value).__name__ == error and err.value.field == field and words in str(err.value)


def test_filters_the_old_retriever_refused(index, parsed) -> None:
    """nin, != , or across keys and is_empty work here as in the vector store (issue 27)."""
    from llama_index.retrievers.structaware import StructureAwareRetriever

    def units(filters: MetadataFilters) -> list:
        return StructureAwareRetriever(
            index, similarity_top_k=200, group_size=1, min_score=0, filters=filters
        ).retrieve(QUESTION)

    no_rows = units(MetadataFilters(filters=[F("unit_type", ["table_row", "section"], FilterOperator.NIN)]))
    assert no_rows and {n.node.metadata["unit_type"] for n in no_rows} <= {"recommendation", "figure"}
    either = units(MetadataFilters(filters=[F("unit_type", "figure"), F("page", 4)], condition=FilterCondition.OR))
    assert {n.node.metadata["unit_type"] for n in either if n.node.metadata["page"] != 4} == {"figure"}
    assert any(n.node.metadata["page"] == 4 for n in either)
    ungraded = units(MetadataFilters(filters=[F("grade", None, FilterOperator.IS_EMPTY)]))
    assert ungraded and all("grade" not in n.node.metadata for n in ungraded)
    assert units(MetadataFilters(filters=[F("file_name", "no-such-file.pdf")])) == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"similarity_top_k": 0}, "similarity_top_k"), ({"mode": "keyword"}, "mode"), ({"fusion": "max"}, "fusion")],
)
def test_bad_arguments_raise_typed_errors(index, kwargs, field) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever
    from structaware_readers.errors import MalformedInputError

    with pytest.raises(MalformedInputError) as err:
        StructureAwareRetriever(index, **kwargs)
    assert err.value.field == field


async def test_async_matches_sync(index) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever

    dense = StructureAwareRetriever(index, similarity_top_k=4, mode="dense")
    got = await dense.aretrieve(QueryBundle(QUESTION))
    assert [r.node.node_id for r in got] == [r.node.node_id for r in dense.retrieve(QUESTION)]
    hybrid = StructureAwareRetriever(index, similarity_top_k=1)
    top = await hybrid.aretrieve(QUESTION)
    assert [r.node.node_id for r in top] == [r.node.node_id for r in hybrid.retrieve(QUESTION)]


def test_retriever_query_engine_and_tool(index) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever

    retriever = StructureAwareRetriever(index, similarity_top_k=3)  # hybrid, the default
    engine = RetrieverQueryEngine.from_args(retriever, llm=MockLLM())
    response = engine.query(QUESTION)
    assert [n.node.node_id for n in response.source_nodes] == [r.node.node_id for r in retriever.retrieve(QUESTION)]

    tool = RetrieverTool.from_defaults(retriever=retriever, name="guideline_search", description="Search the guideline")
    output = tool.call(QUESTION)
    top = response.source_nodes[0].node
    assert f"page_label: {top.metadata['page_label']}" in output.content
    assert "57-59" in output.content and "context: Table" in output.content
    assert "bboxes" not in output.content and "element_ids" not in output.content
    assert [n.node.node_id for n in output.raw_output] == [n.node.node_id for n in response.source_nodes]


def test_from_path_opens_a_stored_index(tmp_path: Path, parsed) -> None:
    from llama_index.retrievers.structaware import StructureAwareRetriever
    from structaware_readers.units import build_units
    from structaware_retrievers.index.structure_index import StructureIndex

    folder = tmp_path / "idx"
    built = StructureIndex(folder)
    built.add_document(parsed, build_units(parsed))
    built.close()
    retriever = StructureAwareRetriever.from_path(folder, similarity_top_k=1)
    try:
        (hit,) = retriever.retrieve(QUESTION)
        assert "57-59" in hit.node.text
    finally:
        retriever.index.close()
