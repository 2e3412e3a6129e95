"""``SearchOptions``: one set of search knobs with its defaults stated once, and every face translating
its own spelling into it (the Python API, the CLI, ``structaware serve``, MCP, the LangChain and
LlamaIndex retrievers and vector stores)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.query.fusion import (
    DEFAULT_GROUP_SIZE,
    DEFAULT_MIN_SCORE,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
    DEFAULT_WEIGHTS,
)
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.search.rerank import Rerank

QUESTION = "What is the blood pressure target for adults 57-59 y?"


class _Recorder:
    """A stand-in index (or points index) that records the options each search gets and finds nothing."""

    collection = "structaware"
    dense = SimpleNamespace(model_id="test-model")

    def __init__(self) -> None:
        self.calls: list[tuple[Any, SearchOptions]] = []

    def query(self, text: str, options: SearchOptions) -> list[Any]:
        self.calls.append((text, options))
        return []

    async def aquery(self, text: str, options: SearchOptions) -> list[Any]:
        return self.query(text, options)

    def search(self, text: str | None, *, dense: Any, options: SearchOptions, **kw: Any) -> list[Any]:
        self.calls.append((text, options))
        return []

    def documents(self) -> list[dict[str, Any]]:
        return []


# -- the options themselves ------------------------------------------------------------------
def test_defaults_are_the_fusion_constants() -> None:
    o = SearchOptions()
    assert (o.rrf_k, o.prefetch_limit, o.weights, o.group_size, o.min_score) == (
        DEFAULT_RRF_K, DEFAULT_PREFETCH_LIMIT, DEFAULT_WEIGHTS, DEFAULT_GROUP_SIZE, DEFAULT_MIN_SCORE,
    )  # fmt: skip
    others = (o.k, o.mode, o.fusion, o.filter, o.budget_chars, o.expand, o.rerank)
    assert others == (10, "hybrid", "rrf", None, None, False, None)
    # None spells "the default" for the weights and "no bar" for min_score, and compares equal to it
    assert SearchOptions(weights=None) == o and SearchOptions(min_score=None).min_score == 0.0
    assert SearchOptions(weights=[0.1, 1.0]) == o  # a JSON list is the same weights
    assert SearchOptions(weights=(1, 1)) != o  # trap: the paper's equal weights are another search


def test_replace_makes_a_checked_copy() -> None:
    o = SearchOptions(k=3, mode="sparse")
    changed = o.replace(k=7, rerank=False)
    assert (changed.k, changed.mode, changed.rerank) == (7, "sparse", False)
    assert (o.k, o.rerank) == (3, None)  # the original is untouched
    assert o.replace() is o
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.k = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        o.replace(top_k=5)  # not a field
    with pytest.raises(MalformedInputError) as err:
        o.replace(k=0)  # checked again
    assert err.value.field == "k"


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"k": 0}, "k"),
        ({"mode": "keyword"}, "mode"),
        ({"fusion": "max"}, "fusion"),
        ({"rrf_k": 0}, "rrf_k"),
        ({"prefetch_limit": 0}, "prefetch_limit"),
        ({"weights": (0.0, 1.0)}, "weights"),
        ({"weights": (1.0,)}, "weights"),
        ({"budget_chars": 0}, "budget_chars"),
        ({"budget_chars": 1.5}, "budget_chars"),
        ({"group_size": 0}, "group_size"),
        ({"group_size": True}, "group_size"),
        ({"rerank": "yes"}, "rerank"),
        ({"min_score": 1.5}, "min_score"),
        ({"min_score": True}, "min_score"),
    ],
)
def test_bad_values_name_their_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(MalformedInputError) as err:
        SearchOptions(**changes)
    assert err.value.field == field


def test_values_at_the_edges_are_accepted() -> None:
    """The trap beside the checks: the smallest and largest values each field takes."""
    o = SearchOptions(
        k=1,
        rrf_k=1,
        prefetch_limit=1,
        weights=(0.01, 1),
        budget_chars=1,
        group_size=1,
        min_score=1.0,
        rerank=Rerank(pool=2),
    )
    assert (o.k, o.budget_chars, o.min_score) == (1, 1, 1.0)
    assert SearchOptions(min_score=0, rerank=True).min_score == 0.0


# -- the Python API: options and keywords search alike --------------------------------------------
@pytest.fixture(scope="module")
def index(tiny_en_index_dir: Path) -> Any:
    from structaware_retrievers.index.structure_index import StructureIndex

    with StructureIndex(tiny_en_index_dir) as ix:
        yield ix


def _ids(hits: list[Any]) -> list[tuple[str, list[str]]]:
    return [(h.unit.unit_id, [g.unit_id for g in h.group]) for h in hits]


@pytest.mark.usefixtures("offline_env")
def test_options_and_keywords_give_the_same_hits(index: Any) -> None:
    by_keywords = index.query(QUESTION, k=4, group_size=1, min_score=0)
    options = SearchOptions(k=4, group_size=1, min_score=0)
    assert _ids(index.query(QUESTION, options)) == _ids(by_keywords)
    assert _ids(asyncio.run(index.aquery(QUESTION, options))) == _ids(by_keywords)
    assert len(by_keywords) == 4
    # keywords beside options change those fields of them
    assert _ids(index.query(QUESTION, SearchOptions(k=2, group_size=1), k=4, min_score=0)) == _ids(by_keywords)
    assert _ids(index.query(QUESTION)) == _ids(index.query(QUESTION, SearchOptions()))
    # trap: other options are another search (table rows grouped into their table's hit)
    assert _ids(index.query(QUESTION, options.replace(group_size=DEFAULT_GROUP_SIZE))) != _ids(by_keywords)


@pytest.mark.usefixtures("offline_env")
def test_the_index_refuses_what_is_not_options(index: Any) -> None:
    with pytest.raises(MalformedInputError) as err:
        index.query(QUESTION, "sparse")
    assert err.value.field == "options"
    with pytest.raises(TypeError):
        index.query(QUESTION, top_k=3)
    with pytest.raises(MalformedInputError) as err:
        index.query(QUESTION, mode="keyword")
    assert err.value.field == "mode"


# -- the faces: each spelling becomes the same options ---------------------------------------
def test_the_serve_body_becomes_options() -> None:
    from structaware_retrievers.serve.app import _query_args

    body = {"text": QUESTION, "k": 3, "mode": "sparse", "weights": [0.5, 1], "rrf_k": 60, "min_score": 0}
    text, options = _query_args(body)
    assert text == QUESTION
    assert options == SearchOptions(k=3, mode="sparse", weights=(0.5, 1.0), rrf_k=60, min_score=0.0)
    assert _query_args({"text": QUESTION})[1] == SearchOptions(k=5)  # the served default k
    assert _query_args({"text": QUESTION})[1] != SearchOptions()  # trap: not the Python API's k=10
    url = _query_args({"text": QUESTION, "k": "3", "expand": "true", "budget_chars": "900"}, from_url=True)[1]
    assert url == SearchOptions(k=3, expand=True, budget_chars=900)


def test_the_cli_searches_with_the_options_it_would_send_a_server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``structaware query``: its flags become one SearchOptions, the same whether the command asks a
    running server (the body it sends, read back by the server) or searches in its own process."""
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app
    from structaware_retrievers.cli import query as cli_query
    from structaware_retrievers.serve.app import _query_args

    local, bodies = _Recorder(), []
    monkeypatch.setattr(cli_query, "open_index", lambda *a, **kw: local)
    monkeypatch.setattr(cli_query, "served_records", lambda index, collection, body: bodies.append(body) or [])
    flags = ["--mode", "sparse", "-k", "3", "--rrf-k", "60", "--weights", "0.5,1", "--no-rerank"]
    flags += ["--filter", "type=table_row"]
    for server in ("--server", "--no-server"):
        res = CliRunner().invoke(app, ["query", QUESTION, "--index", str(tmp_path), *flags, server])
        assert res.exit_code == 0, res.output
    ((text, options),) = local.calls
    expected = SearchOptions(
        k=3, mode="sparse", rrf_k=60, weights=(0.5, 1.0), rerank=False, filter={"type": "table_row"}
    )
    assert text == QUESTION and options == expected
    assert _query_args(json.loads(json.dumps(bodies[0]))) == (QUESTION, expected)  # the body as JSON carries it
    res = CliRunner().invoke(app, ["query", QUESTION, "--index", str(tmp_path), "--mode", "sparse", "--no-server"])
    assert local.calls[-1][1] == SearchOptions(k=5, mode="sparse")  # the CLI's default k
    assert local.calls[-1][1] != expected  # trap: no flag, no change


