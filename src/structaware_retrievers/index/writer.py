"""The write side of a :class:`~structaware_retrievers.index.structure_index.StructureIndex`."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from structaware_readers.errors import EmptyDocumentError, MalformedInputError, ModelMismatchError, StoreError
from structaware_readers.ids import doc_id_from_file
from structaware_readers.models import SCHEMA_VERSION, ParsedDocument, Unit
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.encoders.model_assets import cache_dir
from structaware_retrievers.encoders.sparse import tie_broken
from structaware_retrievers.index.commit import recover, write_document
from structaware_retrievers.query.filters import Match, PointFilter
from structaware_retrievers.search.results import IngestReport
from structaware_retrievers.store.base import PointRecord, VectorStore
from structaware_retrievers.store.locking import folder_lock

if TYPE_CHECKING:
    from structaware_retrievers.index.ledger import IngestLedger

__all__ = ["INDEX_FORMAT", "IndexWriter"]

log = logging.getLogger(__name__)

#: Version of the index layout/config written by this module.
INDEX_FORMAT = "1"

_write_locks: dict[str, threading.RLock] = {}
_write_locks_guard = threading.Lock()


def _write_lock(location: str) -> threading.RLock:
    """One writer lock per store location, shared by every index object of the process."""
    with _write_locks_guard:
        return _write_locks.setdefault(location, threading.RLock())


class IndexWriter:
    """Writes units into one collection of ``store`` with the ``dense`` and ``sparse`` encoders."""

    def __init__(
        self,
        store: VectorStore,
        dense: DenseEncoder,
        sparse: SparseEncoder,
        *,
        collection: str,
        path: Path | None,
    ) -> None:
        self.store = store
        self.dense = dense
        self.sparse = sparse
        self.collection = collection
        self.path = path
        self._cache: EmbeddingCache | None = None
        self._ingest_ledger: IngestLedger | None = None
        self._write_lock = _write_lock(store.location)
        folder = getattr(store, "folder", None)  # a folder index: writers of other processes too
        self._folder_writer = folder_lock(folder, "write") if isinstance(folder, Path) else None

    # -- config ----------------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        """The config this writer puts into a new collection (and checks on open)."""
        return {
            "format": INDEX_FORMAT,
            "schema_version": SCHEMA_VERSION,
            "collection": self.collection,
            "dense": {"model_name": self.dense.model_name, "model_id": self.dense.model_id, "dim": self.dense.dim},
            "sparse": {"model_name": self.sparse.model_name, "model_id": self.sparse.model_id},
        }

    def check_config(self) -> None:
        """Refuse an existing collection made by other encoders, another schema, or not by structaware. Raises
        ``StoreError``.
        """
        where = self.store.location
        meta = self.store.metadata()
        if not meta or "dense" not in meta:
            raise StoreError(
                "this collection was not created by structaware (no index config); use another collection name",
                path=where,
                field="metadata",
            )
        stored_dense, stored_sparse = meta.get("dense", {}), meta.get("sparse", {})
        stored_id = stored_dense.get("model_id")
        if stored_id != self.dense.model_id and stored_id not in getattr(self.dense, "compatible_ids", ()):
            name = stored_dense.get("model_name")
            raise ModelMismatchError(
                f"the index was built with dense model {name!r} (id {stored_dense.get('model_id')}), not"
                f" {self.dense.model_id}.",
                f"open it with DenseEncoder(model_name={name!r}) (or the same model_path=), or set"
                " STRUCTAWARE_DENSE_MODEL to it; or ingest into a new index folder/collection",
                stored_model=str(name),
                stored_id=str(stored_dense.get("model_id")),
                path=where,
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

    def repair_if_no_writer(self) -> None:
        """Finish or roll back what a killed writer left (:func:`~structaware_retrievers.index.commit.recover`)
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
        (:mod:`structaware_retrievers.store.locking`; waits up to ``$STRUCTAWARE_LOCK_TIMEOUT`` s). Re-entrant.
        Raises ``StoreError``.
        """
        return self._folder_writer.hold() if self._folder_writer is not None else self._write_lock

    def _prepare_collection(self) -> threading.Thread:
        """Run ``store.prepare`` in a thread (the embedding runs without the GIL meanwhile); a failure
        there only means ``store.create`` does all the work itself."""

        def run() -> None:
            try:
                self.store.prepare(self.dense.dim)
            except BaseException as exc:  # noqa: BLE001 - the engine's panics too; create() starts over
                log.debug(
                    "%s: preparing the collection aside failed (%s); creating it in place", self.store.location, exc
                )

        thread = threading.Thread(target=run, name="structaware-prepare-collection", daemon=True)
        thread.start()
        return thread

    def ensure_collection(self) -> None:
        """Create the collection with :meth:`config` if it does not exist.

        Raises:
            StoreError: it exists with another dense dimension than the encoder's (``dense.dim``).
        """
        if not self.store.exists():
            self.store.create(self.dense.dim, self.config())
        elif self.store.dense_dim() != self.dense.dim:
            raise StoreError(
                f"collection has {self.store.dense_dim()}-d dense vectors, the encoder gives {self.dense.dim}",
                path=self.store.location,
                field="dense.dim",
            )

    def ensure_cache(self) -> None:
        """Open the persistent embedding cache (first call) and give it to each encoder without one."""
        if self._cache is None:
            base = self.path if self.path is not None else cache_dir()
            self._cache = EmbeddingCache(base / "embeddings.sqlite")
        for enc in (self.dense, self.sparse):
            if enc.cache is None:
                enc.cache = self._cache

    def ledger(self) -> IngestLedger:
        """The ledger of inputs indexed here (next to the embedding cache; opened on first use).

        Raises:
            StoreError: the index folder is read-only (field ``lock``, the writer lock's file named).
        """
        if self._ingest_ledger is None:
            from structaware_retrievers.index.ledger import IngestLedger

            if self._folder_writer is not None:  # a read-only folder is refused as the writer lock refuses it
                self._folder_writer.check_writable()

            base = self.path if self.path is not None else cache_dir()
            self._ingest_ledger = IngestLedger(base / "ingested.sqlite", self.store.location)
        return self._ingest_ledger

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
        """Index one document's units, replacing whatever the index held for it."""
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
                self.check_config()
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
            # 0.1-0.8 s of fsyncs), and put in place by ensure_collection only after the embedding.
            # Whatever fails before the write (the embedding cache, the encoders), the thread is
            # joined and its shard removed before this returns: it must never outlive the write lock.
            preparing = self._prepare_collection() if not self.store.exists() else None
            te = time.perf_counter()
            before = self.dense.computed
            try:
                texts = [u.embedding_text() for u in units]
                self.ensure_cache()
                dense = self.dense.embed_array(texts)
                sparse = tie_broken(self.sparse.embed_documents([u.search_text() for u in units]), ids)
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
            self.ensure_collection()
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

    def indexed_pdf(self, path: Path) -> IngestReport | None:
        """A skipped-report for a PDF whose bytes are already indexed, else ``None``."""
        if path.suffix.lower() != ".pdf" or not path.is_file() or not self.store.exists():
            return None
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

    def close(self) -> None:
        """Close the embedding cache (taken back from the encoders it was given to) and the ledger."""
        if self._cache is not None:
            for enc in (self.dense, self.sparse):
                if enc.cache is self._cache:
                    enc.cache = None
            self._cache.close()
            self._cache = None
        if self._ingest_ledger is not None:
            self._ingest_ledger.close()
            self._ingest_ledger = None
