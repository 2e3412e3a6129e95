"""``StructureAwareRerank``: a LangChain ``BaseDocumentCompressor`` running structaware's second stage.

Gives the retriever's second stage (``StructureIndex.rerank``) to documents found another way, for
example in a ``ContextualCompressionRetriever`` over an ``EnsembleRetriever``. A document is a unit
of the index by ``Document.id`` or ``metadata["unit_id"]``. As LangChain's rerankers do, the stage
score goes to ``metadata["relevance_score"]`` of a copy (in [0, 1], relative to the best document:
an order, not a threshold); ``metadata["score"]`` keeps the search's score.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, Document
from pydantic import Field

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.search.rerank import resolve_rerank

#: The metadata key of the stage score (LangChain's rerankers' key).
RELEVANCE_KEY = "relevance_score"


class StructureAwareRerank(BaseDocumentCompressor):
    """Re-order documents by structaware's second stage, best first, each with its stage score in
    ``metadata["relevance_score"]``.

    Attributes:
        index: the ``structaware_retrievers.index.structure_index.StructureIndex`` holding the documents' units
            (``StructureAwareRetriever.index``, ``StructureAwareVectorStore.index``); see also
            :meth:`from_path`.
        top_n: keep the best ``top_n`` documents; ``None``: every document, re-ordered.
        rerank: ``True`` (the default options) or a ``structaware_retrievers.search.rerank.Rerank`` with
            other weights (its ``pool`` is not used: every document is re-ordered).

    Raises:
        MalformedInputError: at construction, ``top_n < 1`` or a ``rerank`` that is not ``True`` or a
            ``Rerank``; when compressing, an empty query or a document that is not a unit of the index
            (``field="document"``, the message naming its id): never dropped silently.
        IndexNotFoundError: the index does not exist or is empty.
    """

    index: Any
    top_n: int | None = None
    rerank: Any = Field(default=True)

    def __init__(self, **kwargs: Any) -> None:
        top_n = kwargs.get("top_n")
        if top_n is not None and (not isinstance(top_n, int) or top_n < 1):
            raise MalformedInputError(f"must be >= 1 or None, not {top_n!r}", field="top_n")
        if resolve_rerank(kwargs.get("rerank", True)) is None:
            raise MalformedInputError(f"must be True or a Rerank, got {kwargs.get('rerank')!r}", field="rerank")
        super().__init__(**kwargs)

    @classmethod
    def from_path(
        cls, path: str | Path, *, collection: str = "structaware", model_name: str | None = None, **kwargs: Any
    ) -> StructureAwareRerank:
        """Open the ``StructureIndex`` stored in folder ``path`` (built with ``model_name``, when not the
        default dense model) and re-order its documents.

        Raises:
            ModelMismatchError: the index was built with another dense model (the message names it).
        """
        from structaware_retrievers.index.structure_index import open_index_folder

        fix = "StructureAwareRerank.from_path(path, model_name={model!r}); or another path or collection"
        return cls(index=open_index_folder(path, collection=collection, model_name=model_name, fix=fix), **kwargs)

    def compress_documents(
        self, documents: Sequence[Document], query: str, callbacks: Callbacks | None = None
    ) -> Sequence[Document]:
        """The documents best first (at most ``top_n``), copies with ``metadata["relevance_score"]``."""
        from structaware_retrievers.index.record_rerank import rerank_candidates

        ids = [(d.id, d.metadata.get("unit_id")) for d in documents]
        order = rerank_candidates(self.index, query, ids, self.rerank, field="document")
        return [
            Document(
                id=documents[i].id,
                page_content=documents[i].page_content,
                metadata={**documents[i].metadata, RELEVANCE_KEY: score},
            )
            for i, score in order[: self.top_n]
        ]
