"""The import graph of ``src/`` and ``integrations/``, read from the code with :mod:`ast`: no circles,
no private names taken from another module.

Every ``import`` statement counts, wherever it stands: at module level, inside a function (a lazy
import) or under ``if TYPE_CHECKING:``, since each of them ties two modules together for a reader.
An edge ``a -> b`` is drawn when module ``a`` names module ``b`` (``import b``, ``from b import x``,
or ``from p import b`` when ``p.b`` is a module); only modules of this repository are nodes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _roots() -> list[Path]:
    """The folders module names are relative to: ``src/`` and each integration distribution."""
    return [ROOT / "src", *sorted(p for p in (ROOT / "integrations").iterdir() if p.is_dir())]


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every Python file of the packages (``__init__`` names its package)."""
    out: dict[str, Path] = {}
    for root in _roots():
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            if any(part.startswith(".") or part in ("tests", "build") for part in rel.parts):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts:
                out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, list[str], int]]:
    """``(module imported, names taken from it, line)`` for every import statement of ``path`` that
    names a module of ``known``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target:
                    found.append((target, [], node.lineno))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            plain: list[str] = []
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    found.append((sub, [], node.lineno))
                else:
                    plain.append(alias.name)
            if plain and base in known:
                found.append((base, plain, node.lineno))
    return found


def _graph() -> tuple[dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    known = _modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    private: dict[tuple[str, str], list[str]] = {}
    for name, path in known.items():
        for target, names, line in _imports(name, path, known):
            if target == name:
                continue
            edges[name].add(target)
            taken = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if taken:
                private.setdefault((f"{name}:{line}", target), []).extend(taken)
    return edges, private


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_graph_reads_the_packages_and_their_imports() -> None:
    edges, _ = _graph()
    assert "structaware_retrievers.index" in edges
    assert "structaware_readers.loader" in edges
    assert "llama_index.readers.structaware.base" in edges
    assert "langchain_structaware.retriever" in edges
    # a lazy import inside a function is an edge too (the CLI imports the index only when a command runs)
    assert any(
        "structaware_retrievers.index" in targets for m, targets in edges.items() if m.startswith("structaware_retrievers.cli")
    )


def test_the_circle_finder_finds_a_circle() -> None:
    """The trap beside the check: a loop of three modules (and one through a lazy import) is found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert _circles(edges) == [["a", "b", "c"], ["e", "f"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_relative_and_lazy_imports_are_read(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .one import x\n")
    (pkg / "one.py").write_text("def f():\n    from pkg import two\n    from .two import _hidden\nx = 1\n")
    (pkg / "two.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.one import x\n_hidden = 2\n")
    known = {"pkg": pkg / "__init__.py", "pkg.one": pkg / "one.py", "pkg.two": pkg / "two.py"}
    assert _imports("pkg", known["pkg"], known) == [("pkg.one", ["x"], 1)]
    assert sorted(_imports("pkg.one", known["pkg.one"], known)) == [("pkg.two", [], 2), ("pkg.two", ["_hidden"], 3)]
    assert _imports("pkg.two", known["pkg.two"], known) == [("pkg.one", ["x"], 3)]


def test_no_import_circles_in_src_and_integrations() -> None:
    circles = _circles(_graph()[0])
    assert not circles, "modules that import each other (directly or around a loop): " + "; ".join(
        " <-> ".join(c) for c in circles
    )


def test_no_module_takes_another_modules_private_names() -> None:
    _, private = _graph()
    assert not private, "private names imported from another module: " + "; ".join(
        f"{where} takes {', '.join(names)} from {target}" for (where, target), names in sorted(private.items())
    )


@pytest.mark.parametrize("root", ["structaware_readers", "structaware_retrievers"])
def test_every_package_folder_is_a_package(root: str) -> None:
    """A folder of modules without ``__init__.py`` would be left out of the graph above."""
    for folder in (ROOT / "src" / root).rglob("*"):
        if folder.is_dir() and any(folder.glob("*.py")) and "__pycache__" not in folder.parts:
            assert (folder / "__init__.py").is_file(), folder


#: Longest module (lines) in src/ and integrations/: "at most ~400 lines, one job each" (issue 26);
#: a module past this splits by job, it does not grow.
MAX_MODULE_LINES = 450


def test_every_module_is_short() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in _modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by job): {long}"
