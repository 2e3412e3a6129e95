"""``StructureAwareRetriever``: a LangChain ``BaseRetriever`` over a structaware ``StructureIndex``.

Search runs inside Qdrant (dense + BM25 sparse prefetches fused by weighted RRF, with the defaults
of :mod:`structaware_retrievers.query.fusion` that every face uses, or DBSF, with the Query API, through
``StructureIndex.query``/``aquery``); each hit becomes a ``Document`` built by
:func:`langchain_structaware.documents.unit_to_document` with ``score`` and ``rank`` filled in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.prompts import BasePromptTemplate, PromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, create_retriever_tool
from pydantic import Field

from langchain_structaware.documents import unit_to_document
from structaware_retrievers.query.fusion import (
    DEFAULT_GROUP_SIZE,
    DEFAULT_MIN_SCORE,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
)
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import resolve_rerank

#: The retriever tool's default rendering of one result: a citation, then context and text.
DEFAULT_DOCUMENT_PROMPT = "[{citation}] {page_content}"

DEFAULT_TOOL_DESCRIPTION = (
    "Search the indexed documents for evidence: guideline sections, single table rows (with their "
    "column headers), flowchart steps and graded recommendations. Input: a question or keywords. "
    "Each result starts with [document, page] - cite it when you use the result."
)


def check_filter(value: Any, *, field: str = "filter") -> Any:
    """``value`` as given, once it compiles: a filter dict as Chroma and PGVector users write it
    (``{"unit_type": "table_row"}``, ``{"page": {"$gte": 4}}``, ``{"$or": [...]}``), a ``SearchFilter``,
    or ``None`` (:mod:`structaware_retrievers.query.filters`; the vector store reads the same dicts).

    Raises:
        UnsupportedFilterError: an operator Qdrant cannot evaluate (``$like``, ``$regex``), naming it.
        MalformedInputError: another type, or a value the filter cannot match, naming ``filter.<key>``.
    """
    from structaware_retrievers.query.filters import to_point_filter

    to_point_filter(value, field=field)
    return value


def hits_to_documents(hits: list[Any]) -> list[Document]:
    """``SearchHit`` list -> ``Document`` list (same order). A hit's group rows (other matched rows
    of its table) and neighbours (``expand=True``) follow it with the hit's score and rank and
    ``metadata["expanded_from"]`` = the hit's unit id; a unit already given is not repeated. Every
    document's ``metadata["relevance"]`` is its hit's calibrated relevance (in [0, 1], comparable
    across questions)."""
    from structaware_retrievers.search.evidence import evidence_units

    out: list[Document] = []
    for h, unit, via in evidence_units(hits):
        doc = unit_to_document(unit, score=float(h.score), rank=h.rank, relevance=h.relevance)
        if via is not None:
            doc.metadata["expanded_from"] = via
        out.append(doc)
    return out


class StructureAwareRetriever(BaseRetriever):
    """Retrieve evidence units from a ``StructureIndex`` with Qdrant-native hybrid fusion.

    ``k``, ``filter`` and ``rerank`` can be set in the constructor and overridden per call:
    ``retriever.invoke("query", k=3, filter={"unit_type": "table_row", "page": {"$gte": 4}}, rerank=False)``.

    Attributes:
        index: an open ``StructureIndex`` (see :meth:`from_path`).
        k: number of units to return (default 4).
        mode, fusion, rrf_k, prefetch_limit, weights, budget_chars, group_size, min_score, rerank: the
            :class:`~structaware_retrievers.search.options.SearchOptions` fields of the same names
            (src/structaware_retrievers/search/options.py), with its defaults.
        expand: add each hit's evidence neighbourhood after it, marked ``metadata["expanded_from"]``
            (as are the rows of a table group).
        filter: a filter dict as Chroma and PGVector users write them, on the document metadata keys
            (``$eq $ne $gt $gte $lt $lte $in $nin $all $contains $exists $between``, ``$and``/``$or``/``$not``),
            or a ``SearchFilter`` (:func:`check_filter`); the vector store gives the same documents for it.

    Each document carries the search's ``score``, its ``rank`` and its calibrated ``relevance`` in
    ``metadata``. For documents found another way, rerank with
    :class:`~langchain_structaware.compressor.StructureAwareRerank`.

    Raises:
        UnsupportedFilterError: a filter operator Qdrant cannot evaluate (at construction or per call).
        MalformedInputError: an invalid filter or ``rerank``, naming the field; ``UnknownFilterError``
            (a subclass) for a key no unit of the index carries or a value outside a closed vocabulary.
        IndexNotFoundError, StoreError: from the index at query time.
    """

    index: Any
    k: int = Field(default=4, ge=1)
    mode: Literal["hybrid", "dense", "sparse"] = "hybrid"
    fusion: Literal["rrf", "dbsf"] = "rrf"
    rrf_k: int = Field(default=DEFAULT_RRF_K, ge=1)
    prefetch_limit: int = Field(default=DEFAULT_PREFETCH_LIMIT, ge=1)
    weights: tuple[float, float] | None = None
    budget_chars: int | None = Field(default=None, ge=1)
    expand: bool = False
    group_size: int = Field(default=DEFAULT_GROUP_SIZE, ge=1)
    min_score: float = Field(default=DEFAULT_MIN_SCORE, ge=0.0, le=1.0)
    filter: Any = None
    rerank: Any = None

    def __init__(self, **kwargs: Any) -> None:
        # converted before pydantic validation, so a bad filter raises MalformedInputError itself
        if kwargs.get("filter") is not None:
            kwargs["filter"] = check_filter(kwargs["filter"])
        resolve_rerank(kwargs.get("rerank"))
        super().__init__(**kwargs)

    @classmethod
    def from_path(
        cls, path: str | Path, *, collection: str = "structaware", model_name: str | None = None, **kwargs: Any
    ) -> StructureAwareRetriever:
        """Open the ``StructureIndex`` stored in folder ``path`` and retrieve from it.

        ``model_name``: the dense model the index was built with, when not the default (a preset,
        a fastembed name or a local ONNX folder, as ``StructureAwareEmbeddings`` takes).

        Raises:
            ModelMismatchError: the index was built with another dense model (the message names it).
        """
        from structaware_retrievers.index.structure_index import open_index_folder

        fix = "StructureAwareRetriever.from_path(path, model_name={model!r}); or another path or collection"
        index = open_index_folder(path, collection=collection, model_name=model_name, fix=fix)
        return cls(index=index, **kwargs)

    def _options(self, k: int | None, filter: Any, rerank: Any = None) -> SearchOptions:
        """The search's options: the retriever's fields, with a call's ``k``, ``filter`` and ``rerank``."""
        changes = {"k": k, "filter": check_filter(filter) if filter is not None else None, "rerank": rerank}
        return SearchOptions.of(self, **{name: v for name, v in changes.items() if v is not None})

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: Any = None,
        rerank: Any = None,
    ) -> list[Document]:
        return hits_to_documents(self.index.query(query, self._options(k, filter, rerank)))

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        filter: Any = None,
        rerank: Any = None,
    ) -> list[Document]:
        return hits_to_documents(await self.index.aquery(query, self._options(k, filter, rerank)))

    def as_retriever_tool(
        self,
        name: str = "search_evidence",
        description: str = DEFAULT_TOOL_DESCRIPTION,
        *,
        document_prompt: BasePromptTemplate | str | None = None,
        document_separator: str = "\n\n",
    ) -> BaseTool:
        """A tool for agents: ``create_retriever_tool(..., response_format="content_and_artifact")``.

        The tool's content (what the model reads) renders each unit as
        ``[<doc_name>, p. <page>] <context>\\n<text>`` by default, so an answer can cite pages;
        its artifact (kept on the ``ToolMessage``, not sent to the model) is the list of
        ``Document``\\ s with the full provenance (unit id, pages, element ids, bboxes).

        Args:
            name, description: what the model sees of the tool.
            document_prompt: a template over ``page_content`` and any key of
                ``documents.METADATA_KEYS`` (all are always present, so it never raises).
            document_separator: between rendered units.
        """
        prompt = document_prompt or DEFAULT_DOCUMENT_PROMPT
        if isinstance(prompt, str):
            prompt = PromptTemplate.from_template(prompt)
        return create_retriever_tool(
            self,
            name,
            description,
            document_prompt=prompt,
            document_separator=document_separator,
            response_format="content_and_artifact",
        )
