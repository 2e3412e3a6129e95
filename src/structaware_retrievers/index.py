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
  only while it writes a document); see :mod:`structaware_retrievers.locking`.
* ``url=`` (+ ``api_key=``): a Qdrant server or cluster through qdrant-client; the config is kept
  in the collection's metadata; the embedding cache lives in ``path`` if given, else in the user
  cache folder.
* ``client=``: an existing ``QdrantClient`` (e.g. ``QdrantClient(":memory:")`` for tests).

Writes are idempotent and atomic per document (:meth:`StructureIndex.add_document`): unit ids are
deterministic (UUIDv5 of the document hash and the unit's place), everything is embedded before
anything is written, and a document becomes visible to queries only when all its points are
written, even across ``kill -9`` (:mod:`structaware_retrievers.commit`; the next writer repairs an
interrupted write).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from structaware_readers.errors import (
    EmptyDocumentError,
    IndexNotFoundError,
    MalformedInputError,
    StoreError,
    StructawareError,
)
from structaware_readers.models import SCHEMA_VERSION, ParsedDocument, Unit
from structaware_retrievers.commit import recover, write_document
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.filters import Match, PointFilter, SearchFilter
from structaware_retrievers.fusion import DEFAULT_GROUP_SIZE, DEFAULT_PREFETCH_LIMIT, DEFAULT_RRF_K, DEFAULT_WEIGHTS
from structaware_retrievers.index_paths import DEFAULT_INDEX_PATH, ENV_INDEX, default_index_path  # noqa: F401
from structaware_retrievers.locking import folder_lock
from structaware_retrievers.model_assets import cache_dir
from structaware_retrievers.store.base import PointRecord, ScoredRecord, VectorStore

if TYPE_CHECKING:
    from qdrant_client import QdrantClient

    from structaware_retrievers.ingest_ledger import IngestLedger

__all__ = [
    "DEFAULT_INDEX_PATH",
    "IngestError",
    "IngestFailure",
    "IngestReport",
    "IngestSummary",
    "SearchHit",
    "StructureIndex",
    "expand_inputs",
]

log = logging.getLogger(__name__)

#: Version of the index layout/config written by this module.
INDEX_FORMAT = "1"

Mode = Literal["hybrid", "dense", "sparse"]
FusionName = Literal["rrf", "dbsf"]


class SearchHit(BaseModel):
    """One search result: the full unit, its score and its 1-based rank.

    ``score`` is, higher being better: for hybrid RRF, the sum over the two prefetches of
    ``1 / (r / w + rrf_k - 1)`` with ``r`` the 1-based rank in that prefetch (Qdrant's definition;
    ``w`` = 1.001 for dense, 1 for BM25, a deterministic tie-break: see ``store/base.py``), so a
    unit first in both lists scores about ``2 / rrf_k``;
    for hybrid DBSF, the sum of each prefetch's scores normalised by mean +- 3 standard deviations;
    for dense search, the cosine similarity; for sparse search, the BM25 score (TF weight x IDF).
    """

    unit: Unit
    score: float
    rank: int = Field(ge=1)
    #: the unit's evidence neighbourhood when the query asked for ``expand=True`` (adjacent table
    #: rows, the parent section's lead sentence, neighbouring flow edges, adjacent section parts;
    #: see :mod:`structaware_retrievers.evidence`), in document order; empty otherwise
    neighbours: list[Unit] = Field(default_factory=list)
    #: other matched rows of the hit's table (``group_size`` > 1 and a ``table_row`` hit), best
    #: first: rows that ranked below the hit among the fused candidates (see
    #: :func:`structaware_retrievers.evidence.group_table_rows`); empty otherwise
    group: list[Unit] = Field(default_factory=list)

    def to_record(self, unit: Unit | None = None) -> dict[str, Any]:
        """A flat JSON-safe dict (``structaware serve``; the fields of ``structaware query --json``): ``rank``,
        ``score``, ``unit_type``, ``unit_id``, ``doc``, ``doc_id``, ``pages`` (1-based), ``element_ids``,
        ``bboxes`` (0..1 of the page, origin top-left), ``element_pages`` (the 1-based page of each
        element and bbox), ``context``, ``text``, ``grade`` (or ``None``), ``group_unit_ids`` (the unit ids
        of the table-group rows the record holds after its own, best first; ``[]`` for none).

        ``unit``: one of :attr:`neighbours`, recorded under this hit's rank and score (default: the unit
        the hit hands over, :func:`~structaware_retrievers.evidence.hit_unit`: with its table-group rows).
        """
        group = self.group if unit is None else []
        if unit is None:
            from structaware_retrievers.evidence import hit_unit

            unit = hit_unit(self)
        u = unit
        return {
            "rank": self.rank,
            "score": self.score,
            "unit_type": u.unit_type.value,
            "unit_id": u.unit_id,
            "doc": u.doc_name,
            "doc_id": u.doc_id,
            "pages": u.pages,
            "element_ids": u.element_ids,
            "bboxes": u.bboxes,
            "element_pages": u.element_pages,
            "context": u.context,
            "text": u.text,
            "grade": u.grade.model_dump() if u.grade else None,
            "group_unit_ids": [g.unit_id for g in group],
        }


class IngestReport(BaseModel):
    """What :meth:`StructureIndex.add_document` did for one document.

    Attributes:
        doc_id, doc_name, source: the document.
        units: number of units given.
        skipped: the index already held exactly these units for this document: nothing written.
        written: points upserted.
        removed_stale: points of this ``doc_id`` that are not in the new unit set.
        removed_old_versions: points of the same ``source`` path under another ``doc_id``
            (an older version of the file).
        embedded: texts the dense encoder actually ran (cache misses).
        seconds: wall time of the call; embed_seconds: of which embedding (dense + sparse).
        warnings: the document's ``ParsedDocument.warnings`` (problems met while reading it that
            did not stop it, each naming its page and element).
    """

    doc_id: str
    doc_name: str = ""
    source: str = ""
    units: int
    skipped: bool = False
    written: int = 0
    removed_stale: int = 0
    removed_old_versions: int = 0
    embedded: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    warnings: list[str] = Field(default_factory=list)


class IngestFailure(BaseModel):
    """One input that could not be ingested: its path, the error class name and message."""

    path: str
    error_type: str
    message: str


class IngestError(StructawareError, RuntimeError):
    """Raised by :meth:`IngestSummary.raise_for_errors` when some inputs failed."""

    def __init__(self, failures: list[IngestFailure]):
        self.failures = failures
        lines = "; ".join(f"{f.path}: {f.error_type}: {f.message}" for f in failures[:5])
        more = f" (+{len(failures) - 5} more)" if len(failures) > 5 else ""
        super().__init__(f"{len(failures)} input(s) failed: {lines}{more}", field="ingest")


class IngestSummary(BaseModel):
    """Result of :meth:`StructureIndex.ingest`.

    Attributes:
        documents: documents written (new or changed).
        units: units written.
        skipped_unchanged: documents already indexed with identical units.
        failed: inputs that failed (the others were still ingested).
        seconds: total wall time; embedding_seconds: of which embedding.
        reports: one :class:`IngestReport` per document that was read.
    """

    documents: int = 0
    units: int = 0
    skipped_unchanged: int = 0
    failed: list[IngestFailure] = Field(default_factory=list)
    seconds: float = 0.0
    embedding_seconds: float = 0.0
    reports: list[IngestReport] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failed

    def raise_for_errors(self) -> None:
        """Raise :class:`IngestError` listing the failed inputs, if any."""
        if self.failed:
            raise IngestError(self.failed)


# --------------------------------------------------------------------------------------------
# input expansion
# --------------------------------------------------------------------------------------------

_PARSER_OUTPUT_FILE = re.compile(r"(content_list|middle|structured_content|model_output).*\.json$|^layout\.json$", re.IGNORECASE)
_DOC_SUFFIXES = {".pdf", ".json", ".zip"}


def _is_parser_output_dir(folder: Path) -> bool:
    """A MinerU output folder: it directly holds a content_list / middle / layout JSON."""
    try:
        return any(p.is_file() and _PARSER_OUTPUT_FILE.search(p.name) for p in folder.iterdir())
    except OSError:
        return False


def expand_inputs(paths: Iterable[str | Path]) -> list[Path]:
    """Turn the paths given to ``ingest`` into one path per document, in a stable order.

    * A file is one document (the loader decides what it is by content).
    * A MinerU output folder (it directly holds a ``*content_list*.json``, ``*middle*.json``,
      ``layout.json``, ``structured_content.json`` or ``model_output.json``) is one document.
    * Any other folder is searched recursively (sorted, hidden entries skipped) for ``.pdf``,
      ``.json`` and ``.zip`` files and MinerU output folders. A PDF ``x.pdf`` is skipped when a
      MinerU output for it was found under a sibling folder ``x/`` (MinerU's own layout
      ``x/auto/...``), so a document is not indexed twice.
    * A path that does not exist is passed through; reading it fails with ``InputNotFoundError``
      and is reported as a failure of that input.
    """
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)

    def walk(folder: Path) -> list[Path]:
        if _is_parser_output_dir(folder):
            return [folder]
        children = sorted(c for c in folder.iterdir() if not c.name.startswith("."))
        found: dict[Path, list[Path]] = {c: walk(c) for c in children if c.is_dir()}
        for c in children:
            if c.is_file() and c.suffix.lower() in _DOC_SUFFIXES:
                if c.suffix.lower() == ".pdf" and found.get(c.with_suffix("")):
                    continue  # its parser output was found in the sibling folder
                found[c] = [c]
        return [p for c in children for p in found.get(c, [])]

    for raw in paths:
        p = Path(raw).expanduser()
        if p.is_dir():
            for q in walk(p):
                add(q)
        else:
            add(p)
    return out


