"""Grade metadata through the Python index: every grading system is a kind a filter selects.

The payload written to Qdrant (in-process, :class:`StructureIndex`) carries ``grade.system`` and
the class/strength and level/certainty of each graded recommendation, so ``grade_system``,
``grade``, ``grade_strength`` and ``grade_certainty`` filters select by system.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.units import build_units
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.index.structure_index import StructureIndex

pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.fixture
def index(tmp_path: Path) -> Iterator[StructureIndex]:
    cache = EmbeddingCache()
    ix = StructureIndex(tmp_path / "ix", dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache))
    yield ix
    ix.close()


def test_filters_on_grade_system_class_and_level(index: StructureIndex) -> None:
    """Each grading system is a kind a filter selects: the payload carries ``grade.system`` and the
    class/strength and level/certainty of every graded recommendation (ESC, CDC/ACIP, Chinese CN)."""
    texts = [
        (BlockKind.HEADING, "Guidelines of the European Society of Cardiology and others on lipid care"),
        (BlockKind.PARAGRAPH, "Statin therapy is recommended in adults with diabetes and organ damage. I A"),
        (BlockKind.PARAGRAPH, "Ezetimibe should be considered when the goal is not reached.\nIIa\nB"),
        (
            BlockKind.PARAGRAPH,
            "Clinicians should offer naloxone to patients at risk (recommendation category: A; evidence type: 4).",
        ),
        (BlockKind.PARAGRAPH, "建议治疗前完善盆腔 MRI 检查（Ⅱa类推荐）。"),
        (BlockKind.PARAGRAPH, "Lipid levels were measured in every patient at baseline."),
    ]
    blocks = [
        Block(block_id=f"p1-e{i}", kind=k, text=t, page=1, level=1 if k is BlockKind.HEADING else None)
        for i, (k, t) in enumerate(texts)
    ]
    doc = ParsedDocument(
        doc_id="g" * 16, name="grades", source="grades.json", parser="mineru", page_count=1, blocks=blocks
    )
    units = build_units(doc)
    index.add_document(doc, units)
    esc = index.query("lipid lowering therapy", k=20, filter={"grade_system": "ESC"}, min_score=0)
    assert sorted((h.unit.grade.grade, h.unit.grade.certainty) for h in esc) == [("I", "A"), ("IIa", "B")]
    assert index.count({"grade_system": "CDC/ACIP", "grade_strength": "strong", "grade_certainty": "4"}) == 1
    assert index.count({"grade_system": "CN", "grade": "IIa"}) == 1
    # trap: the ungraded sentence and the heading carry no grade system
    assert index.count({"grade_system": "ACC/AHA"}) == 0
    assert index.count({"unit_type": "recommendation"}) == 4
