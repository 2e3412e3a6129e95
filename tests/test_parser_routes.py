"""One document, two parsers: MinerU and Unstructured outputs of the same DOCX/HTML find the same table row.

Inputs: our CC0 `sample.docx` / `sample.html` (tests/fixtures/unstructured/generated/inputs), partitioned by
Unstructured 0.27.35 (`sample.*.json`) and parsed by MinerU 4.0.12 flash (`tests/fixtures/mineru/*sample*`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.load.loader import load_document
from structaware_readers.models import UnitType
from structaware_readers.units import build_units
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.filters import SearchFilter

pytestmark = pytest.mark.integration

FIX = Path(__file__).parent / "fixtures"
ROUTES = {
    "docx": (
        FIX / "mineru/mineru-4.0.12_flash-tier_sample_docx/sample.zip",
        FIX / "unstructured/generated/sample.docx.json",
    ),
    "html": (
        FIX / "mineru/mineru-4.0.12_flash-tier_sample_html/sample.zip",
        FIX / "unstructured/generated/sample.html.json",
    ),
}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    idx = StructureIndex(tmp_path_factory.mktemp("routes"))
    for mineru_out, unstructured_out in ROUTES.values():
        for path in (mineru_out, unstructured_out):
            doc = load_document(path)
            idx.add_document(doc, build_units(doc))
    yield idx
    idx.close()


@pytest.mark.parametrize("fmt", sorted(ROUTES))
def test_both_parsers_give_the_same_table_rows(fmt):
    mineru_out, unstructured_out = ROUTES[fmt]
    rows = []
    for path in (mineru_out, unstructured_out):
        units = build_units(load_document(path))
        rows.append([(u.text, u.context) for u in units if u.unit_type is UnitType.TABLE_ROW])
    assert rows[0] == rows[1]
    assert rows[0][1][0] == "Population: Age >= 80; Clinic BP target: < 150/90 mmHg; Grade: B"


@pytest.mark.parametrize("fmt", sorted(ROUTES))
def test_the_same_question_finds_the_same_row_through_either_parser(index, fmt):
    question = "Which population has a clinic blood pressure target below 150/90 mmHg?"
    tops = []
    for path in ROUTES[fmt]:
        doc = load_document(path)
        hits = index.query(question, k=3, filter=SearchFilter(doc_ids=[doc.doc_id]))
        assert hits, f"no hit in {path.name}"
        tops.append(hits[0].unit)
    assert tops[0].unit_type is tops[1].unit_type is UnitType.TABLE_ROW
    assert tops[0].text == tops[1].text == "Population: Age >= 80; Clinic BP target: < 150/90 mmHg; Grade: B"
    assert tops[0].pages == tops[1].pages == [1]
