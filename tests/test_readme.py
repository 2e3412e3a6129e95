"""Every Python block of README.md, examples/README.md and the manual in docs/ runs as written.

The blocks are extracted from the Markdown at test time (never copied here) and each runs in a
fresh folder of its own, as a new user would run it, with ``tests/`` (the repository's fixtures)
linked in and the parse cache shared between blocks. A block fails the test when it exits non-zero.
A block fenced ```` ```python no-run ```` (an API that is announced but not there yet, a fragment)
is only parsed, not run. The benchmark history under ``docs/benchmarks/`` is not run, nor the
signatures that ``docs/DESIGN.md`` lists.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[1]
#: the pages for users; docs/DESIGN.md (the maintainers' module map, whose block lists signatures) is not run
DOCS = [
    REPO / "README.md",
    REPO / "examples" / "README.md",
    *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "DESIGN.md"),
]
#: a fenced Python block: its info string after ``python`` (``""`` or ``"no-run"``) and its code
_BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)
NO_RUN = "no-run"


def python_blocks() -> list[tuple[str, str, str]]:
    """``(name, info, code)`` of every Python block, ``name`` being ``file:line``."""
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text[: m.start()].count("\n") + 1
            out.append((f"{doc.relative_to(REPO)}:{line}", m.group(1).strip(), m.group(2)))
    return out


BLOCKS = python_blocks()
RUN = [(name, code) for name, info, code in BLOCKS if info != NO_RUN]


def test_the_docs_have_their_python_examples() -> None:
    names = [name for name, _ in RUN]
    assert sum(n.startswith("README.md") for n in names) >= 1  # the front door
    assert sum(n.startswith("docs/frameworks.md") for n in names) >= 2  # LlamaIndex, LangChain
    for page in ("python-api", "serving", "operations"):
        assert any(n.startswith(f"docs/{page}.md") for n in names), page


def test_readme_python_uses_the_front_door() -> None:
    readme = [code for name, code in RUN if name.startswith("README.md")]
    assert all("import structaware\n" in code for code in readme)
    assert not [code for code in readme if re.search(r"structaware_(readers|retrievers)", code)]


@pytest.mark.parametrize("name,info", [(n, i) for n, i, _ in BLOCKS], ids=[n for n, _, _ in BLOCKS])
def test_every_python_block_is_python_and_marked_known(name: str, info: str) -> None:
    assert info in ("", NO_RUN), f"{name}: unknown fence info {info!r} (use ```python or ```python {NO_RUN})"
    ast.parse(next(code for n, _, code in BLOCKS if n == name), filename=name)


@pytest.fixture(scope="module")
def parse_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("parse-cache")


@pytest.mark.parametrize("name,code", RUN, ids=[n for n, _ in RUN])
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
