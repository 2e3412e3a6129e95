"""Peer pipelines on the same parsed text and encoders: LlamaIndex's and LangChain's defaults."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from structaware_readers.errors import MissingExtraError
from structaware_readers.models import ParsedDocument, Unit
from structaware_retrievers.evaluation.baselines import blocks_in_span, body_text, make_chunk_unit


def _need(module: str, extra: str) -> None:
    try:
        __import__(module)
    except ImportError as exc:
        raise MissingExtraError(extra, "peers", "a peer pipeline (structaware eval --peers)") from exc


def _locate(text: str, chunk: str, start: int | None, hint: int) -> int:
    """Start offset of ``chunk`` in ``text``: the framework's offset when it checks out, else a search."""
    if start is not None and start >= 0 and text.startswith(chunk, start):
        return start
    found = text.find(chunk, max(0, hint))
    if found < 0:
        found = text.find(chunk)
    if found < 0:  # the splitter normalised whitespace: anchor on the first 50 characters
        found = text.find(chunk[:50].strip(), max(0, hint))
    return max(found, 0)


class _Peer:
    """Common part: documents' body texts, chunk -> unit provenance, stats."""

    name = ""
    retrieval = ""

    def __init__(self, docs: Sequence[ParsedDocument]):
        self.docs = {d.doc_id: d for d in docs}
        self.texts = {d.doc_id: body_text(d) for d in docs}
        self.units: dict[str, Unit] = {}

    def _unit(self, doc_id: str, ordinal: int, chunk: str, start: int | None, hint: int) -> tuple[Unit, int]:
        text, spans = self.texts[doc_id]
        s = _locate(text, chunk, start, hint)
        blocks = blocks_in_span(spans, s, s + len(chunk)) or blocks_in_span(spans, s, s + 1)
        unit = make_chunk_unit(self.docs[doc_id], self.name, ordinal, chunk, blocks)
        return unit, s

    def stats(self) -> dict[str, Any]:
        n = len(self.units)
        chars = sum(len(u.text) for u in self.units.values())
        return {"units": n, "mean_chars": chars / n if n else 0.0, "retrieval": self.retrieval}


#: Metadata key of the document id on LlamaIndex nodes (``doc_id`` itself is LlamaIndex's own
#: reference-document key and is overwritten in the vector store's metadata).
_LI_DOC_KEY = "structaware_doc_id"


class LlamaIndexDefault(_Peer):
    """LlamaIndex default pipeline: ``SentenceSplitter()`` + ``VectorStoreIndex`` dense search. Raises
    ``MissingExtraError``.
    """

    name = "llamaindex"
    retrieval = "dense"

    def __init__(self, docs: Sequence[ParsedDocument], *, dense: Any, sparse: Any = None):
        _need("llama_index.core", "llama-index-core")
        super().__init__(docs)
        from llama_index.core import Document, VectorStoreIndex
        from llama_index.core.embeddings import BaseEmbedding
        from llama_index.core.node_parser import SentenceSplitter
        from pydantic import PrivateAttr

        class _Embedding(BaseEmbedding):
            _enc: Any = PrivateAttr()

            def __init__(self, enc: Any):
                super().__init__(model_name=str(getattr(enc, "model_name", "dense")))
                self._enc = enc

            def _get_query_embedding(self, query: str) -> list[float]:
                return list(self._enc.embed_query(query))

            async def _aget_query_embedding(self, query: str) -> list[float]:
                return self._get_query_embedding(query)

            def _get_text_embedding(self, text: str) -> list[float]:
                return list(self._enc.embed_documents([text])[0])

            def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
                return [list(v) for v in self._enc.embed_documents(texts)]

        li_docs = [
            Document(
                text=text,
                id_=doc_id,
                metadata={_LI_DOC_KEY: doc_id},
                excluded_embed_metadata_keys=[_LI_DOC_KEY],
                excluded_llm_metadata_keys=[_LI_DOC_KEY],
            )
            for doc_id, (text, _) in self.texts.items()
        ]
        nodes = SentenceSplitter().get_nodes_from_documents(li_docs)
        hint: dict[str, int] = {}
        count: dict[str, int] = {}
        for node in nodes:
            doc_id = node.metadata[_LI_DOC_KEY]
            unit, s = self._unit(
                doc_id, count.get(doc_id, 0), node.get_content(), node.start_char_idx, hint.get(doc_id, 0)
            )
            count[doc_id] = count.get(doc_id, 0) + 1
            hint[doc_id] = s
            self.units[node.node_id] = unit
        self._index = VectorStoreIndex(nodes, embed_model=_Embedding(dense))

    def search(self, text: str, *, k: int, mode: str = "dense", doc_id: str | None = None) -> list[Unit]:
        """Top ``k`` chunks by dense similarity, optionally within one document."""
        from llama_index.core.vector_stores import ExactMatchFilter, MetadataFilters

        filters = MetadataFilters(filters=[ExactMatchFilter(key=_LI_DOC_KEY, value=doc_id)]) if doc_id else None
        retriever = self._index.as_retriever(similarity_top_k=k, filters=filters)
        return [self.units[n.node.node_id] for n in retriever.retrieve(text)]


