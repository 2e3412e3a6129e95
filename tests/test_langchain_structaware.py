"""LangChain face on real fixtures: unit loader (flat, always-present metadata), the retriever
(LangChain's standard RetrieversIntegrationTests + filters + async) and the agent tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.messages import ToolMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.retrievers import BaseRetriever

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = "mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"
QUESTION = "What is the blood pressure target for adults 57-59 y?"

# Ranked lists are compared in dense mode only: the table rows tie in BM25 and Qdrant does not
# promise an order among equal scores, so sparse and RRF lists may differ below rank 1 between
# identical queries. The 57-59 y row is first in dense and sparse alike, so hybrid top-1 is stable.


def fixture_path(rel: str, shared_rel: str | None = None) -> Path:
    """``tests/fixtures/<rel>`` (CC0 copies in the repo), else ``<repo>/../shared/fixtures/<shared_rel or rel>``."""
    for path in (REPO / "tests" / "fixtures" / rel, REPO.parent / "shared" / "fixtures" / (shared_rel or rel)):
        if path.exists():
            return path
    pytest.skip(f"fixture {rel} is in neither tests/fixtures nor ../shared/fixtures")


@pytest.fixture(scope="module")
def parsed():
    from structaware_readers.load.loader import load_document

    return load_document(fixture_path(MINERU_EN))


@pytest.fixture(scope="module")
def index(en_index):
    return en_index  # the session's index of the English guideline (conftest), read only here


def test_public_api() -> None:
    import langchain_structaware

    assert langchain_structaware.__all__ == [
        "METADATA_KEYS",
        "StructureAwareEmbeddings",
        "StructureAwareLoader",
        "StructureAwareRerank",
        "StructureAwareRetriever",
        "StructureAwareVectorStore",
        "document_to_unit",
        "evidence_image",
        "unit_to_document",
    ]
    for name in langchain_structaware.__all__:
        assert getattr(langchain_structaware, name) is not None
    from langchain_core.document_loaders import BaseLoader

    assert issubclass(langchain_structaware.StructureAwareLoader, BaseLoader)
    assert issubclass(langchain_structaware.StructureAwareRetriever, BaseRetriever)


def test_loader_one_document_per_unit_with_flat_metadata(parsed) -> None:
    from langchain_structaware import METADATA_KEYS, StructureAwareLoader
    from structaware_readers.units import build_units

    units = build_units(parsed)
    docs = list(StructureAwareLoader(fixture_path(MINERU_EN)).lazy_load())
    assert [d.id for d in docs] == [u.unit_id for u in units]
    for doc, unit in zip(docs, units, strict=True):
        assert set(doc.metadata) == set(METADATA_KEYS)
        assert doc.page_content == unit.embedding_text()
        assert doc.metadata["page"] == unit.pages[0] >= 1  # 1-based
        assert doc.metadata["pages"] == unit.pages
        assert doc.metadata["element_ids"] == unit.element_ids
        assert doc.metadata["context"] == unit.context
        assert doc.metadata["doc_id"] == parsed.doc_id
        assert doc.metadata["score"] is None and doc.metadata["rank"] is None
        assert not any(isinstance(v, dict) for v in doc.metadata.values())  # flat
    rows = [d for d in docs if d.metadata["unit_type"] == "table_row"]
    assert rows and all(d.metadata["table_id"] and d.metadata["row_index"] is not None for d in rows)
    assert all(d.metadata["table_id"] is None for d in docs if d.metadata["unit_type"] != "table_row")
    graded = [d for d in docs if d.metadata["grade"]]
    assert graded and all(d.metadata["grade_system"] for d in graded)


def test_lazy_load_hands_out_each_files_documents_before_reading_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    """Over two files, the first file's documents arrive before the second file is read, and the first
    parsed file is let go before the second is read (memory bounded by one file)."""
    import gc
    import weakref

    import structaware_readers.load.loader as loader
    from langchain_structaware import StructureAwareLoader

    tiny, en = fixture_path("mineru/mineru-4.0.12_flash-tier_tiny_heading_table"), fixture_path(MINERU_EN)
    read = loader.load_document
    reads: list[tuple[str, list[bool]]] = []  # (file read, whether each file read before is let go)
    parsed: list[weakref.ref] = []

    def counted(path: Any, **kwargs: Any) -> Any:
        gc.collect()
        reads.append((Path(path).name, [ref() is None for ref in parsed]))
        doc = read(path, **kwargs)
        parsed.append(weakref.ref(doc))
        return doc

    monkeypatch.setattr(loader, "load_document", counted)
    docs = StructureAwareLoader([tiny, en]).lazy_load()
    first = next(docs)
    assert first.metadata["doc_name"] == tiny.name and reads == [(tiny.name, [])]  # the second file is not read yet
    rest = list(docs)
    assert reads == [(tiny.name, []), (en.name, [True])]
    names = [d.metadata["doc_name"] for d in [first, *rest]]
    n_tiny = names.count(tiny.name)
    assert n_tiny > 1 and names == [tiny.name] * n_tiny + [en.name] * (len(names) - n_tiny)


def test_document_prompt_naming_any_key_never_raises(parsed) -> None:
    from langchain_core.prompts import format_document

    from langchain_structaware import METADATA_KEYS, StructureAwareLoader

    prompt = PromptTemplate.from_template(" | ".join("{" + k + "}" for k in METADATA_KEYS) + "\n{page_content}")
    docs = StructureAwareLoader(fixture_path(MINERU_EN)).load()
    rendered = [format_document(d, prompt) for d in docs]
    assert len(rendered) == len(docs) and all(r for r in rendered)


def test_loader_errors_name_the_file(tmp_path: Path) -> None:
    from langchain_structaware import StructureAwareLoader
    from structaware_readers.errors import InputNotFoundError, MalformedInputError

    with pytest.raises(InputNotFoundError) as err:
        StructureAwareLoader(tmp_path / "missing.pdf").load()
    assert "missing.pdf" in str(err.value)
    with pytest.raises(MalformedInputError):
        StructureAwareLoader(tmp_path, reading_order="columns")  # type: ignore[arg-type]


# ------------------------------------------------------------------ LangChain's standard suite
from langchain_tests.integration_tests import RetrieversIntegrationTests


class TestStandardRetrieverSuite(RetrieversIntegrationTests):
    """langchain-tests' own checks: k in the constructor and per call, invoke/ainvoke return Documents."""

    _index: Any = None

    @pytest.fixture(autouse=True)
    def _attach_index(self, index) -> None:
        type(self)._index = index

    @property
    def retriever_constructor(self) -> type[BaseRetriever]:
        from langchain_structaware import StructureAwareRetriever

        return StructureAwareRetriever

    @property
    def retriever_constructor_params(self) -> dict:
        return {"index": self._index, "k": 2}

    @property
    def retriever_query_example(self) -> str:
        return QUESTION


