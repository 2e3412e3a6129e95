"""``StructureIndex``: the front class. Ingest documents as evidence units, query them, delete them.

One index = one Qdrant collection plus an embedding cache, in an embedded Qdrant Edge folder
(default), on a Qdrant server (``url=``) or through a ready ``QdrantClient`` (``client=``). Writes
are atomic per document, even across ``kill -9`` (:mod:`~structaware_retrievers.index.commit`). The
class picks the backend and hands every call on to :class:`~structaware_retrievers.index.writer.IndexWriter`,
:func:`~structaware_retrievers.index.ingest.run_ingest` and :class:`~structaware_retrievers.search.searcher.IndexSearcher`.

Folder layout of the embedded backend::

    <path>/<collection>/shard/            Qdrant Edge data
    <path>/<collection>/collection.json   the index config (encoders, dims, schema version)
    <path>/embeddings.sqlite              dense + sparse vectors by content hash
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from structaware_readers.common.inputs import expand_inputs
from structaware_readers.errors import MalformedInputError, ModelMismatchError, StoreError
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
    """A searchable index of structure-aware evidence units.

    Opening never creates anything: the collection is created by the first write. On a folder, one
    writer at a time and many readers (:mod:`structaware_retrievers.store.locking`).

    Args:
        path: index folder for the embedded backend (default ``$STRUCTAWARE_INDEX`` or
            ``./.structaware/index``); with ``url``/``client`` it only holds the embedding cache.
        url: a Qdrant server or cluster (qdrant-client); ``api_key`` its key.
        client: an existing ``QdrantClient`` (e.g. ``QdrantClient(":memory:")``); not closed by :meth:`close`.
        collection: collection name (a sub-folder name for the embedded backend).
        dense: the dense encoder (default :class:`DenseEncoder`); ``sparse`` likewise (:class:`SparseEncoder`).
        store: a ready :class:`VectorStore` (overrides path/url/client for the vectors).

    Attributes:
        store, dense, sparse, path, collection: as given or chosen (``path`` ``None`` for a server without one).
        writer: the :class:`~structaware_retrievers.index.writer.IndexWriter` behind every write.
        searcher: the :class:`~structaware_retrievers.search.searcher.IndexSearcher` behind every read.

    Raises:
        StoreError: both ``url`` and ``client`` given; encoder/config mismatch (with the fix); folder
            in use by another process.
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

        Idempotent and atomic: unchanged units skip the write (``skipped=True``); everything is
        embedded before anything is written; stale points of this document (or of an older version of
        the same ``source``) are removed; a failed write is rolled back. Returns an :class:`IngestReport`.

        Raises:
            EmptyDocumentError: ``units`` is empty.
            MalformedInputError: a unit belongs to another document, or ids repeat.
            StoreError: the write failed (after rollback), or the collection does not fit the encoders.
            ModelUnavailableError: the dense model cannot be loaded (nothing written).
        """
        return self.writer.add_document(doc, units)

    def ingest(
        self,
        paths: str | Path | Iterable[str | Path],
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

        A failing input does not stop the others: it is recorded in ``summary.failed``
        (``summary.raise_for_errors()`` turns failures into an :class:`IngestError`). An input whose
        content and ingest settings are unchanged since it was indexed here is skipped before parsing;
        a changed one re-embeds only the units whose text changed (details:
        :mod:`structaware_retrievers.index.ingest`).

        Args:
            paths: a file or folder, or several (PDFs, MinerU outputs, Unstructured JSON), expanded by
                :func:`expand_inputs`.
            reading_order: passed to ``structaware_readers.load.loader.load_document``.
            progress: tqdm bars on stderr (pages parsed, units indexed) when it is a terminal.
            unit_options: a :class:`~structaware_readers.units.options.UnitOptions` (``None``: its defaults).
            optimize: optimise the embedded shard at the end when anything was written.
            reparse: read every input even when unchanged (``structaware ingest --force``).
            overlap: read the next inputs while this one embeds (PDFs in ``workers`` processes); same result.
            workers: PDF parse processes with ``overlap`` (default: one per core).
            log: receives each written document's warnings, a few lines per document (e.g. ``print``).

        Returns:
            an :class:`IngestSummary` (documents, units, skipped_unchanged, failed, seconds, embedding_seconds).
        """
        from structaware_retrievers.index.ingest import run_ingest

        if isinstance(paths, (str, Path)):  # one path, not its characters
            paths = [paths]
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
            text: the question (the dense model reads its first 256 word pieces).
            options: a :class:`~structaware_retrievers.search.options.SearchOptions`, which documents
                every knob (``None``: its defaults, ``k=10``).
            **overrides: any field of ``SearchOptions`` (``k``, ``mode``, ``filter``, ``min_score``...).

        Returns:
            up to ``k`` :class:`SearchHit` with 1-based ranks; fewer when the filter, the budget or
            ``min_score`` leaves fewer. A question with no BM25 term searches dense alone in hybrid
            mode, as does a mostly CJK question when the dense model does not cover those languages.

        Raises:
            IndexNotFoundError: the index does not exist or is empty.
            MalformedInputError: empty text, a bad option or filter (naming its field), or a question
                with no BM25 term in ``"sparse"`` mode.
            TypeError: a keyword that is not a field of ``SearchOptions``.
        """
        return self.searcher.query(text, search_options(options, overrides))

    async def aquery(self, text: str, options: SearchOptions | None = None, **overrides: Any) -> list[SearchHit]:
        """Async :meth:`query`: query embedding in a worker thread; the search through
        ``AsyncQdrantClient`` for a server, in a worker thread otherwise. Same arguments and errors."""
        return await self.searcher.aquery(text, search_options(options, overrides))

    def rerank(self, text: str, unit_ids: list[str], rerank: RerankLike = True) -> list[tuple[str, float]]:
        """Re-order units of this index found by another search (a framework's postprocessor).

        Args:
            text: the question.
            unit_ids: the candidates' ``unit_id`` (duplicates count once).
            rerank: ``True``/``None`` the default options, or a ``Rerank`` (its ``pool`` is not used).

        Returns:
            ``(unit_id, score)`` best first; the score is in [0, 1] relative to the best (an order, not a threshold).

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
    try:
        dense = DenseEncoder(model_name=model_name) if model_name else None
        return StructureIndex(path, collection=collection, dense=dense)
    except ModelMismatchError as exc:
        raise exc.with_fix(fix.format(model=exc.stored_model)) from None
