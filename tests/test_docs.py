"""The manual stays in step with the code: the CLI reference is what the CLI's own ``--help`` says
now, the pages stay short, their relative links lead somewhere, and no work log leaks into them.

The Python blocks of the pages are run by ``tests/test_readme.py``.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: the pages for users (docs/DESIGN.md, the maintainers' module map, is not one of them)
PAGES = [
    REPO / "README.md",
    REPO / "examples" / "README.md",
    *sorted(p for p in (REPO / "docs").glob("*.md") if p.name != "DESIGN.md"),
]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")


def _generator():
    spec = importlib.util.spec_from_file_location("gen_cli_reference", REPO / "scripts" / "gen_cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_what_the_cli_prints_now() -> None:
    gen = _generator()
    page = gen.PAGE.read_text(encoding="utf-8")
    assert page == gen.render(page), "docs/cli.md is out of date: run python scripts/gen_cli_reference.py"


def test_cli_reference_covers_every_command_and_option() -> None:
    gen = _generator()
    page = gen.PAGE.read_text(encoding="utf-8")
    for name in gen.commands():
        assert f"## `structaware {name}`" in page
    for option in ("--force", "--min-score", "--no-rerank", "--group-size", "--budget-chars", "--workers"):
        assert option in page


def test_generator_refuses_a_page_without_its_marker() -> None:
    with pytest.raises(ValueError, match="no line"):
        _generator().render("# The command line\n\nhand-written only\n")


def test_readme_and_benchmarks_stay_short() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 150
    assert len((REPO / "BENCHMARKS.md").read_text(encoding="utf-8").splitlines()) <= 400


@pytest.mark.parametrize("page", [*PAGES, REPO / "BENCHMARKS.md"], ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_somewhere(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [
        target
        for target in _LINK.findall(text)
        if "://" not in target and not target.startswith("mailto:") and not (page.parent / target).exists()
    ]
    assert not missing, f"{page.relative_to(REPO)} links to missing files: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_pages_carry_no_work_log(page: Path) -> None:
    """Issue numbers, session names and dates belong to the history under docs/benchmarks/."""
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"\b(?:issue|session) \d+\b|\b20\d\d-\d\d-\d\d\b", text, flags=re.I)
    assert not found, f"{page.relative_to(REPO)}: {found}"


#: modules whose public names the front door (``import structaware``) gives, at their paths old and new:
#: examples import them from it
FRONT_DOOR_MODULES = (
    "structaware_retrievers.index",
    "structaware_retrievers.search.results",
    "structaware_retrievers.search.options",
    "structaware_retrievers.search.rerank",
    "structaware_retrievers.query.filters",
    "structaware_readers.load",
    "structaware_retrievers.results",
    "structaware_retrievers.filters",
    "structaware_retrievers.rerank",
    "structaware_readers.loader",
    "structaware_readers.units",
    "structaware_readers.models",
    "structaware_readers.errors",
)


@pytest.mark.parametrize("notebook", sorted((REPO / "examples").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_use_the_front_door(notebook: Path) -> None:
    import json

    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    deep = [m for m in FRONT_DOOR_MODULES if re.search(rf"\b(?:from|import) {re.escape(m)}\b", code)]
    assert not deep, f"{notebook.name} imports {deep}: use import structaware"
