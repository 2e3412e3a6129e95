"""A question that asks for a grade: a BM25 prefetch among recommendation units joins the fusion.

:mod:`structaware_retrievers.query.intent` reads the wording (own sentences here, English and Chinese, with
traps: a drug class, a disease's grade, ``investment-grade``); :func:`plan_query` adds the prefetch only to a
hybrid RRF search; through a real in-process index the graded recommendation that BM25 ranks below two
discussions moves up for a grade question and stays where it was for the same question without the grade.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import Block, BlockKind, ParsedDocument, UnitType
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.query.intent import asks_for_grade
from structaware_retrievers.search.options import SearchOptions
from structaware_retrievers.store.base import plan_query


@pytest.mark.parametrize(
    "question",
    [
        "How strongly does the guideline recommend home blood pressure monitoring?",
        "How firmly do they say so?",
        "What class and level does the update give to lipoprotein(a) testing?",
        "Which class/level supports statins after a stroke?",
        "What grade does the society give to tonsillectomy?",
        "What is the grade of that recommendation?",
        "Is this a graded recommendation or a practice point?",
        "What level of evidence supports early mobilisation?",
        "What is the strength of the recommendation for aspirin?",
        "该推荐的证据级别和推荐强度是什么？",
        "共识给出的是几级推荐？",
    ],
)
def test_questions_that_ask_for_a_grade(question: str) -> None:
    assert asks_for_grade(question)


@pytest.mark.parametrize(
    "question",
    [
        "What class of antibiotic is first line for cystitis?",
        "What is grade 3 hypertension?",
        "Which level of potassium needs urgent treatment?",
        "What share of the receivables was investment-grade?",
        "What happens after a single-notch downgrade?",
        "What dose of aspirin is recommended in pregnancy?",
        "带状疱疹后神经痛如何治疗？",
    ],
)
def test_questions_that_do_not(question: str) -> None:
    assert not asks_for_grade(question)


def test_the_prefetch_joins_a_hybrid_rrf_search_only() -> None:
    sparse = SparseVector(indices=[1, 2], values=[1.0, 1.0])
    graded = PointFilter.match("unit_type", "recommendation")
    kw: dict[str, Any] = {"limit": 5, "rrf_k": 2, "prefetch_limit": 50, "flt": None, "location": "x"}
    plan = plan_query(dense=[0.1, 0.2], sparse=sparse, mode="hybrid", fusion="rrf", focus=(graded, 0.3), **kw)
    assert plan is not None and plan.focus == (("sparse", sparse, 0.3, graded),)
    for mode, fusion, focus in (("hybrid", "dbsf", 0.3), ("sparse", "rrf", 0.3), ("hybrid", "rrf", 0.0)):
        plan = plan_query(dense=[0.1, 0.2], sparse=sparse, mode=mode, fusion=fusion, focus=(graded, focus), **kw)
        assert plan is not None and plan.focus == ()
    with pytest.raises(MalformedInputError) as err:
        SearchOptions(grade_focus=-1)
    assert err.value.field == "grade_focus"


STATEMENT = "Recommendation 2.1: We recommend against tramadol for people whose knees are worn by arthritis (1B)."
DISCUSSIONS = (
    (
        "Knee pain from osteoarthritis makes walking hard for many older adults, and opioids were hoped to ease"
        " walking when knee pain limits it."
    ),
    "When osteoarthritis pain spreads beyond the knee, walking aids are offered at every visit.",
    "Knee pain at night is common in osteoarthritis; walking eases stiffness in most patients.",
    "Trials of tramadol found more falls and no better function at twelve weeks.",
)


@pytest.fixture(scope="module")
def knee_index(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from structaware_readers.units import build_units
    from structaware_retrievers.index.structure_index import StructureIndex

    specs = [(BlockKind.HEADING, "2 Osteoarthritis of the knee"), *((BlockKind.PARAGRAPH, t) for t in DISCUSSIONS)]
    specs += [(BlockKind.HEADING, "2.1 Pain relief"), (BlockKind.PARAGRAPH, STATEMENT)]
    blocks = [
        Block(block_id=f"p1-e{j}", kind=kind, text=text, page=1, **({"level": 1} if kind is BlockKind.HEADING else {}))
        for j, (kind, text) in enumerate(specs)
    ]
    doc = ParsedDocument(doc_id="k" * 16, source="k.pdf", name="k", parser="mineru", page_count=1, blocks=blocks)
    units = build_units(doc)
    assert [u.text for u in units if u.unit_type is UnitType.RECOMMENDATION] == [STATEMENT.replace(" (1B)", "")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        mp.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)
        ix = StructureIndex(Path(tmp_path_factory.mktemp("grade")) / "ix")
        ix.add_document(doc, units)
        yield ix
        ix.close()


def _rank(index: Any, question: str, **options: Any) -> int:
    hits = index.query(question, k=10, group_size=1, min_score=0, rerank=False, **options)
    return next(h.rank for h in hits if h.unit.unit_type is UnitType.RECOMMENDATION)


def test_a_grade_question_brings_the_graded_recommendation_up(knee_index: Any) -> None:
    asked = "With knee pain from osteoarthritis, should opioids be given to ease walking?"
    graded = f"{asked} How firmly is that recommended?"
    without = _rank(knee_index, graded, grade_focus=0)
    assert without > 1  # BM25 puts discussions holding more of the question's words first
    assert _rank(knee_index, graded) < without
    # trap: the same question without asking for a grade searches as before
    assert _rank(knee_index, asked) == _rank(knee_index, asked, grade_focus=0)