# --------------------------------------------------------------------------------------------
# the index
# --------------------------------------------------------------------------------------------


_write_locks: dict[str, threading.RLock] = {}
_write_locks_guard = threading.Lock()


def _write_lock(location: str) -> threading.RLock:
    """One writer lock per store location, shared by every index object of the process."""
    with _write_locks_guard:
        return _write_locks.setdefault(location, threading.RLock())


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
        self._cache: EmbeddingCache | None = None
        self._ingest_ledger: IngestLedger | None = None
        self._write_lock = _write_lock(self.store.location)
        folder = getattr(self.store, "folder", None)  # a folder index: writers of other processes too
        self._folder_writer = folder_lock(folder, "write") if isinstance(folder, Path) else None
        if self.store.exists():
            self._check_config()
            self._repair_if_no_writer()

    # -- config ----------------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        """The config this index writes into a new collection (and checks on open)."""
        return {
            "format": INDEX_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "collection": self.collection,
            "dense": {"model_name": self.dense.model_name, "model_id": self.dense.model_id, "dim": self.dense.dim},
            "sparse": {"model_name": self.sparse.model_name, "model_id": self.sparse.model_id},
        }

    def _check_config(self) -> None:
        where = self.store.location
        meta = self.store.metadata()
        if not meta or "dense" not in meta:
            raise StoreError(
                "this collection was not created by structaware (no index config); use another collection name",
                path=where,
                field="metadata",
            )
        stored_dense, stored_sparse = meta.get("dense", {}), meta.get("sparse", {})
        if stored_dense.get("model_id") != self.dense.model_id:
            raise StoreError(
                f"the index was built with dense model {stored_dense.get('model_name')!r}"
                f" (id {stored_dense.get('model_id')}), not {self.dense.model_id}. Fix: open it with"
                f" DenseEncoder(model_name={stored_dense.get('model_name')!r}) (or the same model_path=), or set"
                f" STRUCTAWARE_DENSE_MODEL to it; or ingest into a new index folder/collection",
                path=where,
                field="dense.model_id",
            )
        if int(stored_dense.get("dim", -1)) != self.store.dense_dim():
            raise StoreError(
                "index config and collection disagree on the dense dimension", path=where, field="dense.dim"
            )
        if stored_sparse.get("model_id") != self.sparse.model_id:
            raise StoreError(
                f"the index was built with sparse encoder {stored_sparse.get('model_id')!r}, not"
                f" {self.sparse.model_id!r}. Fix: open it with a SparseEncoder of the same k1/b/avg_len,"
                " or ingest into a new index folder/collection",
                path=where,
                field="sparse.model_id",
            )
        if str(meta.get("schema_version")) != SCHEMA_VERSION:
            raise StoreError(
                f"the index holds unit schema version {meta.get('schema_version')}, this package writes"
                f" {SCHEMA_VERSION}. Fix: re-ingest the documents into a new index folder/collection",
                path=where,
                field="schema_version",
            )

    def _repair_if_no_writer(self) -> None:
        """Finish or roll back what a killed writer left (:func:`~structaware_retrievers.commit.recover`)
        when a folder index is opened and no writer is at work: a document whose replacement was
        interrupted is visible again (its previous version) without waiting for the next ingest.
        Skipped when another process or thread writes (it repairs first), and in a read-only folder."""
        if self._folder_writer is None:  # a server: no cross-process writer lock, so only writers repair
            return
        try:
            self._folder_writer.acquire(timeout=0.01)
        except StoreError:
            return
        try:
            recover(self.store, ensure_indexes=False)
        except StoreError as exc:  # the next writer repairs it; reading goes on
            log.warning("%s: could not repair an interrupted write on open: %s", self.store.location, exc)
        finally:
            self._folder_writer.release()

    def writing(self) -> contextlib.AbstractContextManager[Any]:
        """The writer lock: one writer per index at a time, across processes for a folder index
        (:mod:`structaware_retrievers.locking`; waits up to ``$STRUCTAWARE_LOCK_TIMEOUT`` s).
        Re-entrant; :meth:`ingest`, :meth:`add_document` and :meth:`delete_document` take it.

        Raises:
            StoreError: another process held it past the timeout, or the folder is read-only.
        """
        return self._folder_writer.hold() if self._folder_writer is not None else self._write_lock

    def _prepare_collection(self) -> threading.Thread:
        """Run ``store.prepare`` in a thread (the embedding runs without the GIL meanwhile); a failure
        there only means ``store.create`` does all the work itself."""

        def run() -> None:
            try:
                self.store.prepare(self.dense.dim)
            except BaseException as exc:  # noqa: BLE001 - the engine's panics too; create() starts over
                log.debug("%s: preparing the collection aside failed (%s); creating it in place", self.store.location, exc)

        thread = threading.Thread(target=run, name="structaware-prepare-collection", daemon=True)
        thread.start()
        return thread

    def _ensure_collection(self) -> None:
        if not self.store.exists():
            self.store.create(self.dense.dim, self.config())
        elif self.store.dense_dim() != self.dense.dim:
            raise StoreError(
                f"collection has {self.store.dense_dim()}-d dense vectors, the encoder gives {self.dense.dim}",
                path=self.store.location,
                field="dense.dim",
            )

    def _ensure_cache(self) -> None:
        if self._cache is None:
            base = self.path if self.path is not None else cache_dir()
            self._cache = EmbeddingCache(base / "embeddings.sqlite")
        for enc in (self.dense, self.sparse):
            if enc.cache is None:
                enc.cache = self._cache

    # -- writes ----------------------------------------------------------------------------
    @staticmethod
    def _validate(doc: ParsedDocument, units: Sequence[Unit]) -> None:
        if not units:
            raise EmptyDocumentError("no units to index", path=doc.source or doc.name, field="units")
        seen: set[str] = set()
        for u in units:
            if u.doc_id != doc.doc_id:
                raise MalformedInputError(
                    f"unit {u.unit_id} has doc_id {u.doc_id!r}, the document {doc.doc_id!r}",
                    path=doc.source or doc.name,
                    field="doc_id",
                )
            if u.unit_id in seen:
                raise MalformedInputError(
                    f"duplicate unit id {u.unit_id}", path=doc.source or doc.name, field="unit_id"
                )
            seen.add(u.unit_id)

    def add_document(self, doc: ParsedDocument, units: Sequence[Unit]) -> IngestReport:
        """Index one document's units, replacing whatever the index held for it.

        Idempotent and atomic per document:

        1. Units are checked (same ``doc_id`` as ``doc``, unique ids). If the index already holds
           exactly these units (same ids, same payloads) and no older version, nothing is done
           (``skipped=True``).
        2. All units are embedded (dense + sparse, through the caches) **before** any write; an
           embedding failure leaves the index untouched.
        3. Points are upserted under their deterministic ids; then removed: points of this
           ``doc_id`` not in the new set (``removed_stale``) and points of the same ``source`` path
           under another ``doc_id`` (``removed_old_versions``: a changed file replaces its old units).
        4. If a write fails, the new points are deleted and every point the call changed or removed
           is restored (vectors and payload), so the index is as it was for this document; other
           documents are never touched. The error is re-raised as :class:`StoreError`.

        Returns:
            an :class:`IngestReport`.

        Raises:
            EmptyDocumentError: ``units`` is empty.
            MalformedInputError: a unit belongs to another document, or ids repeat.
            StoreError: the write failed (after rollback), or the collection does not fit the encoders.
            ModelUnavailableError: the dense model cannot be loaded (nothing written).
        """
        t0 = time.perf_counter()
        self._validate(doc, units)
        src = doc.source or doc.name
        report = IngestReport(
            doc_id=doc.doc_id, doc_name=doc.name, source=doc.source, units=len(units), warnings=list(doc.warnings)
        )
        ids = [u.unit_id for u in units]
        payloads = [u.to_payload() for u in units]
        with self.writing():
            existing: dict[str, dict[str, Any]] = {}
            old_versions: list[str] = []
            if self.store.exists():
                recover(self.store)
                self._check_config()
                existing = {r.id: r.payload for r in self.store.scroll(PointFilter.match("doc_id", doc.doc_id))}
                if doc.source:
                    older = PointFilter(
                        must=(Match("source", (doc.source,)),), must_not=(Match("doc_id", (doc.doc_id,)),)
                    )
                    old_versions = [r.id for r in self.store.scroll(older, fields=["doc_id"])]
                if (
                    not old_versions
                    and len(existing) == len(ids)
                    and all(existing.get(i) == p for i, p in zip(ids, payloads, strict=True))
                ):
                    report.skipped = True
                    report.seconds = time.perf_counter() - t0
                    return report
            self.store.release(only_if_wanted=True)  # a waiting query process is served while this one embeds

            # 1) embed everything first: nothing is written if this fails. A new collection is
            # prepared aside meanwhile (store.prepare: the Qdrant Edge shard and its payload indexes,
            # 0.1-0.8 s of fsyncs), and put in place by _ensure_collection only after the embedding.
            # Whatever fails before the write (the embedding cache, the encoders), the thread is
            # joined and its shard removed before this returns: it must never outlive the write lock.
            preparing = self._prepare_collection() if not self.store.exists() else None
            te = time.perf_counter()
            before = self.dense.computed
            try:
                texts = [u.embedding_text() for u in units]
                self._ensure_cache()
                dense = self.dense.embed_array(texts)
                sparse = self.sparse.embed_documents(texts)
            except BaseException:
                if preparing is not None:
                    preparing.join()
                    self.store.discard_prepared()
                raise
            report.embedded = self.dense.computed - before
            report.embed_seconds = time.perf_counter() - te

            # 2) write: visible to queries only once every point is written (commit.py)
            if preparing is not None:
                preparing.join()
            self._ensure_collection()
            new_ids = set(ids)
            stale = [i for i in existing if i not in new_ids]
            points = [
                PointRecord(id=i, payload=p, dense=d.tolist(), sparse=s)
                for i, p, d, s in zip(ids, payloads, dense, sparse, strict=True)
            ]
            try:
                write_document(self.store, points, [*existing, *old_versions], src=src)
            finally:
                self.store.release(only_if_wanted=True)
            report.written = len(points)
            report.removed_stale = len(stale)
            report.removed_old_versions = len(old_versions)
            report.seconds = time.perf_counter() - t0
            return report

    def ingest(
        self,
        paths: Iterable[str | Path],
        *,
        reading_order: Literal["auto", "parser", "layout"] = "auto",
        progress: bool = False,
        unit_options: Any = None,
        optimize: bool = True,
        reparse: bool = False,
        overlap: bool = True,
        log: Callable[[str], None] | None = None,
    ) -> IngestSummary:
        """Read, unit-build and index every document under ``paths``.

        ``paths`` are expanded with :func:`expand_inputs` (folders of PDFs, MinerU outputs and
        Unstructured JSON). Each input goes through ``structaware_readers.loader.load_document``
        (with ``reading_order``), ``structaware_readers.units.build_units`` (with ``unit_options``)
        and :meth:`add_document`. A failing input does not stop the others: its error is recorded
        in ``summary.failed`` and the summary is returned; call ``summary.raise_for_errors()`` to
        turn failures into an :class:`IngestError`. ``log`` (e.g. ``print``) receives each written
        document's warnings, a few lines per document (``reports[i].warnings`` holds them all).

        Speed (details in :mod:`structaware_retrievers.ingest_pipeline`):

        * an input of any kind (PDF, MinerU file/folder/zip, Unstructured JSON) whose content hash
          and ingest settings (``reading_order``, ``unit_options``, package and schema version,
          encoders, whether pdfplumber can rebuild table grids, MinerU's version) are unchanged
          since it was indexed here, and whose units are still in the index, is skipped **before
          parsing** (``reports[i].skipped``); so is a PDF whose ``doc_id`` is in the index (unless
          every ingest of it recorded here had other settings).
          ``reparse=True`` reads every input anyway (``structaware ingest --force``);
        * a changed input re-embeds only the units whose text changed (embedding cache);
        * ``overlap=True`` parses the next input in a worker thread while this one embeds;
          the result is the same as with ``overlap=False``;
        * ``progress=True`` shows two tqdm bars on stderr when it is a terminal (documents parsed,
          documents indexed); none when stderr is a file or a pipe.

        With the embedded backend the shard is optimised at the end (HNSW build, vacuum) when
        anything was written and ``optimize`` is true.

        Returns:
            an :class:`IngestSummary` (documents, units, skipped_unchanged, failed, seconds, embedding_seconds).
        """
        from structaware_retrievers.ingest_pipeline import run_ingest

        return run_ingest(
            self,
            paths,
            reading_order=reading_order,
            progress=progress,
            unit_options=unit_options,
            optimize=optimize,
            reparse=reparse,
            overlap=overlap,
            log=log,
        )

    def _ledger(self) -> IngestLedger:
        """The ledger of inputs indexed here (next to the embedding cache; opened on first use)."""
        if self._ingest_ledger is None:
            from structaware_retrievers.ingest_ledger import IngestLedger

            base = self.path if self.path is not None else cache_dir()
            self._ingest_ledger = IngestLedger(base / "ingested.sqlite", self.store.location)
        return self._ingest_ledger

    def _indexed_pdf(self, path: Path) -> IngestReport | None:
        """A skipped-report for a PDF whose bytes are already indexed, else ``None``."""
        if path.suffix.lower() != ".pdf" or not path.is_file() or not self.store.exists():
            return None
        from structaware_readers.ids import doc_id_from_file

        doc_id = doc_id_from_file(path)
        n = self.store.count(PointFilter.match("doc_id", doc_id))
        self.store.release(only_if_wanted=True)  # not held while the next document is parsed
        if not n:
            return None
        return IngestReport(doc_id=doc_id, doc_name=path.stem, source=str(path.resolve()), units=n, skipped=True)

    def delete_document(self, doc_id: str) -> int:
        """Delete every unit of ``doc_id``; return how many were deleted (0 if none or no index)."""
        if not self.store.exists():
            return 0  # nothing to delete, and no lock file is made for a folder that does not exist
        with self.writing():
            if not self.store.exists():
                return 0
            recover(self.store)
            n = self.store.count(PointFilter.match("doc_id", doc_id))
            if n:
                self.store.delete(PointFilter(must=(Match("doc_id", (doc_id,)),), include_hidden=True))
                self.store.flush()
            return n

    # -- reads -----------------------------------------------------------------------------
    def _require_index(self) -> None:
        if not self.store.exists() or self.store.count() == 0:
            raise IndexNotFoundError(
                "the index is missing or empty: ingest documents first (StructureIndex.ingest(paths) or"
                " `structaware ingest <files>`), or point to the right index (path=, $STRUCTAWARE_INDEX, url=,"
                f" collection={self.collection!r})",
                path=self.store.location,
            )

    def _prepare(
        self,
        text: str,
        k: int,
        mode: str,
        fusion: str,
        rrf_k: int,
        prefetch_limit: int,
        filter: SearchFilter | None,
        weights: tuple[float, float] | None = None,
        group_size: int = 1,
    ) -> dict[str, Any]:
        """Check the arguments of :meth:`query`/:meth:`aquery` and embed the query: the keyword
        arguments of :meth:`VectorStore.query` (raises as :meth:`query` documents)."""
        if not isinstance(text, str) or not text.strip():
            raise MalformedInputError("query text is empty", field="text")
        if k < 1:
            raise MalformedInputError(f"must be >= 1, got {k}", field="k")
        if mode not in ("hybrid", "dense", "sparse"):
            raise MalformedInputError(f"must be 'hybrid', 'dense' or 'sparse', got {mode!r}", field="mode")
        if fusion not in ("rrf", "dbsf"):
            raise MalformedInputError(f"must be 'rrf' or 'dbsf', got {fusion!r}", field="fusion")
        if rrf_k < 1:
            raise MalformedInputError(f"must be >= 1, got {rrf_k}", field="rrf_k")
        if prefetch_limit < 1:
            raise MalformedInputError(f"must be >= 1, got {prefetch_limit}", field="prefetch_limit")
        weights = DEFAULT_WEIGHTS if weights is None else tuple(weights)  # type: ignore[assignment]
        if len(weights) != 2 or not all(isinstance(w, (int, float)) and 0 < w < float("inf") for w in weights):
            raise MalformedInputError(f"must be two positive numbers (dense, BM25), got {weights!r}", field="weights")
        self._require_index()
        use_dense = mode != "sparse"
        sparse = self.sparse.embed_query(text) if mode != "dense" else None
        if sparse is not None and not sparse.indices:
            sparse, use_dense = None, True  # only stop words or punctuation: the dense search answers
        elif mode == "hybrid" and not self._dense_covers(text):
            use_dense = False  # a dense model that lacks the query's language adds noise, not evidence
        dense = self.dense.embed_query(text) if use_dense else None
        mode = "hybrid" if dense is not None and sparse is not None else "dense" if dense is not None else "sparse"
        return {
            "dense": dense,
            "sparse": sparse,
            "limit": max(k, prefetch_limit) if group_size > 1 else k,  # rows to group come from below k
            "mode": mode,
            "fusion": fusion,
            "rrf_k": rrf_k,
            "prefetch_limit": prefetch_limit,
            "flt": filter.to_point_filter() if filter is not None else None,
            "weights": weights,
        }

    def _dense_covers(self, text: str) -> bool:
        """False when the query is mostly Chinese/Japanese/Korean and the dense model lacks those languages."""
        covers = getattr(self.dense, "covers", None)  # a user-supplied encoder may not say
        return covers is None or covers(text)

    @staticmethod
    def _hits(records: list[ScoredRecord]) -> list[SearchHit]:
        return [SearchHit(unit=Unit.from_payload(r.payload), score=r.score, rank=i) for i, r in enumerate(records, 1)]

    def query(
        self,
        text: str,
        *,
        k: int = 10,
        mode: Mode = "hybrid",
        fusion: FusionName = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        filter: SearchFilter | None = None,
        weights: tuple[float, float] | None = None,
        budget_chars: int | None = None,
        expand: bool = False,
        group_size: int = DEFAULT_GROUP_SIZE,
    ) -> list[SearchHit]:
        """Search the index; best first.

        Args:
            text: the question (any length; the dense model reads its first 256 word pieces).
            k: number of hits to return (with ``budget_chars``: candidates considered).
            mode: ``"hybrid"`` (dense + BM25 fused inside Qdrant), ``"dense"`` or ``"sparse"`` (BM25).
            fusion: ``"rrf"`` (reciprocal rank fusion, paper 2.4) or ``"dbsf"`` (distribution-based).
            rrf_k: the RRF constant (:data:`~structaware_retrievers.fusion.DEFAULT_RRF_K`).
            prefetch_limit: candidates fetched per vector before fusion (at least ``k`` are used).
            filter: payload filter applied inside each prefetch and to the fused result.
            weights: (dense, BM25) RRF weights, positive (``None``: :data:`~structaware_retrievers.fusion.DEFAULT_WEIGHTS`, chosen
                on the development benchmark); DBSF ignores them.
            budget_chars: return only the best hits whose units (``context + "\n" + text``, and
                their neighbours with ``expand``) fit this many characters together: hits in rank
                order, each skipped when it no longer fits (:func:`evidence.fit_budget`).
            expand: attach each hit's evidence neighbourhood (``SearchHit.neighbours``: adjacent
                table rows, the parent section's lead sentence of a recommendation, neighbouring
                flow edges, adjacent section parts; :mod:`structaware_retrievers.evidence`).
            group_size: merge rows of one table into one hit: the best row plus up to
                ``group_size - 1`` other matched rows of its table in ``SearchHit.group``, taken from
                the top ``max(k, prefetch_limit)`` fused candidates
                (:func:`evidence.group_table_rows`); 1 turns grouping off.

        Returns:
            up to ``k`` :class:`SearchHit` with 1-based ranks. Fewer (or none) when the filter leaves
            fewer units or the budget is spent. A query with no BM25 terms (only stop words or
            punctuation) searches the dense vector alone, in hybrid and in sparse mode; in hybrid
            mode a query mostly in Chinese, Japanese or Korean searches BM25 alone when the dense
            model does not cover those languages (``DenseEncoder.languages``).

        Raises:
            IndexNotFoundError: the index does not exist or is empty.
            MalformedInputError: empty text, bad ``k``/``mode``/``fusion``/``rrf_k``/``prefetch_limit``/
                ``weights``/``budget_chars``/``group_size``.
        """
        self._check_budget(budget_chars, group_size)
        prep = self._prepare(text, k, mode, fusion, rrf_k, prefetch_limit, filter, weights, group_size)
        return self._finish(self._hits(self.store.query(**prep)), k, budget_chars, expand, group_size)

    async def aquery(
        self,
        text: str,
        *,
        k: int = 10,
        mode: Mode = "hybrid",
        fusion: FusionName = "rrf",
        rrf_k: int = DEFAULT_RRF_K,
        prefetch_limit: int = DEFAULT_PREFETCH_LIMIT,
        filter: SearchFilter | None = None,
        weights: tuple[float, float] | None = None,
        budget_chars: int | None = None,
        expand: bool = False,
        group_size: int = DEFAULT_GROUP_SIZE,
    ) -> list[SearchHit]:
        """Async :meth:`query`: query embedding in a worker thread; the search through
        ``AsyncQdrantClient`` for a server, in a worker thread otherwise. Same arguments and errors."""
        import asyncio  # not at module level: ~20 ms (with ssl) off every CLI query

        self._check_budget(budget_chars, group_size)
        prep = functools.partial(
            self._prepare, text, k, mode, fusion, rrf_k, prefetch_limit, filter, weights, group_size
        )
        hits = self._hits(await self.store.aquery(**await asyncio.to_thread(prep)))
        return await asyncio.to_thread(self._finish, hits, k, budget_chars, expand, group_size)

    @staticmethod
    def _check_budget(budget_chars: int | None, group_size: int) -> None:
        if budget_chars is not None and (not isinstance(budget_chars, int) or budget_chars < 1):
            raise MalformedInputError(f"must be a positive number of characters, got {budget_chars!r}", field="budget_chars")
        if not isinstance(group_size, int) or isinstance(group_size, bool) or group_size < 1:
            raise MalformedInputError(f"must be a positive whole number, got {group_size!r}", field="group_size")

    def _finish(
        self, hits: list[SearchHit], k: int, budget_chars: int | None, expand: bool, group_size: int
    ) -> list[SearchHit]:
        from structaware_retrievers import evidence

        hits = evidence.group_table_rows(hits, group_size, k)
        if expand:
            hits = [h.model_copy(update={"neighbours": evidence.neighbours(self.store, h.unit)}) for h in hits]
        if budget_chars is not None:
            hits = evidence.fit_budget(hits, budget_chars)
        return hits

    def count(self, filter: SearchFilter | None = None) -> int:
        """Number of units matching ``filter`` (all units when ``None``); 0 when there is no index."""
        if not self.store.exists():
            return 0
        return self.store.count(filter.to_point_filter() if filter is not None else None)

    def documents(self) -> list[dict[str, Any]]:
        """One dict per indexed document: ``doc_id``, ``doc_name``, ``source``, ``units`` (count),
        sorted by name then id. ``[]`` when there is no index."""
        if not self.store.exists():
            return []
        docs: dict[str, dict[str, Any]] = {}
        for r in self.store.scroll(fields=["doc_id", "doc_name", "source"]):
            d = docs.get(r.payload.get("doc_id", ""))
            if d is None:
                d = docs[r.payload.get("doc_id", "")] = {
                    "doc_id": r.payload.get("doc_id", ""),
                    "doc_name": r.payload.get("doc_name", ""),
                    "source": r.payload.get("source", ""),
                    "units": 0,
                }
            d["units"] += 1
        return sorted(docs.values(), key=lambda d: (d["doc_name"], d["doc_id"]))

    def optimize(self) -> None:
        """Optimise the store (embedded backend: build HNSW indexes, vacuum deleted points)."""
        if self.store.exists():
            self.store.optimize()

    def close(self) -> None:
        """Flush and release the store and the embedding cache."""
        self.store.close()
        if self._cache is not None:
            for enc in (self.dense, self.sparse):
                if enc.cache is self._cache:
                    enc.cache = None
            self._cache.close()
            self._cache = None
        if self._ingest_ledger is not None:
            self._ingest_ledger.close()
            self._ingest_ledger = None

    def __enter__(self) -> StructureIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"StructureIndex({self.store!r}, dense={self.dense!r}, sparse={self.sparse!r})"
