"""Unit tests of ``llama-index-node-parser-structaware``: one ``TextNode`` per evidence unit."""

from __future__ import annotations

from pathlib import Path

import pytest
from llama_index.core import Document

from llama_index.node_parser.structaware import StructureAwareNodeParser, node_to_unit, unit_to_node
from llama_index.readers.structaware import MinerUReader
from structaware_readers.errors import InputWarning


def test_units_become_nodes_and_come_back(guide_dir: Path) -> None:
    docs = MinerUReader().load_data(guide_dir)
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
