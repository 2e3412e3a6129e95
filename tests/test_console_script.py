"""The installed ``structaware`` console script in a subprocess, as a user runs it: a few smoke tests of
what the in-process runner (the ``cli`` fixture) does not go through: the entry point, its exit
codes and streams, and the one-query fast path that ends the process early."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from conftest import EN_FIXTURE

pytestmark = pytest.mark.e2e


def console(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("structaware", path=str(Path(sys.executable).parent)) or "structaware"
    full = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    full.pop("STRUCTAWARE_INDEX", None)
    return subprocess.run([exe, *args], capture_output=True, text=True, env=full, timeout=600)


def test_version_and_units_as_json_lines() -> None:
    assert console("--version").stdout == f"structaware {version('structaware')}\n"
    res = console("units", str(EN_FIXTURE), "--json")
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(records) == 69 and {"section", "table_row", "recommendation"} <= {r["unit_type"] for r in records}


def test_an_error_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    res = console("units", str(tmp_path / "missing.json"))
    assert res.returncode == 2 and res.stdout == ""
    (line,) = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert line.startswith("error: ") and "missing.json" in line and "Traceback" not in res.stderr


def test_a_query_through_the_fast_path(tiny_en_index_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = str(tmp_path_factory.getbasetemp() / "sa-cache")
    res = console("query", "blood pressure target", "--index", str(tiny_en_index_dir), "-k", "2", "--no-server",
                  env={"STRUCTAWARE_CACHE_DIR": cache})  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("1. [") and "\n2. [" in res.stdout