# ------------------------------------------------------------------ our retriever behaviour
def test_retriever_results_match_the_index(index) -> None:
    from langchain_structaware import METADATA_KEYS, StructureAwareRetriever

    docs = StructureAwareRetriever(index=index, k=4, mode="dense", min_score=0).invoke(QUESTION)
    hits = index.query(QUESTION, k=4, mode="dense", min_score=0)
    assert [d.id for d in docs] == [h.unit.unit_id for h in hits]
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3, 4]
    assert [d.metadata["score"] for d in docs] == pytest.approx([h.score for h in hits])
    assert all(set(d.metadata) == set(METADATA_KEYS) for d in docs)
    (top,) = StructureAwareRetriever(index=index, k=1).invoke(QUESTION)  # hybrid, RRF
    assert top.id == index.query(QUESTION, k=1)[0].unit.unit_id
    assert top.metadata["unit_type"] == "table_row" and "57-59" in top.page_content
    # Qdrant RRF: 1/(r/w + k - 1) per prefetch at the unit's rank r in each list; the dense prefetch
    # weighs its weight x 1.001 (tie-break). BM25 puts the row first (its numbers); dense search
    # alone ranks it among the table's 60 rows that differ by age band only
    from structaware_retrievers.query.fusion import DEFAULT_RRF_K as K
    from structaware_retrievers.query.fusion import DEFAULT_WEIGHTS

    WD, WS = DEFAULT_WEIGHTS
    ranks = {
        mode: [h.unit.unit_id for h in index.query(QUESTION, k=50, mode=mode, group_size=1)].index(top.id) + 1
        for mode in ("dense", "sparse")
    }
    assert ranks["sparse"] == 1
    expected = 1 / (ranks["dense"] / (WD * 1.001) + K - 1) + 1 / (ranks["sparse"] / WS + K - 1)
    assert top.metadata["score"] == pytest.approx(expected)


