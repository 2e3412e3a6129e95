"""The user cache's rules (issue 27): entries written once and atomically, never replaced under a reader."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from structaware_readers.common.user_cache import cache_dir, publish_folder, write_once, write_replace


def test_write_once_keeps_the_first_writers_bytes(tmp_path: Path) -> None:
    target = tmp_path / "a" / "entry"
    assert write_once(target, b"first") is True
    inode = target.stat().st_ino
    assert write_once(target, b"second") is False
    assert target.read_bytes() == b"first" and target.stat().st_ino == inode
    assert sorted(p.name for p in target.parent.iterdir()) == ["entry"]  # no temporary file left


def test_write_once_has_one_winner_among_concurrent_writers(tmp_path: Path) -> None:
    target = tmp_path / "entry"
    wins: list[bool] = []
    barrier = threading.Barrier(8)

    def run(i: int) -> None:
        barrier.wait()
        wins.append(write_once(target, f"writer {i}".encode()))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wins.count(True) == 1 and len(wins) == 8
    assert target.read_bytes().startswith(b"writer ")
    assert [p.name for p in tmp_path.iterdir()] == ["entry"]


def test_write_replace_swaps_whole_files(tmp_path: Path) -> None:
    target = tmp_path / "entry.json"
    write_replace(target, b"old")
    with open(target, "rb") as reader:  # a reader that opened the old file keeps it whole
        write_replace(target, b"new")
        assert reader.read() == b"old"
    assert target.read_bytes() == b"new"


def _build(content: str, calls: list[str]):
    def build(tmp: Path) -> None:
        calls.append(content)
        (tmp / "data").write_text(content)

    return build


def _valid(folder: Path) -> bool:
    return (folder / "data").is_file()


def test_publish_folder_builds_once_and_never_replaces_a_published_folder(tmp_path: Path) -> None:
    target = tmp_path / "models" / "m-abc"
    calls: list[str] = []
    assert publish_folder(target, _build("one", calls), _valid) == target
    inode = (target / "data").stat().st_ino
    assert publish_folder(target, _build("two", calls), _valid) == target
    assert calls == ["one"] and (target / "data").read_text() == "one" and (target / "data").stat().st_ino == inode

    # another process publishes while this one builds: its folder is kept, this build dropped
    late = tmp_path / "models" / "m-def"

    def racing_build(tmp: Path) -> None:
        publish_folder(late, _build("theirs", calls), _valid)
        (tmp / "data").write_text("ours")

    assert publish_folder(late, racing_build, _valid) == late
    assert (late / "data").read_text() == "theirs"
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["m-abc", "m-def"]  # no build folder left


def test_publish_folder_moves_a_damaged_folder_aside(tmp_path: Path) -> None:
    target = tmp_path / "m"
    target.mkdir()
    (target / "other").write_text("half")  # not what a published folder holds
    calls: list[str] = []
    publish_folder(target, _build("fresh", calls), _valid)
    assert (target / "data").read_text() == "fresh" and not (target / "other").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["m"]


def test_publish_folder_fails_loudly_when_it_cannot_build(tmp_path: Path) -> None:
    def broken(tmp: Path) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        publish_folder(tmp_path / "m", broken, _valid)
    assert list(tmp_path.iterdir()) == []


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x"
    monkeypatch.delenv("STRUCTAWARE_CACHE_DIR")
    assert cache_dir().name == "structaware"
