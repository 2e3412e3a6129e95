"""The query vector computed in a forked child (``encoders.query_child``, used by ``structaware query``).

Each check runs in a fresh Python process: forking needs a process with one thread, which a pytest
process (with the shard watcher and model threads of other tests) is not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the child is forked on Linux only"),
]

QUESTION = "What is the blood pressure target for adults 57-59 y?"


@pytest.fixture
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Offline, the session's model cache (as ``tiny_en_index_dir``), the default model."""
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "STRUCTAWARE_CACHE_DIR": str(tmp_path_factory.getbasetemp() / "sa-cache"),
    }
    env.pop("STRUCTAWARE_DENSE_MODEL", None)
    return env


def run_python(code: str, env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


PRELUDE = f"""
import json, os, threading
from structaware_retrievers.encoders import DenseEncoder
from structaware_retrievers.encoders.query_child import ForkedQueryEncoder
q = {QUESTION!r}
def children():  # this process's children, running or not yet reaped
    found = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open(f"/proc/{{d}}/stat").read().rsplit(")", 1)[1].split()[1] == str(os.getpid()):
                found.append(int(d))
        except OSError:
            pass
    return found
"""


def test_the_childs_vector_is_the_in_process_vector_bit_for_bit(env: dict[str, str]) -> None:
    got = run_python(
        PRELUDE
        + """
enc = ForkedQueryEncoder(threads=1)
started = enc.start()
running = len(children())
enc.ask(q)
forked = enc.embed_query(q)
after = children()
other = enc.embed_query("hand hygiene")  # not the asked text: in-process
plain = DenseEncoder(threads=1)
print(json.dumps({"started": started, "running": running, "after": after, "same": forked == plain.embed_query(q),
                  "other_same": other == plain.embed_query("hand hygiene"), "dim": len(forked)}))
""",
        env,
    )
    assert got["started"] and got["running"] == 1
    assert got["after"] == []  # read and reaped
    assert got["dim"] == 896 and got["same"] and got["other_same"]


def test_the_parent_needs_neither_numpy_nor_onnxruntime(env: dict[str, str]) -> None:
    got = run_python(
        PRELUDE
        + """
import sys
enc = ForkedQueryEncoder(threads=1)
assert enc.start()
enc.ask(q)
v = enc.embed_query(q)
print(json.dumps({"dim": len(v), "loaded": sorted(m for m in ("numpy", "onnxruntime", "tokenizers") if m in sys.modules)}))
""",
        env,
    )
    assert got == {"dim": 896, "loaded": []}


def test_a_child_that_fails_leaves_the_query_to_the_parent(env: dict[str, str]) -> None:
    got = run_python(
        PRELUDE
        + """
parent = os.getpid()
enc = ForkedQueryEncoder(threads=1)
load = enc.backend.load
def load_in_parent_only():
    if os.getpid() != parent:
        raise RuntimeError("model file unreadable in the child")
    return load()
enc.backend.load = load_in_parent_only
assert enc.start()
enc.ask(q)
v = enc.embed_query(q)
print(json.dumps({"same": v == DenseEncoder(threads=1).embed_query(q), "after": children()}))
""",
        env,
    )
    assert got == {"same": True, "after": []}


def test_no_fork_while_another_thread_runs_and_close_ends_an_unused_child(env: dict[str, str]) -> None:
    got = run_python(
        PRELUDE
        + """
stop = threading.Event()
t = threading.Thread(target=stop.wait); t.start()
busy = ForkedQueryEncoder(threads=1)
refused = not busy.start()
busy.ask(q)  # no child: ignored, embed_query works in-process
same = busy.embed_query(q) == DenseEncoder(threads=1).embed_query(q)
stop.set(); t.join()
unused = ForkedQueryEncoder(threads=1)
assert unused.start()
before = len(children())
unused.close(); unused.close()  # the answer came from elsewhere (a server, --mode sparse): idempotent
after = children()
odd = ForkedQueryEncoder(threads=1)
assert odd.start()
odd.ask("caf\\udcc3 x")  # a lone surrogate cannot reach the child as this text: it is ended, not asked
print(json.dumps({"refused": refused, "same": same, "before": before, "after": after,
                  "odd": [odd.text, children()]}))
""",
        env,
    )
    assert got == {"refused": True, "same": True, "before": 1, "after": [], "odd": [None, []]}


@pytest.mark.parametrize("extra", [[], ["--mode", "sparse"], ["-k", "0"]])
def test_the_query_command_leaves_no_child_running(
    tiny_en_index_dir: Path, env: dict[str, str], extra: list[str]
) -> None:
    # a question no other process carries: any process still running with it is the command's child
    # (its number is a term no unit holds: every hit is kept, so the answer shows the command ran)
    marker = f"blood pressure target {os.getpid()}-{time.monotonic_ns()}"
    done = subprocess.run(
        [sys.executable, "-m", "structaware_retrievers.cli", "query", marker, "--index", str(tiny_en_index_dir), "--min-score", "0", *extra],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == (2 if extra == ["-k", "0"] else 0), done.stderr
    if not extra or extra[0] == "--mode":
        assert "blood pressure" in done.stdout.lower()
    left = [
        d for d in os.listdir("/proc")
        if d.isdigit() and marker.encode() in _cmdline(d)
    ]  # fmt: skip
    assert left == []


def _cmdline(pid: str) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


RACE = """
import sys, threading, time
from structaware_retrievers.encoders import DenseEncoder
enc = DenseEncoder(threads=1)
loader = threading.Thread(target=lambda: enc.model)  # as `structaware query` loads it when it cannot fork
loader.start()
time.sleep(float(sys.argv[1]))  # the main thread opens the index meanwhile
print(len(enc.embed_query("hand hygiene")))
loader.join()
"""


@pytest.mark.parametrize("delay", [0.004, 0.008, 0.012, 0.016, 0.02, 0.024, 0.03, 0.04])
def test_a_model_loading_in_a_thread_while_the_main_thread_embeds(env: dict[str, str], delay: float) -> None:
    # numpy is imported where the encoders use it; a DenseEncoder that computes in-process imports it
    # in __init__, before any thread: two first imports at once failed in about 1 run of 3
    # ("cannot import name '__cpu_features__' from partially initialized module")
    done = subprocess.run(
        [sys.executable, "-c", RACE, str(delay)], capture_output=True, text=True, env=env, timeout=300
    )
    assert (done.returncode, done.stdout.strip()) == (0, "896"), done.stderr[-600:]
