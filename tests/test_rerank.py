"""The re-scoring stage (:mod:`structaware_retrievers.search.rerank`): its scoring on plain lists, and
``StructureIndex.query(rerank=...)`` on a real public-domain CDC outpatient infection-prevention
guide (``tests/fixtures/mineru/SOURCES.md``) with the real default encoders and the embedded Qdrant
engine."""

from __future__ import annotations

import pytest

from conftest import SHARPS
from structaware_readers.errors import MalformedInputError
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.search.rerank import (
    DEFAULT_RERANK,
    Rerank,
    coverage_scores,
    phrase_scores,
    rerank_order,
    resolve_rerank,
)

pytestmark = pytest.mark.usefixtures("offline_env")


def _tok(text: str) -> list[str]:
    return text.lower().split()


def test_coverage_weighs_terms_by_how_few_candidates_hold_them() -> None:
    units = [{"sharps", "container", "care"}, {"care", "vials"}, {"care", "gloves"}]
    cov = coverage_scores(["sharps", "care"], units)
    assert cov[0] == pytest.approx(1.0)
    # trap: "care" is in every candidate, yet it still weighs a little (BM25's IDF is positive)
    assert 0 < cov[1] == cov[2] < 0.3
    assert coverage_scores([], units) == [0.0, 0.0, 0.0]


def test_coverage_weighs_terms_by_their_idf_in_the_collection() -> None:
    # "transdermal fentanyl patch: how is it converted?" over three candidates; two name the drug and
    # the patch, one only says "patients"
    query = ["fentanyl", "patch", "patient"]
    units = [{"fentanyl", "patch", "opioid"}, {"patient", "dose"}, {"fentanyl", "patch", "label"}]
    idf = {"fentanyl": 5.0, "patch": 4.0, "patient": 0.5}  # "patient" is in most units of a guideline
    cov = coverage_scores(query, units, idf)
    assert cov[0] == cov[2] == pytest.approx(9.0 / 9.5) and cov[1] == pytest.approx(0.5 / 9.5)
    # trap: weighed among the three candidates alone, the word two of them share counts less than the
    # common word only one holds, and the "patients" passage covers more of the question
    among = coverage_scores(query, units)
    assert among[1] > among[0] == among[2]
    # a term the collection does not weigh (unknown to ``idf``) counts for nothing
    assert coverage_scores(["fentanyl", "sharps"], units, {"fentanyl": 5.0})[0] == pytest.approx(1.0)
    order = rerank_order(query, ["fentanyl patch opioid", "patient dose"], [0.4, 0.4], [5.0, 5.0], _tok, idf=idf)
    assert [i for i, _ in order] == [0, 1]


def test_phrases_tell_apart_units_that_print_the_same_words_with_other_figures() -> None:
    # "net revenue for the three months ended June 30, 2022" over rows of two quarterly reports: every
    # row holds every word and figure of the question; only one prints "june 30 2022" together
    query = _tok("net revenue three months ended june 30 2022")
    rows = [
        _tok("net revenue three months ended june 30 2023 december 31 2022"),
        _tok("net revenue three months ended june 30 2022 december 31 2021"),
        _tok("net revenue six months ended june 30 2022"),
    ]
    idf = {"net": 1.0, "revenue": 1.0, "three": 1.0, "months": 0.5, "ended": 0.5, "june": 2.0, "30": 1.0, "2022": 3.0}
    # trap: term coverage scores the 2023 report's row as high as the right one
    cov = coverage_scores(query, [set(r) for r in rows], idf)
    assert cov[0] == cov[1] == pytest.approx(1.0)
    phr = phrase_scores(query, rows, idf)
    # the question's figure phrases: "june 30" (3.0) and "30 2022" (4.0); the 2023 row prints the first
    assert phr[1] == pytest.approx(1.0) and phr[0] == pytest.approx(3.0 / 7.0)
    assert phr[2] == pytest.approx(1.0)  # the six-month row prints both pairs too: phrases of figures only
    order = rerank_order(query, [" ".join(r) for r in rows[:2]], [0.5, 0.5], [9.0, 9.0], _tok, idf=idf)
    assert [i for i, _ in order] == [1, 0]
    # without the phrase weight the tie keeps the fused order: the 2023 row first
    no_phrase = Rerank(phrase=0.0)
    tied = rerank_order(query, [" ".join(r) for r in rows[:2]], [0.5, 0.5], [9.0, 9.0], _tok, no_phrase, idf)
    assert [i for i, _ in tied] == [0, 1]


