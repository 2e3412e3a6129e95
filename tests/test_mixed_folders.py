"""A folder of documents and other files through every face (issue 27): each face takes what
``structaware ingest`` takes (structaware_readers.common.inputs.scan_inputs), and the files no reader takes
are listed, never passed over silently. Also: inputs whose names the file system refuses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from structaware_readers.common.inputs import scan_inputs
from structaware_readers.errors import InputNotFoundError, InputWarning

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mineru"
TINY = FIXTURES / "mineru-4.0.12_flash-tier_tiny_heading_table"
GUIDE = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_en"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(TINY, root / "tiny")  # a MinerU output folder: one document
    (root / "more").mkdir()
    shutil.copy(GUIDE / "content_list.rendered.json", root / "more" / "guideline.json")  # a plain JSON file
    (root / "notes.txt").write_text("ward notes")
    (root / "more" / "scan.png").write_bytes(b"\x89PNG\r\n")
    (root / ".hidden.txt").write_text("never listed")
    return root


def test_scan_lists_documents_and_skipped_files(folder: Path) -> None:
    scan = scan_inputs([folder])
    assert scan.documents == [folder / "more" / "guideline.json", folder / "tiny"]
    assert scan.skipped == [folder / "more" / "scan.png", folder / "notes.txt"]


@pytest.mark.integration
def test_ingest_says_which_files_it_skipped(folder: Path, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app

    res = CliRunner().invoke(app, ["ingest", str(folder), "--index", str(tmp_path / "ix")])
    assert res.exit_code == 0, res.output
    assert "ingested 2 documents" in res.stdout
    assert "skipped 2 file(s) no reader takes" in res.stderr and "notes.txt" in res.stderr and "scan.png" in res.stderr


def test_langchain_loader_takes_a_folder(folder: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_structaware import StructureAwareLoader

    loader = StructureAwareLoader(folder)
    with pytest.warns(InputWarning, match=r"skipped 2 file\(s\).*scan.png, notes.txt"):
        docs = loader.load()
    assert len({d.metadata["doc_id"] for d in docs}) == 2
    assert loader.skipped_files == [folder / "more" / "scan.png", folder / "notes.txt"]


def test_llama_index_mineru_reader_takes_a_folder(folder: Path) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.readers.structaware import MinerUReader

    with pytest.warns(InputWarning, match="notes.txt"):
        docs = MinerUReader().load_data(folder)
    assert len(docs) == 2 and len({d.id_ for d in docs}) == 2


def test_a_name_the_file_system_refuses_is_a_typed_error(tmp_path: Path) -> None:
    from structaware_readers.load.loader import load_document

    with pytest.raises(InputNotFoundError) as err:
        load_document(tmp_path / ("x" * 300 + ".json"))
    assert "refuses this path" in err.value.message and "x" * 300 in str(err.value)
    with pytest.raises(InputNotFoundError, match="no such file or folder"):
        load_document(tmp_path / "absent.json")


def test_a_250_character_file_name_ends_in_units(tmp_path: Path) -> None:
    """The PDF looked for beside a parser output (<name>_origin.pdf) would be a name longer than the
    file system allows: it is absent, not an OSError (found by the fuzz run)."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    long = tmp_path / ("g" * 245 + ".json")
    shutil.copy(TINY / "content_list.rendered.json", long)
    units = build_units(load_document(long))
    assert units and any(u.unit_type.value == "table_row" for u in units)
