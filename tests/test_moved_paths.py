"""Old module paths keep importing for one release after the moves into rooms
(:mod:`structaware_readers.common.moved`), and ``import structaware`` is the front door."""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys

import pytest

import structaware
from structaware_readers.common.moved import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_module_at_its_new_path(old: str) -> None:
    new = importlib.import_module(MOVED[old])
    with (
        pytest.warns(DeprecationWarning, match=MOVED[old].replace(".", r"\."))
        if old not in sys.modules
        else contextlib.nullcontext()
    ):
        aliased = importlib.import_module(old)
    assert aliased is new
    assert aliased.__spec__.name == MOVED[old]  # the module keeps its own spec: reloads and pickles use the new path


def test_an_old_path_warns_and_patching_it_patches_the_new_module() -> None:
    """In a fresh interpreter: the first import of an old path warns once, naming the new one."""
    code = (
        "import warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "try:\n"
        "    import structaware_retrievers.fusion\n"
        "except DeprecationWarning as w:\n"
        "    print(w)\n"
        "warnings.simplefilter('ignore')\n"
        "import structaware_retrievers.fusion as old, structaware_retrievers.query.fusion as new\n"
        "old.DEFAULT_RRF_K = -1\n"
        "print(new.DEFAULT_RRF_K)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert (
        out[0]
        == "structaware_retrievers.fusion moved to structaware_retrievers.query.fusion; the old path goes in the next release"
    )
    assert out[1] == "-1"


def test_a_name_that_never_existed_still_fails() -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("structaware_retrievers.no_such_module")


def test_the_old_front_modules_are_packages_that_lend_their_names() -> None:
    from structaware_retrievers.index import StructureIndex, open_index_folder
    from structaware_retrievers.index.structure_index import StructureIndex as defined
    from structaware_retrievers.serve import make_server
    from structaware_retrievers.serve.app import make_server as served

    assert StructureIndex is defined and make_server is served and callable(open_index_folder)
    with pytest.raises(AttributeError, match="no_such_name"):
        importlib.import_module("structaware_retrievers.index").no_such_name  # noqa: B018 - the lookup is the test


def test_the_front_door_gives_every_name_it_lists() -> None:
    missing = [name for name in structaware.__all__ if not hasattr(structaware, name)]
    assert missing == []
    assert structaware.StructureIndex.__module__ == "structaware_retrievers.index.structure_index"
    assert structaware.load_document.__module__ == "structaware_readers.load.loader"
    assert issubclass(structaware.IndexNotFoundError, structaware.StructawareError)
    with pytest.raises(AttributeError, match="no_such_name"):
        structaware.no_such_name  # noqa: B018 - the lookup is the test


def test_importing_the_front_door_loads_neither_the_index_nor_pydantic() -> None:
    code = (
        "import sys, structaware; print(sorted(m for m in ('pydantic', 'qdrant_client', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_every_public_error_lives_in_one_home() -> None:
    """Errors raised across the rooms are defined in :mod:`structaware_readers.errors`."""
    from structaware_readers import errors
    from structaware_readers.mermaid.model import NotAFlowchartError
    from structaware_readers.mineru.failures import ModelsMissingError
    from structaware_readers.ocr.engine import OcrUnavailableError
    from structaware_retrievers.encoders.model_assets import ModelUnavailableError
    from structaware_retrievers.search.results import IngestError

    for cls in (NotAFlowchartError, OcrUnavailableError, ModelUnavailableError, IngestError, ModelsMissingError):
        assert cls.__module__ == "structaware_readers.errors" and getattr(errors, cls.__name__) is cls


#: exception classes that never leave their module's room (caught there and turned into a typed error)
INTERNAL_EXCEPTIONS = {"structaware_readers.mermaid.scanner.ParseError"}


def test_no_public_error_is_defined_outside_the_errors_module() -> None:
    """A class deriving from an exception, defined anywhere in ``src`` but ``errors.py``, is private or internal."""
    import ast
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "src"
    found = []
    for path in sorted(src.rglob("*.py")):
        module = ".".join(path.relative_to(src).with_suffix("").parts)
        if module == "structaware_readers.errors":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            bases = [getattr(b, "id", getattr(b, "attr", "")) for b in getattr(node, "bases", [])]
            if isinstance(node, ast.ClassDef) and any(b.endswith(("Error", "Exception", "Warning")) for b in bases):
                if not node.name.startswith("_") and f"{module}.{node.name}" not in INTERNAL_EXCEPTIONS:
                    found.append(f"{module}.{node.name}")
    assert found == [], f"public errors outside structaware_readers/errors.py: {found}"


def test_dir_of_the_front_door_lists_its_public_names_only() -> None:
    assert dir(structaware) == sorted(structaware.__all__)
    assert "import_module" not in dir(structaware) and "StructureIndex" in dir(structaware)