def test_phrases_need_a_figure_and_latin_script() -> None:
    units = [["chronic", "pain", "opioid"], ["2017", "版", "mcdonald"], ["40", "mg", "daily"]]
    # word pairs without a figure are term coverage's job, not a phrase
    assert phrase_scores(["chronic", "pain"], units) == [0.0, 0.0, 0.0]
    # a CJK tokenizer's segments of one printed word ("2017版") are not a phrase; a dose is
    assert phrase_scores(["2017", "版"], units) == [0.0, 0.0, 0.0]
    assert phrase_scores(["40", "mg"], units) == [0.0, 0.0, 1.0]
    assert phrase_scores([], units) == [0.0, 0.0, 0.0]


def test_scores_are_relative_to_the_best_and_ties_keep_the_fused_order() -> None:
    texts = ["dispose of sharps in a container", "multi-dose vials care clinic", "gloves care"]
    half = Rerank(dense=1.0, bm25=1.0, coverage=0.5, phrase=0.0)
    order = rerank_order(["sharps", "container"], texts, [0.5, 0.25, None], [10.0, 20.0, None], _tok, half)
    (first, s1), (second, s2), (third, s3) = order
    # candidate 0: dense 1.0, BM25 0.5, coverage 1.0 -> (1 + 0.5 + 0.5) / 2.5
    assert (first, s1) == (0, pytest.approx(0.8))
    assert (second, s2) == (1, pytest.approx((0.5 + 1.0) / 2.5))
    # a candidate no search scored takes the lowest score given (dense 0.25/0.5, BM25 10/20)
    assert (third, s3) == (2, pytest.approx((0.5 + 0.5) / 2.5))
    same = rerank_order(["x"], ["a", "b"], [0.3, 0.3], [1.0, 1.0], _tok)
    assert [i for i, _ in same] == [0, 1]


def test_options_are_checked() -> None:
    assert resolve_rerank(True) is DEFAULT_RERANK and resolve_rerank(False) is None
    # the default: on for a hybrid search, off for a single vector's own order
    assert resolve_rerank(None) is DEFAULT_RERANK and resolve_rerank(None, "sparse") is None
    assert resolve_rerank(None, "dense") is None and resolve_rerank(True, "sparse") is DEFAULT_RERANK
    assert resolve_rerank(Rerank(pool=10)).pool == 10
    for bad in (
        {"pool": 1},
        {"dense": -1.0},
        {"dense": 0, "bm25": 0, "coverage": 0, "phrase": 0},
        {"phrase": -0.5},
        {"pool": True},
    ):
        with pytest.raises(MalformedInputError, match="rerank"):
            Rerank(**bad)  # type: ignore[arg-type]
    with pytest.raises(MalformedInputError, match="rerank"):
        resolve_rerank("yes")  # type: ignore[arg-type]


@pytest.fixture
def index(cdc_index):  # type: ignore[no-untyped-def]
    return cdc_index


def test_rerank_puts_the_sharps_item_above_the_care_definition(index: StructureIndex) -> None:
    fused = index.query(SHARPS, k=5, rerank=False, min_score=0)
    again = index.query(SHARPS, k=5, rerank=Rerank(pool=30), min_score=0)  # the stage over the first 30 hits
    answer = "Dispose of used sharps at the point of use"
    # trap: without the stage a passage on outpatient care without the word "sharps" is first, the answer below it
    assert "sharps" not in fused[0].unit.text.lower() and "outpatient care" in fused[0].unit.text.lower()
    assert any(answer in h.unit.text for h in fused[1:])
    # with the stage, a passage on disposing of sharps is first and the checklist item is in the top 3
    assert "sharps are disposed" in again[0].unit.text.lower() or answer in again[0].unit.text
    assert any(answer in h.unit.text for h in again[:3])
    assert [h.rank for h in again] == [1, 2, 3, 4, 5]
    # each hit keeps the search's own score (comparable across questions), not the stage's
    wide = {h.unit.unit_id: h.score for h in index.query(SHARPS, k=30, rerank=False, min_score=0)}
    assert all(h.score == wide[h.unit.unit_id] for h in again)


