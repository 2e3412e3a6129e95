"""Unit tests of ``llama-index-retrievers-structaware``: the retriever's plumbing over a small index
embedded by a letter-count model (ranking itself is tested on the real model in the core suite)."""

from __future__ import annotations

import pytest
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

from llama_index.retrievers.structaware import StructureAwareRetriever
from structaware_readers.errors import MalformedInputError


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, letter_index):
    ix = letter_index(tmp_path_factory.mktemp("li-retriever"))
    yield ix
    ix.close()


def test_bm25_finds_the_row_and_the_nodes_carry_unit_metadata(index) -> None:
    retriever = StructureAwareRetriever(index, similarity_top_k=1, mode="sparse", min_score=0, group_size=1)
    (hit,) = retriever.retrieve("HbA1c target adults 65 and older")
    assert hit.node.metadata["unit_type"] == "table_row" and "< 8.0%" in hit.node.text
    assert hit.node.metadata["page"] == 1


def test_a_filter_keeps_only_its_unit_type(index) -> None:
    only_recs = MetadataFilters(filters=[MetadataFilter(key="unit_type", value="recommendation")])
    retriever = StructureAwareRetriever(index, similarity_top_k=4, min_score=0, filters=only_recs)
    hits = retriever.retrieve("HbA1c target adults 65 and older")  # the words of a row, the filter a recommendation
    assert [h.node.metadata["unit_type"] for h in hits] == ["recommendation"]


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"similarity_top_k": 0}, "similarity_top_k"), ({"mode": "vector"}, "mode")]
)
def test_bad_arguments_are_named(index, kwargs: dict, field: str) -> None:
    with pytest.raises(MalformedInputError, match=field):
        StructureAwareRetriever(index, **kwargs)
