"""``structaware mcp``: search as an MCP tool, through the official SDK's client, in-process and as
the real command over stdio."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.search.evidence import evidence_units
from structaware_retrievers.serve.mcp import make_mcp_server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
EN = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(scope="module")
def index_dir(tiny_en_index_dir: Path) -> Path:
    return tiny_en_index_dir  # TINY and EN ingested (conftest)


def _json(result) -> dict:  # a CallToolResult
    assert not result.is_error, result.content
    return result.structured_content if result.structured_content is not None else json.loads(result.content[0].text)


async def test_search_tool_answers_as_the_index_does(index_dir: Path) -> None:
    with StructureIndex(index_dir) as ix:
        q = "clinic target for adults 57-59 y"
        async with Client(make_mcp_server(ix)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {"search", "list_documents"}
            assert tools["search"].annotations.read_only_hint is True
            assert {"query", "k", "unit_types", "expand"} <= set(tools["search"].input_schema["properties"])

            got = _json(
                await client.call_tool("search", {"query": q, "k": 3, "unit_types": ["table_row"], "expand": True})
            )
            from structaware_retrievers.query.filters import SearchFilter

            hits = ix.query(q, k=3, filter=SearchFilter(unit_types=["table_row"]), expand=True)
            walk = [{**h.to_record(u), "expanded_from": via} for h, u, via in evidence_units(hits)]
            assert got["results"] == json.loads(json.dumps(walk))  # the lines of `structaware query --expand --json`
            assert got["results"][0]["text"].startswith("Population: Adults 57-59 y")
            assert any(r["expanded_from"] for r in got["results"])  # the hit's adjacent rows

            docs = _json(await client.call_tool("list_documents", {}))["documents"]
            assert sorted(d["doc_name"] for d in docs) == sorted([TINY.name, EN.name])

            bad = await client.call_tool("search", {"query": "   "})
            assert bad.is_error and "query text is empty" in bad.content[0].text
            bad = await client.call_tool("search", {"query": "x", "page_from": 0})
            assert bad.is_error and "page" in bad.content[0].text


async def test_unknown_tool_arguments_are_errors_and_the_schemas_say_so(index_dir: Path) -> None:
    """A typo (`unit_type` for `unit_types`) used to be dropped by the SDK's argument model: the
    search answered unfiltered. It is a tool error naming the argument and the accepted ones."""
    with StructureIndex(index_dir) as ix:
        async with Client(make_mcp_server(ix)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert all(t.input_schema.get("additionalProperties") is False for t in tools.values())
            accepted = set(tools["search"].input_schema["properties"])
            assert {"query", "k", "unit_types", "doc_names", "page_from"} <= accepted

            bad = await client.call_tool("search", {"query": "clinic BP target", "unit_type": ["table_row"]})
            text = bad.content[0].text
            assert bad.is_error and text.startswith("search.unit_type: unknown argument(s) ['unit_type']"), text
            assert all(repr(name) in text for name in accepted)
            bad = await client.call_tool("list_documents", {"doc": "x"})
            assert bad.is_error and "list_documents.doc" in bad.content[0].text

            got = _json(await client.call_tool("search", {"query": "clinic BP target", "unit_types": ["table_row"]}))
            assert got["results"] and {r["unit_type"] for r in got["results"]} == {"table_row"}


async def test_structaware_mcp_command_serves_over_stdio(index_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "structaware_retrievers.cli", "mcp", "--index", str(index_dir)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    async with Client(params, read_timeout_seconds=120) as client:
        got = _json(await client.call_tool("search", {"query": "clinic blood pressure target", "k": 2}))
        assert [r["rank"] for r in got["results"]] == [1, 2]
        assert {r["doc"] for r in got["results"]} <= {TINY.name, EN.name}


async def test_search_returns_each_hits_outlined_page_as_an_image_block_when_asked(index_dir: Path) -> None:
    import base64
    import io

    from PIL import Image

    pdfs = {"mineru-4.0.12_flash-tier_synthetic_guideline_en": FIXTURES / "pdf" / "synthetic_guideline_en.pdf"}
    q = {"query": "clinic target for adults 57-59 y", "k": 2, "unit_types": ["table_row", "recommendation"]}
    with StructureIndex(index_dir) as ix:
        async with Client(make_mcp_server(ix, pdf=pdfs)) as client:
            assert "images" in (await client.list_tools()).tools[0].input_schema["properties"]
            plain = await client.call_tool("search", q)
            assert [c.type for c in plain.content] == ["text"]  # no pictures unless asked
            got = await client.call_tool("search", {**q, "images": True})
            assert not got.is_error
            text, *pictures = got.content
            assert json.loads(text.text) == got.structured_content == _json(plain)
            results = got.structured_content["results"]
            assert [c.type for c in pictures] == ["image"] * len(results)
            for block, record in zip(pictures, results):
                assert block.mime_type == "image/png"
                png = Image.open(io.BytesIO(base64.b64decode(block.data)))
                meta = json.loads(png.text["structaware"])  # the picture of this hit, its rows outlined
                assert meta["unit_id"] == record["unit_id"] and len(meta["outlines"]) >= 1
                assert png.height < 1263  # cropped around the hit: less than the A4 page's 1263 px at 108 dpi
        async with Client(make_mcp_server(ix)) as client:  # the index holds parser output only: no PDF
            got = await client.call_tool("search", {**q, "images": True})
            assert not got.is_error and got.content[1].type == "text"
            assert "no picture" in got.content[1].text and "synthetic_guideline_en.pdf" in got.content[1].text