def test_the_stage_reorders_only_the_first_pool_hits(index: StructureIndex) -> None:
    fused = index.query(SHARPS, k=10, rerank=False, min_score=0)
    again = index.query(SHARPS, k=10, min_score=0)  # the default: the stage on, over the first 5
    assert [h.unit.unit_id for h in again[:5]] != [h.unit.unit_id for h in fused[:5]]
    # the first 5 are the fused first 5, re-ordered; the rest keep the fused order and ranks
    assert {h.unit.unit_id for h in again[:5]} == {h.unit.unit_id for h in fused[:5]}
    assert [h.unit.unit_id for h in again[5:]] == [h.unit.unit_id for h in fused[5:]]
    assert [h.rank for h in again] == list(range(1, 11))
    # a k = 10 answer starts with the k = 5 answer: a deeper question does not reshuffle the top
    assert [h.unit.unit_id for h in index.query(SHARPS, k=5, min_score=0)] == [h.unit.unit_id for h in again[:5]]
    wide = index.query(SHARPS, k=5, rerank=Rerank(pool=30), min_score=0)
    assert {h.unit.unit_id for h in wide} <= {
        h.unit.unit_id for h in index.query(SHARPS, k=30, rerank=False, min_score=0)
    }


def test_rerank_keeps_filters_and_off_is_the_fused_order(index: StructureIndex) -> None:
    from structaware_retrievers.query.filters import SearchFilter

    only_rows = index.query(
        SHARPS, k=3, rerank=Rerank(pool=10), filter=SearchFilter(unit_types=["table_row"]), min_score=0
    )
    assert only_rows and all(h.unit.unit_type.value == "table_row" for h in only_rows)
    assert index.query(SHARPS, k=5, rerank=True, min_score=0) == index.query(SHARPS, k=5, min_score=0)
    # trap: BM25 alone keeps its own order by default
    assert index.query(SHARPS, k=5, mode="sparse", min_score=0) == index.query(
        SHARPS, k=5, mode="sparse", rerank=False, min_score=0
    )
    with pytest.raises(MalformedInputError, match="rerank"):
        index.query(SHARPS, rerank=Rerank(pool=0), min_score=0)  # checked when built


def test_rerank_orders_a_frameworks_candidates_by_id(index: StructureIndex) -> None:
    fused = index.query(SHARPS, k=5, rerank=False, min_score=0)
    ids = [h.unit.unit_id for h in fused]
    order = index.rerank(SHARPS, list(reversed(ids)))
    # the same order as the query's own stage, whatever order the candidates come in
    assert [i for i, _ in order] == [h.unit.unit_id for h in index.query(SHARPS, k=5, min_score=0)]
    scores = [s for _, s in order]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    with pytest.raises(MalformedInputError, match="unit_ids"):
        index.rerank(SHARPS, [*ids, "00000000-0000-0000-0000-000000000000"])  # trap: an id of no unit
    with pytest.raises(MalformedInputError, match="rerank"):
        index.rerank(SHARPS, ids, rerank=False)
    assert index.rerank(SHARPS, []) == []


def test_serve_takes_rerank_as_a_boolean_field() -> None:
    from structaware_retrievers.serve.app import _query_args

    assert _query_args({"text": "sharps", "rerank": True})[1].rerank is True
    assert _query_args({"text": "sharps", "rerank": "true"}, from_url=True)[1].rerank is True
    assert _query_args({"text": "sharps"})[1].rerank is None  # not given: the searcher's default
    with pytest.raises(MalformedInputError, match="bool"):
        _query_args({"text": "sharps", "rerank": 1})  # trap: a number is not a yes


def test_async_query_reranks_the_same_way(index: StructureIndex) -> None:
    import asyncio

    sync = index.query(SHARPS, k=5, rerank=True, min_score=0)
    assert asyncio.run(index.aquery(SHARPS, k=5, rerank=True, min_score=0)) == sync
    off = asyncio.run(index.aquery(SHARPS, k=5, rerank=False, min_score=0))
    assert off == index.query(SHARPS, k=5, rerank=False, min_score=0) != sync  # trap: off is the fused order
