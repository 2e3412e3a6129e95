"""``StructureAwareVectorStore``: a structaware index as a LlamaIndex ``BasePydanticVectorStore``.

What a LlamaIndex user already writes works unchanged with this store in the vector-store slot::

    store = StructureAwareVectorStore("my-index", embed_model=embed_model)
    IngestionPipeline(transformations=[StructureAwareNodeParser(), embed_model], vector_store=store).run(documents=docs)
    index = VectorStoreIndex.from_vector_store(store, embed_model=embed_model)

* **Dense vector: your embedding model.** The index config records the model and its dimension and
  refuses an index built with another (``StoreError`` naming both). Without ``embed_model`` the store
  uses structaware's own dense encoder, so ``structaware query`` reads the index too.
* **Sparse vector and fusion: structaware's.** Every point also gets structaware's BM25 vector;
  ``DEFAULT`` and ``HYBRID`` queries with a query string are fused inside Qdrant (scores are then
  fusion scores, not cosine similarities); ``SPARSE``/``TEXT_SEARCH`` search BM25 alone.
* **Payload.** Each point is a unit payload (any other node becomes a ``unit_type="chunk"`` unit)
  plus the node's ``metadata`` and the rest of the node as JSON, so nodes come back as added.
* **Ids.** A UUID node id is the point id; any other is mapped to a UUIDv5 (the node keeps its own).

Filters: ``MetadataFilters`` (:mod:`llama_index.vector_stores.structaware.filters`),
``VectorStoreQuery.doc_ids`` and ``node_ids``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.schema import BaseNode, ImageNode, IndexNode, MetadataMode, Node, TextNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    MetadataFilters,
    VectorStoreQuery,
    VectorStoreQueryMode,
    VectorStoreQueryResult,
)

from llama_index.node_parser.structaware.nodes import node_to_unit, unit_to_node
from llama_index.vector_stores.structaware.filters import to_point_filter
from structaware_readers.errors import ModelMismatchError
from structaware_readers.models import Unit
from structaware_retrievers.query.fusion import DEFAULT_PREFETCH_LIMIT, DEFAULT_RRF_K, DEFAULT_WEIGHTS
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import resolve_rerank

_NODE_CONTENT = "_node_content"
_NODE_TYPE = "_node_type"
_REF_DOC_ID = "ref_doc_id"
_NODE_CLASSES = {c.class_name(): c for c in (TextNode, Node, IndexNode, ImageNode)}
_SPARSE_MODES = {VectorStoreQueryMode.SPARSE, VectorStoreQueryMode.TEXT_SEARCH}


def _model_id(embed_model: Any) -> str:
    return f"llama-index:{embed_model.class_name()}:{embed_model.model_name}"


@contextlib.contextmanager
def _in_llama_index_terms() -> Iterator[None]:
    """A wrong-model error with the fix a LlamaIndex user can apply (an ``embed_model``, not a ``DenseEncoder``)."""
    try:
        yield
    except ModelMismatchError as exc:
        raise exc.with_fix(
            f"pass the embed_model the index was built with (its model_id is {exc.stored_id!r}; give"
            f" model_id= when yours records another), for structaware's own models"
            f" StructureAwareEmbedding(model_name={exc.stored_model!r}); or use another index folder or collection"
        ) from None


class StructureAwareVectorStore(BasePydanticVectorStore):
    """A structaware index (Qdrant: dense + BM25, fused in Qdrant) as a LlamaIndex vector store.

    Args:
        path: index folder for the embedded engine (default ``$STRUCTAWARE_INDEX`` or
            ``./.structaware/index``); with ``url``/``client`` only the embedding cache lives there.
        embed_model: the LlamaIndex embedding model the nodes and queries are embedded with (the
            one given to ``IngestionPipeline``/``VectorStoreIndex``). ``None``: structaware's own
            dense encoder. A ``StructureAwareEmbedding`` is used as structaware's encoder directly.
        url, api_key, client: a Qdrant server / an existing ``QdrantClient`` instead of a folder.
        collection: collection name.
        index: an open ``StructureIndex`` to use as is (overrides the arguments above).
        model_id: the id the index config records for ``embed_model`` (default
            ``llama-index:<class name>:<model_name>``); name the model and version when the default
            is ambiguous (e.g. ``model_name="unknown"``).
        hybrid: fuse dense and BM25 for ``DEFAULT``-mode queries with a query string.
        fusion, rrf_k, prefetch_limit, weights, rerank: the
            :class:`~structaware_retrievers.search.options.SearchOptions` fields of the same names
            (src/structaware_retrievers/search/options.py), with its defaults; a query can override
            ``rerank`` (``as_retriever(vector_store_kwargs={"rerank": False})``).

    Raises:
        StoreError: the index was built with another dense model or dimension; a folder in use.
    """

    stores_text: bool = True
    flat_metadata: bool = False
    collection: str = Field(default="structaware")
    model_id: str = Field(default="", description="dense model id recorded in the index config")
    hybrid: bool = Field(default=True)
    fusion: Literal["rrf", "dbsf"] = Field(default="rrf")
    rrf_k: int = Field(default=DEFAULT_RRF_K, ge=1)
    prefetch_limit: int = Field(default=DEFAULT_PREFETCH_LIMIT, ge=1)
    weights: tuple[float, float] = Field(default=DEFAULT_WEIGHTS, description="(dense, BM25) RRF weights")
    rerank: Any = Field(default=None, description="second stage: None (on for hybrid), False, True or a Rerank")

    _index: Any = PrivateAttr()
    _records: Any = PrivateAttr()
    _owns_index: bool = PrivateAttr(default=False)

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        embed_model: Any | None = None,
        url: str | None = None,
        api_key: str | None = None,
        client: Any | None = None,
        collection: str = "structaware",
        index: Any | None = None,
        model_id: str | None = None,
        hybrid: bool = True,
        fusion: Literal["rrf", "dbsf"] = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        weights: tuple[float, float] = DEFAULT_WEIGHTS,
        rerank: Any = None,
    ) -> None:
        from structaware_retrievers.index.records import RecordIndex, UserDenseEncoder
        from structaware_retrievers.index.structure_index import StructureIndex

        resolve_rerank(rerank)  # a bad value raises MalformedInputError now, not at the first query

        owns = index is None
        if index is None:
            dense = None
            if embed_model is not None and getattr(embed_model, "encoder", None) is not None:
                dense = embed_model.encoder  # StructureAwareEmbedding: structaware's own encoder
            elif embed_model is not None:
                dense = UserDenseEncoder(
                    embed_model.get_text_embedding_batch,
                    embed_model.get_query_embedding,
                    model_id=model_id or _model_id(embed_model),
                )
            with _in_llama_index_terms():
                index = StructureIndex(
                    path, url=url, api_key=api_key, client=client, collection=collection, dense=dense
                )
        super().__init__(
            collection=index.collection,
            model_id=index.dense.model_id,
            hybrid=hybrid,
            fusion=fusion,
            rrf_k=rrf_k,
            prefetch_limit=prefetch_limit,
            weights=tuple(weights),
            rerank=rerank,
        )
        self._index = index
        self._records = RecordIndex(index)
        self._owns_index = owns

    @classmethod
    def class_name(cls) -> str:
        return "StructureAwareVectorStore"

    @property
    def client(self) -> Any:
        """The ``StructureIndex`` this store writes to and reads from."""
        return self._index

    # -- writes ----------------------------------------------------------------------------
    def add(self, nodes: Sequence[BaseNode], **add_kwargs: Any) -> list[str]:
        """Upsert nodes (embedded by your model; one without an embedding is embedded here) with
        structaware's BM25 vector; return their node ids.

        Raises:
            StoreError: the vectors' dimension or the model differs from the index's.
        """
        from structaware_retrievers.index.records import METADATA_KEY, chunk_unit, point_id

        if not nodes:
            return []
        payloads, sparse_texts = [], []
        for node in nodes:
            unit = node_to_unit(node) if isinstance(node, TextNode) else None
            if unit is None:
                meta = node.metadata
                unit = chunk_unit(
                    node.node_id,
                    node.get_content(MetadataMode.NONE),
                    doc_id=node.ref_doc_id or "",
                    doc_name=str(meta.get("file_name", "")),
                    source=str(meta.get("file_path", "")),
                )
                sparse_texts.append(node.get_content(MetadataMode.EMBED))
            else:
                unit = unit.model_copy(update={"unit_id": point_id(node.node_id)})
                sparse_texts.append(unit.search_text())
            dumped = node.model_dump(mode="json")
            metadata = dumped.pop("metadata", {})
            for key in ("embedding", "text"):
                dumped.pop(key, None)
            payload = unit.to_payload()
            payload[METADATA_KEY] = metadata
            payload[_NODE_CONTENT] = json.dumps(dumped, ensure_ascii=False)
            payload[_NODE_TYPE] = node.class_name()
            payload[_REF_DOC_ID] = node.ref_doc_id
            payloads.append(payload)
        missing = [i for i, n in enumerate(nodes) if n.embedding is None]
        vectors = [n.embedding for n in nodes]
        if missing:
            fresh = self._index.dense.embed_documents([nodes[i].get_content(MetadataMode.EMBED) for i in missing])
            for i, v in zip(missing, fresh, strict=True):
                vectors[i] = v
        with _in_llama_index_terms():
            self._records.add(payloads, sparse_texts, vectors)
        return [n.node_id for n in nodes]

    def delete(self, ref_doc_id: str, **delete_kwargs: Any) -> None:
        """Delete every node of the document ``ref_doc_id`` (its ``ref_doc_id`` or unit ``doc_id``)."""
        from structaware_retrievers.query.filters import Match, PointFilter

        self._records.delete(PointFilter(should=(Match(_REF_DOC_ID, (ref_doc_id,)), Match("doc_id", (ref_doc_id,)))))

    def delete_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
        **delete_kwargs: Any,
    ) -> None:
        """Delete nodes by id and/or filter (both: the nodes matching both). Nothing given: nothing deleted."""
        flt = self._filter(node_ids, filters)
        if flt is not None:
            self._records.delete(flt)

    def clear(self) -> None:
        """Delete every node (the index and its recorded model stay)."""
        self._records.clear()

    # -- reads -----------------------------------------------------------------------------
    def get_nodes(
        self,
        node_ids: list[str] | None = None,
        filters: MetadataFilters | None = None,
    ) -> list[BaseNode]:
        """Nodes by id (in the order given) and/or filter, with their embeddings."""
        from structaware_retrievers.index.records import point_id

        ids = [point_id(i) for i in node_ids] if node_ids is not None else None
        records = self._records.get(ids, to_point_filter(filters), with_vectors=True)
        nodes = []
        for r in records:
            node = self._node(r.payload)
            node.embedding = r.dense
            nodes.append(node)
        return nodes

    def query(self, query: VectorStoreQuery, **kwargs: Any) -> VectorStoreQueryResult:
        """Search: hybrid (your model's query embedding + BM25 on ``query_str``, fused in Qdrant) for
        ``DEFAULT``/``HYBRID`` with a query string, BM25 alone for ``SPARSE``/``TEXT_SEARCH``, dense
        alone otherwise. ``similarity_top_k`` results (``hybrid_top_k`` in ``HYBRID`` mode when set).
        ``rerank=`` (a keyword) overrides the store's ``rerank`` for this query.

        Raises:
            MalformedInputError: an unsupported filter, neither a query string nor an embedding, or a
                bad ``rerank``;
                ``UnknownFilterError`` (a subclass, a ``ValueError``) for a filter key no node of the
                index carries (the metadata keys of the nodes added here are carried) or a value
                outside a closed vocabulary (a unit type).
            StoreError: the query embedding's dimension differs from the index's.
        """
        mode = "dense"
        if query.mode in _SPARSE_MODES:
            mode = "sparse"
        elif query.query_str and (self.hybrid or query.mode == VectorStoreQueryMode.HYBRID):
            mode = "hybrid"
        k = query.similarity_top_k
        if query.mode == VectorStoreQueryMode.HYBRID and query.hybrid_top_k:
            k = query.hybrid_top_k
        flt = self._filter(query.node_ids, query.filters, query.doc_ids)
        # the store's fusion settings under their own names; the query's top k, mode, filter and rerank
        options = SearchOptions.of(self, k=k, mode=mode, filter=flt, rerank=kwargs.get("rerank", self.rerank))
        records = self._records.search(query.query_str, dense=query.query_embedding, options=options)
        nodes = [self._node(r.payload) for r in records]
        return VectorStoreQueryResult(
            nodes=nodes, similarities=[r.score for r in records], ids=[n.node_id for n in nodes]
        )

    # -- helpers ---------------------------------------------------------------------------
    @staticmethod
    def _filter(node_ids: list[str] | None, filters: MetadataFilters | None, doc_ids: list[str] | None = None):
        from structaware_retrievers.index.records import point_id
        from structaware_retrievers.query.filters import HasId, Match, PointFilter

        flt = to_point_filter(filters) or PointFilter()
        if node_ids:
            flt = PointFilter(must=(HasId(tuple(point_id(i) for i in node_ids)),)) & flt
        if doc_ids:
            docs = tuple(doc_ids)
            flt = PointFilter(must=(PointFilter(should=(Match(_REF_DOC_ID, docs), Match("doc_id", docs))),)) & flt
        return None if flt.is_empty else flt

    @staticmethod
    def _node(payload: dict[str, Any]) -> BaseNode:
        """The node a point holds: as added through this store, or the unit's node (``structaware ingest``)."""
        from structaware_retrievers.index.records import METADATA_KEY

        raw = payload.get(_NODE_CONTENT)
        if raw is None:
            return unit_to_node(Unit.from_payload(payload))
        data = json.loads(raw)
        data["text"] = payload.get("text", "")
        data["metadata"] = payload.get(METADATA_KEY) or {}
        cls = _NODE_CLASSES.get(payload.get(_NODE_TYPE, ""), TextNode)
        return cls.from_dict(data)

    def close(self) -> None:
        """Release the index (files, locks) when this store opened it."""
        if self._owns_index:
            self._index.close()
