"""Unit tests of ``llama-index-postprocessor-structaware``: the second stage over nodes of a small
index embedded by a letter-count model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from llama_index.postprocessor.structaware import StructureAwareRerank
from llama_index.retrievers.structaware import StructureAwareRetriever
from structaware_readers.errors import MalformedInputError

# A two-section guideline page in MinerU's content_list form (written for these tests).
GUIDE = [
    {
        "type": "text",
        "text": "2 Managing type 2 diabetes",
        "text_level": 1,
        "bbox": [100, 80, 560, 104],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "2.1 Glucose-lowering treatment",
        "text_level": 2,
        "bbox": [100, 120, 470, 140],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Recommendation 4: Offer metformin as first-line therapy to adults with type 2 diabetes and normal "
        "kidney function (strong recommendation, moderate-quality evidence).",
        "bbox": [100, 150, 820, 190],
        "page_idx": 0,
    },
    {"type": "text", "text": "Table 3. HbA1c targets", "text_level": 2, "bbox": [100, 210, 400, 228], "page_idx": 0},
    {
        "type": "table",
        "table_caption": [],
        "table_footnote": [],
        "table_body": "<table><tr><td>Population</td><td>HbA1c target</td><td>Grade</td></tr>"
        "<tr><td>Adults under 65</td><td>&lt; 7.0%</td><td>A</td></tr>"
        "<tr><td>Adults 65 and older</td><td>&lt; 8.0%</td><td>B</td></tr></table>",
        "bbox": [300, 236, 700, 300],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Review the treatment plan every three to six months.",
        "bbox": [100, 310, 600, 328],
        "page_idx": 0,
    },
]


def write_guide(folder: Path) -> Path:
    """A MinerU output folder holding ``GUIDE``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "content_list.json").write_text(json.dumps(GUIDE), encoding="utf-8")
    return folder


class LetterModel:
    """A dense model for plumbing tests: letter counts, unit length (not a ranking model)."""

    model_name = "letters"
    model_id = "letters@1"
    dim = 26
    languages = frozenset({"en"})

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(26, dtype=np.float32)
        for c in text.lower():
            if "a" <= c <= "z":
                v[ord(c) - 97] += 1
        return v / (np.linalg.norm(v) or 1.0)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.vstack([self._vec(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


def letter_index(folder: Path):
    """An open ``StructureIndex`` in ``folder`` of ``GUIDE``, embedded by :class:`LetterModel` (real BM25)."""
    from qdrant_client import QdrantClient

    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.index.structure_index import StructureIndex

    cache = EmbeddingCache(folder / "embeddings.sqlite")
    ix = StructureIndex(
        folder / "ix",
        client=QdrantClient(":memory:"),  # qdrant-client in memory: no shard files to write
        dense=DenseEncoder(model=LetterModel(), cache=cache),
        sparse=SparseEncoder(cache=cache),
    )
    doc = load_document(write_guide(folder / "guide"))
    ix.add_document(doc, build_units(doc))
    return ix


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
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
