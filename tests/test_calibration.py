"""Calibrated relevance and ``min_score``: a question the index does not answer gets no hit, in every
face, while a question it answers keeps its hit; a hit's relevance does not depend on how the other
hits of its question rank (the fused score of any question's best hit is alike)."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.fusion import DEFAULT_MIN_SCORE
from structaware_retrievers.search.calibration import relevance, relevances

MINERU = Path(__file__).resolve().parent / "fixtures" / "mineru"
DOCS = [
    MINERU / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide",
    MINERU / "mineru-4.0.12_flash-tier_synthetic_guideline_en",
    MINERU / "mineru-4.0.12_flash-tier_synthetic_guideline_zh",
]
# questions none of the three guidelines answers: everyday topics and another specialty, both languages
OFF_TOPIC = [
    "football world cup results 1998",
    "How do I bake sourdough bread with a rye starter?",
    "Which orthodontic appliance is preferred for correcting a Class II malocclusion in adolescents?",
    "1998年世界杯足球赛的冠军是哪支球队？",
    "红烧肉怎么做才能肥而不腻？",
]
ON_TOPIC = "How should reusable medical devices be cleaned and sterilized?"
ROW_QUESTION = "clinic target for adults 57-59 y"

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("calibration") / "ix"
    with pytest.MonkeyPatch.context() as mp:  # module scope: no test's environment is set up yet
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        with StructureIndex(folder) as ix:
            assert ix.ingest(DOCS).documents == 3
    return folder


@pytest.fixture(scope="module")
def ix(index_dir: Path) -> Iterator[StructureIndex]:
    with StructureIndex(index_dir) as index:
        yield index


def test_an_off_topic_question_gets_no_hit_above_the_default(ix: StructureIndex) -> None:
    for question in OFF_TOPIC:
        assert ix.query(question) == [], question
        shown = ix.query(question, min_score=0)
        assert shown, question  # the engine still ranks some units first
        assert all(h.relevance is not None and h.relevance < DEFAULT_MIN_SCORE for h in shown), question


def test_the_fused_score_cannot_tell_an_off_topic_question(ix: StructureIndex) -> None:
    # the trap: the best hit of the football question has the fused score of an answer's best hit
    # (the fused order, where the first hit holds the question's best fused score)
    off, on = ix.query(OFF_TOPIC[0], k=1, min_score=0, rerank=False)[0], ix.query(ON_TOPIC, k=1, rerank=False)[0]
    assert off.score >= 0.9 * on.score
    assert off.relevance < DEFAULT_MIN_SCORE <= on.relevance


def test_an_on_topic_question_keeps_its_hit(ix: StructureIndex) -> None:
    hits = ix.query(ON_TOPIC, k=3)
    assert hits and hits[0].relevance >= DEFAULT_MIN_SCORE
    assert "reusable medical devices must be cleaned" in hits[0].unit.text
    # the row that names the value keeps its hit; its twin row of the Chinese guideline (same numbers,
    # other language) is ranked second by the fused score but is not an answer to the English question
    rows = ix.query(ROW_QUESTION, k=3, min_score=0, rerank=False)
    assert "Adults 57-59 y" in rows[0].unit.text and rows[0].relevance >= DEFAULT_MIN_SCORE
    twin = [h for h in rows if "57-59岁" in h.unit.text]
    assert twin and twin[0].relevance < DEFAULT_MIN_SCORE
    kept = ix.query(ROW_QUESTION, k=3)
    assert kept[0].unit.unit_id == rows[0].unit.unit_id
    assert all("57-59岁" not in h.unit.text for h in kept)
    assert [h.rank for h in kept] == list(range(1, len(kept) + 1))


def test_a_chinese_question_keeps_its_hit_and_an_off_topic_one_gets_none(ix: StructureIndex) -> None:
    hits = ix.query("首次就诊时应该测量哪侧手臂的血压？", k=3)
    assert hits and hits[0].unit.text.startswith("推荐意见1.1")
    assert ix.query("红烧肉怎么做才能肥而不腻？") == []


def test_rows_grouped_with_a_hit_pass_the_same_bar(ix: StructureIndex) -> None:
    hits = ix.query(ROW_QUESTION, k=5, group_size=4, min_score=0)
    grouped = [h for h in hits if h.group]
    assert grouped
    text = ROW_QUESTION
    dense = [float(x) for x in ix.dense.embed_query(text)]
    rows = [g.unit_id for h in grouped for g in h.group]
    rel = relevances(ix.store, text, dense, ix.sparse.embed_query(text), rows)
    bar = sorted(rel.values())[len(rel) // 2] if len(set(rel.values())) > 1 else max(rel.values()) + 1e-6
    strict = ix.query(ROW_QUESTION, k=5, group_size=4, min_score=bar)
    for h in strict:
        assert h.relevance >= bar
        assert all(rel[g.unit_id] >= bar for g in h.group)
    kept_rows = {g.unit_id for h in strict for g in h.group}
    assert kept_rows < set(rows)  # some rows of the groups were under the bar and left


def test_idfs_the_stage_read_are_not_read_again(ix: StructureIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    from structaware_retrievers.search import calibration

    dense = [float(x) for x in ix.dense.embed_query(ON_TOPIC)]
    sparse = ix.sparse.embed_query(ON_TOPIC)
    ids = [h.unit.unit_id for h in ix.query(ON_TOPIC, k=5, group_size=1, min_score=0)]
    fresh = relevances(ix.store, ON_TOPIC, dense, sparse, ids)
    read = calibration.term_idfs(ix.store, sparse.indices)
    monkeypatch.setattr(calibration, "term_idfs", lambda *_: pytest.fail("IDFs read again"))
    assert relevances(ix.store, ON_TOPIC, dense, sparse, ids, read) == fresh
    # trap: IDFs for other terms than the question's are not mistaken for its own
    monkeypatch.undo()
    other = {t + 1: 9.0 for t in read}
    assert relevances(ix.store, ON_TOPIC, dense, sparse, ids, other) == fresh


def test_relevance_is_not_normalised_per_question() -> None:
    # the same cosine and coverage give the same relevance whatever the other hits score
    assert relevance(0.3, 0.4, cjk=False) == relevance(0.3, 0.4, cjk=False) < DEFAULT_MIN_SCORE
    assert relevance(0.5, 0.6, cjk=False) > 0.9
    # a CJK question is searched by the multilingual half, whose cosines run lower
    assert relevance(0.3, 0.4, cjk=True) > relevance(0.3, 0.4, cjk=False)
    # no dense vector: the coverage alone
    assert relevance(None, 0.9, cjk=False) > DEFAULT_MIN_SCORE > relevance(None, 0.1, cjk=False)


def test_a_units_relevance_is_the_same_in_hybrid_and_dense_mode(ix: StructureIndex) -> None:
    hybrid = {h.unit.unit_id: h.relevance for h in ix.query(ON_TOPIC, k=5, group_size=1, min_score=0)}
    dense = {h.unit.unit_id: h.relevance for h in ix.query(ON_TOPIC, k=5, group_size=1, mode="dense", min_score=0)}
    shared = hybrid.keys() & dense.keys()
    assert shared and all(hybrid[i] == pytest.approx(dense[i]) for i in shared)


def test_min_score_outside_0_1_is_refused(ix: StructureIndex) -> None:
    for bad in (-0.1, 1.5, "high", True):
        with pytest.raises(MalformedInputError) as err:
            ix.query(ON_TOPIC, min_score=bad)  # type: ignore[arg-type]
        assert err.value.field == "min_score"


# -- every face honours min_score ----------------------------------------------------------------------


@pytest.fixture
def query_cli(cli):
    """``structaware query --json`` on an index folder, in process: the hits as dicts."""

    def run(index_dir: Path, *args: str) -> list[dict]:
        res = cli("query", "--index", str(index_dir), "--no-server", "--json", *args)
        assert res.returncode == 0, res.stderr
        return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]

    return run


def test_every_face_honours_min_score(index_dir: Path, ix: StructureIndex, query_cli) -> None:
    off = OFF_TOPIC[0]
    # Python
    assert ix.query(off) == [] and ix.query(ON_TOPIC)
    # CLI
    assert query_cli(index_dir, off) == []
    shown = query_cli(index_dir, off, "--min-score", "0")
    assert shown and all(r["relevance"] < DEFAULT_MIN_SCORE for r in shown)
    assert query_cli(index_dir, ON_TOPIC)[0]["relevance"] >= DEFAULT_MIN_SCORE
    # serve
    from structaware_retrievers.serve.app import make_server

    srv = make_server(ix, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:

        def ask(body: dict) -> dict:
            req = urllib.request.Request(
                f"{srv.url}/query", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=120) as resp:
                return json.loads(resp.read())

        assert ask({"text": off})["hits"] == []
        assert ask({"text": off, "min_score": 0})["hits"]
        assert ask({"text": ON_TOPIC})["hits"][0]["relevance"] >= DEFAULT_MIN_SCORE
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(30)
    # MCP
    if _has("mcp"):
        from mcp import Client

        from structaware_retrievers.serve.mcp import make_mcp_server

        async def mcp_results(args: dict) -> list:
            async with Client(make_mcp_server(ix)) as client:
                got = await client.call_tool("search", args)
                return json.loads(got.content[0].text)["results"]

        assert asyncio.run(mcp_results({"query": off})) == []
        assert asyncio.run(mcp_results({"query": off, "min_score": 0}))
    # LlamaIndex retriever
    if _has("llama_index.retrievers.structaware"):
        from llama_index.retrievers.structaware import StructureAwareRetriever as LlamaRetriever

        assert LlamaRetriever(ix).retrieve(off) == []
        nodes = LlamaRetriever(ix, min_score=0).retrieve(off)
        assert nodes and all(n.node.metadata["relevance"] < DEFAULT_MIN_SCORE for n in nodes)
        assert "relevance" not in nodes[0].node.get_content(metadata_mode="llm")
    # LangChain retriever
    if _has("langchain_structaware"):
        from langchain_structaware import StructureAwareRetriever as LcRetriever

        assert LcRetriever(index=ix).invoke(off) == []
        docs = LcRetriever(index=ix, min_score=0).invoke(off)
        assert docs and all(d.metadata["relevance"] < DEFAULT_MIN_SCORE for d in docs)
        assert LcRetriever(index=ix).invoke(ON_TOPIC)[0].metadata["relevance"] >= DEFAULT_MIN_SCORE


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True
