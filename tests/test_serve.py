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

from structaware_readers import errors
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.filters import SearchFilter
from structaware_retrievers.search.evidence import evidence_units, hit_unit
from structaware_retrievers.serve.app import QueryServer, make_server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
EN = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
TIMEOUT = 30


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


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
    status, body = _call(f"{server.url}/query", {"text": question, "k": 3, "min_score": 0})  # every hit
    assert status == 200
    expected = server.index.query(question, k=3, min_score=0)
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
    status, again = _call(
        f"{server.url}/query?text={q.replace(' ', '+')}&k=3&expand=true&budget_chars=3000&weights=0.5,1"
    )
    assert status == 200 and again == body  # the same request as URL parameters
    status, plain = _call(f"{server.url}/query", {"text": q, "k": 3})
    assert status == 200 and "evidence" not in plain
    status, err = _call(f"{server.url}/query", {"text": q, "weights": [1]})
    assert status == 400 and err["field"] == "weights"
    status, err = _call(f"{server.url}/query", {"text": q, "expand": "yes"})
    assert status == 400 and err["field"] == "expand"


def test_an_expanded_answer_names_the_group_rows_its_hit_holds(server: QueryServer) -> None:
    """With ``expand``, a table hit's record in ``evidence`` holds its group rows' text as its record in
    ``hits`` does, and names their ids as that record does (it said ``[]``: a client could not tell
    which units it was handed, and the rows were not listed anywhere else either)."""
    status, body = _call(
        f"{server.url}/query", {"text": "What is the grade for adults 57-59 y?", "k": 3, "expand": True, "min_score": 0}
    )
    assert status == 200
    hit = body["hits"][0]
    assert hit["unit_type"] == "table_row" and hit["group_unit_ids"]  # a grouped hit (every row kept)
    (own,) = [r for r in body["evidence"] if r["unit_id"] == hit["unit_id"]]
    assert own["expanded_from"] is None and own["text"] == hit["text"]
    assert own["group_unit_ids"] == hit["group_unit_ids"]
    neighbours = [r for r in body["evidence"] if r["expanded_from"] is not None]
    assert neighbours and all(r["group_unit_ids"] == [] for r in neighbours)  # a neighbour holds no group