async def test_the_mcp_tool_arguments_become_options() -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from structaware_retrievers.serve.mcp import make_mcp_server

    ix = _Recorder()
    async with Client(make_mcp_server(ix)) as client:  # type: ignore[arg-type]
        await client.call_tool("search", {"query": QUESTION, "mode": "dense", "budget_chars": 900, "rerank": False})
        await client.call_tool("search", {"query": QUESTION})
    assert ix.calls[0][1] == SearchOptions(k=5, mode="dense", budget_chars=900, rerank=False)
    assert ix.calls[1][1] == SearchOptions(k=5)  # the tool's default k
    assert ix.calls[1][1].budget_chars is None  # trap: one call's arguments do not carry over


def test_the_langchain_retriever_and_vector_store_build_options() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from langchain_structaware import StructureAwareRetriever, StructureAwareVectorStore

    retriever = StructureAwareRetriever(index=_Recorder(), rrf_k=60, group_size=1)
    assert retriever._options(None, None) == SearchOptions(k=4, rrf_k=60, group_size=1)  # LangChain's k=4
    per_call = retriever._options(2, {"unit_type": "table_row"}, False)
    assert per_call == SearchOptions(k=2, rrf_k=60, group_size=1, filter={"unit_type": "table_row"}, rerank=False)
    assert retriever._options(None, None).k == 4  # trap: a call's k does not stay

    store = StructureAwareVectorStore(
        DeterministicFakeEmbedding(size=8), index=_Recorder(), fusion="dbsf", weights=(1, 1)
    )
    store._records = recorder = _Recorder()
    store.similarity_search(QUESTION, k=3)
    store.similarity_search_with_relevance_scores(QUESTION, k=3)
    assert recorder.calls[0][1] == SearchOptions(k=3, fusion="dbsf", weights=(1.0, 1.0))
    assert recorder.calls[1][1] == SearchOptions(k=3, fusion="dbsf", weights=(1.0, 1.0), rerank=False)


