"""The search page's routes of ``structaware serve`` over real HTTP: the page's files (no CDN), one hit by
unit id, the page image of a hit, and their typed errors. (The page itself in a browser: test_search_page.py.)"""

from __future__ import annotations

import io
import json
import re
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.fusion import DEFAULT_GROUP_SIZE
from structaware_retrievers.serve.app import QueryServer, make_server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EN_NAME = "mineru-4.0.12_flash-tier_synthetic_guideline_en"  # the index holds MinerU's output, not the PDF
PDFS = {EN_NAME: FIXTURES / "pdf" / "synthetic_guideline_en.pdf", "mineru-4.0.12_flash-tier_tiny_heading_table":
        FIXTURES / "pdf" / "tiny_heading_table.pdf"}  # fmt: skip
TIMEOUT = 60


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


def _serve(index_dir: Path, pdf: Any) -> Iterator[QueryServer]:
    ix = StructureIndex(index_dir)
    srv = make_server(ix, port=0, pdf=pdf)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(TIMEOUT)
    ix.close()


@pytest.fixture
def server(tiny_en_index_dir: Path) -> Iterator[QueryServer]:
    yield from _serve(tiny_en_index_dir, PDFS)


@pytest.fixture
def server_without_pdfs(tiny_en_index_dir: Path) -> Iterator[QueryServer]:
    yield from _serve(tiny_en_index_dir, None)


def _get(url: str, body: Any = None) -> tuple[int, str, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.status, resp.headers["Content-Type"], resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"], exc.read()


def test_the_page_and_its_files_are_served_and_fetch_nothing_from_elsewhere(server: QueryServer) -> None:
    status, kind, html = _get(server.url + "/")
    assert status == 200 and kind.startswith("text/html")
    page = html.decode()
    assert '<script src="/assets/app.js" defer></script>' in page and 'href="/assets/app.css"' in page
    for route, kind_prefix in (("/assets/app.js", "text/javascript"), ("/assets/app.css", "text/css")):
        status, kind, body = _get(server.url + route)
        assert status == 200 and kind.startswith(kind_prefix) and body
        page += body.decode()
    assert not re.search(r"https?://", page)  # no CDN, no font or script from elsewhere: works offline
    assert _get(server.url + "/assets/../serve.py")[0] == 404  # only the page's own files


def test_a_hit_by_its_unit_id_with_its_group_rows(server: QueryServer) -> None:
    _, _, raw = _get(server.url + "/query", {"text": "clinic target for adults 57-59 y", "k": 1,
                                             "filter": {"unit_types": ["table_row"]}, "min_score": 0})  # fmt: skip
    (hit,) = json.loads(raw)["hits"]
    assert len(hit["group_unit_ids"]) == DEFAULT_GROUP_SIZE - 1 >= 1 and len(hit["element_pages"]) == len(hit["bboxes"])
    link = f"/unit?unit={hit['unit_id']}&with={','.join(hit['group_unit_ids'])}"
    status, kind, raw = _get(server.url + link)
    assert status == 200 and kind.startswith("application/json")
    (again,) = json.loads(raw)["hits"]
    assert {
        **again,
        "rank": hit["rank"],
        "score": hit["score"],
        "relevance": hit["relevance"],
    } == hit  # the same record, by its stable ids
    assert again["rank"] is None and again["score"] is None and again["relevance"] is None
    status, _, raw = _get(server.url + f"/unit?unit={hit['unit_id']}")
    assert json.loads(raw)["hits"][0]["text"] == hit["text"].splitlines()[0]  # the row alone


def test_the_image_of_a_hit_outlines_its_rows_on_the_page_asked(server: QueryServer) -> None:
    _, _, raw = _get(server.url + "/query", {"text": "clinic target for adults 57-59 y", "k": 1,
                                             "filter": {"unit_types": ["table_row"]}, "min_score": 0})  # fmt: skip
    (hit,) = json.loads(raw)["hits"]
    page = hit["element_pages"][0]
    status, kind, png = _get(
        server.url + f"/image?unit={hit['unit_id']}&with={','.join(hit['group_unit_ids'])}&page={page}"
    )
    assert status == 200 and kind == "image/png"
    image = Image.open(io.BytesIO(png))
    meta = json.loads(image.text["structaware"])
    on_page = [b for b, p in zip(hit["bboxes"], hit["element_pages"]) if p == page]
    assert meta["pages"] == [page] and [o["bbox"] for o in meta["outlines"]] == [
        list(b) for b in dict.fromkeys(map(tuple, on_page))
    ]
    for o in meta["outlines"]:  # pixel boxes: the bbox times the image size
        x0, y0, x1, y1 = o["bbox"]
        assert o["box"] == [
            round(x0 * image.width),
            round(y0 * image.height),
            round(x1 * image.width),
            round(y1 * image.height),
        ]
    status, _, cropped = _get(server.url + f"/image?unit={hit['unit_id']}&crop=true&margin=10&dpi=72")
    assert status == 200 and Image.open(io.BytesIO(cropped)).height < image.height


@pytest.mark.parametrize(
    ("query", "status", "error", "field"),
    [
        ("unit=not-a-uuid", 400, "MalformedInputError", "unit"),
        ("unit=00000000-0000-5000-8000-000000000000", 404, "InputNotFoundError", "unit"),
        ("", 400, "MalformedInputError", "unit"),
        ("unit={id}&zoom=2", 400, "MalformedInputError", "zoom"),
        ("unit={id}&page=99", 400, "MalformedInputError", "page"),
        ("unit={id}&dpi=5000", 400, "MalformedInputError", "dpi"),
        ("unit={id}&crop=maybe", 400, "MalformedInputError", "crop"),
    ],
)
def test_image_requests_that_cannot_be_answered_are_typed_errors(
    server: QueryServer, query: str, status: int, error: str, field: str
) -> None:
    _, _, raw = _get(server.url + "/query", {"text": "blood pressure", "k": 1})
    unit_id = json.loads(raw)["hits"][0]["unit_id"]
    got, kind, raw = _get(server.url + "/image?" + query.format(id=unit_id))
    body = json.loads(raw)
    assert (got, body["error"], body["field"]) == (status, error, field) and kind.startswith("application/json")


def test_an_index_without_its_pdfs_says_which_file_the_image_needs(server_without_pdfs: QueryServer) -> None:
    _, _, raw = _get(server_without_pdfs.url + "/query", {"text": "clinic target for adults 57-59 y", "k": 1,
                                                          "filter": {"doc_names": [EN_NAME]}})  # fmt: skip
    unit_id = json.loads(raw)["hits"][0]["unit_id"]
    status, _, raw = _get(server_without_pdfs.url + f"/image?unit={unit_id}")
    body = json.loads(raw)
    assert status == 404 and body["error"] == "PdfNotFoundError" and f"{EN_NAME}.pdf" in body["message"]
    assert "--pdf" in body["message"]
