"""Unit tests of ``llama-index-embeddings-structaware``: structaware's dense encoder behind LlamaIndex's
embedding interface (on a letter-count model: the plumbing, not the model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from llama_index.embeddings.structaware import StructureAwareEmbedding
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache


def test_texts_and_queries_go_through_the_encoder(tmp_path: Path, letter_model) -> None:
    encoder = DenseEncoder(model=letter_model, cache=EmbeddingCache(tmp_path / "c.sqlite"))
    embed = StructureAwareEmbedding(encoder=encoder, embed_batch_size=2)
    assert embed.encoder is encoder and embed.dim == 26 and embed.model_name == "letters"
    assert embed.class_name() == "StructureAwareEmbedding"
    rows = embed.get_text_embedding_batch(["aaa", "bbb", "ab"])
    assert np.allclose(rows[0], [1.0] + [0.0] * 25) and rows[1][1] == pytest.approx(1.0)
    assert rows[2][0] == pytest.approx(rows[2][1]) and rows[2][2] == 0.0  # the trap: not a copy of row 0
    assert embed.get_query_embedding("ccc") == pytest.approx([0.0, 0.0, 1.0] + [0.0] * 23)
    assert encoder.computed == 3  # document texts went through the encoder's cache


async def test_the_async_query_path_gives_the_same_vector(tmp_path: Path, letter_model) -> None:
    embed = StructureAwareEmbedding(encoder=DenseEncoder(model=letter_model))
    assert await embed.aget_query_embedding("metformin") == pytest.approx(embed.get_query_embedding("metformin"))
