"""Unit tests of ``langchain-structaware``: the loader, the vector store on LangChain's
``DeterministicFakeEmbedding``, the retriever and the compressor on a small index embedded by a
letter-count model (ranking is tested on the real model in the core suite)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from qdrant_client import QdrantClient

from langchain_structaware import (
    METADATA_KEYS,
    StructureAwareEmbeddings,
    StructureAwareLoader,
    StructureAwareRerank,
    StructureAwareRetriever,
    StructureAwareVectorStore,
    document_to_unit,
)
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders import DenseEncoder

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
    ix = letter_index(tmp_path_factory.mktemp("lc"))
    yield ix
    ix.close()


def test_the_loader_gives_one_document_per_unit_with_every_key(tmp_path: Path) -> None:
    docs = StructureAwareLoader(write_guide(tmp_path / "guide")).load()
    assert sorted(d.metadata["unit_type"] for d in docs) == ["recommendation", "section", "table_row", "table_row"]
    assert all(set(METADATA_KEYS) <= d.metadata.keys() and d.metadata["page"] == 1 for d in docs)
    row = next(d for d in docs if "65 and older" in d.page_content)
    assert document_to_unit(row).unit_id == row.id
    assert document_to_unit(Document(page_content="a note", metadata={})) is None


def test_the_vector_store_on_a_fake_embedding_filters(tmp_path: Path) -> None:
    store = StructureAwareVectorStore(
        DeterministicFakeEmbedding(size=16), path=tmp_path / "ix", client=QdrantClient(":memory:")
    )
    try:
        store.add_documents(
            [
                Document(page_content="Offer metformin as first-line therapy.", metadata={"kind": "rec"}, id="1"),
                Document(page_content="Metformin tablets are taken with meals.", metadata={"kind": "note"}, id="2"),
            ]
        )
        (hit,) = store.similarity_search("metformin", k=2, filter={"kind": "note"})
        assert hit.id == "2"  # the trap: document 1 matches the word but not the filter
    finally:
        store.close()


def test_the_retriever_and_the_compressor(index) -> None:
    retriever = StructureAwareRetriever(index=index, k=1, mode="sparse", min_score=0, group_size=1)
    (row,) = retriever.invoke("HbA1c target adults 65 and older")
    assert row.metadata["unit_type"] == "table_row" and "< 8.0%" in row.page_content
    docs = StructureAwareRetriever(index=index, k=4, min_score=0, group_size=1, rerank=False).invoke("metformin")
    rerank = StructureAwareRerank(index=index, top_n=1)
    (best,) = rerank.compress_documents(list(reversed(docs)), "first-line therapy with metformin")
    assert best.metadata["unit_type"] == "recommendation" and "relevance_score" in best.metadata
    with pytest.raises(MalformedInputError, match="filter"):
        StructureAwareRetriever(index=index, filter={"page": {"$regex": "1"}})


def test_embeddings_wrap_the_dense_encoder() -> None:
    embed = StructureAwareEmbeddings(encoder=DenseEncoder(model=LetterModel()))
    assert embed.embed_query("aaa") == pytest.approx([1.0] + [0.0] * 25)
    assert len(embed.embed_documents(["abc", "xyz"])) == 2
