"""The write protocol: a document becomes visible only when all its points are written.

A document takes several Qdrant operations, so it is written as one transaction ``T``: new points
are upserted hidden (``_pending = T``), the points they replace are marked ``_superseded = T``, one
operation removes ``_pending`` (the commit), then the superseded points are deleted. Every read
skips both markers, so a crash leaves hidden points, never half a document or two versions.
:func:`recover` (run by the next writer) deletes the superseded points of a committed transaction
and rolls back one that did not commit.
"""

from __future__ import annotations

import logging
import secrets
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from structaware_readers.errors import StoreError
from structaware_retrievers.query.filters import Match, PointFilter, Range
from structaware_retrievers.store.base import PENDING, SUPERSEDED, PointRecord, VectorStore

__all__ = ["RecoveryReport", "recover", "write_document"]

log = logging.getLogger(__name__)


def _new_txn() -> int:
    return secrets.randbelow(2**52) + 1  # exact in a float range filter


def _marked(key: str) -> PointFilter:
    return PointFilter(must=(Range(key, gte=1),), include_hidden=True)


def write_document(store: VectorStore, points: Sequence[PointRecord], replaces: Sequence[str], *, src: str) -> None:
    """Write one document's ``points`` and remove the points it ``replaces``, atomically for readers. Raises
    ``StoreError``: the call was rolled back, or, if the rollback failed too, the document stays hidden until
    :func:`recover` runs (field ``rollback``).
    """
    txn = _new_txn()
    new_ids = [p.id for p in points]
    new_set = set(new_ids)
    overwritten = [i for i in replaces if i in new_set]
    staged = [PointRecord(id=p.id, payload={**p.payload, PENDING: txn}, dense=p.dense, sparse=p.sparse) for p in points]
    with store.hold():  # one transaction at a time: a waiting reader gets the shard before or after it
        backup = store.retrieve(overwritten, with_vectors=True) if overwritten else []
        try:
            if overwritten:
                store.set_payload(replaces, {SUPERSEDED: txn})
            store.upsert(staged)
            if replaces and not overwritten:
                store.set_payload(replaces, {SUPERSEDED: txn})
            store.delete_payload(new_ids, [PENDING])  # the commit point
        except Exception as exc:
            _undo_live(store, new_ids, replaces, backup, src, exc)
            if isinstance(exc, StoreError) and exc.field == "disk":
                raise  # the file system's refusal, naming the index folder, says it all
            raise StoreError(
                f"writing the document failed and was rolled back: {exc}", path=src, field="upsert"
            ) from exc
        try:
            store.delete_ids([i for i in replaces if i not in new_set])
            store.flush()
        except Exception as exc:  # noqa: BLE001 - committed: the leftovers are hidden and recover() deletes them
            log.warning(
                "%s: committed, but removing the replaced points failed (%s); the next write finishes it", src, exc
            )


def _undo_live(
    store: VectorStore,
    new_ids: list[str],
    replaces: Sequence[str],
    backup: list[PointRecord],
    src: str,
    cause: Exception,
) -> None:
    """Roll back a failed :func:`write_document` in the same process (the backup is at hand)."""
    kept = {p.id for p in backup}
    try:
        store.delete_ids([i for i in new_ids if i not in kept])
        if backup:
            store.upsert(backup)
        store.delete_payload(list(replaces), [SUPERSEDED])
        store.flush()
    except Exception as exc:
        raise StoreError(
            f"writing the document failed ({cause}) and so did the rollback ({exc}); its points stay hidden"
            " from queries and the next ingest repairs them",
            path=src,
            field="rollback",
        ) from exc


@dataclass
class RecoveryReport:
    """What :func:`recover` did: transactions finished (committed) and rolled back, documents
    removed as a whole (their old version had been partly overwritten)."""

    finished: int = 0
    rolled_back: int = 0
    removed_documents: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.finished or self.rolled_back)


def recover(store: VectorStore, *, ensure_indexes: bool = True) -> RecoveryReport:
    """Prepare an existing collection for writing: create the payload indexes it lacks (a collection made by an older
    version has none on the write-protocol markers), then finish or roll back the transactions an interrupted writer
    left (see the module docstring). Raises ``StoreError``.
    """
    report = RecoveryReport()
    if not store.exists():
        return report
    with store.hold():
        return _recover(store, report, ensure_indexes)


def _recover(store: VectorStore, report: RecoveryReport, ensure_indexes: bool) -> RecoveryReport:
    added = store.ensure_payload_indexes() if ensure_indexes else []
    if added:
        log.info("%s: created the payload indexes an older version did not make: %s", store.location, ", ".join(added))
    pending_n, superseded_n = store.count(_marked(PENDING)), store.count(_marked(SUPERSEDED))
    if not pending_n and not superseded_n:
        return report
    pending: dict[int, list[tuple[str, str]]] = defaultdict(list)
    superseded: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for key, into in ((PENDING, pending), (SUPERSEDED, superseded)):
        for r in store.scroll(_marked(key), fields=["doc_id", key]):
            into[int(r.payload[key])].append((r.id, str(r.payload.get("doc_id", ""))))
    for txn, recs in pending.items():  # never committed: roll back
        old = superseded.pop(txn, [])
        rewritten = sorted({d for _, d in recs} & {d for _, d in old})
        store.delete_ids([i for i, _ in recs])
        if rewritten:
            store.delete(PointFilter(must=(Match("doc_id", tuple(rewritten)),), include_hidden=True))
            report.removed_documents.extend(rewritten)
        store.delete_payload([i for i, d in old if d not in rewritten], [SUPERSEDED])
        report.rolled_back += 1
    for recs in superseded.values():  # committed: finish
        store.delete_ids([i for i, _ in recs])
        report.finished += 1
    store.flush()
    log.warning(
        "%s: repaired an interrupted write (%d finished, %d rolled back%s)",
        store.location,
        report.finished,
        report.rolled_back,
        f"; removed {', '.join(report.removed_documents)} (re-ingest them)" if report.removed_documents else "",
    )
    return report
