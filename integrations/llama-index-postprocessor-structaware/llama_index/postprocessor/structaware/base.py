"""``StructureAwareRerank``: a LlamaIndex ``BaseNodePostprocessor`` running structaware's second stage.

Gives the retriever's second stage (``StructureIndex.rerank``: each unit's dense cosine, BM25 score
and IDF-weighted coverage of the question; no model weights) to nodes found another way, such as a
``QueryFusionRetriever`` or a ``VectorStoreIndex`` over ``StructureAwareVectorStore``. A node is a
unit of the index by its node id or ``metadata["unit_id"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.callbacks import CallbackManager, CBEventType, EventPayload
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle


class StructureAwareRerank(BaseNodePostprocessor):
    """Re-order nodes by structaware's second stage; each node's ``score`` becomes the stage score
    (in [0, 1], relative to the best node of the list: an order, not a threshold).

    Args:
        index: the ``structaware_retrievers.index.structure_index.StructureIndex`` holding the nodes' units
            (``StructureAwareRetriever.index``, ``StructureAwareVectorStore.client``); see also
            :meth:`from_path`.
        top_n: keep the best ``top_n`` nodes; ``None``: every node, re-ordered.
        rerank: ``True`` (the default options) or a ``structaware_retrievers.search.rerank.Rerank`` with
            other weights (its ``pool`` is not used: every node is re-ordered).
        keep_retrieval_score: keep each node's score before the stage in
            ``node.metadata["retrieval_score"]`` (as LlamaIndex's rerankers do).

    Raises:
        MalformedInputError: at construction, ``top_n < 1`` or a ``rerank`` that is not ``True`` or a
            ``Rerank``; when postprocessing, no query, or a node that is not a unit of the index
            (``field="node_id"``, the message naming the node id): never dropped silently.
        IndexNotFoundError: the index does not exist or is empty.
    """

    top_n: int | None = Field(default=None, description="Number of nodes to keep, best first (None: all).")
    rerank: Any = Field(default=True, description="True or a structaware Rerank (the stage's weights).")
    keep_retrieval_score: bool = Field(default=False, description="Keep the score before the stage in metadata.")
    _index: Any = PrivateAttr()

    def __init__(
        self,
        index: Any,
        *,
        top_n: int | None = None,
        rerank: Any = True,
        keep_retrieval_score: bool = False,
        callback_manager: CallbackManager | None = None,
    ) -> None:
        from structaware_readers.errors import MalformedInputError
        from structaware_retrievers.search.rerank import resolve_rerank

        if top_n is not None and top_n < 1:
            raise MalformedInputError(f"must be >= 1 or None, not {top_n}", field="top_n")
        if resolve_rerank(rerank) is None:
            raise MalformedInputError(f"must be True or a Rerank, got {rerank!r}", field="rerank")
        super().__init__(
            top_n=top_n,
            rerank=rerank,
            keep_retrieval_score=keep_retrieval_score,
            callback_manager=callback_manager or CallbackManager(),
        )
        self._index = index

    @classmethod
    def from_path(
        cls, path: str | Path, *, collection: str = "structaware", model_name: str | None = None, **kwargs: Any
    ) -> StructureAwareRerank:
        """Open the ``StructureIndex`` stored in folder ``path`` (built with ``model_name``, when not the
        default dense model) and re-order its nodes.

        Raises:
            ModelMismatchError: the index was built with another dense model (the message names it).
        """
        from structaware_retrievers.index.structure_index import open_index_folder

        fix = "StructureAwareRerank.from_path(path, model_name={model!r}); or another path or collection"
        return cls(open_index_folder(path, collection=collection, model_name=model_name, fix=fix), **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "StructureAwareRerank"

    @property
    def index(self) -> Any:
        """The ``StructureIndex`` whose units the nodes are."""
        return self._index

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        from structaware_readers.errors import MalformedInputError
        from structaware_retrievers.index.record_rerank import rerank_candidates

        if query_bundle is None:
            raise MalformedInputError("the stage needs the question: pass query_bundle or query_str", field="query")
        if not nodes:
            return []
        with self.callback_manager.event(
            CBEventType.RERANKING,
            payload={
                EventPayload.NODES: nodes,
                EventPayload.MODEL_NAME: self.class_name(),
                EventPayload.QUERY_STR: query_bundle.query_str,
                EventPayload.TOP_K: self.top_n,
            },
        ) as event:
            ids = [(n.node.node_id, n.node.metadata.get("unit_id")) for n in nodes]
            order = rerank_candidates(self._index, query_bundle.query_str, ids, self.rerank, field="node_id")
            out = []
            for i, score in order[: self.top_n]:
                if self.keep_retrieval_score:
                    nodes[i].node.metadata["retrieval_score"] = nodes[i].score
                out.append(NodeWithScore(node=nodes[i].node, score=score))
            event.on_end(payload={EventPayload.NODES: out})
        return out
