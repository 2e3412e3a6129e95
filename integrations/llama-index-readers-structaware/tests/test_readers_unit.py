"""Unit tests of ``llama-index-readers-structaware``: a MinerU output read into one ``Document``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llama_index.readers.structaware import DOCUMENT_METADATA_KEY, MinerUReader, parsed_from_document
from structaware_readers.errors import InputNotFoundError

# A two-section guideline page in MinerU's content_list form (written for these tests).
GUIDE = [
    {
        "type": "text",
        "text": "2 Managing type 2 diabetes",
        "text_level": 1,
        "bbox": [100, 80, 560, 104],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "2.1 Glucose-lowering treatment",
        "text_level": 2,
        "bbox": [100, 120, 470, 140],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Recommendation 4: Offer metformin as first-line therapy to adults with type 2 diabetes and normal "
        "kidney function (strong recommendation, moderate-quality evidence).",
        "bbox": [100, 150, 820, 190],
        "page_idx": 0,
    },
    {"type": "text", "text": "Table 3. HbA1c targets", "text_level": 2, "bbox": [100, 210, 400, 228], "page_idx": 0},
    {
        "type": "table",
        "table_caption": [],
        "table_footnote": [],
        "table_body": "<table><tr><td>Population</td><td>HbA1c target</td><td>Grade</td></tr>"
        "<tr><td>Adults under 65</td><td>&lt; 7.0%</td><td>A</td></tr>"
        "<tr><td>Adults 65 and older</td><td>&lt; 8.0%</td><td>B</td></tr></table>",
        "bbox": [300, 236, 700, 300],
        "page_idx": 0,
    },
    {
        "type": "text",
        "text": "Review the treatment plan every three to six months.",
        "bbox": [100, 310, 600, 328],
        "page_idx": 0,
    },
]


def write_guide(folder: Path) -> Path:
    """A MinerU output folder holding ``GUIDE``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "content_list.json").write_text(json.dumps(GUIDE), encoding="utf-8")
    return folder


def test_one_document_per_output_folder_keeps_the_parsed_blocks(tmp_path: Path) -> None:
    folder = write_guide(tmp_path / "guide")
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
