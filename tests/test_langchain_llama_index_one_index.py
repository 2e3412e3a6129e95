"""One index, every face: units ingested once with the CLI are found by the CLI, LlamaIndex and
LangChain alike: the same top unit with the same fused score, and the same dense ranking.

Whole hybrid lists are not compared: table rows tie in BM25 and Qdrant does not promise an order
among equal scores, so RRF ranks below the first may differ between two identical queries."""

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


def query_json(question: str, folder: Path, *options: str) -> list[dict]:
    out = cli("query", question, "--index", str(folder), "--json", *options)
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.integration
def test_cli_ingest_then_cli_llamaindex_and_langchain_agree(tmp_path: Path) -> None:
    from langchain_structaware import StructureAwareRetriever as LangChainRetriever
    from llama_index.retrievers.structaware import StructureAwareRetriever as LlamaIndexRetriever
    from structaware_retrievers.index.structure_index import StructureIndex

    folder = tmp_path / "index"
    cli("ingest", str(fixture_path(MINERU_EN)), "--index", str(folder), "--no-progress")

    for question, expected in QUESTIONS.items():
        hybrid = query_json(question, folder, "-k", "1")
        dense = query_json(question, folder, "-k", "3", "--mode", "dense")
        assert len(hybrid) == 1 and len(dense) == 3 and expected in hybrid[0]["text"]

        index = StructureIndex(folder)
        try:
            li_top = LlamaIndexRetriever(index, similarity_top_k=1).retrieve(question)
            lc_top = LangChainRetriever(index=index, k=1).invoke(question)
            li_dense = LlamaIndexRetriever(index, similarity_top_k=3, mode="dense").retrieve(question)
            lc_dense = LangChainRetriever(index=index, k=3, mode="dense").invoke(question)
        finally:
            index.close()
        # the same top unit (native hybrid RRF) through the CLI, LlamaIndex and LangChain
        assert li_top[0].node.node_id == lc_top[0].id == hybrid[0]["unit_id"]
        assert li_top[0].score == pytest.approx(hybrid[0]["score"]) == lc_top[0].metadata["score"]
        # whole ranked lists where scores cannot tie (dense cosine)
        dense_ids = [r["unit_id"] for r in dense]
        assert [n.node.node_id for n in li_dense] == dense_ids == [d.id for d in lc_dense]
        assert [d.metadata["score"] for d in lc_dense] == pytest.approx([r["score"] for r in dense])
        # same provenance through both faces
        top = hybrid[0]
        assert li_top[0].node.metadata["page"] == lc_top[0].metadata["page"] == top["pages"][0]
        li_elements = li_top[0].node.metadata["element_ids"].split(",")
        assert lc_top[0].metadata["element_ids"] == top["element_ids"] == li_elements
