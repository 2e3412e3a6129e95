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
    assert "structaware_retrievers.index.structure_index" in edges
    assert "structaware_readers.load.loader" in edges
    assert "llama_index.readers.structaware.base" in edges
    assert "langchain_structaware.retriever" in edges
    # a lazy import inside a function is an edge too (the CLI imports the index only when a command runs)
    assert any(
        "structaware_retrievers.index.structure_index" in targets
        for m, targets in edges.items()
        if m.startswith("structaware_retrievers.cli")
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
    (pkg / "two.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.one import x\n_hidden = 2\n"
    )
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


#: The layer rule: the rooms along the data flow, bottom floor first. A module may import its own room and
#: the rooms of lower floors, never a room of its floor or above: parser output -> blocks -> units ->
#: points -> results -> faces. A new room takes a floor here.
FLOORS: list[set[str]] = [
    {"structaware_readers.errors", "structaware_readers.ids"},  # the kernels
    {"structaware_readers.common", "structaware_readers.mermaid"},
    {"structaware_readers.models"},
    {"structaware_readers", "structaware_retrievers", "structaware_readers.tables", "structaware_readers.grades"},
    # blocks -> blocks
    {"structaware_readers.structure", "structaware_readers.text"},
    {"structaware_readers.table_recovery"},  # reads the text layer as the text restore does
    # parser output -> blocks; blocks -> units
    {
        "structaware_readers.mineru",
        "structaware_readers.unstructured",
        "structaware_readers.loose_tables",
        "structaware_readers.units",
    },
    {"structaware_readers.ocr"},
    {"structaware_readers.algorithms"},
    {"structaware_readers.load"},
    # units -> points -> results
    {"structaware_retrievers.encoders", "structaware_retrievers.query"},
    {"structaware_retrievers.store"},
    {"structaware_retrievers.search"},
    {"structaware_retrievers.index"},
    {"structaware_retrievers.pictures"},
    # the faces
    {"structaware_retrievers.serve", "structaware_retrievers.evaluation"},
    {"structaware_retrievers.cli", "langchain_structaware", "llama_index"},
    {"structaware"},
]

#: Modules allowed at a package root besides ``__init__``: the shared kernels.
ROOT_KERNELS = {"structaware_readers.errors", "structaware_readers.ids", "structaware_readers.models"}


def _room(module: str) -> str:
    """The room of a module: its folder under a package root (``structaware_readers.units``), the kernel
    itself for a root module, the distribution's import root for an integration."""
    parts = module.split(".")
    if parts[0] in ("structaware_readers", "structaware_retrievers"):
        return ".".join(parts[:2])
    return parts[0]


def _floor_of() -> dict[str, int]:
    return {room: i for i, rooms in enumerate(FLOORS) for room in rooms}


def _upward(edges: dict[str, set[str]], floor: dict[str, int]) -> list[str]:
    """Imports that break the layer rule: into a room of the same floor or a higher one."""
    return sorted(
        f"{a} -> {b}"
        for a, targets in edges.items()
        for b in targets
        if _room(a) != _room(b) and floor[_room(b)] >= floor[_room(a)]
    )


def test_every_room_has_a_floor() -> None:
    missing = sorted({_room(m) for m in _graph()[0]} - set(_floor_of()))
    assert not missing, f"rooms without a floor in FLOORS (place them by what they import): {missing}"


def test_imports_run_down_the_floors() -> None:
    bad = _upward(_graph()[0], _floor_of())
    assert not bad, "imports that run sideways or up the floors (FLOORS): " + "; ".join(bad)


def test_the_layer_rule_finds_a_sideways_and_an_upward_import() -> None:
    """The trap beside the check: an import within a room passes, one within a floor or up does not."""
    floor = {
        "structaware_readers.low": 0,
        "structaware_readers.mid": 1,
        "structaware_readers.side": 1,
        "structaware_readers.top": 2,
    }
    edges = {
        "structaware_readers.mid.a": {"structaware_readers.mid.b", "structaware_readers.low.c"},
        "structaware_readers.mid.b": set(),
        "structaware_readers.low.c": {"structaware_readers.top.d"},
        "structaware_readers.side.e": {"structaware_readers.mid.a"},
        "structaware_readers.top.d": set(),
    }
    assert _upward(edges, floor) == [
        "structaware_readers.low.c -> structaware_readers.top.d",
        "structaware_readers.side.e -> structaware_readers.mid.a",
    ]


def test_no_loose_modules_at_the_package_roots() -> None:
    """A package root holds its ``__init__`` and the shared kernels; every other module lives in a room."""
    loose = sorted(
        m
        for m, path in _modules().items()
        if m.split(".")[0] in ("structaware", "structaware_readers", "structaware_retrievers")
        and path.name != "__init__.py"
        and m.count(".") == 1
        and m not in ROOT_KERNELS
    )
    assert not loose, f"modules at a package root (move them into a room): {loose}"


@pytest.mark.parametrize("root", ["structaware_readers", "structaware_retrievers"])
def test_every_package_folder_is_a_package(root: str) -> None:
    """A folder of modules without ``__init__.py`` would be left out of the graph above."""
    for folder in (ROOT / "src" / root).rglob("*"):
        if folder.is_dir() and any(folder.glob("*.py")) and "__pycache__" not in folder.parts:
            assert (folder / "__init__.py").is_file(), folder


#: Longest module (lines) in src/ and integrations/; a module past this splits by job, it does not grow.
MAX_MODULE_LINES = 450


def test_every_module_is_short() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in _modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split them by job): {long}"
