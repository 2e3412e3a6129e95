"""Shared pytest fixtures.

* ``fixtures_dir``: ``tests/fixtures`` (redistributable copies, see each folder's SOURCES.md);
* ``shared_dir``: ``<repo>/../shared`` (research material and fixtures without redistribution
  rights); a test that asks for it is skipped with a clear reason when the folder is absent;
* ``offline_env``: the environment of a test that loads models: Hugging Face offline, the test
  session's own structaware cache (one per run, shared by its tests; its ``models`` folder persists
  between runs, see the repository's ``conftest.py``), no dense-model or index override from the
  caller's shell; modules use it with ``pytestmark = pytest.mark.usefixtures("offline_env")``;
* ``letter_model``, ``guide_dir``, ``letter_index`` (in the repository's ``conftest.py``, shared with the
  integration distributions' tests): a fake dense model for tests of index plumbing, not of ranking quality;
* ``en_index``: an open ``StructureIndex`` of ``EN_FIXTURE`` with the default encoders, settled
  (optimised), built once per session; for the framework faces' tests, which only read it;
* ``cli``: the ``structaware`` command run in process (typer's ``CliRunner`` on
  ``structaware_retrievers.cli.app``), returning exit code, stdout and stderr like a subprocess;
* ``tiny_en_index_dir``: an index folder holding the tiny heading/table fixture and the synthetic
  English guideline (MinerU 4.0.12 flash tier), built once with the default encoders, offline; for
  tests that only read it (``structaware serve``, ``structaware mcp``);
* ``cdc_index``: an open ``StructureIndex`` of the public-domain CDC outpatient guide (``CDC_FIXTURE``),
  built once per session with the default encoders, offline; for the second stage's tests, which
  only read it (its question ``SHARPS``: the fused order puts the guide's definition of outpatient
  care first, the stage a passage on disposing of sharps).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES_DIR = REPO / "tests" / "fixtures"
SHARED_DIR = REPO.parent / "shared"
TINY_FIXTURE = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
EN_FIXTURE = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
CDC_FIXTURE = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
SHARPS = "How should sharps be disposed of in an ambulatory care clinic?"
#: fixtures that load the real dense models, or give an index built with them: a test asking for one
#: is in the integration tier (see the repository's conftest.py) whatever its module says
REAL_MODEL_FIXTURES = frozenset({"offline_env", "tiny_en_index_dir", "cdc_index", "en_index"})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``integration`` every test that asks for one of ``REAL_MODEL_FIXTURES`` (not ``e2e`` already)."""
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())) and not item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """``<repo>/tests/fixtures``."""
    return FIXTURES_DIR


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``<repo>/../shared``; skips the test when it is not there (e.g. in a public CI checkout)."""
    if not SHARED_DIR.is_dir():
        pytest.skip(f"shared material not found at {SHARED_DIR} (only present in the development checkout)")
    return SHARED_DIR


@pytest.fixture
def offline_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """``HF_HUB_OFFLINE=1``, ``STRUCTAWARE_CACHE_DIR`` = the session's ``sa-cache``, and no
    ``STRUCTAWARE_DENSE_MODEL`` / ``STRUCTAWARE_INDEX`` from the caller's shell."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
    monkeypatch.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
    monkeypatch.delenv("STRUCTAWARE_INDEX", raising=False)


@pytest.fixture(scope="session")
def tiny_en_index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index folder with ``TINY_FIXTURE`` and ``EN_FIXTURE`` ingested (default encoders, offline,
    the session's model cache)."""
    from structaware_retrievers.index.structure_index import StructureIndex

    folder = tmp_path_factory.mktemp("tiny-en") / "ix"
    with pytest.MonkeyPatch.context() as mp:  # session scope: no test's environment is set up yet
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        with StructureIndex(folder) as ix:
            assert ix.ingest([TINY_FIXTURE, EN_FIXTURE]).documents == 2
    return folder


@pytest.fixture(scope="session")
def cdc_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An open index of ``CDC_FIXTURE`` (default encoders, offline, the session's model cache)."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.index.structure_index import StructureIndex

    with pytest.MonkeyPatch.context() as mp:  # session scope: no test's environment is set up yet
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        doc = load_document(CDC_FIXTURE)
        cache = EmbeddingCache()
        ix = StructureIndex(
            tmp_path_factory.mktemp("cdc") / "ix", dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache)
        )
        ix.add_document(doc, build_units(doc))
    yield ix
    ix.close()


@pytest.fixture(scope="session")
def en_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """An open index of ``EN_FIXTURE`` (default encoders, offline, the session's model cache),
    optimised once so that results do not move under a background optimiser between calls."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.index.structure_index import StructureIndex

    with pytest.MonkeyPatch.context() as mp:  # session scope: no test's environment is set up yet
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        doc = load_document(EN_FIXTURE)
        ix = StructureIndex(tmp_path_factory.mktemp("en") / "ix")
        ix.add_document(doc, build_units(doc))
        ix.optimize()
    yield ix
    ix.close()


@pytest.fixture
def cli(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., subprocess.CompletedProcess]:
    """``cli(*args, env=None, cwd=None)``: run ``structaware ARGS`` in process and return a
    ``CompletedProcess`` (``returncode``, ``stdout``, ``stderr`` as text), as the console script's
    subprocess would. ``env`` entries are set for the call (``None`` values removed); ``cwd`` is the
    working folder. Hugging Face is offline, the cache is the session's ``sa-cache``, and
    ``STRUCTAWARE_INDEX`` / ``STRUCTAWARE_DENSE_MODEL`` are unset, unless ``env`` says otherwise.
    The console script's one-query fast path (a forked model child, ``os._exit``) is not run: the
    end-to-end tier tests it in subprocesses."""
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app

    def run(
        *args: str | os.PathLike, env: dict[str, str | None] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess:
        with monkeypatch.context() as mp:
            mp.setenv("HF_HUB_OFFLINE", "1")
            mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
            mp.delenv("STRUCTAWARE_INDEX", raising=False)
            mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
            for key, value in (env or {}).items():
                if value is None:
                    mp.delenv(key, raising=False)
                else:
                    mp.setenv(key, value)
            if cwd is not None:
                mp.chdir(cwd)
            argv = [str(a) for a in args]
            res = CliRunner().invoke(app, argv, catch_exceptions=False)
        code = res.exit_code if isinstance(res.exit_code, int) else 1
        return subprocess.CompletedProcess(["structaware", *argv], code, res.stdout, res.stderr)

    return run
