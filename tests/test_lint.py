"""The repository passes ``ruff check`` with the rules configured in ``pyproject.toml`` and is formatted as
``ruff format`` writes it.

Runs ruff over the whole checkout (``src``, ``integrations``, ``tests``, ``benchmarks``, ``scripts``;
what ``[tool.ruff]`` excludes stays out) in a child process, so that a finding fails the test suite
the same way it fails ``ruff check`` at the command line. Skipped when ruff is not installed (it is
in the ``test`` extra).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ruff") is None, reason="ruff is not installed (pip install -e '.[test]')"
)


def test_ruff_check_finds_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"ruff check found problems (fix with `ruff check --fix`):\n{done.stdout}{done.stderr}"


def test_ruff_format_changes_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"files ruff format would change (run `ruff format`):\n{done.stdout}{done.stderr}"
