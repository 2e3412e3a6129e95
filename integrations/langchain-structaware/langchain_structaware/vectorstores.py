"""``StructureAwareVectorStore``: a structaware index as a LangChain ``VectorStore``.

What a LangChain user already writes works with this store::

    store = StructureAwareVectorStore.from_documents(docs, embedding, path="my-index")
    retriever = store.as_retriever(search_kwargs={"k": 4})

* **Dense vector: your ``Embeddings``.** The index config records the model and its dimension;
  opening an index built with another model raises ``StoreError`` naming both. With
  :class:`~langchain_structaware.embeddings.StructureAwareEmbeddings`, ``structaware query`` reads
  the index too.
* **Sparse vector and fusion: structaware's.** Every point also gets structaware's BM25 vector;
  ``similarity_search`` fuses both inside Qdrant unless ``mode="dense"``/``"sparse"``.
* **Payload.** Each point is a unit payload (any other document becomes a ``unit_type="chunk"``
  unit) plus ``page_content`` and ``metadata``, so documents come back exactly as added.
* **Search types.** ``"similarity"``, ``"mmr"`` (Qdrant's MMR on your model's vectors) and
  ``"similarity_score_threshold"`` (on calibrated relevances in [0, 1], 0.5 the boundary of
  "not in this index").
* **Ids.** Any string (a non-UUID is stored under its UUIDv5 and given back as is); else a random UUID.
* **Filters.** Dicts as Chroma and PGVector users write them (``{"page": {"$gte": 4}}``,
  ``{"$or": [...]}``), or a ``SearchFilter``; the retriever takes the same dicts
  (:mod:`structaware_retrievers.query.filters`). A key no document carries, or a value outside a
  closed vocabulary, raises ``UnknownFilterError`` (a ``ValueError``) instead of returning nothing.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import VectorStore

from langchain_structaware.documents import document_to_unit, unit_to_document
from structaware_readers.errors import MalformedInputError, ModelMismatchError
from structaware_retrievers.query.fusion import DEFAULT_PREFETCH_LIMIT, DEFAULT_RRF_K, DEFAULT_WEIGHTS
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import resolve_rerank

#: Payload keys of a document added through this store.
PAGE_CONTENT_KEY = "page_content"


def default_model_id(embedding: Embeddings) -> str:
    """``<module>.<class>[:<model>]``: what the index records for a LangChain embedding model."""
    cls = type(embedding)
    name = getattr(embedding, "model", None) or getattr(embedding, "model_name", None)
    return f"{cls.__module__}.{cls.__qualname__}" + (f":{name}" if isinstance(name, str) and name else "")


@contextlib.contextmanager
def in_langchain_terms() -> Iterator[None]:
    """A wrong-model error with the fix a LangChain user can apply (an ``embedding``, not a ``DenseEncoder``)."""
    try:
        yield
    except ModelMismatchError as exc:
        raise exc.with_fix(
            f"pass the embedding the index was built with (its model id is {exc.stored_id!r}; give"
            f" embedding_model_id= when yours records another), for structaware's own models"
            f" StructureAwareEmbeddings(model_name={exc.stored_model!r}); or use another path or collection"
        ) from None


def to_point_filter(value: Any) -> Any:
    """``None``, a filter dict (Chroma / PGVector style), a ``SearchFilter`` or a ``PointFilter`` ->
    ``PointFilter`` or ``None`` (:func:`structaware_retrievers.query.filters.to_point_filter`).

    Raises:
        UnsupportedFilterError: an operator Qdrant cannot evaluate (``$like``, ``$regex``), naming it.
        MalformedInputError: another type, or a value the filter cannot match, naming ``filter.<key>``.
    """
    from structaware_retrievers.query.filters import to_point_filter as compile_any

    return compile_any(value)


class StructureAwareVectorStore(VectorStore):
    """A structaware index (Qdrant: your dense vectors + structaware's BM25, fused in Qdrant).

    Args:
        embedding: the LangChain embedding model for documents and queries.
        path: index folder for the embedded engine (default ``$STRUCTAWARE_INDEX`` or
            ``./.structaware/index``).
        url, api_key, client: a Qdrant server / an existing ``QdrantClient`` instead of a folder.
        collection: collection name.
        index: an open ``StructureIndex`` whose dense encoder is this model (overrides the above).
        embedding_model_id: what the index config records for ``embedding`` (see
            :func:`default_model_id`); name model and version when the default is ambiguous.
        mode, fusion, rrf_k, prefetch_limit, weights, rerank: the
            :class:`~structaware_retrievers.search.options.SearchOptions` fields of the same names
            (src/structaware_retrievers/search/options.py), with its defaults, for :meth:`similarity_search`;
            a search can override ``rerank`` (``similarity_search(q, rerank=False)``). MMR and by-vector
            searches do not rerank; relevance-scored ones only when ``rerank`` is ``True`` or a ``Rerank``.

    Raises:
        StoreError: the index was built with another dense model or dimension; a folder in use.
    """

    def __init__(
        self,
        embedding: Embeddings,
        *,
        path: str | Path | None = None,
        url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        collection: str = "structaware",
        index: Any | None = None,
        embedding_model_id: str | None = None,
        mode: Literal["hybrid", "dense", "sparse"] = "hybrid",
        fusion: Literal["rrf", "dbsf"] = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        weights: tuple[float, float] = DEFAULT_WEIGHTS,
        rerank: Any = None,
    ) -> None:
        from structaware_retrievers.index.records import RecordIndex, UserDenseEncoder
        from structaware_retrievers.index.structure_index import StructureIndex

        resolve_rerank(rerank)  # a bad value raises MalformedInputError now, not at the first search

        self._embedding = embedding
        self._owns_index = index is None
        if index is None:
            dense = getattr(embedding, "encoder", None)  # StructureAwareEmbeddings: structaware's own encoder
            if dense is None or not hasattr(dense, "model_id"):
                dense = UserDenseEncoder(
                    embedding.embed_documents,
                    embedding.embed_query,
                    model_id=embedding_model_id or default_model_id(embedding),
                )
            with in_langchain_terms():
                index = StructureIndex(
                    path, url=url, api_key=api_key, client=client, collection=collection, dense=dense
                )
        self.index = index
        self._records = RecordIndex(index)
        self.mode = mode
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.prefetch_limit = prefetch_limit
        self.weights = tuple(weights)
        self.rerank = rerank

    @property
    def embeddings(self) -> Embeddings:
        return self._embedding

    # -- writes ----------------------------------------------------------------------------
    def add_documents(self, documents: list[Document], **kwargs: Any) -> list[str]:
        """Upsert documents (dense from your model, BM25 from structaware); return their ids.

        ``ids=`` (one per document) overrides ``Document.id``; the documents are not modified.

        Raises:
            MalformedInputError: ``ids`` of another length.
            StoreError: the model or its dimension differs from the index's.
        """
        from structaware_retrievers.index.records import METADATA_KEY, ORIGINAL_ID_KEY, chunk_unit, point_id

        ids = kwargs.get("ids")
        if ids is not None and len(ids) != len(documents):
            raise MalformedInputError(f"{len(ids)} ids for {len(documents)} documents", field="ids")
        out = [
            str(ids[i]) if ids is not None and ids[i] else doc.id or str(uuid.uuid4())
            for i, doc in enumerate(documents)
        ]
        if not documents:
            return []
        payloads = []
        sparse_texts = []
        for doc, doc_id in zip(documents, out, strict=True):
            unit = document_to_unit(doc)
            if unit is None:
                meta = doc.metadata
                unit = chunk_unit(
                    doc_id,
                    doc.page_content,
                    doc_id=str(meta.get("doc_id") or ""),
                    source=str(meta.get("source") or ""),
                )
            else:
                unit = unit.model_copy(update={"unit_id": point_id(doc_id)})
            sparse_texts.append(doc.page_content)
            payload = unit.to_payload()
            payload[PAGE_CONTENT_KEY] = doc.page_content
            payload[METADATA_KEY] = dict(doc.metadata)
            payload[ORIGINAL_ID_KEY] = doc_id
            payloads.append(payload)
        vectors = self._embedding.embed_documents([d.page_content for d in documents])
        with in_langchain_terms():
            self._records.add(payloads, sparse_texts, vectors)
        return out

    def add_texts(
        self,
        texts: Iterable[str],
        metadatas: list[dict] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> list[str]:
        texts = list(texts)
        docs = [
            Document(page_content=t, metadata=(metadatas[i] if metadatas else {}) or {}) for i, t in enumerate(texts)
        ]
        return self.add_documents(docs, ids=ids)

    def delete(self, ids: list[str] | None = None, **kwargs: Any) -> bool | None:
        """Delete documents by id (missing ids are ignored). ``ids=None`` deletes nothing and returns ``False``."""
        from structaware_retrievers.index.records import point_id

        if not ids:
            return False
        self._records.delete_ids([point_id(str(i)) for i in ids])
        return True

    # -- reads -----------------------------------------------------------------------------
    def get_by_ids(self, ids: Sequence[str], /) -> list[Document]:
        """Documents by id, in the order given; missing ids are skipped."""
        from structaware_retrievers.index.records import point_id

        return [self._document(r.id, r.payload) for r in self._records.get([point_id(str(i)) for i in ids])]

    def similarity_search_with_score(
        self, query: str, k: int = 4, filter: Any = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """``k`` documents with their fused (RRF/DBSF) score, best first (the first re-ordered by the
        second stage: ``rerank=``, default the store's); ``filter`` as in the module docstring."""
        mode = kwargs.get("mode", self.mode)
        dense = self._embedding.embed_query(query) if mode != "sparse" else None
        return self._search(query, dense, k, mode, filter, rerank=kwargs.get("rerank", self.rerank))

    def similarity_search(self, query: str, k: int = 4, filter: Any = None, **kwargs: Any) -> list[Document]:
        return [doc for doc, _ in self.similarity_search_with_score(query, k, filter, **kwargs)]

    def similarity_search_by_vector(
        self, embedding: list[float], k: int = 4, filter: Any = None, **kwargs: Any
    ) -> list[Document]:
        """Dense-only search with a query vector from your model."""
        return [doc for doc, _ in self._search(None, embedding, k, "dense", filter)]

    def _similarity_search_with_relevance_scores(
        self, query: str, k: int = 4, filter: Any = None, **kwargs: Any
    ) -> list[tuple[Document, float]]:
        """``k`` documents with relevances in [0, 1] (what ``similarity_search_with_relevance_scores``
        and ``as_retriever(search_type="similarity_score_threshold")`` compare with ``score_threshold``).

        The calibrated relevance of each document (:func:`structaware_retrievers.search.calibration.relevances`:
        its cosine with the query's embedding plus its IDF-weighted coverage of the query's BM25
        terms, mapped to [0, 1]), not normalised per question: the best document of a question the
        index does not answer stays low, and ``score_threshold=0.5``
        (``structaware_retrievers.query.fusion.DEFAULT_MIN_SCORE``) separates "not in this index" from an
        answer. Fitted for structaware's own dense model (``StructureAwareEmbeddings``); with another
        embedding model, measure the threshold with ``benchmarks/calibration.py``.

        In the search's fused order: the second stage is off here unless ``rerank=True`` or a
        ``Rerank`` is given (per search or for the store).
        """
        mode = kwargs.get("mode", self.mode)
        dense = self._embedding.embed_query(query) if mode != "sparse" else None
        rerank = kwargs.get("rerank", self.rerank)
        return self._search(query, dense, k, mode, filter, relevance=True, rerank=False if rerank is None else rerank)

    def max_marginal_relevance_search(
        self,
        query: str,
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
        **kwargs: Any,
    ) -> list[Document]:
        """``k`` documents picked for relevance and diversity by Qdrant's maximal marginal relevance.

        Of the ``fetch_k`` documents nearest to the query's embedding (your model's vectors),
        Qdrant picks ``k`` one by one, each maximising ``lambda_mult * similarity to the query -
        (1 - lambda_mult) * similarity to the documents already picked`` (1: relevance only, 0:
        diversity only). ``filter`` as for :meth:`similarity_search`.

        Raises:
            StoreError: ``lambda_mult`` outside [0, 1].
        """
        dense = self._embedding.embed_query(query)
        return self.max_marginal_relevance_search_by_vector(dense, k, fetch_k, lambda_mult, filter, **kwargs)

    def max_marginal_relevance_search_by_vector(
        self,
        embedding: list[float],
        k: int = 4,
        fetch_k: int = 20,
        lambda_mult: float = 0.5,
        filter: Any = None,
        **kwargs: Any,
    ) -> list[Document]:
        """:meth:`max_marginal_relevance_search` with a query vector from your model."""
        return [doc for doc, _ in self._search(None, embedding, k, "dense", filter, mmr=(lambda_mult, fetch_k))]

    def _search(
        self,
        text: str | None,
        dense: list[float] | None,
        k: int,
        mode: str,
        flt: Any,
        *,
        mmr: tuple[float, int] | None = None,
        relevance: bool = False,
        rerank: Any = False,
    ) -> list[tuple[Document, float]]:
        # the store's fusion settings under their own names; the search's k, mode, filter and rerank
        options = SearchOptions.of(self, k=k, mode=mode, filter=to_point_filter(flt), rerank=rerank)
        records = self._records.search(text, dense=dense, options=options, mmr=mmr, relevance=relevance)
        return [(self._document(r.id, r.payload), r.score) for r in records]

    @staticmethod
    def _document(point_id: str, payload: dict[str, Any]) -> Document:
        """The document a point holds: as added through this store, or the unit's (``structaware ingest``)."""
        from structaware_readers.models import Unit
        from structaware_retrievers.index.records import METADATA_KEY, ORIGINAL_ID_KEY

        if PAGE_CONTENT_KEY in payload:
            return Document(
                id=payload.get(ORIGINAL_ID_KEY) or point_id,
                page_content=payload[PAGE_CONTENT_KEY],
                metadata=payload.get(METADATA_KEY) or {},
            )
        return unit_to_document(Unit.from_payload(payload))

    @classmethod
    def from_texts(
        cls,
        texts: list[str],
        embedding: Embeddings,
        metadatas: list[dict] | None = None,
        *,
        ids: list[str] | None = None,
        **kwargs: Any,
    ) -> StructureAwareVectorStore:
        """A store (``kwargs`` as the constructor's) holding ``texts``."""
        store = cls(embedding, **kwargs)
        store.add_texts(texts, metadatas, ids=ids)
        return store

    def close(self) -> None:
        """Release the index (files, locks) when this store opened it."""
        if self._owns_index:
            self.index.close()
