"""Query-time evidence packing on real fixture units: RRF weights, table groups, ``budget_chars`` and ``expand``
(StructureIndex, the LlamaIndex and LangChain retrievers), with the real default encoders and
the embedded Qdrant engine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_readers.errors import MalformedInputError
from structaware_readers.models import ParsedDocument, Unit, UnitType
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.index.structure_index import SearchHit, StructureIndex
from structaware_retrievers.search.evidence import evidence_units, fit_budget, hit_unit, unit_chars
from structaware_retrievers.search.results import row_line

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
EN = SHARED / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not EN.is_dir(), reason=f"shared fixtures not found at {EN}"),
    pytest.mark.usefixtures("offline_env"),
]


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StructureIndex]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    doc: ParsedDocument = load_document(EN)
    cache = EmbeddingCache()
    ix = StructureIndex(
        tmp_path_factory.mktemp("budget") / "ix", dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache)
    )
    ix.add_document(doc, build_units(doc))
    yield ix
    ix.close()


def test_budget_returns_the_best_hits_that_fit(filled: StructureIndex) -> None:
    q = "What is the blood pressure target for adults 57-59 y?"
    full = filled.query(q, k=10)
    for budget in (300, 1000, 2000):
        packed = filled.query(q, k=10, budget_chars=budget)
        assert packed and sum(unit_chars(hit_unit(h)) for h in packed) <= budget
        assert packed == fit_budget(full, budget)  # the same search, then packed
        # hits first: every hit left out would not have fitted in what the hits before it left
        kept = {h.unit.unit_id: h for h in packed}
        left = budget
        for h in full:
            if h.unit.unit_id in kept:
                left -= unit_chars(h.unit)
            else:
                assert unit_chars(h.unit) > left
        # then group rows: every row left out would not have fitted in what remained
        for h in packed:
            for row in next(f for f in full if f.unit.unit_id == h.unit.unit_id).group:
                if row in h.group:
                    left -= len(row.text) + 1  # a group row shares its hit's context
                else:
                    assert len(row.text) + 1 > left
        assert [h.rank for h in packed] == sorted(h.rank for h in packed)
    assert filled.query(q, k=10, budget_chars=10) == []  # nothing is that short
    with pytest.raises(MalformedInputError, match="budget_chars"):
        filled.query(q, budget_chars=0)


def test_weights_move_the_fusion_and_are_checked(filled: StructureIndex) -> None:
    # fusion, grouping and packing under test: every hit kept (min_score=0)
    q = "What is the grade for adults 57-59 y?"
    sparse = [h.unit.unit_id for h in filled.query(q, min_score=0, k=5, mode="sparse")]
    dense = [h.unit.unit_id for h in filled.query(q, min_score=0, k=5, mode="dense")]
    assert sparse != dense
    # with k = 1 an RRF score is w / r: a 100x weight puts one list's top 5 above the other's
    # (the fused order: the second stage would re-order the five; the question asks for a grade, so the
    # grade prefetch is turned off to leave the two weighted lists alone)
    plain = {"rerank": False, "min_score": 0, "grade_focus": 0}
    bm25_heavy = [h.unit.unit_id for h in filled.query(q, k=5, rrf_k=1, weights=(0.01, 1.0), **plain)]
    dense_heavy = [h.unit.unit_id for h in filled.query(q, k=5, rrf_k=1, weights=(1.0, 0.01), **plain)]
    # (BM25 ties many rows at rank 2+, and a prefetch may order the ties differently: top 1 only)
    assert dense_heavy == dense and bm25_heavy[0] == sparse[0] != dense[0]
    for bad in ((0.0, 1.0), (1.0, -1.0), (1.0,)):
        with pytest.raises(MalformedInputError, match="weights"):
            filled.query(q, min_score=0, weights=bad)  # type: ignore[arg-type]


def test_expand_brings_adjacent_rows_section_lead_and_flow_neighbours(filled: StructureIndex) -> None:
    row_hit = filled.query("clinic target for adults 57-59 y", k=1, mode="sparse", expand=True)[0]
    row = row_hit.unit
    assert row.unit_type == UnitType.TABLE_ROW and row.table is not None
    got = sorted(n.table.row_index for n in row_hit.neighbours if n.table is not None)
    assert got == [i for i in (row.table.row_index - 1, row.table.row_index + 1) if i >= 0]
    assert all(n.table.table_id == row.table.table_id for n in row_hit.neighbours)  # type: ignore[union-attr]

    rec_hit = filled.query("measure blood pressure in both arms", k=1, mode="sparse", expand=True)[0]
    assert rec_hit.unit.unit_type == UnitType.RECOMMENDATION
    (lead,) = rec_hit.neighbours
    assert lead.unit_type == UnitType.SECTION and lead.section_path == rec_hit.unit.section_path
    assert lead.ordinal < rec_hit.unit.ordinal and len(lead.text) < 400 and lead.text.strip()

    units = [Unit.from_payload(r.payload) for r in filled.store.scroll()]
    edges = [u for u in units if u.unit_type == UnitType.FLOW_PATH]
    if edges:
        edge = edges[len(edges) // 2]
        hit = filled.searcher.finish([SearchHit(unit=edge, score=1.0, rank=1)], 1, None, True, 1)[0]
        assert hit.neighbours
        for n in hit.neighbours:
            assert n.flow is not None and edge.flow is not None
            assert {n.flow.source, n.flow.target} & {edge.flow.source, edge.flow.target}

    # the budget counts neighbours too
    packed = filled.query("clinic target for adults 57-59 y", k=5, mode="sparse", expand=True, budget_chars=1500)
    assert sum(unit_chars(h.unit) + sum(unit_chars(n) for n in h.neighbours) for h in packed) <= 1500


def test_llama_index_and_langchain_retrievers_pass_budget_and_expand(filled: StructureIndex) -> None:
    from langchain_structaware import StructureAwareRetriever as LCRetriever
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever

    q = "clinic target for adults 57-59 y"  # two ungrouped hits always leave room for neighbours
    li = LIRetriever(filled, similarity_top_k=2, mode="sparse", budget_chars=1200, expand=True, group_size=1)
    nodes = li.retrieve(q)
    assert nodes and sum(len(n.node.get_content(metadata_mode="none")) for n in nodes) <= 1200
    assert any("expanded_from" in n.node.metadata for n in nodes)
    assert len({n.node.node_id for n in nodes}) == len(nodes)

    lc = LCRetriever(index=filled, k=2, mode="sparse", budget_chars=1200, expand=True, weights=(0.5, 1.0), group_size=1)
    docs = lc.invoke(q)
    assert docs and any("expanded_from" in d.metadata for d in docs)
    # the same hits as the index, in order (a hit that is also an earlier hit's neighbour comes once)
    expected = [
        h.unit.unit_id for h in filled.query(q, k=2, mode="sparse", budget_chars=1200, expand=True, group_size=1)
    ]
    assert [i for i in (d.metadata["unit_id"] for d in docs) if i in expected] == expected


def test_rows_of_one_table_are_grouped_into_one_hit(filled: StructureIndex) -> None:
    # fusion, grouping and packing under test: every hit kept (min_score=0)
    q = "clinic target for adults 57-59 y"
    flat = filled.query(q, min_score=0, k=50, mode="sparse", group_size=1)
    grouped = filled.query(q, min_score=0, k=5, mode="sparse", group_size=3)
    assert [h.rank for h in grouped] == list(range(1, len(grouped) + 1))
    assert grouped[0].unit == flat[0].unit and grouped[0].unit.unit_type == UnitType.TABLE_ROW
    order = [h.unit.unit_id for h in flat]
    # a table comes back as a second hit only after its first group is full
    seen: dict[tuple[str, str], SearchHit] = {}
    for hit in grouped:
        if hit.unit.table is not None:
            key = (hit.unit.doc_id, hit.unit.table.table_id)
            assert key not in seen or len(seen[key].group) == 2
            seen[key] = hit
    assert any(h.group for h in grouped)
    for hit in grouped:
        assert len(hit.group) <= 2
        for row in hit.group:
            assert row.table is not None and hit.unit.table is not None
            assert row.table.table_id == hit.unit.table.table_id
            # a group row ranked below its hit among the same candidates
            assert order.index(row.unit_id) > order.index(hit.unit.unit_id)
        assert [order.index(r.unit_id) for r in hit.group] == sorted(order.index(r.unit_id) for r in hit.group)
    # the hits that are not rows of an earlier table keep their relative order
    heads = [u for u in order if u in {h.unit.unit_id for h in grouped}]
    assert heads == [h.unit.unit_id for h in grouped]
    # group_size 1: every row is a hit of its own, the top k of the list (BM25 ties may swap places)
    single = filled.query(q, min_score=0, k=5, mode="sparse", group_size=1)
    assert not any(h.group for h in single)
    assert [round(h.score, 5) for h in single] == [round(h.score, 5) for h in flat[:5]]
    for bad in (0, -1, 1.5):
        with pytest.raises(MalformedInputError, match="group_size"):
            filled.query(q, min_score=0, group_size=bad)  # type: ignore[arg-type]


def test_a_row_past_the_second_joins_a_group_only_when_short(filled: StructureIndex) -> None:
    from structaware_retrievers.query.fusion import GROUP_SHORT_ROW_CHARS
    from structaware_retrievers.search.evidence import group_table_rows

    rows = sorted(
        (u for u in (Unit.from_payload(r.payload) for r in filled.store.scroll()) if u.unit_type == UnitType.TABLE_ROW),
        key=lambda u: u.ordinal,
    )
    a, b, c, d = rows[:4]
    assert len({u.table.table_id for u in (a, b, c, d)}) == 1  # type: ignore[union-attr]
    assert all(len(u.text) <= GROUP_SHORT_ROW_CHARS for u in (a, b, c, d))  # a filing's kind of row
    note = "see the discussion of this population " * 6
    assert c.table is not None and d.table is not None
    long = c.model_copy(
        update={
            "text": f"{c.text}; Notes: {note}",
            "table": c.table.model_copy(update={"cells": [*c.table.cells, note]}),
        }
    )
    assert len(row_line(long)) > GROUP_SHORT_ROW_CHARS  # a guideline's paragraph-long row

    def hits(*units: Unit) -> list[SearchHit]:
        return [SearchHit(unit=u, score=1.0 - i / 10, rank=i + 1) for i, u in enumerate(units)]

    # the long third row stays out of the group; the short one after it joins; the long one comes
    # back as a hit of its own after the others (fewer than k hits otherwise)
    out = group_table_rows(hits(a, b, long, d), 3, 5)
    assert [h.unit for h in out] == [a, long] and out[0].group == [b, d] and out[1].group == []
    # the second row joins whatever its length (trap: the rule is for rows past the second)
    out = group_table_rows(hits(a, long, b, d), 3, 5)
    assert out[0].group == [long, b] and [h.unit for h in out] == [a, d]
    # with k hits already there the long row is not brought back
    assert [h.unit for h in group_table_rows(hits(a, b, long, d), 3, 1)] == [a]
    # the limit is a parameter; group_size 2 never looks at it
    assert group_table_rows(hits(a, b, long, d), 3, 5, short_row_chars=10_000)[0].group == [b, long]
    assert group_table_rows(hits(a, b, long, d), 2, 5)[0].group == [b]
    # a row is long by what it hands over, its cells: a 10-Q row whose column headers are most of its
    # text (`Derivatives gains/(losses) / recorded in income / Three months ended / 2022: 89; ...`) joins
    wordy = d.model_copy(
        update={"text": "; ".join(f"Derivatives gains/(losses) recorded in income / {x}" for x in d.table.cells)}
    )
    assert len(wordy.text) > GROUP_SHORT_ROW_CHARS >= len(row_line(wordy))
    assert group_table_rows(hits(a, b, wordy), 3, 5)[0].group == [b, wordy]


def test_budget_drops_group_rows_before_hits(filled: StructureIndex) -> None:
    # fusion, grouping and packing under test: every hit kept (min_score=0)
    q = "clinic target for adults 57-59 y"
    grouped = [h for h in filled.query(q, min_score=0, k=5, mode="sparse") if h.group]
    assert grouped
    hit = grouped[0]
    row_cost = unit_chars(hit.unit)
    # room for the hit and one group row only
    budget = row_cost + len(hit.group[0].text) + 1  # a group row shares the hit's context
    (packed,) = fit_budget([hit], budget)
    assert packed.unit == hit.unit and packed.group == hit.group[:1]
    (alone,) = fit_budget([hit], row_cost)
    assert alone.unit == hit.unit and alone.group == []
    # a later hit that fits goes before an earlier hit's group rows
    other = next(h for h in filled.query(q, min_score=0, k=10, mode="sparse") if h.unit.unit_id != hit.unit.unit_id)
    both = fit_budget([hit, other], row_cost + unit_chars(other.unit))
    assert [h.unit for h in both] == [hit.unit, other.unit] and both[0].group == []


def test_retrievers_hand_over_a_grouped_hit_as_one_node_or_document(filled: StructureIndex) -> None:
    # fusion, grouping and packing under test: every hit kept (min_score=0)
    from langchain_structaware import StructureAwareRetriever as LCRetriever
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever

    q = "clinic target for adults 57-59 y"
    hits = filled.query(q, min_score=0, k=5, mode="sparse")
    grouped = next(h for h in hits if h.group)
    merged = hit_unit(grouped)
    rows = [grouped.unit, *grouped.group]  # the best row first
    # the best row as it reads (header: value), then each other row as its cells, columns in place
    assert merged.text.splitlines() == [
        *grouped.unit.text.splitlines(),
        *(" | ".join(c.strip() for c in u.table.cells) for u in grouped.group),
    ]
    assert all(
        re.fullmatch(r"Adults \d+-\d+ y \| <\d+/\d+ mmHg \| <\d+/\d+ mmHg \| [A-D]", x)
        for x in merged.text.splitlines()[1:]
    )
    assert merged.unit_id == grouped.unit.unit_id and merged.context == grouped.unit.context
    assert "Columns: Population; Clinic target; ABPM target; Grade" in merged.context  # the headers, once
    assert set(merged.pages) == {p for u in rows for p in u.pages}
    assert unit_chars(merged) == unit_chars(grouped.unit) + sum(len(row_line(u)) + 1 for u in grouped.group)
    # k hits -> k nodes / documents (the frameworks' contract), each grouped hit one of them
    nodes = LIRetriever(filled, similarity_top_k=5, mode="sparse", min_score=0).retrieve(q)
    assert [n.node.node_id for n in nodes] == [h.unit.unit_id for h in hits]
    node = next(n for n in nodes if n.node.node_id == grouped.unit.unit_id)
    assert node.node.get_content(metadata_mode="none").endswith(merged.text)
    docs = LCRetriever(index=filled, k=5, mode="sparse", min_score=0).invoke(q)
    assert [d.metadata["unit_id"] for d in docs] == [h.unit.unit_id for h in hits]
    doc = next(d for d in docs if d.metadata["unit_id"] == grouped.unit.unit_id)
    assert merged.text in doc.page_content
    single = LIRetriever(filled, similarity_top_k=5, mode="sparse", group_size=1, min_score=0).retrieve(q)
    ungrouped = {h.unit.unit_id: h.unit.text for h in filled.query(q, min_score=0, k=5, mode="sparse", group_size=1)}
    assert len(single) == 5 and all(n.node.text == ungrouped[n.node.node_id] for n in single)


def test_the_harness_budget_policy_pack_is_what_query_with_a_budget_hands_over(filled: StructureIndex) -> None:
    from structaware_retrievers.evaluation.harness import packed_budget_hits

    q = "clinic target for adults 57-59 y"
    hits = filled.query(q, k=20)
    doc_id = hits[0].unit.doc_id
    for pages in ([3], [4], [1, 2]):
        got = packed_budget_hits(hits, doc_id, pages, [300, 1000, 4000])
        for budget, hit in got.items():
            handed = [u for _, u, _ in evidence_units(filled.query(q, k=20, budget_chars=budget))]
            assert hit == any(set(pages) & set(u.pages) for u in handed), (pages, budget)
    assert packed_budget_hits(hits, "another-document", [3], [4000]) == {4000: False}
