"""``StructureAwareEmbeddings``: structaware's dense encoder as a LangChain ``Embeddings``.

Offline (default: the bundled all-MiniLM-L6-v2 int8 ONNX, 384 dimensions, unit length, English; see
``structaware_retrievers.encoders.DenseEncoder``). Given to :class:`StructureAwareVectorStore`, the
store indexes with this encoder directly, so the index is the one ``structaware query`` reads.
"""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings


class StructureAwareEmbeddings(Embeddings):
    """LangChain ``Embeddings`` over ``DenseEncoder``.

    Args:
        model_name: a fastembed model name; ``None`` = the bundled default (``$STRUCTAWARE_DENSE_MODEL`` if set).
        model_path: a local ONNX model folder instead.
        encoder: an existing ``DenseEncoder`` (overrides the two above).

    Raises:
        InputNotFoundError, ModelUnavailableError: from ``DenseEncoder`` when the model is missing.
    """

    def __init__(self, model_name: str | None = None, model_path: str | None = None, *, encoder: Any = None) -> None:
        if encoder is None:
            from structaware_retrievers.encoders import DenseEncoder

            encoder = DenseEncoder(model_name=model_name, model_path=model_path)
        self.encoder = encoder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encoder.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.encoder.embed_query(text)
