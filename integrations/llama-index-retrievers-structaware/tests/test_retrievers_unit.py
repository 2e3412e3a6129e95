"""Unit tests of ``llama-index-retrievers-structaware``: the retriever's plumbing over a small index
embedded by a letter-count model (ranking itself is tested on the real model in the core suite)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

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
