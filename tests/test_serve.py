"""``structaware serve``: real HTTP on 127.0.0.1 over a real index (bounded: port 0, timeouts)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from structaware_retrievers.evidence import evidence_units, hit_unit
from structaware_retrievers.filters import SearchFilter
from structaware_retrievers.index import StructureIndex
from structaware_retrievers.serve import QueryServer, make_server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
EN = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
TIMEOUT = 30


@pytest.fixture(autouse=True)
def _env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
    monkeypatch.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)


@pytest.fixture(scope="module")
def index_dir(tiny_en_index_dir: Path) -> Path:
    return tiny_en_index_dir  # TINY and EN ingested (conftest)


@pytest.fixture
def server(index_dir: Path) -> Iterator[QueryServer]:
    ix = StructureIndex(index_dir)
    srv = make_server(ix, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(TIMEOUT)
    ix.close()


def _call(url: str, body: Any = None, raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_serves_the_same_hits_as_an_in_process_query(server: QueryServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    status, health = _call(f"{server.url}/health")
    assert status == 200 and health["status"] == "ok" and health["units"] == server.index.count() > 0

    question = "What is the grade for adults 57-59 y?"
    status, body = _call(f"{server.url}/query", {"text": question, "k": 3})
    assert status == 200
    expected = server.index.query(question, k=3)
    assert [h["unit_id"] for h in body["hits"]] == [h.unit.unit_id for h in expected]
    assert body["hits"][0] == json.loads(json.dumps(expected[0].to_record()))  # a grouped hit holds its rows
    assert expected[0].to_record()["text"] == hit_unit(expected[0]).text
    assert [h["rank"] for h in body["hits"]] == [1, 2, 3]
    status, body = _call(f"{server.url}/query", {"text": question, "k": 1, "mode": "sparse"})
    assert status == 200 and "Adults 57-59 y" in body["hits"][0]["text"]

    # a filter and the GET form
    flt = {"doc_names": [TINY.name], "unit_types": ["table_row"]}
    status, body = _call(f"{server.url}/query", {"text": "clinic BP target", "k": 5, "mode": "sparse", "filter": flt})
    assert status == 200 and body["hits"]
    assert {(h["doc"], h["unit_type"]) for h in body["hits"]} == {(TINY.name, "table_row")}
    expected = server.index.query("clinic BP target", k=5, mode="sparse", filter=SearchFilter(**flt))
    assert [h["unit_id"] for h in body["hits"]] == [h.unit.unit_id for h in expected]
    status, got = _call(f"{server.url}/query?text=clinic+BP+target&k=2&mode=sparse")
    assert status == 200 and len(got["hits"]) == 2

    status, docs = _call(f"{server.url}/documents")
    assert status == 200 and sorted(d["doc_name"] for d in docs["documents"]) == sorted([TINY.name, EN.name])


def test_serves_expansion_budget_and_weights_as_the_index_answers_them(server: QueryServer) -> None:
    q = "clinic target for adults 57-59 y"
    status, body = _call(
        f"{server.url}/query", {"text": q, "k": 3, "expand": True, "budget_chars": 3000, "weights": [0.5, 1]}
    )
    expected = server.index.query(q, k=3, expand=True, budget_chars=3000, weights=(0.5, 1.0))
    assert status == 200 and [r["unit_id"] for r in body["hits"]] == [h.unit.unit_id for h in expected]
    walk = [{**h.to_record(u), "expanded_from": via} for h, u, via in evidence_units(expected)]
    assert body["evidence"] == json.loads(json.dumps(walk))  # the lines of `structaware query --expand --json`
    assert any(r["expanded_from"] == body["hits"][0]["unit_id"] for r in body["evidence"])  # adjacent rows
    assert sum(len(r["context"]) + 1 + len(r["text"]) for r in body["evidence"]) <= 3000
    status, again = _call(f"{server.url}/query?text={q.replace(' ', '+')}&k=3&expand=true&budget_chars=3000&weights=0.5,1")
    assert status == 200 and again == body  # the same request as URL parameters
    status, plain = _call(f"{server.url}/query", {"text": q, "k": 3})
    assert status == 200 and "evidence" not in plain
    status, err = _call(f"{server.url}/query", {"text": q, "weights": [1]})
    assert status == 400 and err["field"] == "weights"
    status, err = _call(f"{server.url}/query", {"text": q, "expand": "yes"})
    assert status == 400 and err["field"] == "expand"


def test_bad_requests_get_typed_json_errors(server: QueryServer) -> None:
    status, body = _call(f"{server.url}/query", raw=b"{not json")
    assert status == 400 and body["field"] == "body" and "invalid JSON" in body["message"]
    status, body = _call(f"{server.url}/query", {"text": "x", "limit": 3})
    assert status == 400 and body["field"] == "limit"
    status, body = _call(f"{server.url}/query", {"text": "blood pressure", "k": 0})
    assert status == 400 and body["error"] == "MalformedInputError" and body["field"] == "k"
    status, body = _call(f"{server.url}/query", {"k": 2})
    assert status == 400 and body["field"] == "text"
    status, body = _call(f"{server.url}/query", {"text": "x", "filter": {"page_from": 0}})
    assert status == 400 and body["error"] == "MalformedInputError"
    status, body = _call(f"{server.url}/query?text=x&k=two")
    assert status == 400 and body["field"] == "k"
    status, body = _call(f"{server.url}/query", raw=b'{"text": "blood \\ud800 pressure", "k": 1}')
    assert status == 200 and len(body["hits"]) == 1  # a lone surrogate does not break the answer
    status, body = _call(f"{server.url}/nope")
    assert status == 404
    # the server is still up
    assert _call(f"{server.url}/health")[0] == 200


def test_an_empty_index_answers_404_with_the_fix(tmp_path: Path) -> None:
    with StructureIndex(tmp_path / "empty") as ix:
        srv = make_server(ix, port=0)
        thread = threading.Thread(target=srv.serve_forever, daemon=True)
        thread.start()
        try:
            status, body = _call(f"{srv.url}/query", {"text": "anything"})
            assert status == 404 and body["error"] == "IndexNotFoundError" and "ingest" in body["message"]
        finally:
            srv.shutdown()
            srv.server_close()
            thread.join(TIMEOUT)


def test_cli_serve_answers_over_http(index_dir: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "structaware_retrievers.cli", "serve", "--index", str(index_dir), "--port", "0"]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        match = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        status, body = _call(f"{match.group(1)}/query", {"text": "clinic BP target", "k": 1})
        assert status == 200 and len(body["hits"]) == 1
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)


def test_cli_query_asks_a_running_server_of_the_same_folder(tmp_path: Path) -> None:
    """`structaware serve` advertises itself beside the folder; `structaware query` on that folder
    answers through it (the server holds the shard, so with no lock wait allowed only the served
    query can answer), prints what `--no-server` prints, and the advertisement goes when it stops."""
    folder = tmp_path / "ix"
    with StructureIndex(folder) as ix:
        assert ix.ingest([TINY, EN]).documents == 2
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "STRUCTAWARE_LOCK_TIMEOUT": "0"}
    cli = [sys.executable, "-m", "structaware_retrievers.cli"]
    query = [*cli, "query", "clinic target for adults 57-59 y", "--index", str(folder), "-k", "3"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*query, *extra], capture_output=True, text=True, env=env, timeout=120, check=False)

    alone = run()
    alone_json = run("--json", "--expand", "--filter", "type=table_row")
    assert alone.returncode == 0 and alone.stdout.startswith("1. [table_row]")
    proc = subprocess.Popen([*cli, "serve", "--index", str(folder), "--port", "0"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        assert "serving" in line, line
        advert = json.loads((tmp_path / "ix" / "structaware.serve.json").read_text())
        assert advert["pid"] == proc.pid and advert["url"] in line
        served, served_json = run(), run("--json", "--expand", "--filter", "type=table_row")
        assert (served.returncode, served.stdout) == (0, alone.stdout)
        assert (served_json.returncode, served_json.stdout) == (0, alone_json.stdout)
        assert len(served_json.stdout.splitlines()) > 3  # the hits' neighbours came through too
        bad = run("--filter", "page=99")
        assert bad.returncode == 0 and bad.stdout == "" and "no results" in bad.stderr
        empty = subprocess.run([*cli, "query", " ", "--index", str(folder)], capture_output=True, text=True, env=env, timeout=120, check=False)
        assert empty.returncode == 2 and "query text is empty" in empty.stderr
        itself = run("--no-server")  # answers in its own process: the server holds the shard
        assert itself.returncode == 2 and "lock" in itself.stderr
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)
    assert not (tmp_path / "ix" / "structaware.serve.json").exists()  # SIGTERM: withdrawn
    assert run().stdout == alone.stdout


def test_a_query_command_line_knows_before_parsing_whether_a_server_will_answer(tmp_path: Path, monkeypatch) -> None:
    """`structaware query` skips forking its model child when a live server of the folder its command
    line names will answer (`cli._server_answers`, read before typer parses the line)."""
    from structaware_retrievers import serve_client
    from structaware_retrievers.cli import _server_answers

    folder = tmp_path / "ix"
    folder.mkdir()
    monkeypatch.delenv("STRUCTAWARE_INDEX", raising=False)
    assert not _server_answers(["q", "--index", str(folder)])  # no advertisement
    serve_client.advertise(folder / "structaware", "http://127.0.0.1:9")  # this (live) process serves it
    assert _server_answers(["q", "--index", str(folder), "-k", "3"])
    assert _server_answers(["q", f"--index={folder}", "--collection=structaware"])
    assert not _server_answers(["q", "--index", str(folder), "--collection", "other"])
    assert not _server_answers(["q", "--index", str(folder), "--no-server"])
    assert not _server_answers(["q", "--index", str(folder), "--url", "http://localhost:6333"])
    assert not _server_answers(["q"])  # the default index folder, not this one
    monkeypatch.setenv("STRUCTAWARE_INDEX", str(folder))
    assert _server_answers(["q"])
    serve_client.withdraw(folder / "structaware")
    assert not _server_answers(["q"])


def test_a_stale_server_advertisement_never_breaks_a_query(tiny_en_index_dir: Path, tmp_path: Path) -> None:
    """A server killed with SIGKILL leaves its advertisement; while its pid lives on (a zombie not yet
    reaped, or a reused pid) the command finds the address dead and answers itself. It then loads the
    model in a thread while its main thread embeds: numpy is imported before that thread starts
    (`DenseEncoder._in_process`), where two first imports at once failed ('__cpu_features__')."""
    from structaware_retrievers import serve_client

    folder = tmp_path / "ix"
    shutil.copytree(tiny_en_index_dir, folder)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "STRUCTAWARE_CACHE_DIR": str(tiny_en_index_dir.parent.parent / "sa-cache")}
    cli = [sys.executable, "-m", "structaware_retrievers.cli", "query", "clinic target for adults 57-59 y", "--index", str(folder), "-k", "3"]
    alone = subprocess.run([*cli, "--no-server"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert alone.returncode == 0 and alone.stdout.startswith("1. [table_row]"), alone.stderr
    serve_client.advertise(folder / "structaware", "http://127.0.0.1:9")  # this pytest process: alive, no server
    for _ in range(3):
        stale = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=120, check=False)
        assert (stale.returncode, stale.stdout, stale.stderr) == (0, alone.stdout, "")