def test_the_llama_index_retriever_and_vector_store_build_options() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.vector_stores.types import MetadataFilter, MetadataFilters, VectorStoreQuery

    from llama_index.retrievers.structaware import StructureAwareRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore

    assert StructureAwareRetriever(_Recorder())._options() == SearchOptions(k=2)  # LlamaIndex's top k
    filters = MetadataFilters(filters=[MetadataFilter(key="unit_type", value="table_row")])
    retriever = StructureAwareRetriever(_Recorder(), similarity_top_k=6, expand=True, filters=filters)
    options = retriever._options()
    assert options.replace(filter=None) == SearchOptions(k=6, expand=True)
    assert options.filter is not None and options != SearchOptions(k=6, expand=True)  # trap: the filter is carried
    with pytest.raises(MalformedInputError) as err:
        StructureAwareRetriever(_Recorder(), budget_chars=0)  # every setting checked at construction
    assert err.value.field == "budget_chars"

    store = StructureAwareVectorStore(index=_Recorder(), rrf_k=60)
    store._records = recorder = _Recorder()
    store.query(VectorStoreQuery(query_str=QUESTION, query_embedding=[0.1] * 8, similarity_top_k=3))
    assert recorder.calls[0][1] == SearchOptions(k=3, rrf_k=60)
