"""Test tiers and the persistent model cache, for ``tests/`` and every ``integrations/<dist>/tests/``.

Tiers (a marker on a test or a module's ``pytestmark``):

* ``unit``: no mark needed; a test in neither tier below is a unit test (and gets the ``unit`` mark):
  blocks to units, tables, filters, the store contract in memory, faces on fake embeddings, CLI
  commands in process;
* ``integration``: the real dense models, a real parser or OCR, the embedded engine's index folders,
  subprocesses, servers; also every test marked ``slow`` or ``shared`` (data beside the checkout),
  and every test asking for a fixture built with the real models (``tests/conftest.py``,
  ``REAL_MODEL_FIXTURES``);
* ``e2e``: what a user runs end to end: the console script, README blocks, notebooks, the browser.

A bare ``pytest`` (no paths, no ``-m``) runs the unit tier only. Naming files or
folders runs every test in them, ``-m EXPR`` selects by marker as usual, and ``--all`` runs every
tier: ``pytest --all`` is the full gate (``.ci/run`` and the README run it).

Model cache: the models the tests assemble (the int8 MiniLM folder and the prepared graphs of
:mod:`structaware_retrievers.encoders.model_assets`, several hundred MB) are kept in
``.pytest_cache/d/structaware-models`` and linked into the run's ``sa-cache/models``, so only the
first run on a checkout pays for them. Parses and OCR results stay in the run's own folder: a test
of a parser still runs the parser.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

TIERS = ("unit", "integration", "e2e")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--all", action="store_true", dest="all_tiers", help="run every tier (unit, integration, e2e): the full gate"
    )


def tier_of(item: pytest.Item) -> str:
    """``e2e``, ``integration`` (``slow`` and ``shared`` count as one) or ``unit``."""
    if item.get_closest_marker("e2e"):
        return "e2e"
    if any(item.get_closest_marker(name) for name in ("integration", "slow", "shared")):
        return "integration"
    return "unit"


def every_tier(config: pytest.Config) -> bool:
    """``--all``, a ``-m`` expression, or paths named on the command line (not a bare run)."""
    named = config.args_source == pytest.Config.ArgsSource.ARGS
    return bool(config.getoption("all_tiers") or config.getoption("markexpr") or named)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every unit test ``unit``; on a bare run keep only those."""
    for item in items:
        if tier_of(item) == "unit":
            item.add_marker(pytest.mark.unit)
    if every_tier(config):
        return
    kept = [item for item in items if tier_of(item) == "unit"]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if tier_of(item) != "unit"])
        items[:] = kept


def pytest_report_header(config: pytest.Config) -> str:
    if every_tier(config):
        return "tiers: every test selected (--all, -m or named paths)"
    return "tiers: unit only (a bare run); `pytest --all` runs every tier"


def persistent_models_dir(config: pytest.Config) -> Path:
    """``.pytest_cache/d/structaware-models`` (under the repository when the cache plugin is off)."""
    cache = getattr(config, "cache", None)
    if cache is not None:
        return Path(cache.mkdir("structaware-models"))
    folder = Path(config.rootpath) / ".pytest_cache" / "d" / "structaware-models"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def link_models(cache_dir: Path, config: pytest.Config) -> Path:
    """Make ``cache_dir/models`` a link to the persistent model folder; returns ``cache_dir``."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    models = cache_dir / "models"
    if not models.exists() and not models.is_symlink():
        models.symlink_to(persistent_models_dir(config), target_is_directory=True)
    return cache_dir


@pytest.fixture(scope="session", autouse=True)
def _session_model_cache(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    """The run's ``sa-cache`` (``STRUCTAWARE_CACHE_DIR`` of ``offline_env``), its models persistent."""
    return link_models(tmp_path_factory.getbasetemp() / "sa-cache", pytestconfig)


