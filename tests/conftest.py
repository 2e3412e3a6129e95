"""Shared pytest fixtures.

* ``fixtures_dir``: ``tests/fixtures`` (redistributable copies, see each folder's SOURCES.md);
* ``shared_dir``: ``<repo>/../shared`` (research material and fixtures without redistribution
  rights); a test that asks for it is skipped with a clear reason when the folder is absent;
* ``offline_env``: the environment of a test that loads models: Hugging Face offline, the test
  session's own structaware cache (one per run, shared by its tests), no dense-model or index
  override from the caller's shell; modules use it with ``pytestmark = pytest.mark.usefixtures("offline_env")``;
* ``tiny_en_index_dir``: an index folder holding the tiny heading/table fixture and the synthetic
  English guideline (MinerU 4.0.12 flash tier), built once with the default encoders, offline; for
  tests that only read it (``structaware serve``, ``structaware mcp``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES_DIR = REPO / "tests" / "fixtures"
SHARED_DIR = REPO.parent / "shared"
TINY_FIXTURE = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
EN_FIXTURE = FIXTURES_DIR / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


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
    from structaware_retrievers.index import StructureIndex

    folder = tmp_path_factory.mktemp("tiny-en") / "ix"
    with pytest.MonkeyPatch.context() as mp:  # session scope: no test's environment is set up yet
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        with StructureIndex(folder) as ix:
            assert ix.ingest([TINY_FIXTURE, EN_FIXTURE]).documents == 2
    return folder
