"""``StructureAwareRetriever``: a LlamaIndex ``BaseRetriever`` over a structaware ``StructureIndex``.

Search runs inside Qdrant: dense + sparse (BM25 with the IDF modifier) prefetches fused by weighted
RRF (the defaults of :mod:`structaware_retrievers.query.fusion`, the same for every face) or DBSF with the
Query API (``StructureIndex.query``), not on the client. Each hit
becomes a ``NodeWithScore`` whose node is the unit converted by
:func:`llama_index.node_parser.structaware.unit_to_node`: id = unit id, ``context`` visible to
the LLM together with ``page_label`` (1-based) and ``file_name``, and the element provenance
(``element_ids``, ``element_pages``, ``bboxes`` in 0..1 of the page, origin top-left) kept out of
prompts. The score is the fused score Qdrant returns (weighted RRF: ``sum 1/(rank/weight + k - 1)``).

Usable wherever LlamaIndex takes a retriever: ``RetrieverQueryEngine(retriever=...)``,
``RetrieverTool.from_defaults(retriever=...)``, ``QueryFusionRetriever`` and so on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.constants import DEFAULT_SIMILARITY_TOP_K
from llama_index.core.schema import NodeWithScore, QueryBundle
from llama_index.core.vector_stores.types import MetadataFilters

from llama_index.node_parser.structaware.nodes import unit_to_node
from llama_index.retrievers.structaware.filters import to_filter_group, to_point_filter
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.query.fusion import (
    DEFAULT_GROUP_SIZE,
    DEFAULT_MIN_SCORE,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
)
from structaware_retrievers.search.options import SearchOptions

SearchMode = Literal["hybrid", "dense", "sparse"]
Fusion = Literal["rrf", "dbsf"]


def hits_to_nodes(hits: list[Any]) -> list[NodeWithScore]:
    """``SearchHit(unit, score, rank, group, neighbours)`` list -> ``NodeWithScore`` list (same order).

    A hit's group rows (other matched rows of its table) and neighbours (``expand=True``) follow it,
    with the hit's score and ``metadata["expanded_from"]`` = the hit's unit id; a unit already given
    is not repeated. Each node's ``metadata["relevance"]`` is its hit's calibrated relevance (in [0, 1],
    comparable across questions; kept out of the embedding and LLM text)."""
    from structaware_retrievers.search.evidence import evidence_units

    out: list[NodeWithScore] = []
    for hit, unit, via in evidence_units(hits):
        node = unit_to_node(unit)
        if via is not None:
            node.metadata["expanded_from"] = via
            node.excluded_embed_metadata_keys.append("expanded_from")
            node.excluded_llm_metadata_keys.append("expanded_from")
        node.metadata["relevance"] = hit.relevance
        node.excluded_embed_metadata_keys.append("relevance")
        node.excluded_llm_metadata_keys.append("relevance")
        out.append(NodeWithScore(node=node, score=float(hit.score)))
    return out


class StructureAwareRetriever(BaseRetriever):
    """Retrieve evidence units from a ``StructureIndex`` with Qdrant-native hybrid fusion.

    Args:
        index: an open ``structaware_retrievers.index.structure_index.StructureIndex`` (folder, server or
            in-process client); see also :meth:`from_path`.
        similarity_top_k: number of units to return (LlamaIndex's default, 2, when omitted).
        mode: ``"hybrid"`` (dense + sparse, fused), ``"dense"`` or ``"sparse"``.
        fusion: ``"rrf"`` (reciprocal rank fusion) or ``"dbsf"`` (distribution-based score fusion).
        rrf_k: the RRF constant ``k`` (default ``structaware_retrievers.query.fusion.DEFAULT_RRF_K``).
        prefetch_limit: candidates fetched per vector before fusion (independent of the top k).
        weights: (dense, BM25) RRF weights; ``None``: the index default (chosen on the development
            benchmark, ``structaware_retrievers.query.fusion.DEFAULT_WEIGHTS``).
        budget_chars: return only the best units that fit this many characters together
            (``context + text`` per unit, neighbours included); ``None``: no budget.
        expand: add each hit's evidence neighbourhood after it (adjacent table rows, the parent
            section's lead sentence, neighbouring flow edges), marked ``metadata["expanded_from"]``.
        group_size: rows of one table per hit: its best row, then up to ``group_size - 1`` other
            matched rows of that table as nodes marked ``metadata["expanded_from"]``; 1: every row
            is a hit of its own (default ``structaware_retrievers.query.fusion.DEFAULT_GROUP_SIZE``).
        min_score: hits (and group rows) whose calibrated relevance (``metadata["relevance"]``, in
            [0, 1], comparable across questions) is below this are dropped, so a question the index
            does not answer gets no node (default ``structaware_retrievers.query.fusion.DEFAULT_MIN_SCORE``,
            0.5; 0 keeps all).
        filters: LlamaIndex ``MetadataFilters``, every operator but the text matches, ``and`` /
            ``or`` / ``not``, nested, on the node metadata keys (``doc_id``, ``file_name``, ``page``,
            ``unit_type``, ``grade``...; :mod:`structaware_retrievers.query.filters`): the same units as
            the vector store gives for the same filters.
        rerank: the second stage (``structaware_retrievers.search.rerank``) that re-orders the first hits by
            their own dense and BM25 scores and their coverage of the question: ``None`` (default)
            on for a hybrid search and off for a dense or sparse one, ``False`` off (the fused order),
            ``True`` or a ``Rerank`` with other options; as ``StructureIndex.query`` takes it. Each
            node keeps the search's score. For nodes found another way:
            ``llama_index.postprocessor.structaware.StructureAwareRerank``.
        callback_manager, verbose: as for every LlamaIndex retriever.

    Raises:
        UnsupportedFilterError: at construction, for a filter operator Qdrant cannot evaluate
            (``text_match``), naming it.
        MalformedInputError: at construction, for a filter value that cannot match (naming
            ``filter.<key>``; ``UnknownFilterError`` for a value outside a closed vocabulary, and at
            query time for a key no unit of the index carries); for a top k < 1 or another setting
            ``SearchOptions`` refuses (an unknown mode or fusion, a bad ``rerank``...), naming the argument.
        IndexNotFoundError, StoreError: from the index at query time.
    """

    def __init__(
        self,
        index: Any,
        *,
        similarity_top_k: int = DEFAULT_SIMILARITY_TOP_K,
        mode: SearchMode = "hybrid",
        fusion: Fusion = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        weights: tuple[float, float] | None = None,
        budget_chars: int | None = None,
        expand: bool = False,
        group_size: int = DEFAULT_GROUP_SIZE,
        min_score: float = DEFAULT_MIN_SCORE,
        filters: MetadataFilters | None = None,
        rerank: Any = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if similarity_top_k < 1:
            raise MalformedInputError(f"must be >= 1, not {similarity_top_k}", field="similarity_top_k")
        self._index = index
        self.similarity_top_k = similarity_top_k
        self.mode = mode
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.prefetch_limit = prefetch_limit
        self.weights = weights
        self.budget_chars = budget_chars
        self.expand = expand
        self.group_size = group_size
        self.min_score = min_score
        self.filters = filters
        self.rerank = rerank
        self.min_score = self._options().min_score  # every setting checked now, naming it; None: 0.0
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @classmethod
    def from_path(
        cls, path: str | Path, *, collection: str = "structaware", model_name: str | None = None, **kwargs: Any
    ) -> StructureAwareRetriever:
        """Open the ``StructureIndex`` stored in folder ``path`` and retrieve from it.

        ``model_name``: the dense model the index was built with, when not the default (a preset,
        a fastembed name or a local ONNX folder, as ``StructureAwareEmbedding`` takes).

        Raises:
            ModelMismatchError: the index was built with another dense model (the message names it).
        """
        from structaware_retrievers.index.structure_index import open_index_folder

        fix = "StructureAwareRetriever.from_path(path, model_name={model!r}); or another path or collection"
        index = open_index_folder(path, collection=collection, model_name=model_name, fix=fix)
        return cls(index, **kwargs)

    @property
    def filters(self) -> MetadataFilters | None:
        """The LlamaIndex filters; setting them re-validates and re-translates them."""
        return self._filters

    @filters.setter
    def filters(self, value: MetadataFilters | None) -> None:
        group = to_filter_group(value)
        to_point_filter(value)  # checked now: a filter Qdrant cannot evaluate raises at construction
        self._filter_group = group
        self._filters = value

    @property
    def index(self) -> Any:
        """The ``StructureIndex`` searched."""
        return self._index

    def _options(self) -> SearchOptions:
        """The search's options: the retriever's settings, its top k as ``k`` and its filters translated."""
        return SearchOptions.of(self, k=self.similarity_top_k, filter=self._filter_group)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return hits_to_nodes(self._index.query(query_bundle.query_str, self._options()))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return hits_to_nodes(await self._index.aquery(query_bundle.query_str, self._options()))
