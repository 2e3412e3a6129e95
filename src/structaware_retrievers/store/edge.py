"""``EdgeStore``: the embedded default backend, a ``qdrant-edge-py`` shard persisted in a folder.

qdrant-edge runs Qdrant's own engine (segments, HNSW, sparse index with IDF, payload indexes)
in-process, with no server. Folder layout::

    <folder>/shard/            the edge shard (segments/, wal/, edge_config.json)
    <folder>/collection.json   the metadata given to create() (the index config)

Durability and concurrency (measured with qdrant-edge-py 0.9.0):

* Every update is appended to the shard's write-ahead log before ``update()`` returns, so data
  survives a reopen even when the process exits without ``flush()``/``close()`` (the WAL is
  replayed on load). ``flush()`` writes segments to disk so the next load replays less.
* The shard holds an exclusive OS lock on its WAL while open. A second open of the same folder,
  from another process **or the same one**, fails (``Can't init WAL: WouldBlock``). This class
  therefore shares one open shard per folder within a process (reference counted, released by
  the last ``close()``), and turns the cross-process failure into a :class:`StoreError` that says
  another process holds the index. One process at a time may use an index folder; queries from
  several threads of that process are safe.
* Qdrant Edge runs no background optimiser. Points land in appendable segments that are searched
  exactly; ``optimize()`` builds HNSW indexes and vacuums deleted points. It is worth running
  after a large ingest (``StructureIndex.ingest`` does), not after every document.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as E

from structaware_readers.errors import StoreError
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.filters import HasId, IsEmpty, Match, PointFilter, Range
from structaware_retrievers.locking import folder_lock
from structaware_retrievers.store.base import (
    DENSE,
    PAYLOAD_INDEXES,
    SPARSE,
    PointRecord,
    QueryPlan,
    ScoredRecord,
    VectorStore,
)
from structaware_retrievers.store.common import (
    check_dim,
    checked_batches,
    is_hidden,
    require_filter,
    to_point_record,
    to_scored_record,
    translate_filter,
)

__all__ = ["EdgeStore"]

_UPSERT_BATCH = 256
_META_FILE = "collection.json"
_SHARD_DIR = "shard"

_registry_lock = threading.Lock()
_open_shards: dict[str, list[Any]] = {}  # resolved folder -> [EdgeShard, refcount]
_unflushed: set[str] = set()  # resolved folders written since their last flush (close flushes only these)


def _edge_condition(c: Match | Range | IsEmpty | HasId) -> Any:
    if isinstance(c, Match):
        if len(c.values) == 1:
            return E.FieldCondition(key=c.key, match=E.MatchValue(c.values[0]))
        return E.FieldCondition(key=c.key, match=E.MatchAny(list(c.values)))
    if isinstance(c, Range):
        return E.FieldCondition(key=c.key, range=E.RangeFloat(gte=c.gte, lte=c.lte, gt=c.gt, lt=c.lt))
    if isinstance(c, IsEmpty):
        return E.IsEmptyCondition(c.key)
    return E.HasIdCondition({str(i) for i in c.ids})


def to_edge_filter(flt: PointFilter | None) -> Any:
    """Translate a :class:`PointFilter` to ``qdrant_edge.Filter`` (``None`` for no filter)."""
    return translate_filter(flt, _edge_condition, E.Filter)


def _sparse(v: SparseVector) -> Any:
    return E.SparseVector(indices=list(v.indices), values=list(v.values))


def _vector(v: list[float] | SparseVector) -> Any:
    return _sparse(v) if isinstance(v, SparseVector) else v


class EdgeStore(VectorStore):
    """A Qdrant Edge shard in ``folder`` (see the module docstring for layout and locking).

    Opening does not create anything: :meth:`exists` is false until :meth:`create` runs.

    Args:
        folder: the store folder (created on :meth:`create`).

    Raises:
        StoreError: the folder is in use by another process, or the engine refuses an operation.
    """

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.location = str(self.folder)
        self._shard: Any = None
        self._key = str(self.folder.resolve())
        self._dim: int | None = None
        self._shard_lock = folder_lock(self.folder, "shard")

    # -- shard lifecycle ---------------------------------------------------------------------
    @property
    def _shard_dir(self) -> Path:
        return self.folder / _SHARD_DIR

    def _acquire(self, config: Any = None) -> None:
        with _registry_lock:
            entry = _open_shards.get(self._key)
            if entry is not None:
                entry[1] += 1
                self._shard = entry[0]
                return
            self._shard_lock.acquire()  # waits while another process has the shard open
            try:
                if config is not None:
                    shard = E.EdgeShard.create(str(self._shard_dir), config)
                else:
                    shard = E.EdgeShard.load(str(self._shard_dir))
            except (KeyboardInterrupt, SystemExit):
                self._shard_lock.release()
                raise
            except BaseException as exc:  # the engine's errors, and its panics (not Exceptions)
                self._shard_lock.release()
                if "WouldBlock" in str(exc):
                    raise StoreError(
                        "the index folder is open in another process (Qdrant Edge locks its write-ahead log);"
                        " close that process or use another folder",
                        path=self.folder,
                        field="shard",
                    ) from exc
                raise StoreError(f"cannot open the Qdrant Edge shard: {exc}", path=self.folder, field="shard") from exc
            _open_shards[self._key] = [shard, 1]
            self._shard = shard

    def close(self) -> None:
        """Flush and release this handle; the shard closes when the process's last handle does."""
        if self._shard is None:
            return
        with _registry_lock:
            entry = _open_shards.get(self._key)
            self._shard = None
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] <= 0:
                del _open_shards[self._key]
                try:
                    if self._key in _unflushed:  # a read-only process (a query) skips the flush (~0.15 s)
                        _unflushed.discard(self._key)
                        entry[0].flush()
                finally:
                    try:
                        entry[0].close()
                    finally:
                        self._shard_lock.release()

    def release(self, *, only_if_wanted: bool = False) -> None:
        """Close the shard (and free its lock for other processes) unless another handle of this
        process has it open; the next operation opens it again. With ``only_if_wanted``, only when
        another process is waiting for it (reopening costs ~0.1 s per 10,000 points)."""
        if not only_if_wanted:
            self.close()
        elif self._shard_lock.wanted():
            self.close()
            time.sleep(0.5)  # the waiting process polls every 0.25 s: let it in before this one reopens

    def __del__(self) -> None:  # a handle dropped without close() still releases the shard
        with contextlib.suppress(Exception):  # never raise from a finaliser (interpreter shutdown)
            self.close()

    def _require(self) -> Any:
        if self._shard is None:
            if not self.exists():
                raise StoreError("no collection here yet (nothing was ingested)", path=self.folder)
            self._acquire()
        return self._shard

    def _run(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except StoreError:
            raise
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # plain Exception with a message, or a Rust panic (a BaseException)
            raise StoreError(f"{what} failed: {type(exc).__name__}: {exc}", path=self.folder) from exc

    # -- collection ----------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.folder / _META_FILE).is_file() and (self._shard_dir / "edge_config.json").is_file()

    def create(self, dim: int, metadata: dict[str, Any]) -> None:
        check_dim(dim, self.location)
        if self.exists():
            raise StoreError("a collection already exists here", path=self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._shard_dir.exists():  # left by a crash between shard creation and metadata: start over
            try:
                self._acquire()  # fails if another process holds it (it may be creating it right now)
                self.close()
            except StoreError as exc:
                if "another process" in exc.message:
                    raise
            shutil.rmtree(self._shard_dir)
        config = E.EdgeConfig(
            vectors={DENSE: E.EdgeVectorParams(size=dim, distance=E.Distance.Cosine)},
            sparse_vectors={SPARSE: E.EdgeSparseVectorParams(modifier=E.Modifier.Idf)},
        )
        self._acquire(config)
        try:
            for name, kind in PAYLOAD_INDEXES.items():
                schema = E.PayloadSchemaType.Keyword if kind == "keyword" else E.PayloadSchemaType.Integer
                self._run(
                    f"payload index on {name}", self._shard.update, E.UpdateOperation.create_field_index(name, schema)
                )
            self._shard.flush()
            meta = {"dense_dim": dim, "metadata": metadata}
            tmp = self.folder / f".{_META_FILE}.{uuid.uuid4().hex}"
            tmp.write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
            os.replace(tmp, self.folder / _META_FILE)
        except BaseException:
            self.close()  # leave no half-made shard behind
            shutil.rmtree(self._shard_dir, ignore_errors=True)
            raise
        self._dim = dim

    def _meta(self) -> dict[str, Any]:
        path = self.folder / _META_FILE
        try:
            return dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError as exc:
            raise StoreError("no collection here yet (nothing was ingested)", path=self.folder) from exc
        except (OSError, ValueError) as exc:
            raise StoreError(f"unreadable collection metadata: {exc}", path=path) from exc

    def dense_dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._meta()["dense_dim"])
        return self._dim

    def metadata(self) -> dict[str, Any]:
        return dict(self._meta().get("metadata") or {})

    # -- writes --------------------------------------------------------------------------------
    def upsert(self, points: Sequence[PointRecord]) -> None:
        shard = self._require()
        for chunk in checked_batches(points, self.dense_dim(), self.location, _UPSERT_BATCH):
            batch = [
                E.Point(id=p.id, vector={DENSE: list(p.dense), SPARSE: _sparse(p.sparse)}, payload=p.payload)  # type: ignore[arg-type]
                for p in chunk
            ]
            _unflushed.add(self._key)
            self._run("upsert", shard.update, E.UpdateOperation.upsert_points(batch))

    def delete_ids(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        shard = self._require()
        _unflushed.add(self._key)
        for i in range(0, len(ids), 1000):
            self._run("delete", shard.update, E.UpdateOperation.delete_points([str(x) for x in ids[i : i + 1000]]))

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._run("set payload", self._require().update, E.UpdateOperation.set_payload(list(ids), payload))

    def delete_payload(self, ids: Sequence[str], keys: Sequence[str]) -> None:
        if ids:
            self._run("delete payload", self._require().update, E.UpdateOperation.delete_payload(list(ids), list(keys)))

    def delete(self, flt: PointFilter) -> int:
        require_filter(flt, self.location)
        shard = self._require()
        n = self.count(flt)
        if n:
            _unflushed.add(self._key)
            self._run("delete by filter", shard.update, E.UpdateOperation.delete_points_by_filter(to_edge_filter(flt)))
        return n

    def flush(self) -> None:
        if self._shard is not None:
            self._run("flush", self._shard.flush)
            _unflushed.discard(self._key)

    def optimize(self) -> None:
        if self._shard is not None:
            _unflushed.add(self._key)
            self._run("optimize", self._shard.optimize)

    # -- reads ---------------------------------------------------------------------------------
    def count(self, flt: PointFilter | None = None) -> int:
        shard = self._require()
        return int(self._run("count", shard.count, E.CountRequest(exact=True, filter=to_edge_filter(flt))))

    def scroll(
        self,
        flt: PointFilter | None = None,
        *,
        fields: Sequence[str] | None = None,
        with_vectors: bool = False,
        batch: int = 1000,
    ) -> Iterator[PointRecord]:
        shard = self._require()
        payload: Any = E.PayloadSelector.Include(list(fields)) if fields is not None else True
        offset = None
        while True:
            req = E.ScrollRequest(
                offset=offset, limit=batch, filter=to_edge_filter(flt), with_payload=payload, with_vector=with_vectors
            )
            records, offset = self._run("scroll", shard.scroll, req)
            for r in records:
                yield to_point_record(r, with_vectors)
            if offset is None or not records:
                return

    def retrieve(
        self, ids: Sequence[str], *, with_vectors: bool = False, include_hidden: bool = False
    ) -> list[PointRecord]:
        if not ids:
            return []
        shard = self._require()
        out: list[PointRecord] = []
        for i in range(0, len(ids), 1000):
            recs = self._run("retrieve", shard.retrieve, [str(x) for x in ids[i : i + 1000]], True, with_vectors)
            out.extend(to_point_record(r, with_vectors) for r in recs)
        return out if include_hidden else [r for r in out if not is_hidden(r.payload)]

    def _search(self, plan: QueryPlan) -> list[ScoredRecord]:
        shard = self._require()
        ef = to_edge_filter(plan.flt)
        queries = [(E.Query.Nearest(_vector(v), using=u), w) for u, v, w in plan.searches]
        if plan.fusion is None:
            ((query, _),) = queries
            req = E.QueryRequest(limit=plan.limit, query=query, filter=ef, with_payload=True)
        else:
            prefetches = [E.Prefetch(limit=plan.depth, query=q, filter=ef) for q, _ in queries]
            weights = [w for _, w in queries]
            fused = E.Fusion.Rrf(k=plan.rrf_k, weights=weights) if plan.fusion == "rrf" else E.Fusion.Dbsf()
            req = E.QueryRequest(limit=plan.limit, prefetches=prefetches, query=fused, filter=ef, with_payload=True)
        return [to_scored_record(h) for h in self._run("query", shard.query, req)]

    def __repr__(self) -> str:
        return f"EdgeStore({self.location!r})"
