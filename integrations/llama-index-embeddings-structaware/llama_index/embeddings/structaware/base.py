"""``StructureAwareEmbedding``: structaware's dense encoder as a LlamaIndex embedding model.

It lets ``VectorStoreIndex``/``IngestionPipeline`` embed offline with the same model the
structaware index uses (default: all-MiniLM-L6-v2 int8 ONNX, 384 dimensions, unit length, English;
see ``structaware_retrievers.encoders.DenseEncoder``), so a LlamaIndex pipeline and the
structaware index can be compared on equal terms. Texts are whatever LlamaIndex passes
(``node.get_content(MetadataMode.EMBED)``); document texts go through the encoder's
content-hash cache when one is given, queries do not.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding, Embedding
from llama_index.core.bridge.pydantic import Field, PrivateAttr


class StructureAwareEmbedding(BaseEmbedding):
    """LlamaIndex ``BaseEmbedding`` over ``structaware_retrievers.encoders.DenseEncoder``.

    Args:
        model_name: a fastembed model name; ``None`` = the bundled default
            (``$STRUCTAWARE_DENSE_MODEL`` if set).
        model_path: a local ONNX model folder instead (see ``DenseEncoder``).
        embed_batch_size: texts per call, as for every LlamaIndex embedding.
        encoder: an existing ``DenseEncoder`` to share (e.g. ``StructureIndex``'s); overrides the
            two fields above.

    Raises:
        InputNotFoundError, ModelUnavailableError: from ``DenseEncoder`` when the model is missing.
        MalformedInputError: an empty query.
    """

    model_path: str | None = Field(default=None, description="local ONNX model folder")
    _encoder: Any = PrivateAttr()

    def __init__(
        self,
        model_name: str | None = None,
        model_path: str | None = None,
        *,
        encoder: Any | None = None,
        **kwargs: Any,
    ) -> None:
        if encoder is None:
            from structaware_retrievers.encoders import DenseEncoder

            encoder = DenseEncoder(model_name=model_name, model_path=model_path)
        super().__init__(model_name=encoder.model_name, model_path=str(model_path) if model_path else None, **kwargs)
        self._encoder = encoder

    @classmethod
    def class_name(cls) -> str:
        return "StructureAwareEmbedding"

    @property
    def encoder(self) -> Any:
        """The ``DenseEncoder`` behind this model (a structaware vector store indexes with it directly)."""
        return self._encoder

    @property
    def dim(self) -> int:
        """Output dimension."""
        return int(self._encoder.dim)

    def _get_query_embedding(self, query: str) -> Embedding:
        return self._encoder.embed_query(query)

    async def _aget_query_embedding(self, query: str) -> Embedding:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> Embedding:
        return self._encoder.embed_documents([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[Embedding]:
        return self._encoder.embed_documents(texts)
