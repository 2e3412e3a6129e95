"""A full disk, a file-size limit and a read-only folder (issue 12): a clear typed error naming
the path, never a crash, and the index still opens and serves every document committed before.

Real mechanisms, no mocks: a real tmpfs filled up (in a private mount namespace, ``unshare -m``),
``RLIMIT_FSIZE`` (writes past it fail with ``EFBIG``), and a folder made read-only with
``chmod`` for a writer that has dropped the capabilities that let root ignore it. Each case
skips, saying why, where the machine cannot provide the mechanism. The engine is the real
embedded Qdrant (``tests/robust_worker.py``, a hash dense model).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from robust_worker import open_index, state

pytestmark = pytest.mark.integration

WORKER = Path(__file__).with_name("robust_worker.py")


def _doc(name: str, n_rows: int) -> list[dict]:
    rows = "".join(
        f"<tr><td>{name} condition {k}</td><td>drug {k % 13}</td><td>{k % 5 + 1} mg</td></tr>" for k in range(n_rows)
    )
    return [
        {"type": "text", "text": f"Guideline {name}", "text_level": 1, "page_idx": 0},
        {"type": "table", "table_caption": [f"Table {name}"], "page_idx": 1,
         "table_body": f"<table><tr><th>Condition</th><th>Drug</th><th>Dose</th></tr>{rows}</table>"},
    ]  # fmt: skip


@pytest.fixture
def docs(tmp_path: Path) -> tuple[Path, Path]:
    """Document A (committed first) and document B (the write that fails)."""
    out = []
    for name, n in (("a", 60), ("b", 2000)):
        p = tmp_path / f"{name}_content_list.json"
        p.write_text(json.dumps(_doc(name, n)), encoding="utf-8")
        out.append(p)
    return out[0], out[1]


def _worker(
    *args: str, preexec: Callable[[], None] | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(WORKER), *args], capture_output=True, text=True, timeout=600, preexec_fn=preexec, check=False,
        env={**os.environ, "PYTHONPATH": str(WORKER.parent), **(env or {})},
    )  # fmt: skip


def _assert_no_crash(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode in (0, 1, 2), proc  # 1: a failed input in the summary, 2: one typed error line
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr, proc.stderr


def _served(index: Path) -> dict[str, list[str]]:
    """The visible state, after checking the index opens and answers a query."""
    with open_index(str(index)) as ix:
        assert len(ix.query("drug dose", k=5, min_score=0)) == 5
        return state(ix)


def test_a_full_disk_is_refused_before_writing_and_the_index_stays_readable(
    docs: tuple[Path, Path], tmp_path: Path
) -> None:
    """A real tmpfs: document A fits, then the disk is filled to less than the free space a write
    keeps ($STRUCTAWARE_MIN_FREE_MB, 64 here) and document B is refused up front (before: SIGBUS)."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) for a private tmpfs mount")
    probe = subprocess.run(["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {tmp_path}"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs CAP_SYS_ADMIN): {probe.stderr.strip()}")
    a, b = docs
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    py = f"{sys.executable} {WORKER}"
    script = f"""
set -e
mount -t tmpfs -o size=192m tmpfs {mnt}
{py} ingest {mnt}/ix {a} > {tmp_path}/a.out
free=$(df -k --output=avail {mnt} | tail -1)
fallocate -l $(( (free - 40 * 1024) * 1024 )) {mnt}/filler
set +e
{py} ingest {mnt}/ix {b} > {tmp_path}/b.out 2> {tmp_path}/b.err
echo $? > {tmp_path}/b.rc
df -k --output=avail {mnt} | tail -1 > {tmp_path}/free.txt
{py} query {mnt}/ix "drug dose" > {tmp_path}/q.out 2> {tmp_path}/q.err
{py} state {mnt}/ix > {tmp_path}/state.out
"""
    env = {**os.environ, "PYTHONPATH": str(WORKER.parent), "STRUCTAWARE_MIN_FREE_MB": "64"}
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=600, env=env,
                         check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads((tmp_path / "a.out").read_text())["documents"] == 1
    assert int((tmp_path / "free.txt").read_text()) < 64 * 1024  # the disk was really (almost) full
    summary = json.loads((tmp_path / "b.out").read_text().strip().splitlines()[-1])
    assert (tmp_path / "b.rc").read_text().strip() == "1" and "Traceback" not in (tmp_path / "b.err").read_text()
    (failure,) = summary["failed"]
    assert failure["error_type"] == "StoreError"
    assert (
        failure["message"].startswith(f"{mnt}/ix/structaware: disk: only ") and "free some space" in failure["message"]
    )
    assert (tmp_path / "q.out").read_text().strip() == "5", (tmp_path / "q.err").read_text()
    seen = json.loads((tmp_path / "state.out").read_text())
    assert len(seen) == 1 and len(next(iter(seen.values()))) == 60  # A whole, nothing of B


def test_a_file_size_limit_never_crashes_and_loses_nothing(docs: tuple[Path, Path], tmp_path: Path) -> None:
    """RLIMIT_FSIZE (EFBIG past it, SIGXFSZ ignored): a new index cannot be created (typed error
    naming the folder, nothing left behind); on an existing one the engine cannot flush its segments
    on close, which is logged, and the write-ahead log keeps the committed document."""
    a, b = docs

    def limited(limit: int) -> Callable[[], None]:
        def preexec() -> None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return preexec

    new = tmp_path / "new"
    proc = _worker("ingest", str(new), str(a), preexec=limited(1_000_000))
    _assert_no_crash(proc)
    (failure,) = json.loads(proc.stdout.strip().splitlines()[-1])["failed"]
    assert failure["message"].startswith(
        f"{new}/structaware: disk: cannot open the index: a file reached the size limit"
    )
    assert not (new / "structaware" / "shard").exists()  # the half-made shard was removed

    index = tmp_path / "ix"
    with open_index(str(index)) as ix:
        assert ix.ingest([a], optimize=False).ok
        before = state(ix)
    proc = _worker("ingest", str(index), str(b), preexec=limited(36_000))
    _assert_no_crash(proc)
    assert "could not write the index's segments" in proc.stderr and "File too large" in proc.stderr
    seen = _served(index)
    assert {k: v for k, v in seen.items() if k in before} == before  # A untouched
    assert sorted(map(len, seen.values())) == [60, 2000]  # B committed whole (replayed from the log)


def _drop_dac() -> None:
    """Drop the capabilities that let root write where the mode bits forbid it (bounding set; the
    exec'd program starts without them)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2, 3):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_read_only_folder_refuses_writes_and_is_searched_in_a_copy(docs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = docs
    index = tmp_path / "ix"
    with open_index(str(index)) as ix:
        assert ix.ingest([a], optimize=False).ok
        before = state(ix)
    modes = {p: p.stat().st_mode for p in [index, *index.rglob("*")]}
    for p, mode in modes.items():
        p.chmod(stat.S_IMODE(mode) & ~0o222)
    preexec = _drop_dac if os.geteuid() == 0 else None
    try:
        probe = subprocess.run([sys.executable, "-c", f"open({str(index / 'ingested.sqlite')!r}, 'ab')"],
                               capture_output=True, preexec_fn=preexec, check=False)  # fmt: skip
        if probe.returncode == 0:
            pytest.skip("this process can write into a read-only folder (root without a way to drop CAP_DAC_OVERRIDE)")
        proc = _worker("ingest", str(index), str(b), preexec=preexec)
        _assert_no_crash(proc)
        assert proc.returncode == 2 and proc.stderr.strip().startswith(f"error: {index}/structaware.write.lock: lock:")
        assert "read-only" in proc.stderr
        # reading: Qdrant Edge writes to its folder even to load it, so a copy is searched, then deleted
        copies = set(Path(tempfile.gettempdir()).glob("structaware-read-only-*"))
        proc = _worker("query", str(index), "drug dose", preexec=preexec)
        _assert_no_crash(proc)
        assert proc.returncode == 0 and proc.stdout.split() == ["5"], proc.stderr
        assert "the folder is not writable" in proc.stderr and "searching a copy in" in proc.stderr
        assert set(Path(tempfile.gettempdir()).glob("structaware-read-only-*")) == copies
    finally:
        for p, mode in modes.items():
            p.chmod(stat.S_IMODE(mode))
    assert _served(index) == before  # writable again: everything committed before is there
