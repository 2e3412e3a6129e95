"""Every Python block of README.md and examples/README.md runs as written.

The blocks are extracted from the Markdown at test time (never copied here) and each runs in a
fresh folder of its own, as a new user would run it, with ``tests/`` (the repository's fixtures)
linked in and the parse cache shared between blocks. A block fails the test when it exits non-zero.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", REPO / "examples" / "README.md"]
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks() -> list[tuple[str, int, str]]:
    out = []
    for doc in DOCS:
        for i, m in enumerate(_BLOCK.finditer(doc.read_text(encoding="utf-8")), 1):
            line = doc.read_text(encoding="utf-8")[: m.start()].count("\n") + 1
            out.append((f"{doc.relative_to(REPO)}:{line}", i, m.group(1)))
    return out


BLOCKS = python_blocks()


def test_the_readme_has_its_python_examples() -> None:
    names = [name for name, _, _ in BLOCKS]
    assert sum(n.startswith("README.md") for n in names) >= 3  # Python, LlamaIndex, LangChain


@pytest.fixture(scope="module")
def parse_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("parse-cache")


@pytest.mark.parametrize("name,code", [(n, c) for n, _, c in BLOCKS], ids=[n for n, _, _ in BLOCKS])
def test_python_block_runs_as_written(name: str, code: str, tmp_path: Path, parse_cache: Path) -> None:
    (tmp_path / "tests").symlink_to(REPO / "tests", target_is_directory=True)
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "STRUCTAWARE_CACHE_DIR": str(parse_cache),
        "STRUCTAWARE_INDEX": str(tmp_path / ".structaware" / "index"),
    }
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stderr[-4000:]}"
    if "print(" in code:
        assert proc.stdout.strip(), f"{name} printed nothing"
