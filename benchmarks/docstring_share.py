"""How much of the source is docstring: the share of lines, and the docstrings of 15 lines or more.

Reads every ``*.py`` under the given folders (default: ``src`` and ``integrations`` of this repository)
with :mod:`ast`; a docstring is the first string statement of a module, class or function, counted
over its physical lines. The house style: a few lines of what and why, full argument docs on the
public faces only.

Run::

    python benchmarks/docstring_share.py [FOLDER ...] [--show N]
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: A docstring this long or longer is listed as long.
LONG_LINES = 15

_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def docstrings(path: Path) -> list[tuple[str, int, int]]:
    """``(name, first line, number of lines)`` of every docstring in one file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            text = first.value.value if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else None
            if isinstance(text, str):
                name = getattr(node, "name", "<module>")
                found.append((name, first.lineno, (first.end_lineno or first.lineno) - first.lineno + 1))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[ROOT / "src", ROOT / "integrations"])
    parser.add_argument("--show", type=int, default=0, help="list the N longest docstrings")
    args = parser.parse_args()
    total = doc = 0
    longest: list[tuple[int, str]] = []
    for folder in args.folders:
        for path in sorted(folder.rglob("*.py")):
            total += len(path.read_text(encoding="utf-8").splitlines())
            for name, line, n in docstrings(path):
                doc += n
                if n >= LONG_LINES:
                    longest.append((n, f"{path}:{line} {name}"))
    share = 100 * doc / max(total, 1)
    print(f"lines {total}, docstring lines {doc} ({share:.1f} %), docstrings of {LONG_LINES}+ lines: {len(longest)}")
    for n, where in sorted(longest, reverse=True)[: args.show]:
        print(f"{n:5d}  {where}")


if __name__ == "__main__":
    main()
