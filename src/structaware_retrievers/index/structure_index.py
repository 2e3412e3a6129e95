"""``StructureIndex``: the front class. Ingest documents as evidence units, query them, delete them.

One index = one Qdrant collection (see :mod:`structaware_retrievers.store.base` for its layout)
plus an embedding cache. Backends, chosen once in the constructor:

* default: an embedded Qdrant Edge shard in a folder (``path``; else ``$STRUCTAWARE_INDEX``; else
  ``./.structaware/index``). Folder layout::

      <path>/<collection>/shard/            Qdrant Edge data
      <path>/<collection>/collection.json   the index config (encoders, dims, schema version)
      <path>/embeddings.sqlite              dense + sparse vectors by content hash

  One writer at a time, many readers: a writer takes the folder's write lock before any work;
  Qdrant Edge lets one process open the shard at a time, so readers wait for it (a writer holds it
  only while it writes a document); see :mod:`structaware_retrievers.store.locking`.
* ``url=`` (+ ``api_key=``): a Qdrant server or cluster through qdrant-client; the config is kept
  in the collection's metadata; the embedding cache lives in ``path`` if given, else in the user
  cache folder.
* ``client=``: an existing ``QdrantClient`` (e.g. ``QdrantClient(":memory:")`` for tests).

Writes are idempotent and atomic per document (:meth:`StructureIndex.add_document`): unit ids are
deterministic (UUIDv5 of the document hash and the unit's place), everything is embedded before
anything is written, and a document becomes visible to queries only when all its points are
written, even across ``kill -9`` (:mod:`structaware_retrievers.index.commit`; the next writer repairs an
interrupted write).

This class is the front only: it picks the backend and hands every call on to

* :class:`~structaware_retrievers.index.writer.IndexWriter` (:attr:`StructureIndex.writer`): one
  document in or out, the config check, the repair of an interrupted write, the writer lock;
* :func:`~structaware_retrievers.index.ingest.run_ingest`: many inputs read and written through the writer;
* :class:`~structaware_retrievers.search.searcher.IndexSearcher` (:attr:`StructureIndex.searcher`): a
  query, its fusion inside Qdrant, table grouping, expansion and the character budget.

The result models (:class:`SearchHit`, :class:`IngestReport`, :class:`IngestSummary`, ...) live in
:mod:`structaware_retrievers.search.results` and are importable from here too.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from structaware_readers.common.inputs import expand_inputs
from structaware_readers.errors import MalformedInputError, StoreError
from structaware_readers.models import ParsedDocument, Unit
from structaware_retrievers.encoders import DenseEncoder, SparseEncoder
from structaware_retrievers.index.paths import DEFAULT_INDEX_PATH, ENV_INDEX, default_index_path  # noqa: F401 - served by the package
from structaware_retrievers.index.writer import INDEX_FORMAT, IndexWriter  # noqa: F401 - served by the package
from structaware_retrievers.query.filters import FilterLike
from structaware_retrievers.search.options import SearchOptions, search_options
from structaware_retrievers.search.rerank import RerankLike, resolve_rerank
from structaware_retrievers.search.results import IngestError, IngestFailure, IngestReport, IngestSummary, SearchHit
from structaware_retrievers.search.searcher import IndexSearcher
from structaware_retrievers.store.base import VectorStore

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from structaware_readers.units.options import UnitOptions

__all__ = [
    "DEFAULT_INDEX_PATH",
    "IngestError",
    "IngestFailure",
    "IngestReport",
    "IngestSummary",
    "SearchHit",
    "StructureIndex",
    "expand_inputs",
    "open_index_folder",
]

class StructureIndex:
    """A searchable index of structure-aware evidence units (paper sections 2.3-2.4).

    Args:
        path: index folder for the embedded backend (default ``$STRUCTAWARE_INDEX`` or
            ``./.structaware/index``); with ``url``/``client`` it only holds the embedding cache.
        url, api_key: a Qdrant server or cluster (qdrant-client).
        client: an existing ``QdrantClient`` (e.g. ``QdrantClient(":memory:")``); not closed by
            :meth:`close`.
        collection: collection name (a sub-folder name for the embedded backend).
        dense, sparse: encoders (default :class:`DenseEncoder` / :class:`SparseEncoder`). An
            encoder without a cache gets the index's persistent one.
        store: a ready :class:`VectorStore` (overrides path/url/client for the vectors).

    Opening never creates anything: the collection is created by the first write. Opening an
    existing index whose config names other encoders raises :class:`StoreError` with the fix.

    Attributes:
        store: the backend (:class:`VectorStore`); dense, sparse: the encoders; path: the index
            folder (``None`` for a server or client without ``path``); collection: its name.
        writer: the :class:`~structaware_retrievers.index.writer.IndexWriter` behind every write.
        searcher: the :class:`~structaware_retrievers.search.searcher.IndexSearcher` behind every read.

    Raises:
        StoreError: both ``url`` and ``client`` given; encoder/config mismatch; folder in use by
            another process.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        url: str | None = None,
        api_key: str | None = None,
        client: QdrantClient | None = None,
        collection: str = "structaware",
        dense: DenseEncoder | None = None,
        sparse: SparseEncoder | None = None,
        store: VectorStore | None = None,
    ) -> None:
        if url is not None and client is not None:
            raise StoreError("give url= or client=, not both", field="StructureIndex")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", collection):
            raise MalformedInputError("use letters, digits, '_', '-', '.' only", field="collection")
        self.collection = collection
        self.path: Path | None
        if store is not None:
            self.store = store
            self.path = Path(path) if path is not None else None
        elif url is not None or client is not None:
            from structaware_retrievers.store.client import ClientStore

            self.store = ClientStore(collection, client=client, url=url, api_key=api_key)
            self.path = Path(path) if path is not None else None
        else:
            from structaware_retrievers.store.edge import EdgeStore

            self.path = Path(path) if path is not None else default_index_path()
            self.store = EdgeStore(self.path / collection)
        self.dense = dense if dense is not None else DenseEncoder()
        self.sparse = sparse if sparse is not None else SparseEncoder()
        self.writer = IndexWriter(self.store, self.dense, self.sparse, collection=collection, path=self.path)
        self.searcher = IndexSearcher(self.store, self.dense, self.sparse, collection=collection)
        if self.store.exists():
            self.writer.check_config()
            self.writer.repair_if_no_writer()

    # -- writes: IndexWriter, ingest_pipeline ------------------------------------------------
    def config(self) -> dict[str, Any]:
        """The config this index writes into a new collection (and checks on open)."""
        return self.writer.config()

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """The writer lock: one writer per index at a time, across processes for a folder index
        (:mod:`structaware_retrievers.store.locking`; waits up to ``$STRUCTAWARE_LOCK_TIMEOUT`` s).
        Re-entrant; :meth:`ingest`, :meth:`add_document` and :meth:`delete_document` take it.

        Raises:
            StoreError: another process held it past the timeout, or the folder is read-only.
        """
        return self.writer.writing()

    def add_document(self, doc: ParsedDocument, units: Sequence[Unit]) -> IngestReport:
        """Index one document's units, replacing whatever the index held for it.

        Idempotent and atomic per document (the steps: :meth:`IndexWriter.add_document
        <structaware_retrievers.index.writer.IndexWriter.add_document>`): nothing is done when the
        index already holds exactly these units (``skipped=True``); everything is embedded before
        anything is written; points of this ``doc_id`` not in the new set, and points of the same
        ``source`` path under another ``doc_id`` (an older version of the file), are removed; a
        failed write is rolled back for this document and other documents are never touched.

        Returns:
            an :class:`IngestReport`.

        Raises:
            EmptyDocumentError: ``units`` is empty.
            MalformedInputError: a unit belongs to another document, or ids repeat.
            StoreError: the write failed (after rollback), or the collection does not fit the encoders.
            ModelUnavailableError: the dense model cannot be loaded (nothing written).
        """
        return self.writer.add_document(doc, units)

    def ingest(
        self,
        paths: Iterable[str | Path],
        *,
        reading_order: Literal["auto", "parser", "layout"] = "auto",
        progress: bool = False,
        unit_options: UnitOptions | None = None,
        optimize: bool = True,
        reparse: bool = False,
        overlap: bool = True,
        workers: int | None = None,
        log: Callable[[str], None] | None = None,
    ) -> IngestSummary:
        """Read, unit-build and index every document under ``paths``.

        ``paths`` are expanded with :func:`expand_inputs` (folders of PDFs, MinerU outputs and
        Unstructured JSON). Each input goes through ``structaware_readers.load.loader.load_document``
        (with ``reading_order``), ``structaware_readers.units.build_units`` (with ``unit_options``, a
        :class:`~structaware_readers.units.options.UnitOptions`; ``None``: its defaults)
        and :meth:`add_document`. A failing input does not stop the others: its error is recorded
        in ``summary.failed`` and the summary is returned; call ``summary.raise_for_errors()`` to
        turn failures into an :class:`IngestError`. ``log`` (e.g. ``print``) receives each written
        document's warnings, a few lines per document (``reports[i].warnings`` holds them all).

        Speed (details in :mod:`structaware_retrievers.index.ingest`):

        * an input of any kind (PDF, MinerU file/folder/zip, Unstructured JSON) whose content hash
          and ingest settings (``reading_order``, ``unit_options``, package and schema version,
          encoders, whether pdfplumber can rebuild table grids, MinerU's version) are unchanged
          since it was indexed here, and whose units are still in the index, is skipped **before
          parsing** (``reports[i].skipped``); so is a PDF whose ``doc_id`` is in the index (unless
          every ingest of it recorded here had other settings).
          ``reparse=True`` reads every input anyway (``structaware ingest --force``);
        * a changed input re-embeds only the units whose text changed (embedding cache);
        * ``overlap=True`` reads the next inputs while this one embeds: PDFs in ``workers`` parse
          processes (default: one per core; MinerU's imports paid once per process, ``workers``
          PDFs parsed at once), parser outputs in a thread; the result is the same as with
          ``overlap=False`` (everything on the caller's thread, in order);
        * each document is written under the writer lock, taken per document, so several
          processes can ingest parts of a library into one index at once;
        * ``progress=True`` shows two tqdm bars on stderr when it is a terminal (pages parsed,
          with an ETA, and units indexed); none when stderr is a file or a pipe.

        With the embedded backend the shard is optimised at the end (HNSW build, vacuum) when
        anything was written and ``optimize`` is true.

        Returns:
            an :class:`IngestSummary` (documents, units, skipped_unchanged, failed, seconds, embedding_seconds).
        """
        from structaware_retrievers.index.ingest import run_ingest

        return run_ingest(
            self.writer,
            paths,
            reading_order=reading_order,
            progress=progress,
            unit_options=unit_options,
            optimize=optimize,
            reparse=reparse,
            overlap=overlap,
            workers=workers,
            log=log,
        )

    def delete_document(self, doc_id: str) -> int:
        """Delete every unit of ``doc_id``; return how many were deleted (0 if none or no index)."""
        return self.writer.delete_document(doc_id)

    def optimize(self) -> None:
        """Optimise the store (embedded backend: build HNSW indexes, vacuum deleted points)."""
        if self.store.exists():
            self.store.optimize()

    # -- reads: IndexSearcher --------------------------------------------------------------
    def query(self, text: str, options: SearchOptions | None = None, **overrides: Any) -> list[SearchHit]:
        """Search the index; best first.

        ``index.query(text, k=5, mode="sparse")`` and ``index.query(text, SearchOptions(k=5, mode="sparse"))``
        search alike; keywords given with ``options`` change those fields of it.

        Args:
            text: the question (any length; the dense model reads its first 256 word pieces).
            options: a :class:`~structaware_retrievers.search.options.SearchOptions` (default: its
                defaults, ``k=10``); ``overrides``: any of its fields, below.
            k: number of hits to return (with ``budget_chars``: candidates considered).
            mode: ``"hybrid"`` (dense + BM25 fused inside Qdrant), ``"dense"`` or ``"sparse"`` (BM25).
            fusion: ``"rrf"`` (reciprocal rank fusion, paper 2.4) or ``"dbsf"`` (distribution-based).
            rrf_k: the RRF constant (:data:`~structaware_retrievers.query.fusion.DEFAULT_RRF_K`).
            prefetch_limit: candidates fetched per vector before fusion (at least ``k`` are used).
            filter: payload filter applied inside each prefetch and to the fused result: a
                :class:`~structaware_retrievers.query.filters.SearchFilter`, a filter dict or a
                ``FilterGroup`` (the filter language of :mod:`structaware_retrievers.query.filters`).
                Units that are not evidence (``reference``, ``front_matter``) are left out unless
                the filter names unit types (``{"unit_type": "reference"}`` finds bibliography
                entries; :func:`~structaware_retrievers.query.filters.evidence_default`).
            weights: (dense, BM25) RRF weights, positive (``None``: :data:`~structaware_retrievers.query.fusion.DEFAULT_WEIGHTS`, chosen
                on the development benchmark); DBSF ignores them.
            budget_chars: return only the best hits whose units (``context + "\n" + text``, and
                their neighbours with ``expand``) fit this many characters together: hits in rank
                order, each skipped when it no longer fits (:func:`evidence.fit_budget`).
            expand: attach each hit's evidence neighbourhood (``SearchHit.neighbours``: adjacent
                table rows, the parent section's lead sentence of a recommendation, neighbouring
                flow edges, adjacent section parts; :mod:`structaware_retrievers.search.evidence`).
            group_size: merge rows of one table into one hit: the best row plus up to
                ``group_size - 1`` other matched rows of its table in ``SearchHit.group`` (past the
                second, only rows of at most ``fusion.GROUP_SHORT_ROW_CHARS`` characters), taken
                from the top ``max(k, prefetch_limit)`` fused candidates
                (:func:`evidence.group_table_rows`); 1 turns grouping off.
            rerank: the second stage (:mod:`structaware_retrievers.search.rerank`), which re-orders the first
                hits by their own dense and BM25 scores and their coverage of the question: ``None``
                (default) on for a hybrid search with the default options and off for a dense or sparse
                one, ``True`` on with the default options, a :class:`~structaware_retrievers.search.rerank.Rerank`
                for others, ``False`` off (the fused order). It changes the order of the first
                ``Rerank.pool`` hits, not which hits they are nor their ``score``.
            min_score: the calibrated relevance (``SearchHit.relevance``, in [0, 1], comparable across
                questions: :mod:`structaware_retrievers.search.calibration`) a hit and each row grouped with it
                must reach; the others are dropped, so a question the library does not answer gets no
                hit. Default :data:`~structaware_retrievers.query.fusion.DEFAULT_MIN_SCORE` (0.5); 0 or
                ``None`` keeps every hit (each still carries its relevance).

        Returns:
            up to ``k`` :class:`SearchHit` with 1-based ranks. Fewer (or none) when the filter leaves
            fewer units, the budget is spent, or hits fall under ``min_score``. A query with no BM25 terms (only stop words or
            punctuation) searches the dense vector alone in hybrid mode (an error in sparse mode); in hybrid
            mode a query mostly in Chinese, Japanese or Korean searches BM25 alone when the dense
            model does not cover those languages (``DenseEncoder.languages``).

        Raises:
            IndexNotFoundError: the index does not exist or is empty.
            MalformedInputError: empty text, ``options`` not a ``SearchOptions``, a bad field (naming it), a
                bad filter (``UnsupportedFilterError``
                naming an operator Qdrant cannot evaluate; ``UnknownFilterError`` for a key no unit of the
                index carries or a value outside a closed vocabulary), a question with no BM25 term in
                ``"sparse"`` mode.
            TypeError: a keyword that is not a field of ``SearchOptions``.
        """
        return self.searcher.query(text, search_options(options, overrides))

    async def aquery(self, text: str, options: SearchOptions | None = None, **overrides: Any) -> list[SearchHit]:
        """Async :meth:`query`: query embedding in a worker thread; the search through
        ``AsyncQdrantClient`` for a server, in a worker thread otherwise. Same arguments and errors."""
        return await self.searcher.aquery(text, search_options(options, overrides))

    def rerank(self, text: str, unit_ids: list[str], rerank: RerankLike = True) -> list[tuple[str, float]]:
        """The second stage (:mod:`structaware_retrievers.search.rerank`) over units of this index found by
        another search (a LlamaIndex node postprocessor's nodes, a LangChain document compressor's
        documents): their ids re-ordered, best first, each with its stage score (in [0, 1], relative
        to the best of them: an order, not a threshold).

        Args:
            text: the question.
            unit_ids: the candidates' ``unit_id`` (duplicates count once).
            rerank: ``True``/``None`` the default options, a :class:`~structaware_retrievers.search.rerank.Rerank`
                for others (its ``pool`` is not used: every candidate is re-ordered).

        Raises:
            IndexNotFoundError: the index does not exist or is empty.
            MalformedInputError: empty text, ``rerank=False``, or ids no unit of the index has.
        """
        options = resolve_rerank(rerank)
        if options is None:
            raise MalformedInputError("must be True or a Rerank to re-order candidates, got False", field="rerank")
        return self.searcher.rerank_units(text, list(unit_ids), options)

    def count(self, filter: FilterLike = None) -> int:
        """Number of units matching ``filter`` (all units when ``None``); 0 when there is no index."""
        return self.searcher.count(filter)

    def documents(self) -> list[dict[str, Any]]:
        """One dict per indexed document: ``doc_id``, ``doc_name``, ``source``, ``units`` (count),
        sorted by name then id. ``[]`` when there is no index."""
        return self.searcher.documents()

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        """Flush and release the store, the embedding cache and the ingest ledger."""
        self.store.close()
        self.writer.close()

    def __enter__(self) -> StructureIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"StructureIndex({self.store!r}, dense={self.dense!r}, sparse={self.sparse!r})"


def open_index_folder(
    path: str | Path, *, collection: str = "structaware", model_name: str | None = None, fix: str
) -> StructureIndex:
    """Open the index stored in folder ``path`` as a framework face's ``from_path`` does.

    Args:
        model_name: the dense model the index was built with, when not the default (a preset, a
            fastembed name or a local ONNX folder, as ``DenseEncoder`` takes).
        fix: what the face's users do about another model, with ``{model}`` for the model that
            built the index (``"StructureAwareRetriever.from_path(path, model_name={model!r})"``).

    Raises:
        ModelMismatchError: the index was built with another dense model; the message names it and
            gives ``fix``.
    """
    from structaware_readers.errors import ModelMismatchError

    try:
        dense = DenseEncoder(model_name=model_name) if model_name else None
        return StructureIndex(path, collection=collection, dense=dense)
    except ModelMismatchError as exc:
        raise exc.with_fix(fix.format(model=exc.stored_model)) from None