def test_a_burst_of_clients_connecting_at_once_is_answered(server: QueryServer) -> None:
    """Clients that connect at the same moment (an agent's workers starting together) each get their
    answer: the listen backlog was the standard library's 5, and under such a burst some connections
    were reset by the kernel before the server could accept them."""
    import http.client

    answers: list[object] = []

    def one() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=TIMEOUT)
        try:
            conn.request("POST", "/query", body=json.dumps({"text": "clinic BP target", "k": 2}).encode())
            resp = conn.getresponse()
            answers.append((resp.status, len(json.loads(resp.read())["hits"])))
        except OSError as exc:
            answers.append(type(exc).__name__)
        finally:
            conn.close()

    for _ in range(3):  # three bursts of 64 (the kernel resets only when the backlog overflows just so)
        threads = [threading.Thread(target=one) for _ in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(TIMEOUT * 4)
    assert answers == [(200, 2)] * 3 * 64


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
    assert status == 404 and body["error"] == "InputNotFoundError" and body["field"] == "path"
    assert body["detail"] == f"path: {body['message']}" and "/query" in body["message"]
    # the server is still up
    assert _call(f"{server.url}/health")[0] == 200


PUBLIC_ERRORS = {name for name in dir(errors) if isinstance(getattr(errors, name), type)}
ERROR_FIELDS = {"error", "message", "field", "detail"}  # README, "Serving queries"


def test_unknown_fields_are_400s_naming_the_field_and_the_accepted_ones(server: QueryServer) -> None:
    """A typo in a filter key (`unit_typ`) or a top-level field is rejected, never ignored (it used to
    answer 200 with unfiltered hits); the error names the field (and the key it resembles)."""
    q = {"text": "clinic BP target", "k": 5, "mode": "sparse"}
    status, body = _call(f"{server.url}/query", {**q, "filter": {"unit_typ": ["table_row"]}})
    assert status == 400, body
    assert (body["error"], body["field"]) == ("UnknownFilterError", "filter.unit_typ")  # a MalformedInputError
    assert "did you mean 'unit_type'" in body["message"]
    assert body["detail"] == f"filter.unit_typ: {body['message']}"
    status, body = _call(f"{server.url}/query", {**q, "filter": {"unit_types": ["table_row"], "page": {"$like": 1}}})
    assert (status, body["error"], body["field"]) == (400, "UnsupportedFilterError", "filter.page")
    status, body = _call(f"{server.url}/query", {**q, "fliter": {"unit_types": ["table_row"]}})
    assert status == 400 and body["field"] == "fliter" and "'filter'" in body["message"] and "'k'" in body["message"]
    # the GET form: URL parameters carry the scalar fields; a filter field there is unknown too
    status, body = _call(f"{server.url}/query?text=clinic+BP+target&unit_types=table_row")
    assert status == 400 and body["field"] == "unit_types" and "POST" in body["message"] and "'k'" in body["message"]
    status, body = _call(f"{server.url}/query?text=clinic+BP+target&limit=2")
    assert status == 400 and body["field"] == "limit"
    # the well-spelled filter still filters, in SearchFilter's field names and in the metadata keys
    for flt in ({"unit_types": ["table_row"]}, {"unit_type": "table_row"}, {"unit_type": {"$in": ["table_row"]}}):
        status, body = _call(f"{server.url}/query", {**q, "filter": flt})
        assert status == 200 and body["hits"] and {h["unit_type"] for h in body["hits"]} == {"table_row"}, flt


def test_every_error_body_has_the_documented_fields_and_a_public_error_name(
    server: QueryServer, tmp_path: Path
) -> None:
    bad = [
        _call(f"{server.url}/query", raw=b"{not json"),
        _call(f"{server.url}/query", raw=b"[1]"),
        _call(f"{server.url}/query", {"k": 2}),
        _call(f"{server.url}/query", {"text": "x", "weights": [1]}),
        _call(f"{server.url}/query", {"text": "x", "filter": {"unit_typ": "table_row"}}),
        _call(f"{server.url}/query", {"text": "x", "filter": {"page_from": 0}}),
        _call(f"{server.url}/query?text=x&k=two"),
        _call(f"{server.url}/nope"),
        _call(f"{server.url}/nope", {"text": "x"}),
    ]
    with StructureIndex(tmp_path / "empty") as empty:  # the same server over an empty index: 404
        served, server.index = server.index, empty
        try:
            bad.append(_call(f"{server.url}/query", {"text": "anything"}))
        finally:
            server.index = served
    assert [status for status, _ in bad] == [400] * 7 + [404] * 3
    for _status, body in bad:
        assert set(body) == ERROR_FIELDS, body
        assert body["error"] in PUBLIC_ERRORS and not body["error"].startswith("_"), body
        assert body["detail"] and body["message"] in body["detail"] and "\n" not in body["detail"]
        assert (
            body["field"] is None or body["detail"].startswith(f"{body['field']}: ") or body["field"] in body["detail"]
        )
    assert bad[-1][1]["error"] == "IndexNotFoundError" and str(tmp_path / "empty") in bad[-1][1]["detail"]


def test_a_failure_is_a_500_with_the_same_error_shape(server: QueryServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception (here a store read failing) is a 500 ``InternalError`` with the same four
    fields; a typed error keeps its own name. The server stays up."""

    def broken(*_: Any, **__: Any) -> Any:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(server.index, "documents", broken)
    status, body = _call(f"{server.url}/documents")
    assert status == 500 and set(body) == ERROR_FIELDS
    assert (body["error"], body["field"]) == ("InternalError", None)
    assert body["detail"] == "OSError: [Errno 5] Input/output error" and body["message"] in body["detail"]

    def store_error(*_: Any, **__: Any) -> Any:
        raise errors.StoreError("shard lock not granted within 0 s", path="/ix/shard", field="lock")

    monkeypatch.setattr(server.index, "documents", store_error)
    status, body = _call(f"{server.url}/documents")
    assert status == 500 and body == {
        "error": "StoreError",
        "message": "shard lock not granted within 0 s",
        "field": "lock",
        "detail": "/ix/shard: lock: shard lock not granted within 0 s",
    }
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
    query = [*cli, "query", "clinic target for adults 57-59 y", "--index", str(folder), "-k", "3", "--min-score", "0"]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*query, *extra], capture_output=True, text=True, env=env, timeout=120, check=False)

    def run_empty() -> subprocess.CompletedProcess[str]:  # a request the index rejects: 400 from a server
        return subprocess.run(
            [*cli, "query", " ", "--index", str(folder)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    alone = run()
    alone_json = run("--json", "--expand", "--filter", "type=table_row")
    alone_empty = run_empty()
    assert (alone_empty.returncode, alone_empty.stderr) == (2, "error: text: query text is empty\n")
    assert alone.returncode == 0 and alone.stdout.startswith("1. [table_row]")
    proc = subprocess.Popen(
        [*cli, "serve", "--index", str(folder), "--port", "0"], stderr=subprocess.PIPE, text=True, env=env
    )
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
        empty = run_empty()  # the server's 400 ends the command as it ends alone
        assert (empty.returncode, empty.stdout, empty.stderr) == (2, "", alone_empty.stderr)
        itself = run("--no-server")  # answers in its own process: the server holds the shard
        assert itself.returncode == 2 and "lock" in itself.stderr
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)
    assert not (tmp_path / "ix" / "structaware.serve.json").exists()  # SIGTERM: withdrawn
    assert run().stdout == alone.stdout


def test_a_query_command_line_knows_before_parsing_whether_a_server_will_answer(tmp_path: Path, monkeypatch) -> None:
    """`structaware query` skips forking its model child when a live server of the folder its command
    line names will answer (`cli.fast_path.server_answers`, read before typer parses the line)."""
    from structaware_retrievers.cli.fast_path import server_answers
    from structaware_retrievers.serve import client as serve_client

    folder = tmp_path / "ix"
    folder.mkdir()
    monkeypatch.delenv("STRUCTAWARE_INDEX", raising=False)
    assert not server_answers(["q", "--index", str(folder)])  # no advertisement
    serve_client.advertise(folder / "structaware", "http://127.0.0.1:9")  # this (live) process serves it
    assert server_answers(["q", "--index", str(folder), "-k", "3"])
    assert server_answers(["q", f"--index={folder}", "--collection=structaware"])
    assert not server_answers(["q", "--index", str(folder), "--collection", "other"])
    assert not server_answers(["q", "--index", str(folder), "--no-server"])
    assert not server_answers(["q", "--index", str(folder), "--url", "http://localhost:6333"])
    assert not server_answers(["q"])  # the default index folder, not this one
    monkeypatch.setenv("STRUCTAWARE_INDEX", str(folder))
    assert server_answers(["q"])
    serve_client.withdraw(folder / "structaware")
    assert not server_answers(["q"])


def test_a_stale_server_advertisement_never_breaks_a_query(tiny_en_index_dir: Path, tmp_path: Path) -> None:
    """A server killed with SIGKILL leaves its advertisement; while its pid lives on (a zombie not yet
    reaped, or a reused pid) the command finds the address dead and answers itself. It then loads the
    model in a thread while its main thread embeds: numpy is imported before that thread starts
    (`DenseEncoder._in_process`), where two first imports at once failed ('__cpu_features__')."""
    from structaware_retrievers.serve import client as serve_client

    folder = tmp_path / "ix"
    shutil.copytree(tiny_en_index_dir, folder)
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "STRUCTAWARE_CACHE_DIR": str(tiny_en_index_dir.parent.parent / "sa-cache"),
    }
    cli = [
        sys.executable,
        "-m",
        "structaware_retrievers.cli",
        "query",
        "clinic target for adults 57-59 y",
        "--index",
        str(folder),
        "-k",
        "3",
    ]
    alone = subprocess.run([*cli, "--no-server"], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert alone.returncode == 0 and alone.stdout.startswith("1. [table_row]"), alone.stderr
    serve_client.advertise(folder / "structaware", "http://127.0.0.1:9")  # this pytest process: alive, no server
    for _ in range(3):
        stale = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=120, check=False)
        assert (stale.returncode, stale.stdout, stale.stderr) == (0, alone.stdout, "")


def test_an_ingest_into_the_served_folder_is_seen_by_the_running_server(
    tiny_en_index_dir: Path, tmp_path: Path
) -> None:
    """`structaware ingest` into the folder a `structaware serve` holds: the server lets go of the
    shard while idle (the ingest marks the shard lock wanted), takes it back at its next request and
    answers with the new document; both processes stay up and nothing indexed is lost."""
    folder = tmp_path / "ix"
    shutil.copytree(tiny_en_index_dir, folder)
    html = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_sample_html"
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "STRUCTAWARE_CACHE_DIR": str(tiny_en_index_dir.parent.parent / "sa-cache"),
        "STRUCTAWARE_LOCK_TIMEOUT": "120",  # a lock never handed over fails the ingest instead of hanging
    }
    cli = [sys.executable, "-m", "structaware_retrievers.cli"]
    proc = subprocess.Popen(
        [*cli, "serve", "--index", str(folder), "--port", "0"], stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        match = re.search(r"at (http://127\.0\.0\.1:\d+)", line)
        assert match, line
        url = match.group(1)
        status, before = _call(f"{url}/health")
        assert status == 200 and before["units"] > 0
        old_docs = {d["doc_name"] for d in _call(f"{url}/documents")[1]["documents"]}
        assert old_docs == {TINY.name, EN.name}

        ingest = subprocess.run(
            [*cli, "ingest", str(html), "--index", str(folder), "--no-progress"],
            capture_output=True, text=True, env=env, timeout=300, check=False,
        )  # fmt: skip
        assert ingest.returncode == 0, ingest.stderr
        assert proc.poll() is None  # the server is still up

        status, docs = _call(f"{url}/documents")
        new = {d["doc_name"]: d for d in docs["documents"]}
        assert status == 200 and old_docs < set(new), new
        (added,) = set(new) - old_docs
        status, after = _call(f"{url}/health")
        assert status == 200 and after["units"] == before["units"] + new[added]["units"] > before["units"]
        q = {"text": "antihypertensive drug treatment stage 2 hypertension", "k": 3, "mode": "sparse"}
        status, body = _call(f"{url}/query", {**q, "filter": {"doc_names": [added]}})
        assert status == 200 and body["hits"] and {h["doc"] for h in body["hits"]} == {added}
        assert any("antihypertensive" in h["text"] for h in body["hits"])
        status, body = _call(f"{url}/query", {"text": "clinic target for adults 57-59 y", "k": 1, "mode": "sparse"})
        assert status == 200 and "Adults 57-59 y" in body["hits"][0]["text"]  # the older documents are kept
    finally:
        proc.terminate()
        proc.wait(TIMEOUT)
