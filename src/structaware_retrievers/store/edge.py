"""``EdgeStore``: the embedded default backend, a ``qdrant-edge-py`` shard persisted in a folder.

Folder layout: ``<folder>/shard/`` (the shard) and ``<folder>/collection.json`` (the index config).
Every update is in the write-ahead log before ``update()`` returns; ``flush()`` only shortens the
replay. The shard locks its WAL exclusively, so a process shares one open shard per folder
(:mod:`~structaware_retrievers.store.edge_shard`) and processes take turns through the folder's
shard lock (:mod:`structaware_retrievers.store.locking`): a holder parks its shard as soon as
another process waits and none of its operations runs. A wait past ``$STRUCTAWARE_LOCK_TIMEOUT``
raises :class:`StoreError`. Writes check free space first (a full disk would crash the engine,
:mod:`~structaware_retrievers.store.disk`). ``optimize()`` builds HNSW indexes; run it after a
large ingest.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import qdrant_edge as E

from structaware_readers.errors import StoreError
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.store.base import (
    PAYLOAD_INDEXES,
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
)
from structaware_retrievers.store.disk import check_space, io_hint, points_bytes
from structaware_retrievers.store.edge_convert import (
    field_index_operation,
    shard_config,
    to_edge_filter,
    to_edge_point,
    to_edge_vector,
)
from structaware_retrievers.store.edge_shard import (
    SHARD_DIR,
    OpenShard,
    open_shards,
    registry_lock,
)
from structaware_retrievers.store.edge_staging import build_staged, discard_staged, take_staged
from structaware_retrievers.store.locking import folder_lock

__all__ = ["EdgeStore"]

_UPSERT_BATCH = 256
_META_FILE = "collection.json"


class EdgeStore(VectorStore):
    """A Qdrant Edge shard in ``folder`` (see the module docstring for layout and locking). Raises ``StoreError``."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.location = str(self.folder)
        self._key = str(self.folder.resolve())
        self._dim: int | None = None
        self._entry: OpenShard | None = None  # this handle's share of the process's open shard
        self._indexes_checked = False  # ensure_payload_indexes() ran

    # -- shard lifecycle ---------------------------------------------------------------------
    @property
    def _shard_dir(self) -> Path:
        return self.folder / SHARD_DIR

    def _register(self) -> OpenShard:
        """This handle's :class:`OpenShard` (call under ``registry_lock``)."""
        if self._entry is None:
            entry = open_shards.get(self._key)
            if entry is None:
                entry = open_shards[self._key] = OpenShard(self.folder, folder_lock(self.folder, "shard"))
            entry.handles += 1
            self._entry = entry
        return self._entry

    @contextmanager
    def _using(self, config: Any = None, *, must_exist: bool = True) -> Iterator[Any]:
        """The open shard for one operation (or several, see :meth:`hold`): opened (or reopened
        after parking) on entry, never parked while the block runs. On entry, a shard no operation
        of this process uses is first handed to another process that waits for it, so a reader
        that queries in a loop lets a writer in between two queries (and waits for its turn)."""
        with registry_lock:
            if must_exist and self._entry is None and not self.exists():
                raise StoreError("no collection here yet (nothing was ingested)", path=self.folder)
            entry = self._register()
            entry.yield_if_wanted()
            shard = entry.open(config)
            entry.active += 1
        try:
            yield shard
        finally:
            with registry_lock:
                entry.active -= 1

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Keep the shard open across several operations (a write transaction): another process
        waiting for it is let in only after the block."""
        with self._using():
            yield

    def close(self) -> None:
        """Flush and release this handle; the shard closes when the process's last handle does."""
        with registry_lock:
            entry, self._entry = self._entry, None
            if entry is None:
                return
            entry.handles -= 1
            if entry.handles <= 0:
                if open_shards.get(self._key) is entry:
                    del open_shards[self._key]
                entry.park(settle=True)

    def release(self, *, only_if_wanted: bool = False) -> None:
        """Close this handle (the shard closes unless another handle of this process has it open),
        or with ``only_if_wanted`` let a process that waits for the shard in now; the next
        operation opens it again (reopening costs ~0.1 s per 10,000 points). Idle handles are let
        go by a watcher thread as well, so an open handle never keeps another process waiting."""
        if not only_if_wanted:
            self.close()
            return
        with registry_lock:
            if self._entry is not None:
                self._entry.yield_if_wanted()

    def __del__(self) -> None:
        """A handle dropped without :meth:`close` still releases the shard, but a finaliser never blocks or raises: it
        runs wherever the garbage collector runs, and at interpreter shutdown the shard watcher (a daemon thread,
        frozen then) may hold ``registry_lock`` for ever.
        """
        try:
            if sys.is_finalizing() or not registry_lock.acquire(blocking=False):
                return
            try:
                self.close()
            finally:
                registry_lock.release()
        except Exception:  # noqa: BLE001, S110 - module globals may already be None at shutdown
            pass

    def _run(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except StoreError:
            raise
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # plain Exception with a message, or a Rust panic (a BaseException)
            hint = io_hint(exc)
            if hint is not None:
                raise StoreError(
                    f"{what} failed: {hint} ({exc}). Documents committed before are intact; fix this and run again",
                    path=self.folder,
                    field="disk",
                ) from exc
            raise StoreError(f"{what} failed: {type(exc).__name__}: {exc}", path=self.folder) from exc

    def _written(self) -> None:
        if self._entry is not None:
            self._entry.unflushed = self._entry.wrote = True

    # -- collection ----------------------------------------------------------------------------
    def exists(self) -> bool:
        return (self.folder / _META_FILE).is_file() and (self._shard_dir / "edge_config.json").is_file()

    def create(self, dim: int, metadata: dict[str, Any]) -> None:
        check_dim(dim, self.location)
        if self.exists():
            raise StoreError("a collection already exists here", path=self.folder)
        check_space(self.folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if self._shard_dir.exists():  # left by a crash between shard creation and metadata: start over
            try:
                with self._using(must_exist=False):  # fails if another process holds it (it may be creating it)
                    pass
            except StoreError as exc:
                if "another process" in exc.message:
                    raise
            finally:
                self.close()
            shutil.rmtree(self._shard_dir)
        staged = take_staged(self.folder, self._shard_dir, dim)
        try:
            with self._using(None if staged else shard_config(dim), must_exist=False) as shard:
                if not staged:
                    self._create_indexes(shard, PAYLOAD_INDEXES)
                    self._run("flush", shard.flush)
                meta = {"dense_dim": dim, "metadata": metadata}
                tmp = self.folder / f".{_META_FILE}.{uuid.uuid4().hex}"
                tmp.write_text(json.dumps(meta, indent=2, sort_keys=True), encoding="utf-8")
                os.replace(tmp, self.folder / _META_FILE)
            self._indexes_checked = True
            if not staged:  # a staged shard was settled by prepare() and stays open for the first write
                self._written()
                self.close()  # settles the new shard (park): its first load fills ~80 MiB of preallocated files
        except BaseException:
            self.close()  # leave no half-made shard behind
            shutil.rmtree(self._shard_dir, ignore_errors=True)
            raise
        self._dim = dim

    def prepare(self, dim: int) -> None:
        """Build the new empty shard with its payload indexes in ``<folder>/.shard-staged`` (private:
        no other process knows it; the caller holds the folder's write lock), for :meth:`create` to
        move in place (:mod:`~structaware_retrievers.store.edge_staging`). Each payload index costs
        several fsyncs (0.1-0.8 s for all of them on a busy disk): ``StructureIndex.add_document``
        runs this while it embeds the first document."""
        check_dim(dim, self.location)
        check_space(self.folder)
        self.discard_prepared()
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            build_staged(self.folder, dim, lambda shard: self._create_indexes(shard, PAYLOAD_INDEXES))
        except BaseException:
            self.discard_prepared()
            raise

    def discard_prepared(self) -> None:
        """Remove what :meth:`prepare` built (and the folder, if it made it and it is empty)."""
        discard_staged(self.folder)
        if not self.exists():
            with contextlib.suppress(OSError):  # not empty: an older index's files, left alone
                self.folder.rmdir()

    def _create_indexes(self, shard: Any, wanted: dict[str, str]) -> None:
        for name, kind in wanted.items():
            self._run(f"payload index on {name}", shard.update, field_index_operation(name, kind))

    def ensure_payload_indexes(self) -> list[str]:
        if self._indexes_checked:
            return []
        with self._using() as shard:
            have = set(self._run("info", shard.info).payload_schema)
            missing = {k: v for k, v in PAYLOAD_INDEXES.items() if k not in have}
            if missing:
                self._written()
                self._create_indexes(shard, missing)
        self._indexes_checked = True
        return sorted(missing)

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
        check_space(self.folder, points_bytes(points))  # before the engine can hit a full disk (SIGBUS)
        with self._using() as shard:
            for chunk in checked_batches(points, self.dense_dim(), self.location, _UPSERT_BATCH):
                batch = [
                    to_edge_point(p)  # type: ignore[arg-type]
                    for p in chunk
                ]
                self._written()
                self._run("upsert", shard.update, E.UpdateOperation.upsert_points(batch))

    def delete_ids(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        with self._using() as shard:
            self._written()
            for i in range(0, len(ids), 1000):
                self._run("delete", shard.update, E.UpdateOperation.delete_points([str(x) for x in ids[i : i + 1000]]))

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            with self._using() as shard:
                self._written()
                self._run("set payload", shard.update, E.UpdateOperation.set_payload(list(ids), payload))

    def delete_payload(self, ids: Sequence[str], keys: Sequence[str]) -> None:
        if ids:
            with self._using() as shard:
                self._written()
                self._run("delete payload", shard.update, E.UpdateOperation.delete_payload(list(ids), list(keys)))

    def delete(self, flt: PointFilter) -> int:
        require_filter(flt, self.location)
        with self._using() as shard:
            n = self.count(flt)
            if n:
                self._written()
                self._run(
                    "delete by filter", shard.update, E.UpdateOperation.delete_points_by_filter(to_edge_filter(flt))
                )
        return n

    def flush(self) -> None:
        entry = self._entry
        if entry is not None and entry.shard is not None and entry.unflushed:
            with self._using() as shard:
                self._run("flush", shard.flush)
                entry.unflushed = False

    def optimize(self) -> None:
        with self._using() as shard:
            self._written()
            self._run("optimize", shard.optimize)

    # -- reads ---------------------------------------------------------------------------------
    def count(self, flt: PointFilter | None = None) -> int:
        with self._using() as shard:
            return int(self._run("count", shard.count, E.CountRequest(exact=True, filter=to_edge_filter(flt))))

    def scroll(
        self,
        flt: PointFilter | None = None,
        *,
        fields: Sequence[str] | None = None,
        with_vectors: bool = False,
        batch: int = 1000,
    ) -> Iterator[PointRecord]:
        payload: Any = E.PayloadSelector.Include(list(fields)) if fields is not None else True
        offset = None
        with self._using() as shard:  # one shard for the whole scroll: no write lands between two pages
            while True:
                req = E.ScrollRequest(
                    offset=offset,
                    limit=batch,
                    filter=to_edge_filter(flt),
                    with_payload=payload,
                    with_vector=with_vectors,
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
        out: list[PointRecord] = []
        with self._using() as shard:
            for i in range(0, len(ids), 1000):
                recs = self._run("retrieve", shard.retrieve, [str(x) for x in ids[i : i + 1000]], True, with_vectors)
                out.extend(to_point_record(r, with_vectors) for r in recs)
        return out if include_hidden else [r for r in out if not is_hidden(r.payload)]

    def _search(self, plan: QueryPlan) -> list[ScoredRecord]:
        ef = to_edge_filter(plan.flt)
        queries = [(E.Query.Nearest(to_edge_vector(v), using=u), w) for u, v, w in plan.searches]
        if plan.mmr_lambda is not None:
            ((using, vector, _),) = plan.searches
            mmr = E.Mmr(to_edge_vector(vector), plan.mmr_lambda, plan.depth, using=using)
            req = E.QueryRequest(limit=plan.limit, query=mmr, filter=ef, with_payload=True)
        elif plan.fusion is None:
            ((query, _),) = queries
            req = E.QueryRequest(limit=plan.limit, query=query, filter=ef, with_payload=True)
        else:
            prefetches = [E.Prefetch(limit=plan.depth, query=q, filter=ef) for q, _ in queries]
            prefetches += [
                E.Prefetch(
                    limit=plan.depth,
                    query=E.Query.Nearest(to_edge_vector(v), using=u),
                    filter=to_edge_filter(f & plan.flt),
                )
                for u, v, _, f in plan.focus
            ]
            weights = [w for _, w in queries] + [w for _, _, w, _ in plan.focus]
            fused = E.Fusion.Rrf(k=plan.rrf_k, weights=weights) if plan.fusion == "rrf" else E.Fusion.Dbsf()
            req = E.QueryRequest(limit=plan.limit, prefetches=prefetches, query=fused, filter=ef, with_payload=True)
        with self._using() as shard:
            return [to_scored_record(h) for h in self._run("query", shard.query, req)]

    def __repr__(self) -> str:
        return f"EdgeStore({self.location!r})"
