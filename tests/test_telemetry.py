"""No telemetry from any dependency by default (see ``structaware_readers.common.telemetry``).

Run in a child process with a fresh HOME, as a user's first run would be: embedding with the
default dense model must leave no ONNX Runtime device id (``~/.cache/Microsoft/...``) behind and
write only into structaware's own cache folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

CODE_EMBED = """
import os
from structaware_retrievers.encoders import DenseEncoder
enc = DenseEncoder()
assert len(enc.embed_query("hello")) == len(enc.embed_query("你好")) == 896  # both halves ran
print(os.environ.get("ORT_DISABLE_TELEMETRY"), os.environ.get("HF_HUB_DISABLE_TELEMETRY"))
"""

CODE_ENV_ONLY = """
import os, sys
import structaware_readers
print(os.environ.get("ORT_DISABLE_TELEMETRY"), "onnxruntime" in sys.modules)
"""


def _run(code: str, home: Path, **extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "HF_HUB_DISABLE_TELEMETRY")}
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), HF_HUB_OFFLINE="1", **extra)
    env.pop("STRUCTAWARE_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def test_embedding_leaves_no_onnxruntime_telemetry_files(tmp_path: Path) -> None:
    assert _run(CODE_EMBED, tmp_path) == "1 1"
    written = {p.relative_to(tmp_path).parts[:2] for p in tmp_path.rglob("*")}
    assert (".cache", "Microsoft") not in written
    assert {parts for parts in written if len(parts) == 2} == {(".cache", "structaware")}


def test_a_users_own_setting_wins_and_the_opt_out_can_be_switched_off(tmp_path: Path) -> None:
    assert _run(CODE_ENV_ONLY, tmp_path) == "1 False"  # set on import, ONNX Runtime not even imported
    assert _run(CODE_ENV_ONLY, tmp_path, ORT_DISABLE_TELEMETRY="0") == "0 False"
    assert _run(CODE_ENV_ONLY, tmp_path, STRUCTAWARE_ALLOW_TELEMETRY="1") == "None False"