class LangChainDefault(_Peer):
    """LangChain default pipeline: ``RecursiveCharacterTextSplitter()`` + langchain-qdrant hybrid. Raises
    ``MissingExtraError``.
    """

    name = "langchain"
    retrieval = "hybrid"

    def __init__(self, docs: Sequence[ParsedDocument], *, dense: Any, sparse: Any):
        _need("langchain_qdrant", "langchain-qdrant")
        _need("langchain_text_splitters", "langchain-text-splitters")
        super().__init__(docs)
        from langchain_core.embeddings import Embeddings
        from langchain_qdrant import QdrantVectorStore, RetrievalMode, SparseEmbeddings
        from langchain_qdrant import SparseVector as LCSparseVector
        from langchain_text_splitters import RecursiveCharacterTextSplitter
        from qdrant_client import models

        class _Dense(Embeddings):
            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return [list(map(float, v)) for v in dense.embed_documents(texts)]

            def embed_query(self, text: str) -> list[float]:
                return list(map(float, dense.embed_query(text)))

        class _Sparse(SparseEmbeddings):
            def embed_documents(self, texts: list[str]) -> list[LCSparseVector]:
                return [LCSparseVector(indices=list(v[0]), values=list(v[1])) for v in sparse.embed_documents(texts)]

            def embed_query(self, text: str) -> LCSparseVector:
                v = sparse.embed_query(text)
                return LCSparseVector(indices=list(v[0]), values=list(v[1]))

        splitter = RecursiveCharacterTextSplitter(add_start_index=True)
        lc_docs = []
        ids = []
        for doc_id, (text, _) in self.texts.items():
            hint = 0
            for i, d in enumerate(splitter.create_documents([text], metadatas=[{"doc_id": doc_id}])):
                unit, hint = self._unit(doc_id, i, d.page_content, d.metadata.get("start_index"), hint)
                self.units[unit.unit_id] = unit
                lc_docs.append(d)
                ids.append(unit.unit_id)
        self._models = models
        self._store = QdrantVectorStore.from_documents(
            lc_docs,
            embedding=_Dense(),
            sparse_embedding=_Sparse(),
            ids=ids,
            location=":memory:",
            collection_name="langchain_default",
            retrieval_mode=RetrievalMode.HYBRID,
            sparse_vector_params={"modifier": models.Modifier.IDF},
        )

    def search(self, text: str, *, k: int, mode: str = "hybrid", doc_id: str | None = None) -> list[Unit]:
        """Top ``k`` chunks by langchain-qdrant hybrid search (RRF), optionally within one document."""
        m = self._models
        flt = (
            m.Filter(must=[m.FieldCondition(key="metadata.doc_id", match=m.MatchValue(value=doc_id))])
            if doc_id
            else None
        )
        docs = self._store.similarity_search(text, k=k, filter=flt)
        return [self.units[d.metadata["_id"]] for d in docs]


#: Peer name -> (factory(docs, dense=, sparse=), retrieval mode it uses).
PEERS: dict[str, tuple[Callable[..., Any], str]] = {
    "llamaindex": (LlamaIndexDefault, "dense"),
    "langchain": (LangChainDefault, "hybrid"),
}
