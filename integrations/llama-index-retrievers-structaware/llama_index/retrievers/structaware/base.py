"""``StructureAwareRetriever``: a LlamaIndex ``BaseRetriever`` over a structaware ``StructureIndex``.

Search runs inside Qdrant (``StructureIndex.query``: dense + BM25 prefetches fused). Each hit becomes
a ``NodeWithScore`` whose node is the unit converted by
:func:`llama_index.node_parser.structaware.unit_to_node` (``context``, ``page_label`` and
``file_name`` visible to the LLM, element provenance kept out of prompts), scored with the fused
score Qdrant returns. Usable wherever LlamaIndex takes a retriever (``RetrieverQueryEngine``,
``RetrieverTool``, ``QueryFusionRetriever``...).
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
        index: an open ``StructureIndex`` (folder, server or in-process client); see :meth:`from_path`.
        similarity_top_k: number of units to return (LlamaIndex's default, 2, when omitted).
        mode, fusion, rrf_k, prefetch_limit, weights, budget_chars, group_size, min_score, rerank: the
            :class:`~structaware_retrievers.search.options.SearchOptions` fields of the same names
            (src/structaware_retrievers/search/options.py), with its defaults.
        expand: add each hit's evidence neighbourhood after it, marked ``metadata["expanded_from"]``
            (as are the rows of a table group).
        filters: LlamaIndex ``MetadataFilters`` (every operator but the text matches, nested
            ``and``/``or``/``not``) on the node metadata keys; the vector store gives the same units.
        callback_manager, verbose: as for every LlamaIndex retriever.

    Each node keeps the search's score, with its calibrated ``relevance`` in ``metadata``. For nodes
    found another way, rerank with ``llama_index.postprocessor.structaware.StructureAwareRerank``.

    Raises:
        UnsupportedFilterError: at construction, a filter operator Qdrant cannot evaluate (``text_match``).
        MalformedInputError: a filter value that cannot match (naming ``filter.<key>``;
            ``UnknownFilterError`` for a value outside a closed vocabulary, or at query time a key no
            unit carries), or a setting ``SearchOptions`` refuses, naming the argument.
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
