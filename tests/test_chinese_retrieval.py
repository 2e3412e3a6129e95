"""Chinese questions on the synthetic Chinese guideline (real MinerU 4.0.12 output), hybrid mode with
the embedded Qdrant engine: every question's unit is in the top 3, with the default dense model
(MiniLM for English queries, USE multilingual for CJK ones) and the ``use-multilingual-v3`` preset,
whose hybrid search fuses both retrievers, and with the English-only ``all-MiniLM-L6-v2-int8``
preset, whose hybrid search answers CJK questions with BM25 alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.index.structure_index import StructureIndex

ZH = Path(__file__).resolve().parent / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"

#: question -> the start of the text of the unit that answers it
QUESTIONS = {
    "诊室血压达到多少需要做动态血压监测确诊？": "推荐意见2.1",
    "首次就诊时应该测量哪侧手臂的血压？": "推荐意见1.1",
    "65岁以下患者的血压应控制在多少以下？": "推荐意见3.1",
    "57-59岁成人的推荐等级是什么？": "人群: 57-59岁成人",
    "129-131岁成人的诊室血压目标": "人群: 129-131岁成人",
    "动态血压均值没有达到135/85 mmHg时怎么办？": "动态血压均值≥135/85 mmHg",
}


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(
    scope="module", params=[None, "use-multilingual-v3", "all-MiniLM-L6-v2-int8"], ids=["default", "use", "minilm"]
)
def zh_index(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[StructureIndex]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    doc = load_document(ZH)
    cache = EmbeddingCache()
    dense = DenseEncoder(cache=cache) if request.param is None else DenseEncoder(request.param, cache=cache)
    ix = StructureIndex(tmp_path_factory.mktemp("zh") / "ix", dense=dense, sparse=SparseEncoder(cache=cache))
    ix.add_document(doc, build_units(doc))
    yield ix
    ix.close()


def test_hybrid_fuses_only_with_a_dense_model_that_covers_chinese(zh_index: StructureIndex) -> None:
    covers = [zh_index.dense.covers(q) for q in QUESTIONS]
    if zh_index.dense.model_name != "all-MiniLM-L6-v2-int8":
        assert all(covers)  # both retrievers are fused
    else:
        assert not any(covers)  # the English-only preset: BM25 alone answers a CJK question
        q = next(iter(QUESTIONS))
        hybrid = [h.unit.unit_id for h in zh_index.query(q, k=3)]
        assert hybrid == [h.unit.unit_id for h in zh_index.query(q, k=3, mode="sparse")]


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_each_chinese_question_is_answered_in_the_top_3(zh_index: StructureIndex, question: str) -> None:
    hits = zh_index.query(
        question, k=3, min_score=0
    )  # the ranking, every hit kept (tests/test_calibration.py: the bar)
    texts = [u.text for h in hits for u in (h.unit, *h.group)]  # a hit and the rows grouped with it
    assert any(t.startswith(QUESTIONS[question]) or QUESTIONS[question] in t[:60] for t in texts), (
        question,
        [t[:40] for t in texts],
    )