def test_retriever_filters_in_constructor_and_per_call(index, parsed) -> None:
    from langchain_structaware import StructureAwareRetriever
    from structaware_readers.errors import MalformedInputError
    from structaware_retrievers.query.filters import SearchFilter

    rows_only = StructureAwareRetriever(index=index, k=5, filter={"unit_types": ["table_row"]})
    assert {d.metadata["unit_type"] for d in rows_only.invoke("blood pressure")} == {"table_row"}
    recs = rows_only.invoke("blood pressure", filter=SearchFilter(unit_types=["recommendation"]), k=2)
    assert len(recs) == 2 and {d.metadata["unit_type"] for d in recs} == {"recommendation"}
    nowhere = StructureAwareRetriever(index=index, filter={"doc_ids": ["0000000000000000"]})
    assert nowhere.invoke(QUESTION) == []
    with pytest.raises(MalformedInputError) as err:  # the first word of a unit key: an error, not no hits
        StructureAwareRetriever(index=index, filter={"unit": "table_row"})
    assert "'unit_type'" in str(err.value) and err.value.field == "filter.unit"
    with pytest.raises(MalformedInputError) as err:  # misspelt: an error, not unfiltered hits
        StructureAwareRetriever(index=index).invoke(QUESTION, filter={"unit_typ": ["table_row"]})
    assert err.value.field == "filter.unit_typ" and "did you mean 'unit_type'" in str(err.value)
    # the metadata keys a LangChain user sees on the documents, in the dicts Chroma users write
    rows = StructureAwareRetriever(index=index, k=5).invoke(
        QUESTION, filter={"unit_type": "table_row", "page": {"$gte": 4}}
    )
    assert rows and all(d.metadata["unit_type"] == "table_row" and max(d.metadata["pages"]) >= 4 for d in rows)


async def test_retriever_async(index) -> None:
    from langchain_structaware import StructureAwareRetriever

    retriever = StructureAwareRetriever(index=index, k=3, mode="dense")
    got = await retriever.ainvoke(QUESTION, filter={"unit_types": ["table_row"]}, k=2)
    assert len(got) == 2 and {d.metadata["unit_type"] for d in got} == {"table_row"}
    assert [d.id for d in got] == [d.id for d in retriever.invoke(QUESTION, filter={"unit_types": ["table_row"]}, k=2)]


# ------------------------------------------------------------------ agent tool
def test_retriever_tool_content_cites_pages_and_artifact_carries_units(index) -> None:
    from langchain_structaware import StructureAwareRetriever

    tool = StructureAwareRetriever(index=index, k=3).as_retriever_tool()
    assert tool.name == "search_evidence" and tool.response_format == "content_and_artifact"
    message = tool.invoke({"type": "tool_call", "id": "call-1", "name": tool.name, "args": {"query": QUESTION}})
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call-1"
    artifact = message.artifact
    assert len(artifact) == 3 and all(isinstance(d, Document) for d in artifact)
    top = artifact[0]
    assert message.content.startswith(f"[{top.metadata['citation']}] ")
    assert f"p. {top.metadata['page']}" in message.content
    assert top.metadata["bboxes"] and top.metadata["element_ids"]
    assert "bboxes" not in message.content

    custom = StructureAwareRetriever(index=index, k=2).as_retriever_tool(
        name="guideline", document_prompt="{doc_name} p{page_label} [{unit_type}] {grade}: {page_content}"
    )
    text = custom.invoke({"type": "tool_call", "id": "c2", "name": "guideline", "args": {"query": QUESTION}}).content
    assert text.startswith(f"{top.metadata['doc_name']} p{top.metadata['page_label']} [table_row]")
