"""Unit tests of ``llama-index-postprocessor-structaware``: the second stage over nodes of a small
index embedded by a letter-count model."""

from __future__ import annotations

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from llama_index.postprocessor.structaware import StructureAwareRerank
from llama_index.retrievers.structaware import StructureAwareRetriever
from structaware_readers.errors import MalformedInputError


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, letter_index):
    ix = letter_index(tmp_path_factory.mktemp("li-rerank"))
    yield ix
    ix.close()


def test_nodes_are_reordered_and_cut_to_top_n(index) -> None:
    retriever = StructureAwareRetriever(index, similarity_top_k=4, min_score=0, group_size=1, rerank=False)
    nodes = retriever.retrieve("metformin")
    assert len(nodes) >= 2
    post = StructureAwareRerank(index, top_n=1, keep_retrieval_score=True)
    (best,) = post.postprocess_nodes(list(reversed(nodes)), query_str="first-line therapy with metformin")
    assert best.node.metadata["unit_type"] == "recommendation"
    assert "retrieval_score" in best.node.metadata and 0.0 <= best.score <= 1.0


def test_a_node_that_is_not_a_unit_is_named(index) -> None:
    stranger = NodeWithScore(node=TextNode(id_="not-a-unit", text="metformin"), score=1.0)
    with pytest.raises(MalformedInputError, match="not-a-unit"):
        StructureAwareRerank(index).postprocess_nodes([stranger], query_str="metformin")


def test_top_n_below_one_is_refused(index) -> None:
    with pytest.raises(MalformedInputError, match="top_n"):
        StructureAwareRerank(index, top_n=0)
