"""Unit tests of ``llama-index-readers-structaware``: a MinerU output read into one ``Document``."""

from __future__ import annotations

from pathlib import Path

import pytest

from llama_index.readers.structaware import DOCUMENT_METADATA_KEY, MinerUReader, parsed_from_document
from structaware_readers.errors import InputNotFoundError


def test_one_document_per_output_folder_keeps_the_parsed_blocks(guide_dir: Path) -> None:
    folder = guide_dir
    (doc,) = MinerUReader().load_data(folder, extra_info={"collection": "diabetes"})
    assert doc.metadata["collection"] == "diabetes"
    assert DOCUMENT_METADATA_KEY in doc.metadata
    assert "Offer metformin as first-line therapy" in doc.text
    parsed = parsed_from_document(doc)
    headings = [b.text for b in parsed.blocks if b.text][:2]
    assert headings == ["2 Managing type 2 diabetes", "2.1 Glucose-lowering treatment"]
    assert parsed.source == str(folder.resolve())


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="nowhere"):
        MinerUReader().load_data(tmp_path / "nowhere")
