"""One provenance in every face: a unit's ``source`` is the absolute path of the file it came from,
whether it was written by ``structaware ingest``, by the LangChain loader and vector store, or by the
LlamaIndex reader, node parser and vector store, even when the input was named by a relative path."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_core")

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mineru"
TINY = FIXTURES / "mineru-4.0.12_flash-tier_tiny_heading_table"
RELATIVE = TINY.name  # relative to FIXTURES, the working folder of these tests

pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.fixture
def in_fixtures(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(FIXTURES)
    assert Path(RELATIVE).is_dir() and not Path(RELATIVE).is_absolute()
    return TINY.resolve()


def _sources(index) -> list[str]:  # a StructureIndex
    return sorted({d["source"] for d in index.documents()})


def test_the_cli_records_the_absolute_path(in_fixtures: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app
    from structaware_retrievers.index.structure_index import StructureIndex

    res = CliRunner().invoke(app, ["ingest", RELATIVE, "--index", str(tmp_path / "ix")])
    assert res.exit_code == 0, res.output
    with StructureIndex(tmp_path / "ix") as ix:
        assert _sources(ix) == [str(in_fixtures)]


def test_the_langchain_loader_and_vector_store_record_the_absolute_path(in_fixtures: Path, tmp_path: Path) -> None:
    from langchain_core.documents import Document

    from langchain_structaware import StructureAwareEmbeddings, StructureAwareLoader, StructureAwareVectorStore

    docs = StructureAwareLoader(RELATIVE).load()
    assert docs and {d.metadata["source"] for d in docs} == {str(in_fixtures)}
    store = StructureAwareVectorStore(StructureAwareEmbeddings(), path=tmp_path / "ix")
    store.add_documents(docs)
    # a document of its own whose source names a local file relatively: stored absolute
    store.add_documents(
        [Document("Measure blood pressure in both arms at the first visit.", metadata={"source": RELATIVE})]
    )
    assert _sources(store.index) == [str(in_fixtures)]
    # one whose source is a URL: kept as given (a store of its own: framework documents without a
    # doc id are listed together by documents(), under one of their sources)
    urls = StructureAwareVectorStore(StructureAwareEmbeddings(), path=tmp_path / "ix_url")
    urls.add_documents(
        [Document("Repeat the measurement after five minutes of rest.", metadata={"source": "https://example.org/bp"})]
    )
    assert _sources(urls.index) == ["https://example.org/bp"]
    got = store.similarity_search("first visit both arms", k=1, filter={"unit_type": "chunk"})
    assert got[0].metadata == {"source": RELATIVE}  # the document comes back as added
    store.close()


def test_the_llama_index_reader_and_vector_store_record_the_absolute_path(in_fixtures: Path, tmp_path: Path) -> None:
    from llama_index.core.schema import TextNode

    from llama_index.node_parser.structaware import StructureAwareNodeParser
    from llama_index.readers.structaware import MinerUReader
    from llama_index.vector_stores.structaware import StructureAwareVectorStore

    docs = MinerUReader().load_data(RELATIVE)
    assert [d.metadata["file_path"] for d in docs] == [str(in_fixtures)]
    nodes = StructureAwareNodeParser().get_nodes_from_documents(docs)
    store = StructureAwareVectorStore(tmp_path / "ix")
    store.add(nodes)
    store.add(
        [TextNode(text="Measure blood pressure in both arms at the first visit.", metadata={"file_path": RELATIVE})]
    )
    assert _sources(store.client) == [str(in_fixtures)]
    store.close()
