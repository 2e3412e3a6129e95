"""Unit tests of ``llama-index-node-parser-structaware``: one ``TextNode`` per evidence unit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llama_index.core import Document

from llama_index.node_parser.structaware import StructureAwareNodeParser, node_to_unit, unit_to_node
from llama_index.readers.structaware import MinerUReader
from structaware_readers.errors import InputWarning

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


def test_units_become_nodes_and_come_back(tmp_path: Path) -> None:
    docs = MinerUReader().load_data(write_guide(tmp_path / "guide"))
    nodes = StructureAwareNodeParser().get_nodes_from_documents(docs)
    types = [n.metadata["unit_type"] for n in nodes]
    assert sorted(types) == ["recommendation", "section", "table_row", "table_row"]
    row = next(n for n in nodes if "65 and older" in n.text)
    assert "< 8.0%" in row.text and "< 7.0%" not in row.text  # one row per node, not the whole table
    unit = node_to_unit(row)
    assert unit is not None and unit.unit_type == "table_row"
    assert node_to_unit(unit_to_node(unit)) == unit


def test_a_plain_document_is_split_as_plain_text_with_a_warning() -> None:
    plain = Document(
        text="Check the feet of every adult with diabetes once a year.", metadata={"file_name": "notes.txt"}
    )
    with pytest.warns(InputWarning, match="notes.txt"):
        nodes = StructureAwareNodeParser().get_nodes_from_documents([plain])
    assert [n.text for n in nodes] == [plain.text]
