"""Shared pytest fixtures.

* ``fixtures_dir``: ``tests/fixtures`` (redistributable copies, see each folder's SOURCES.md);
* ``shared_dir``: ``<repo>/../shared`` (research material and fixtures without redistribution
  rights); a test that asks for it is skipped with a clear reason when the folder is absent;
* ``offline_env``: the environment of a test that loads models: Hugging Face offline, the test
  session's own structaware cache (one per run, shared by its tests), no dense-model or index
  override from the caller's shell; modules use it with ``pytestmark = pytest.mark.usefixtures("offline_env")``;
* ``tiny_en_index_dir``: an index folder holding the tiny heading/table fixture and the synthetic
  English guideline (MinerU 4.0.12 flash tier), built once with the default encoders, offline; for
  tests that only read it (``structaware serve``, ``structaware mcp``);
* ``cdc_index``: an open ``StructureIndex`` of the public-domain CDC outpatient guide (``CDC_FIXTURE``),
  built once per session with the default encoders, offline; for the second stage's tests, which
  only read it (its question ``SHARPS``: the fused order puts the guide's definition of outpatient
  care first, the stage a passage on disposing of sharps).
"""

from __future__ import annotations

from collections.abc import Iterator
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
