"""Packaging: a light core, one distribution per framework face, ranges not pins, one test command.

The core (``structaware``) must import no parser and no framework when its modules are imported;
each ``integrations/<distribution>`` depends on the core and its framework's core only; the
README's test command installs every integration, and ``.ci/run`` runs exactly that command.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from structaware_readers.errors import MissingExtraError, ParserUnavailableError

ROOT = Path(__file__).resolve().parents[1]
INTEGRATIONS = sorted(p.parent for p in (ROOT / "integrations").glob("*/pyproject.toml"))
#: Top-level packages the core must not import at import time (parsers and frameworks).
FORBIDDEN = ("mineru", "unstructured", "llama_index", "langchain_core", "langchain", "langchain_qdrant", "spacy")
FRAMEWORK_CORE = {"llama-index": "llama-index-core", "langchain": "langchain-core"}


def _requirement_name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req, maxsplit=1)[0].strip().lower()


def _core_modules() -> list[str]:
    mods = []
    for pkg in ("structaware_readers", "structaware_retrievers"):
        for f in sorted((ROOT / "src" / pkg).rglob("*.py")):
            rel = f.relative_to(ROOT / "src").with_suffix("")
            parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
            mods.append(".".join(parts))
    return mods


def test_core_modules_import_no_parser_and_no_framework():
    mods = _core_modules()
    assert "structaware_retrievers.cli" in mods and "structaware_readers.unstructured.load" in mods
    code = (
        "import importlib, sys\n"
        f"for m in {mods!r}: importlib.import_module(m)\n"
        f"print(sorted({{k.split('.')[0] for k in sys.modules}} & set({FORBIDDEN!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", f"core imports {out.strip()} at import time"


def test_integrations_follow_the_ecosystem_names_and_depend_on_core_and_framework_only():
    names = {p.name for p in INTEGRATIONS}
    assert "langchain-structaware" in names
    assert {"llama-index-readers-structaware", "llama-index-node-parser-structaware"} <= names
    for folder in INTEGRATIONS:
        project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
        assert project["name"] == folder.name
        ecosystem = "langchain" if folder.name.startswith("langchain") else "llama-index"
        if ecosystem == "llama-index":
            kind = folder.name.removeprefix("llama-index-").removesuffix("-structaware").replace("-", "_")
            assert (folder / "llama_index" / kind / "structaware" / "__init__.py").is_file()
            assert not (folder / "llama_index" / "__init__.py").exists()  # implicit namespace package
        else:
            assert (folder / "langchain_structaware" / "__init__.py").is_file()
        deps = {_requirement_name(d) for d in project["dependencies"]}
        siblings = {n for n in deps if n in names}
        assert deps - siblings == {"structaware", FRAMEWORK_CORE[ecosystem]}, folder.name
        assert all(n.startswith(ecosystem) for n in siblings)


def test_no_exact_pins_and_parsers_are_extras():
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    every = list(core["dependencies"]) + [d for ds in core["optional-dependencies"].values() for d in ds]
    for folder in INTEGRATIONS:
        every += tomllib.loads((folder / "pyproject.toml").read_text())["project"]["dependencies"]
    assert not [d for d in every if "==" in d or "===" in d]
    base = {_requirement_name(d) for d in core["dependencies"]}
    assert not base & {"mineru", "unstructured", "llama-index-core", "langchain-core"}
    assert {_requirement_name(d) for d in core["optional-dependencies"]["mineru"]} == {"mineru"}
    assert {_requirement_name(d) for d in core["optional-dependencies"]["unstructured"]} == {"unstructured"}


def _bash_block_after(marker: str) -> str:
    text = (ROOT / "README.md").read_text()
    after = text[text.index(marker) :]
    return re.search(r"```bash\n(.*?)\n```", after, re.S).group(1).strip()


def test_ci_runs_exactly_the_readme_test_command_and_it_installs_every_integration():
    readme_cmd = _bash_block_after("Run the tests:")
    ci_lines = [ln for ln in (ROOT / ".ci" / "run").read_text().splitlines() if ln and not ln.startswith("#")]
    assert ci_lines[-1] == readme_cmd
    for folder in INTEGRATIONS:
        assert f"-e integrations/{folder.name}" in readme_cmd
    assert '-e ".[mineru,unstructured,test]"' in readme_cmd


def test_quick_start_installs_the_core_with_the_pdf_parsing_extras_only():
    first = _bash_block_after("## Quick start")
    install = re.search(r"pip install (.*?) &&", first).group(1)
    assert install == '-e ".[mineru,pdf]"'  # MinerU parses the PDF; pdfplumber grids its cell-less tables


def test_missing_unstructured_is_an_import_error_naming_the_extra(monkeypatch, tmp_path):
    from structaware_readers.unstructured import read_unstructured

    for name in ("unstructured", "unstructured.__version__", "unstructured.partition", "unstructured.partition.auto"):
        monkeypatch.setitem(sys.modules, name, None)  # import of a None entry raises ImportError
    raw = tmp_path / "page.html"
    raw.write_text("<html><body><h1>Title</h1><p>Body.</p></body></html>")
    with pytest.raises(MissingExtraError) as err:
        read_unstructured(raw)
    assert isinstance(err.value, ImportError) and isinstance(err.value, ParserUnavailableError)
    assert err.value.extra == "unstructured" and err.value.path == str(raw)
    assert "pip install 'structaware[unstructured]'" in str(err.value)
