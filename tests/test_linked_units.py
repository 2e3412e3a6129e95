"""A hit on a unit that elaborates others brings them along (``Unit.linked_ids``,
:func:`structaware_retrievers.search.evidence.bring_linked`): a question worded like a recommendation's
discussion gets the recommendation itself, just above the discussion, in every face.

Real wording: the VA/DoD major depressive disorder guideline excerpt (public domain,
``tests/fixtures/pdf/SOURCES.md``), real default encoders, the embedded Qdrant engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_readers.models import Unit, UnitType
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.index.structure_index import SearchHit, StructureIndex
from structaware_retrievers.query.filters import SearchFilter
from structaware_retrievers.search.evidence import bring_linked

FIXTURES = Path(__file__).parent / "fixtures"
MDD = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_vadod_mdd_2022_excerpt"
MDD_PDF = FIXTURES / "pdf" / "vadod_mdd_2022_excerpt.pdf"
# recommendation 2 (a quantitative measure of severity) asked in its discussion's words (measurement-based care)
QUESTION = "Does the Joint Commission require measurement-based care in mental health treatment programs?"


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(scope="module")
def units() -> list[Unit]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    return build_units(load_document(MDD, pdf=MDD_PDF))


@pytest.fixture(scope="module")
def index(units: list[Unit], tmp_path_factory: pytest.TempPathFactory) -> Iterator[StructureIndex]:
    from structaware_readers.load.loader import load_document

    cache = EmbeddingCache()
    ix = StructureIndex(
        tmp_path_factory.mktemp("linked") / "ix", dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache)
    )
    ix.add_document(load_document(MDD, pdf=MDD_PDF), units)
    yield ix
    ix.close()


def _first_discussion(hits: list[SearchHit]) -> int:
    return next(i for i, h in enumerate(hits) if h.unit.linked_ids)


def test_a_discussion_hit_brings_its_recommendation_just_above_it(index: StructureIndex, units: list[Unit]) -> None:
    # the packing in the fused order, every hit kept (min_score=0); tests/test_calibration.py holds the
    # bar, tests/test_rerank.py the second stage (which may put the discussion first)
    by_id = {u.unit_id: u for u in units}
    hits = index.query(QUESTION, k=5, rerank=False, min_score=0)
    i = _first_discussion(hits)
    disc = hits[i].unit
    rec = by_id[disc.linked_ids[0]]
    assert rec.unit_type is UnitType.RECOMMENDATION and rec.text.startswith("2. For patients with MDD")
    ids = [h.unit.unit_id for h in hits]
    assert ids.index(rec.unit_id) < i or ids.index(rec.unit_id) == i - 1  # above the discussion
    assert hits[ids.index(rec.unit_id)].score >= hits[i].score
    assert len(ids) == len(set(ids)) == 5 and [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # with the stage, the same five hits, the recommendation among them
    staged = index.query(QUESTION, k=5, min_score=0)
    assert {h.unit.unit_id for h in staged} == set(ids)
    # trap: the recommendation shares none of the question's distinctive words, so its place is the link's doing
    assert not {"joint", "commission", "measurement-based"} & set(rec.embedding_text().lower().split())


def test_a_linked_unit_the_filter_excludes_is_not_brought(index: StructureIndex) -> None:
    hits = index.query(QUESTION, k=5, filter=SearchFilter(unit_types=["section"]))
    assert hits and all(h.unit.unit_type is UnitType.SECTION for h in hits)
    assert any(h.unit.linked_ids for h in hits)  # a discussion was hit; its recommendation stays out
    both = index.query(QUESTION, k=5, filter=SearchFilter(unit_types=["section", "recommendation"]))
    assert {uid for h in both for uid in h.unit.linked_ids} & {h.unit.unit_id for h in both}


def test_grouping_off_still_brings_the_recommendation(index: StructureIndex) -> None:
    grouped = [h.unit.unit_id for h in index.query(QUESTION, k=5, min_score=0)]
    single = [h.unit.unit_id for h in index.query(QUESTION, k=5, group_size=1, min_score=0)]
    linked = {uid for h in index.query(QUESTION, k=5, min_score=0) for uid in h.unit.linked_ids}
    assert linked & set(grouped) and linked & set(single)


def test_both_framework_retrievers_hand_over_the_brought_recommendation(index: StructureIndex) -> None:
    from langchain_structaware import StructureAwareRetriever as LcRetriever
    from llama_index.retrievers.structaware import StructureAwareRetriever as LiRetriever

    want = [h.unit.unit_id for h in index.query(QUESTION, k=5)]
    assert want  # the question is answered at the default bar
    # the brought recommendation is the discussion's evidence: as relevant as the discussion, so the
    # bar that keeps the discussion keeps it (on its own words it scores under the bar)
    hits = index.query(QUESTION, k=5)
    i = _first_discussion(hits)
    j = next(n for n, h in enumerate(hits) if h.unit.unit_id in hits[i].unit.linked_ids)
    assert abs(i - j) == 1  # next to it (the second stage may put the discussion first)
    assert hits[j].relevance >= hits[i].relevance >= 0.5
    nodes = LiRetriever(index=index, similarity_top_k=5).retrieve(QUESTION)
    docs = LcRetriever(index=index, k=5).invoke(QUESTION)
    assert [n.node.node_id for n in nodes] == want
    assert [d.metadata["unit_id"] for d in docs] == want


def _unit(uid: str, links: tuple[str, ...] = ()) -> Unit:
    return Unit(
        unit_id=uid,
        unit_type=UnitType.SECTION,
        text=uid,
        doc_id="d",
        pages=[1],
        element_ids=[],
        bboxes=[],
        element_pages=[],
        linked_ids=list(links),
    )


def test_bring_linked_moves_a_lower_hit_up_once_and_keeps_a_higher_one() -> None:
    rec, other = _unit("rec"), _unit("other")
    hits = [
        SearchHit(unit=u, score=s, rank=r)
        for r, (u, s) in enumerate(
            [(_unit("disc1", ("rec",)), 0.9), (other, 0.8), (_unit("disc2", ("rec",)), 0.7), (rec, 0.1)], 1
        )
    ]
    out = bring_linked(hits, hits, k=10)
    assert [h.unit.unit_id for h in out] == ["rec", "disc1", "other", "disc2"]
    assert [h.score for h in out] == [0.9, 0.9, 0.8, 0.7] and [h.rank for h in out] == [1, 2, 3, 4]
    # a unit found below the k hits (a candidate) is brought up too, and k applies after placing
    assert [h.unit.unit_id for h in bring_linked(hits[:2], hits, k=2)] == ["rec", "disc1"]
    # a linked unit already above its discussion stays where it is
    top = [SearchHit(unit=rec, score=1.0, rank=1), SearchHit(unit=_unit("disc", ("rec",)), score=0.5, rank=2)]
    assert bring_linked(top, top, k=10) == top


def test_bring_linked_brings_one_found_unit_per_hit() -> None:
    b, c = _unit("b"), _unit("c")
    disc = SearchHit(unit=_unit("disc", ("a", "b", "c")), score=0.9, rank=1)
    cands = [disc, *(SearchHit(unit=u, score=0.5 - i / 10, rank=i + 2) for i, u in enumerate([c, b]))]
    # of three linked units the best-ranked candidate (c), one only
    assert [h.unit.unit_id for h in bring_linked([disc], cands, k=5)] == ["c", "disc"]
    # trap: linked units the search did not find at all are never brought
    assert bring_linked([disc], [disc], k=5) == [disc]


def test_rerank_keeps_the_recommendation_next_to_its_discussion(index: StructureIndex, units: list[Unit]) -> None:
    by_id = {u.unit_id: u for u in units}
    hits = index.query(QUESTION, k=5, rerank=True, min_score=0)
    ids = [h.unit.unit_id for h in hits]
    disc = next(h for h in hits if h.unit.linked_ids)
    rec = by_id[disc.unit.linked_ids[0]]
    # the stage scores the recommendation's dense and BM25 parts as its discussion's: the two stay together
    assert rec.unit_id in ids and abs(ids.index(rec.unit_id) - ids.index(disc.unit.unit_id)) == 1
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    # trap: the recommendation shares none of the question's distinctive words, so its place is the link's doing
    assert not {"joint", "commission", "measurement-based"} & set(rec.embedding_text().lower().split())
