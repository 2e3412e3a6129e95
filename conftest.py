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

from pathlib import Path

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
