"""``structaware query`` ends with ``os._exit`` (no finalisers): ``edge_shard.before_exit`` closes
the shards the process wrote to, and leaves a shard it only read open for the OS to release
(closing one syncs every memory-mapped file of the shard, even unchanged). Run in-process instead
(``CliRunner``), the command closes its index when it returns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from structaware_retrievers.store import EdgeStore, edge_shard
from test_store_contract import DIM, Q_DENSE, points


def _count_in_new_process(folder: Path) -> int:
    code = f"from structaware_retrievers.store import EdgeStore; s = EdgeStore({str(folder)!r}); print(s.count()); s.close()"
    return int(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120).stdout
    )


@pytest.mark.integration
def test_before_exit_closes_written_shards_and_leaves_read_ones_open(tmp_path: Path) -> None:
    written, read = EdgeStore(tmp_path / "written"), EdgeStore(tmp_path / "read")
    for store in (written, read):
        store.create(DIM, {"owner": "exit-test"})
        store.upsert(points("ab"))
    read.close()  # reopened below by a read only
    read = EdgeStore(tmp_path / "read")
    assert read.count() == 2 and len(read.query(dense=Q_DENSE, sparse=None, limit=2, mode="dense")) == 2
    written.upsert(points("cde"))  # a write in this process (as a repair on open would be)
    entries = {name: edge_shard.open_shards[str((tmp_path / name).resolve())] for name in ("written", "read")}
    assert entries["written"].unflushed and entries["read"].shard is not None

    edge_shard.before_exit()

    assert entries["written"].shard is None  # flushed, closed, its lock free
    assert str((tmp_path / "written").resolve()) not in edge_shard.open_shards
    assert _count_in_new_process(tmp_path / "written") == 5
    assert entries["read"].shard is not None  # only read: not closed (os._exit follows)
    read.close()
    written.close()  # a no-op now


def test_an_in_process_query_command_closes_its_index(tiny_en_index_dir: Path, monkeypatch) -> None:
    # only the console command (main(), which ends with os._exit) keeps the index open to the end;
    # the command run in-process (CliRunner, a script) closes it when it returns, as before
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    res = CliRunner().invoke(
        app, ["query", "blood pressure target", "--index", str(tiny_en_index_dir), "-k", "2", "--no-server"]
    )
    assert res.exit_code == 0, res.output
    assert res.output.startswith("1. [") and "\n2. [" in res.output
    assert str((tiny_en_index_dir / "structaware").resolve()) not in edge_shard.open_shards


@pytest.mark.integration
def test_a_handle_finaliser_never_waits_for_the_registry_lock(tmp_path: Path) -> None:
    # an ingest process hung at exit: a handle dropped without close() was finalised while the shard
    # watcher (a daemon thread, frozen at interpreter shutdown) held registry_lock, and the finaliser
    # waited for it for ever. The finaliser must return at once when the lock is taken elsewhere.
    import threading

    store = EdgeStore(tmp_path / "ix")
    store.create(DIM, {"owner": "exit-test"})
    store.upsert(points("ab"))
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with edge_shard.registry_lock:
            taken.set()
            release.wait(60)

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    assert taken.wait(60)
    finaliser = threading.Thread(target=store.__del__, daemon=True)
    finaliser.start()
    finaliser.join(30)
    returned = not finaliser.is_alive()
    release.set()
    holder.join(60)
    assert returned, "EdgeStore.__del__ waited for registry_lock"
    store.close()  # the handle is still usable and closes normally
    assert str((tmp_path / "ix").resolve()) not in edge_shard.open_shards
