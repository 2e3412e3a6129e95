"""The search page rendered on the server, over real HTTP and no browser: ``GET /?q=...`` holds the hits
in its HTML (what a link, a reader without scripts or a text browser gets), the filters of its URL
apply, every text of the user or a document is escaped, and a bad filter is the typed error in the
page with HTTP 400. (The page in a browser, with and without JavaScript: test_search_page.py.)"""

from __future__ import annotations

import html
import json
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.units import build_units
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.serve.app import QueryServer, make_server

EN_NAME = "mineru-4.0.12_flash-tier_synthetic_guideline_en"
TINY_NAME = "mineru-4.0.12_flash-tier_tiny_heading_table"
TIMEOUT = 60
QUESTION = "What is the blood pressure target for adults 57-59 y?"

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


def _serve(ix: StructureIndex) -> Iterator[QueryServer]:
    srv = make_server(ix, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(TIMEOUT)
    ix.close()


@pytest.fixture
def server(tiny_en_index_dir: Path) -> Iterator[QueryServer]:
    yield from _serve(StructureIndex(tiny_en_index_dir))


@pytest.fixture
def empty_server(tmp_path: Path) -> Iterator[QueryServer]:
    yield from _serve(StructureIndex(tmp_path / "empty"))


def _document(doc_id: str, name: str, texts: list[tuple[BlockKind, str]]) -> ParsedDocument:
    blocks = [
        Block(block_id=f"p1-e{i}", kind=k, text=t, page=1, level=1 if k is BlockKind.HEADING else None)
        for i, (k, t) in enumerate(texts)
    ]
    return ParsedDocument(
        doc_id=doc_id, name=name, source=f"{doc_id}.json", parser="mineru", page_count=1, blocks=blocks
    )


@pytest.fixture
def hostile_server(tmp_path: Path) -> Iterator[QueryServer]:
    """An index of one document whose name and text carry markup: a guideline quoting a web form."""
    doc = _document("c" * 16, 'portal "<i>advice</i>"', [
        (BlockKind.HEADING, "Sodium intake advice for the <b>patient portal</b>"),
        (BlockKind.PARAGRAPH, ('Clinicians should advise adults to keep sodium intake below 2 g per day; the portal shows'
                               ' <script>alert("unit")</script> next to the advice.')),
    ])  # fmt: skip
    ix = StructureIndex(tmp_path / "ix")
    ix.add_document(doc, build_units(doc))
    yield from _serve(ix)


def _page(server: QueryServer, query: dict[str, str] | str = "") -> tuple[int, str, str]:
    """``(status, content type, HTML)`` of ``GET /?<query>``."""
    qs = query if isinstance(query, str) else urllib.parse.urlencode(query)
    try:
        with urllib.request.urlopen(f"{server.url}/?{qs}", timeout=TIMEOUT) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read().decode()


def _hits(page: str) -> list[dict[str, Any]]:
    """The hits of a rendered page: unit id, type badge, grade badge, heading, context, text rows, page images."""
    out = []
    for li in re.findall(r'<li class="hit" data-unit-id="[^"]*".*?</li>', page, flags=re.S):
        grade = re.search(r'<span class="badge grade"[^>]*>(.*?)</span>', li)
        out.append({
            "unit_id": re.search(r'data-unit-id="([^"]*)"', li)[1],
            "type": re.search(r'<span class="badge type">(.*?)</span>', li)[1],
            "grade": html.unescape(grade[1]) if grade else None,
            "heading": html.unescape(re.sub(r"<[^>]+>", " ", re.search(r"<h2>(.*?)</h2>", li, flags=re.S)[1])),
            "link": html.unescape(re.search(r'<a href="([^"]*)" class="hit-link"', li)[1]),
            "rows": [html.unescape(t) for t in re.findall(r"<span(?: class=\"row\")?>(.*?)</span>", li.split('class="text"')[1])],
            "images": [html.unescape(u) for u in re.findall(r'<img src="([^"]*)"', li)],
        })  # fmt: skip
    return out


def _status(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<p id="status"[^>]*>(.*?)</p>', page, flags=re.S)[1]))


def test_a_search_link_renders_its_hits_in_the_html(server: QueryServer) -> None:
    status, kind, page = _page(server, {"q": QUESTION, "type": "table_row", "k": "3"})
    assert status == 200 and kind.startswith("text/html")
    expected = server.index.query(QUESTION, k=3, filter={"type": "table_row"})
    hits = _hits(page)
    assert [h["unit_id"] for h in hits] == [h.unit.unit_id for h in expected] and len(hits) == 3
    assert _status(page) == "3 hits"
    first, record = hits[0], expected[0].to_record()
    assert {h["type"] for h in hits} == {"table_row"}
    assert first["rows"][0].startswith("Population: Adults 57-59 y") and len(first["rows"]) == 1 + len(
        record["group_unit_ids"]
    )
    assert first["grade"] == f"Grade {record['grade']['grade']}"
    assert f"{EN_NAME} p. {', '.join(map(str, record['pages']))}" in first["heading"]
    # each 1-based page's picture of the hit with its group rows, and the link to the hit alone
    with_rows = ",".join(record["group_unit_ids"])
    assert first["images"] == [
        "/image?" + urllib.parse.urlencode({"unit": record["unit_id"], "page": p, "with": with_rows})
        for p in record["pages"]
    ]
    assert first["link"] == "/?" + urllib.parse.urlencode({"unit": record["unit_id"], "with": with_rows})
    assert f'value="{html.escape(QUESTION)}"' in page and '<option value="table_row" selected>' in page  # the form kept
    assert '<input id="k" name="k" type="number" min="1" max="50" value="3">' in page
    # the hit's own link renders that hit alone, with its rows
    status, _, alone = _page(server, first["link"][2:])
    assert (
        status == 200
        and [h["rows"] for h in _hits(alone)] == [first["rows"]]
        and "1." not in _hits(alone)[0]["heading"]
    )
    # no question: the form and no hits
    status, _, blank = _page(server)
    assert status == 200 and _hits(blank) == [] and _status(blank) == "" and "2 documents" in blank


def test_the_filters_in_the_url_apply_as_the_json_query_applies_them(server: QueryServer) -> None:
    cases = [
        ({"doc": TINY_NAME}, {"doc_name": TINY_NAME}),
        ({"page": "4"}, {"page": 4}),
        ({"page": "2-", "type": "recommendation"}, {"page": {"$gte": 2}, "unit_type": "recommendation"}),
        ({"grade": "A,B", "k": "10"}, {"grade": ["A", "B"]}),
        ({"type": "recommendation", "grade": "A", "mode": "sparse"}, {"unit_type": "recommendation", "grade": "A"}),
    ]
    for params, flt in cases:
        status, _, page = _page(server, {"q": "blood pressure target", **params})
        body = {"text": "blood pressure target", "k": int(params.get("k", 5)), "mode": params.get("mode", "hybrid")}
        data = json.dumps({**body, "filter": flt}).encode()
        req = urllib.request.Request(f"{server.url}/query", data=data, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            expected = [h["unit_id"] for h in json.loads(resp.read())["hits"]]
        assert status == 200 and expected and [h["unit_id"] for h in _hits(page)] == expected, params
    # trap: the filters narrow the hits (graded A only: no hit of another grade)
    _, _, page = _page(server, {"q": "blood pressure target", "grade": "A", "k": "10"})
    assert _hits(page) and {h["grade"].split()[1] for h in _hits(page)} == {"A"}


@pytest.mark.parametrize(
    ("query", "error", "field"),
    [
        ("type=tabel_row", "UnknownFilterError", "filter.unit_type"),  # a value outside the closed list
        ("typ=table_row", "UnknownFilterError", "filter.typ"),  # a misspelt key
        ("colour=red", "UnknownFilterError", "filter.colour"),  # a key no unit of the index carries
        ("%24regex=blood", "UnsupportedFilterError", "filter.$regex"),
        ("page=three", "MalformedInputError", "page"),
        ("k=0", "MalformedInputError", "k"),
        ("mode=fast", "MalformedInputError", "mode"),
    ],
)
def test_a_bad_filter_renders_its_typed_error_with_400(server: QueryServer, query: str, error: str, field: str) -> None:
    status, kind, page = _page(server, f"q=blood+pressure&{query}")
    assert status == 400 and kind.startswith("text/html")
    assert _status(page).startswith(f"{error} {field}: ") and 'id="status" class="error"' in page
    assert _hits(page) == []
    status, _, page = _page(server, query)  # no question yet: the filter is checked all the same
    assert status == 400 and _status(page).startswith(f"{error} {field}: ")


def test_no_hits_and_an_empty_index_are_said_in_words(server: QueryServer, empty_server: QueryServer) -> None:
    status, _, page = _page(server, {"q": "blood pressure", "doc": "Hypertension guideline, 2024"})
    assert status == 200 and _hits(page) == []
    assert _status(page) == "No hits: no unit matches this question under the filters doc=Hypertension guideline, 2024."
    assert '<option value="Hypertension guideline, 2024" selected>' in page  # a name is taken whole, commas and all
    status, _, page = _page(empty_server)
    assert (
        status == 200
        and _status(page).startswith("The index holds no documents yet")
        and "0 documents, 0 units" in page
    )
    status, _, page = _page(empty_server, {"q": "blood pressure"})
    assert status == 404 and _status(page).startswith("IndexNotFoundError") and "ingest documents first" in page


def test_the_question_and_document_texts_are_escaped(hostile_server: QueryServer) -> None:
    question = '<script>alert("q")</script> sodium intake'
    status, _, page = _page(hostile_server, {"q": question, "doc": "<script>alert('doc')</script>"})
    assert status == 200
    assert (
        _status(page) == "No hits: no unit matches this question under the filters doc=<script>alert('doc')</script>."
    )
    assert page.count("<script") == 1 and '<script src="/assets/app.js" defer></script>' in page  # the page's own
    assert '<option value="&lt;script&gt;alert(&#x27;doc&#x27;)&lt;/script&gt;" selected>' in page
    status, _, page = _page(hostile_server, {"q": question, "k": "1"})
    assert status == 200 and page.count("<script") == 1 and "<b>" not in page and "<i>" not in page
    (hit,) = _hits(page)
    assert any('<script>alert("unit")</script>' in row for row in hit["rows"])  # shown as text, not run
    assert "&lt;script&gt;alert(&quot;unit&quot;)&lt;/script&gt;" in page
    assert 'portal "<i>advice</i>"' in hit["heading"] and "&lt;b&gt;patient portal&lt;/b&gt;" in page
    assert f'value="{html.escape(question)}"' in page
    assert html.escape(question) + " - structaware search</title>" in page


def test_the_form_lists_a_document_ingested_while_the_server_runs(hostile_server: QueryServer) -> None:
    _, _, page = _page(hostile_server)
    assert "1 document, " in page and "Potassium" not in page
    _, _, again = _page(hostile_server)
    assert again == page  # the same index: the same page
    doc = _document("d" * 16, "Potassium supplements", [
        (BlockKind.HEADING, "Potassium supplements"),
        (BlockKind.PARAGRAPH, "Clinicians should check serum potassium before starting a potassium supplement."),
    ])  # fmt: skip
    with hostile_server.lock:
        hostile_server.index.add_document(doc, build_units(doc))
    _, _, page = _page(hostile_server)
    assert "2 documents, " in page and '<option value="Potassium supplements">Potassium supplements</option>' in page
