"""Shared pytest fixtures.

* ``fixtures_dir``: ``tests/fixtures`` (redistributable copies, see each folder's SOURCES.md);
* ``shared_dir``: ``<repo>/../shared`` (research material and fixtures without redistribution
  rights); a test that asks for it is skipped with a clear reason when the folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES_DIR = REPO / "tests" / "fixtures"
SHARED_DIR = REPO.parent / "shared"


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
