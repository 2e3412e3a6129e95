"""One index, every face: units ingested once with the CLI are found by the CLI, LlamaIndex and
LangChain alike (same units, same order, same scores)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_core")

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = "mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"
# question -> text the top unit must hold
QUESTIONS = {
    "What is the blood pressure target for adults 57-59 y?": "Adults 57-59 y",
    "diagnostic flowchart for suspected hypertension": "Figure 1. Diagnostic flowchart",
}


def fixture_path(rel: str, shared_rel: str | None = None) -> Path:
    """``tests/fixtures/<rel>`` (CC0 copies in the repo), else ``<repo>/../shared/fixtures/<shared_rel or rel>``."""
    for path in (REPO / "tests" / "fixtures" / rel, REPO.parent / "shared" / "fixtures" / (shared_rel or rel)):
        if path.exists():
            return path
    pytest.skip(f"fixture {rel} is in neither tests/fixtures nor ../shared/fixtures")


def cli(*args: str) -> str:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "structaware_retrievers.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_cli_ingest_then_cli_llamaindex_and_langchain_agree(tmp_path: Path) -> None:
    from langchain_structaware import StructureAwareRetriever as LangChainRetriever
    from llama_index.retrievers.structaware import StructureAwareRetriever as LlamaIndexRetriever

    from structaware_retrievers.index import StructureIndex

    folder = tmp_path / "index"
    cli("ingest", str(fixture_path(MINERU_EN)), "--index", str(folder), "--no-progress")

    for question, expected in QUESTIONS.items():
        records = [json.loads(line) for line in cli("query", question, "--index", str(folder), "-k", "3", "--json").splitlines()]
        assert len(records) == 3 and expected in records[0]["text"]
        cli_ids = [r["unit_id"] for r in records]

        index = StructureIndex(folder)
        try:
            li = LlamaIndexRetriever(index, similarity_top_k=3).retrieve(question)
            lc = LangChainRetriever(index=index, k=3).invoke(question)
        finally:
            index.close()
        assert [n.node.node_id for n in li] == cli_ids
        assert [d.id for d in lc] == cli_ids
        assert [n.score for n in li] == pytest.approx([r["score"] for r in records])
        assert [d.metadata["score"] for d in lc] == pytest.approx([r["score"] for r in records])
        # same provenance through both faces
        assert li[0].node.metadata["page"] == lc[0].metadata["page"] == records[0]["pages"][0]
        assert lc[0].metadata["element_ids"] == records[0]["element_ids"] == li[0].node.metadata["element_ids"].split(",")