@pytest.fixture
def fresh_cache(tmp_path: Path, pytestconfig: pytest.Config) -> Path:
    """An empty structaware cache folder for one test (no parses, no OCR results), its models the
    persistent ones: for a test that counts what a cold cache parses."""
    return link_models(tmp_path / "cache", pytestconfig)


# Plumbing fixtures shared by tests/ and every integration distribution's tests/: a fake dense model and a
# small guideline page indexed with it.


class LetterModel:
    """A dense model outside fastembed: letter counts, unit length (the interface, not a stub of it:
    the encoder's cache, batching order and dimension check all run on its real output). It ranks
    by spelling, not meaning: for tests of plumbing, never of ranking quality."""

    model_name = "letters"
    model_id = "letters@1"
    dim = 26
    languages = frozenset({"en"})

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(26, dtype=np.float32)
        for c in text.lower():
            if "a" <= c <= "z":
                v[ord(c) - 97] += 1
        return v / (np.linalg.norm(v) or 1.0)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.vstack([self._vec(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


@pytest.fixture
def letter_model() -> LetterModel:
    """A fresh :class:`LetterModel` (its ``calls`` empty)."""
    return LetterModel()


# A two-section guideline page in MinerU's content_list form (written for these tests).
GUIDE = [
    {
        "type": "text",
        "text": "2 Managing type 2 diabetes",
        "text_level": 1,
        "bbox": [100, 80, 560, 104],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "2.1 Glucose-lowering treatment",
        "text_level": 2,
        "bbox": [100, 120, 470, 140],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Recommendation 4: Offer metformin as first-line therapy to adults with type 2 diabetes and normal "
        "kidney function (strong recommendation, moderate-quality evidence).",
        "bbox": [100, 150, 820, 190],
        "page_idx": 0,
    },
    {"type": "text", "text": "Table 3. HbA1c targets", "text_level": 2, "bbox": [100, 210, 400, 228], "page_idx": 0},
    {
        "type": "table",
        "table_caption": [],
        "table_footnote": [],
        "table_body": "<table><tr><td>Population</td><td>HbA1c target</td><td>Grade</td></tr>"
        "<tr><td>Adults under 65</td><td>&lt; 7.0%</td><td>A</td></tr>"
        "<tr><td>Adults 65 and older</td><td>&lt; 8.0%</td><td>B</td></tr></table>",
        "bbox": [300, 236, 700, 300],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Review the treatment plan every three to six months.",
        "bbox": [100, 310, 600, 328],
        "page_idx": 0,
    },
]


def _write_guide(folder: Path) -> Path:
    """A MinerU output folder holding ``GUIDE``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "content_list.json").write_text(json.dumps(GUIDE), encoding="utf-8")
    return folder


def _letter_index(folder: Path) -> Any:
    """An open ``StructureIndex`` in ``folder`` of ``GUIDE``, embedded by :class:`LetterModel` (real BM25),
    on qdrant-client in memory (no shard files to write)."""
    from qdrant_client import QdrantClient

    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
    from structaware_retrievers.index.structure_index import StructureIndex

    cache = EmbeddingCache(folder / "embeddings.sqlite")
    ix = StructureIndex(
        folder / "ix",
        client=QdrantClient(":memory:"),
        dense=DenseEncoder(model=LetterModel(), cache=cache),
        sparse=SparseEncoder(cache=cache),
    )
    doc = load_document(_write_guide(folder / "guide"))
    ix.add_document(doc, build_units(doc))
    return ix


@pytest.fixture
def guide_dir(tmp_path: Path) -> Path:
    """A MinerU output folder of ``GUIDE`` (a two-section guideline page with a graded recommendation and a table)."""
    return _write_guide(tmp_path / "guide")


@pytest.fixture(scope="session")
def letter_index() -> Callable[[Path], Any]:
    """Builds an open index of ``GUIDE`` in a folder, embedded by :class:`LetterModel`; the caller closes it."""
    return _letter_index
