"""LlamaIndex readers: real MinerU / Unstructured fixture outputs -> one ``Document`` per file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import SimpleDirectoryReader
from llama_index.core.readers.base import BasePydanticReader
from llama_index.core.schema import MetadataMode
from llama_index.core.storage.docstore import SimpleDocumentStore

REPO = Path(__file__).resolve().parents[1]
MINERU_EN = "mineru/mineru-4.0.12_flash-tier_synthetic_guideline_en"
UNSTRUCTURED_EN = (
    "unstructured/generated/synthetic_guideline_en.pdf.fast.json",
    "unstructured/generated_0.27.35_offline_stub/synthetic_guideline_en.pdf.fast.json",
)


def fixture_path(rel: str, shared_rel: str | None = None) -> Path:
    """``tests/fixtures/<rel>`` (CC0 copies in the repo), else ``<repo>/../shared/fixtures/<shared_rel or rel>``."""
    for path in (REPO / "tests" / "fixtures" / rel, REPO.parent / "shared" / "fixtures" / (shared_rel or rel)):
        if path.exists():
            return path
    pytest.skip(f"fixture {rel} is in neither tests/fixtures nor ../shared/fixtures")


@pytest.fixture(scope="module")
def mineru_dir() -> Path:
    return fixture_path(MINERU_EN)


def test_namespace_packages_merge_with_llama_index_core() -> None:
    import llama_index.core

    import llama_index
    from llama_index.readers.structaware import MinerUReader, UnstructuredReader

    # one ``llama_index`` namespace spanning llama-index-core and this repository's integrations/
    paths = [Path(p) for p in llama_index.__path__]
    assert any((p / "core").is_dir() for p in paths)
    assert any((p / "readers" / "structaware" / "__init__.py").is_file() for p in paths)
    assert Path(llama_index.core.__file__).parent.parent in paths
    for cls in (MinerUReader, UnstructuredReader):
        assert issubclass(cls, BasePydanticReader)
        assert cls().is_remote is False


def test_mineru_reader_one_document_carrying_the_blocks(mineru_dir: Path) -> None:
    from llama_index.readers.structaware import DOCUMENT_METADATA_KEY, MinerUReader, parsed_from_document
    from structaware_readers.mineru import read_mineru

    docs = MinerUReader().load_data(mineru_dir)
    assert len(docs) == 1
    doc = docs[0]
    parsed = read_mineru(mineru_dir)
    assert doc.id_ == parsed.doc_id and len(doc.id_) == 16
    assert doc.metadata["doc_id"] == parsed.doc_id
    assert doc.metadata["page_count"] == parsed.page_count
    # body text in reading order: headings and table rows present, running header absent
    assert "2.1.1 Confirming the diagnosis" in doc.text
    assert doc.text.index("1 Introduction") < doc.text.index("2 Diagnosis") < doc.text.index("3 Treatment")
    assert "Adults 57-59 y" in doc.text
    assert "Synthetic Guideline on Hypertension v1.0" not in doc.text  # page header = furniture
    # the parsed blocks travel with the Document, invisible to embeddings and LLMs
    assert parsed_from_document(doc) == parsed
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        content = doc.get_content(metadata_mode=mode)
        assert DOCUMENT_METADATA_KEY not in content and '"blocks"' not in content
    assert "file_path" not in doc.get_metadata_str(MetadataMode.EMBED)


def test_lazy_load_and_several_paths(mineru_dir: Path) -> None:
    from llama_index.readers.structaware import MinerUReader

    reader = MinerUReader()
    lazy = reader.lazy_load_data([mineru_dir, mineru_dir / "content_list.rendered.json"])
    first = next(iter(lazy))
    assert first.metadata["doc_name"]
    assert [d.id_ for d in reader.load_data([mineru_dir])] == [first.id_]


def test_unstructured_reader_on_elements_json() -> None:
    from llama_index.readers.structaware import UnstructuredReader, parsed_from_document

    path = fixture_path(*UNSTRUCTURED_EN)
    (doc,) = UnstructuredReader().load_data(path, extra_info={"collection": "demo"})
    parsed = parsed_from_document(doc)
    assert parsed.parser == "unstructured"
    assert doc.id_ == parsed.doc_id
    assert doc.metadata["collection"] == "demo"
    assert "Blood pressure measurement" in doc.text


@pytest.mark.parametrize("reader_name", ["MinerUReader", "UnstructuredReader"])
def test_simple_directory_reader_uses_file_extractor(tmp_path: Path, mineru_dir: Path, reader_name: str) -> None:
    import llama_index.readers.structaware as readers

    if reader_name == "MinerUReader":
        source = mineru_dir / "content_list.rendered.json"
    else:
        source = fixture_path(*UNSTRUCTURED_EN)
    shutil.copy(source, tmp_path / "guideline_en.json")
    (tmp_path / "notes.txt").write_text("not a parser output")
    sdr = SimpleDirectoryReader(
        input_dir=str(tmp_path),
        file_extractor={".json": getattr(readers, reader_name)()},
        required_exts=[".json"],
        raise_on_error=True,
    )
    (doc,) = sdr.load_data()
    assert doc.metadata["parser"] == ("mineru" if reader_name == "MinerUReader" else "unstructured")
    # SimpleDirectoryReader's file metadata is merged in and its exclusions are added on top
    assert doc.metadata["file_name"] == "guideline_en.json"
    assert doc.metadata["file_size"] == source.stat().st_size
    assert "file_size" in doc.excluded_embed_metadata_keys
    assert doc.id_ == doc.metadata["doc_id"]
    assert "Blood pressure" in doc.text


def test_fsspec_filesystem_argument(mineru_dir: Path) -> None:
    fsspec = pytest.importorskip("fsspec")
    from llama_index.readers.structaware import MinerUReader

    fs = fsspec.filesystem("memory")
    data = (mineru_dir / "content_list.rendered.json").read_bytes()
    fs.pipe("/bucket/guideline/content_list.json", data)
    (doc,) = MinerUReader().load_data("/bucket/guideline/content_list.json", fs=fs)
    assert doc.metadata["file_path"] == "/bucket/guideline/content_list.json"
    assert "Adults 57-59 y" in doc.text


def test_document_survives_docstore_persistence(tmp_path: Path, mineru_dir: Path) -> None:
    from llama_index.readers.structaware import MinerUReader, parsed_from_document

    (doc,) = MinerUReader().load_data(mineru_dir)
    store = SimpleDocumentStore()
    store.add_documents([doc])
    store.persist(str(tmp_path / "docstore.json"))
    reloaded = SimpleDocumentStore.from_persist_path(str(tmp_path / "docstore.json")).get_document(doc.id_)
    assert parsed_from_document(reloaded) == parsed_from_document(doc)
    assert reloaded.excluded_llm_metadata_keys == doc.excluded_llm_metadata_keys


def test_bad_inputs_raise_typed_errors(tmp_path: Path) -> None:
    from llama_index.core.schema import Document

    from llama_index.readers.structaware import MinerUReader, parsed_from_document
    from structaware_readers.errors import InputNotFoundError, MalformedInputError, StructawareError

    with pytest.raises(InputNotFoundError) as missing:
        MinerUReader().load_data(tmp_path / "nope.json")
    assert "nope.json" in str(missing.value)

    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps({"hello": "world"}))
    with pytest.raises(StructawareError) as bad:
        MinerUReader().load_data(junk)
    assert "junk.json" in str(bad.value)

    with pytest.raises(MalformedInputError) as plain:
        parsed_from_document(Document(text="plain", metadata={"file_path": "/x/plain.txt"}))
    assert plain.value.path == "/x/plain.txt" and "structaware_document" in (plain.value.field or "")


@pytest.mark.parametrize("reading_order", ["auto", "parser", "layout"])
def test_reading_order_matches_the_loader(mineru_dir: Path, reading_order: str) -> None:
    """Both readers order blocks exactly as ``structaware_readers.load.loader.load_document`` does."""
    from llama_index.readers.structaware import MinerUReader, UnstructuredReader, parsed_from_document
    from structaware_readers.load.loader import load_document

    for reader, path in ((MinerUReader, mineru_dir), (UnstructuredReader, fixture_path(*UNSTRUCTURED_EN))):
        (doc,) = reader(reading_order=reading_order).load_data(path)
        expected = load_document(path, reading_order=reading_order)
        assert [b.block_id for b in parsed_from_document(doc).blocks] == [b.block_id for b in expected.blocks]


@pytest.mark.integration  # MinerU parses the PDF
def test_pdf_through_simple_directory_reader_runs_mineru(tmp_path: Path) -> None:
    from llama_index.readers.structaware import MinerUReader, parsed_from_document

    pdf = fixture_path("pdf/tiny_heading_table.pdf")
    shutil.copy(pdf, tmp_path / pdf.name)
    (doc,) = SimpleDirectoryReader(
        str(tmp_path), file_extractor={".pdf": MinerUReader()}, raise_on_error=True
    ).load_data()
    parsed = parsed_from_document(doc)
    assert parsed.parser == "mineru" and parsed.page_count == 1
    assert doc.metadata["file_name"] == pdf.name
    assert "Recommendation 1" in doc.text
    assert any(b.kind.value == "table" for b in parsed.blocks)
