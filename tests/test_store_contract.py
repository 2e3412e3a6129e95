"""One contract for every VectorStore backend: the same assertions run against each.

Backends: ``EdgeStore`` in a temporary folder (the embedded Qdrant engine), ``ClientStore`` over
``QdrantClient(":memory:")``, and ``ClientStore`` over a real server when ``QDRANT_URL`` is set
(``QDRANT_API_KEY`` optional). Vectors are small and hand-made so every expected ranking is known
and free of ties.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from structaware_readers.errors import StoreError
from structaware_readers.models import Grade, Unit, UnitType
from structaware_retrievers.encoders import SparseVector
from structaware_retrievers.query.filters import HasId, Match, PointFilter, SearchFilter
from structaware_retrievers.store import (
    HNSW_FILTER_FIELDS,
    PAYLOAD_INDEXES,
    ClientStore,
    EdgeStore,
    PointRecord,
    VectorStore,
)
from structaware_retrievers.store.base import RRF_DENSE_WEIGHT

DIM = 8
# the embedded engine writes shard files (integration tier); qdrant-client in memory is the unit tier's backend
BACKENDS = [pytest.param("edge", marks=pytest.mark.integration), "memory"] + (
    [pytest.param("server", marks=pytest.mark.integration)] if os.environ.get("QDRANT_URL") else []
)


def make_store(kind: str, tmp_path: Path) -> VectorStore:
    if kind == "edge":
        return EdgeStore(tmp_path / "edge")
    if kind == "memory":
        return ClientStore("contract", location=":memory:")
    name = f"structaware-contract-{uuid.uuid4().hex[:8]}"
    return ClientStore(name, url=os.environ["QDRANT_URL"], api_key=os.environ.get("QDRANT_API_KEY"))


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    s = make_store(request.param, tmp_path)
    yield s
    if request.param == "server" and s.exists():
        s.client.delete_collection(s.collection)  # type: ignore[attr-defined]
    s.close()


def _unit_vec(*pairs: tuple[int, float]) -> list[float]:
    v = np.zeros(DIM)
    for i, x in pairs:
        v[i] = x
    return (v / np.linalg.norm(v)).tolist()


def _uid(name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def _unit(name: str, doc: str, pages: list[int], utype: UnitType, grade: str | None = None) -> Unit:
    return Unit(
        unit_id=_uid(name),
        unit_type=utype,
        text=f"text of {name}",
        context=f"Section: {doc}",
        doc_id=doc,
        doc_name=f"name-{doc}",
        source=f"/data/{doc}.pdf",
        pages=pages,
        element_ids=[f"p{p}-e0" for p in pages],
        bboxes=[(0.1, 0.2, 0.9, 0.3)] * len(pages),
        element_pages=pages,
        grade=Grade(system="letter", grade=grade, raw=f"Grade {grade}") if grade else None,
    )


# name -> (unit, dense vector, sparse vector). Dense: the query [1,0,...] ranks a > b > c > d > e by
# cosine; sparse: token 7 ranks e > d > c (a and b lack it).
CORPUS = {
    "a": (_unit("a", "doc1", [1], UnitType.SECTION), _unit_vec((0, 1.0)), SparseVector([1, 2], [1.0, 0.5])),
    "b": (_unit("b", "doc1", [2, 3], UnitType.TABLE_ROW, "A"), _unit_vec((0, 1.0), (1, 0.3)), SparseVector([2], [0.7])),
    "c": (
        _unit("c", "doc1", [4], UnitType.RECOMMENDATION, "B"),
        _unit_vec((0, 1.0), (2, 0.8)),
        SparseVector([7], [0.3]),
    ),
    "d": (
        _unit("d", "doc2", [1], UnitType.TABLE_ROW, "A"),
        _unit_vec((0, 1.0), (3, 1.5)),
        SparseVector([7, 9], [0.9, 0.2]),
    ),
    "e": (_unit("e", "doc2", [5, 6], UnitType.FLOW_PATH), _unit_vec((0, 0.2), (4, 1.0)), SparseVector([7], [1.6])),
}
NAME = {_uid(n): n for n in CORPUS}
Q_DENSE = _unit_vec((0, 1.0))
Q_SPARSE = SparseVector([7], [1.0])


def points(names: str = "abcde") -> list[PointRecord]:
    return [
        PointRecord(id=u.unit_id, payload=u.to_payload(), dense=d, sparse=s) for u, d, s in (CORPUS[n] for n in names)
    ]


def filled(store: VectorStore) -> VectorStore:
    store.create(DIM, {"owner": "contract-test", "dims": [DIM]})
    store.upsert(points())
    return store


def names(hits: list) -> list[str]:
    return [NAME[h.id] for h in hits]


# ---------------------------------------------------------------------------------------------
# collection lifecycle
# ---------------------------------------------------------------------------------------------


def test_create_metadata_and_empty_collection(store: VectorStore) -> None:
    assert not store.exists()
    store.create(DIM, {"owner": "contract-test", "nested": {"k": [1, 2]}})
    assert store.exists()
    assert store.dense_dim() == DIM
    assert store.metadata() == {"owner": "contract-test", "nested": {"k": [1, 2]}}
    assert store.count() == 0
    for mode in ("hybrid", "dense", "sparse"):
        assert store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode=mode) == []
    assert list(store.scroll()) == []
    assert store.delete(PointFilter.match("doc_id", "doc1")) == 0
    with pytest.raises(StoreError, match="already exists"):
        store.create(DIM, {})


def test_create_rejects_a_bad_dimension(store: VectorStore) -> None:
    with pytest.raises(StoreError, match="dim"):
        store.create(0, {})


def test_upsert_roundtrips_the_full_unit(store: VectorStore) -> None:
    filled(store)
    assert store.count() == 5
    recs = {r.id: r for r in store.retrieve([_uid("b"), _uid("e"), _uid("missing")], with_vectors=True)}
    assert set(recs) == {_uid("b"), _uid("e")}
    unit_b = CORPUS["b"][0]
    assert Unit.from_payload(recs[_uid("b")].payload) == unit_b
    assert recs[_uid("b")].payload["grade_label"] == "A" and recs[_uid("b")].payload["page"] == 2
    assert np.allclose(recs[_uid("b")].dense, CORPUS["b"][1], atol=1e-6)  # type: ignore[arg-type]
    assert recs[_uid("e")].sparse == SparseVector([7], [pytest.approx(1.6)])


def test_reupsert_is_idempotent_and_replaces_payload(store: VectorStore) -> None:
    filled(store)
    store.upsert(points())
    assert store.count() == 5
    changed = points("a")
    changed[0].payload = {**changed[0].payload, "text": "new text"}
    store.upsert(changed)
    assert store.count() == 5
    assert store.retrieve([_uid("a")])[0].payload["text"] == "new text"


def test_dimension_mismatch_is_a_store_error(store: VectorStore) -> None:
    filled(store)
    bad = PointRecord(id=_uid("x"), payload={}, dense=[1.0] * (DIM - 1), sparse=SparseVector([1], [1.0]))
    with pytest.raises(StoreError, match="dense"):
        store.upsert([bad])
    assert store.count() == 5  # nothing written
    with pytest.raises(StoreError):
        store.query(dense=[1.0] * (DIM + 2), sparse=None, limit=3, mode="dense")


def _case15() -> dict[str, tuple[list, list]]:
    """The sparse vectors of ``../shared/cases/15-qdrant-sparse-vector-hygiene`` (rebuilt here)."""
    return {
        "unsorted_mmh3_unsigned": ([1479876206, 696618268], [0.5, 0.6]),
        "duplicate_and_length_mismatch": ([1, 1, 2, 3, 4, 5], [0.1, 0.2, 0.3, 0.4, 0.5]),
        "hash_collision_duplicates": ([42, 42, 7], [1.0, 1.0, 0.5]),
        "signed_mmh3_negative": ([-1479876206, 696618268], [1.0, 1.0]),
        "empty_document_or_all_stopwords": ([], []),
        "nan_weight": ([3, 9], [1.0, float("nan")]),
    }


def test_sparse_vectors_are_normalised_or_refused_before_the_engine(store: VectorStore) -> None:
    filled(store)
    cases = _case15()

    def put(name: str) -> PointRecord:
        idx, val = cases[name]
        axis = 6 if name.startswith("empty") else 5
        p = PointRecord(
            id=_uid(name), payload={"doc_id": "s"}, dense=_unit_vec((axis, 1.0)), sparse=SparseVector(idx, val)
        )
        store.upsert([p])
        return store.retrieve([_uid(name)], with_vectors=True)[0]

    got = put("unsorted_mmh3_unsigned").sparse
    assert got.indices == [696618268, 1479876206] and got.values == pytest.approx([0.6, 0.5])
    got = put("hash_collision_duplicates").sparse
    assert got.indices == [7, 42] and got.values == pytest.approx([0.5, 2.0])
    empty = put("empty_document_or_all_stopwords")  # stored, findable by its dense vector
    assert not (empty.sparse and empty.sparse.indices)
    assert store.query(dense=_unit_vec((6, 1.0)), sparse=None, limit=1, mode="dense")[0].id == _uid(
        "empty_document_or_all_stopwords"
    )
    for name, message in [
        ("duplicate_and_length_mismatch", "6 indices but 5 values"),
        ("signed_mmh3_negative", "sparse index -1479876206"),
        ("nan_weight", "not a finite number"),
    ]:
        with pytest.raises(StoreError, match=message) as info:
            put(name)
        assert info.value.field == "sparse" and _uid(name) in info.value.message
    assert store.count() == 8  # 5 + the three accepted; a refused batch writes nothing


@pytest.mark.parametrize(
    "bad_id",
    ["d41d8cd98f00b204e9800998ecf8427e", "D41D8CD9-8F00-B204-E980-0998ECF8427E",
     "urn:uuid:d41d8cd9-8f00-b204-e980-0998ecf8427e", "1-0", "12", -1, 2**64],
)  # fmt: skip
def test_only_canonical_uuid_ids_are_stored(store: VectorStore, bad_id: object) -> None:
    """Case 16: Qdrant canonicalises other spellings, so two ids could collapse into one point."""
    filled(store)
    p = PointRecord(id=bad_id, payload={}, dense=_unit_vec((5, 1.0)), sparse=SparseVector([1], [1.0]))  # type: ignore[arg-type]
    with pytest.raises(StoreError) as info:
        store.upsert([*points("a"), p])
    assert info.value.field == "id"
    assert store.count() == 5 and {r.id for r in store.scroll()} == {u.unit_id for u, _, _ in CORPUS.values()}


def test_non_finite_dense_values_are_refused(store: VectorStore) -> None:
    filled(store)
    p = PointRecord(id=_uid("inf"), payload={}, dense=[float("inf")] + [0.0] * (DIM - 1), sparse=SparseVector([], []))
    with pytest.raises(StoreError, match="finite") as info:
        store.upsert([p])
    assert info.value.field == "dense" and store.count() == 5


def test_delete_by_document_and_by_id(store: VectorStore) -> None:
    filled(store)
    assert store.delete(PointFilter.match("doc_id", "doc2")) == 2
    assert store.count() == 3 and store.count(PointFilter.match("doc_id", "doc2")) == 0
    store.delete_ids([_uid("a"), _uid("not-there")])
    assert sorted(names(list(store.scroll()))) == ["b", "c"]
    with pytest.raises(StoreError, match="empty filter"):
        store.delete(PointFilter())


def test_scroll_pages_through_everything(store: VectorStore) -> None:
    filled(store)
    got = list(store.scroll(batch=2, fields=["doc_id"]))
    assert sorted(names(got)) == list("abcde")
    assert all(set(r.payload) == {"doc_id"} for r in got)
    doc1 = list(store.scroll(PointFilter.match("doc_id", "doc1"), batch=1))
    assert sorted(names(doc1)) == ["a", "b", "c"]


# ---------------------------------------------------------------------------------------------
# search
# ---------------------------------------------------------------------------------------------


def test_dense_and_sparse_modes(store: VectorStore) -> None:
    filled(store)
    dense = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode="dense")
    assert names(dense) == list("abcde")
    assert dense[0].score == pytest.approx(1.0, abs=1e-5)
    sparse = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode="sparse")
    assert names(sparse) == ["e", "d", "c"]  # only units holding token 7
    assert sparse[0].score > sparse[1].score > sparse[2].score > 0
    assert store.query(dense=Q_DENSE, sparse=SparseVector([], []), limit=5, mode="sparse") == []


#: The paper's plain RRF (section 2.4: k = 60, equal weights), which these contract tests check the
#: engine's fusion against; the stores' defaults are structaware's (fusion.py), passed by every face.
PLAIN_RRF = {"rrf_k": 60, "weights": (1.0, 1.0)}


def rrf(dense_rank: int | None, sparse_rank: int | None, k: int) -> float:
    """Qdrant's weighted RRF: sum of 1 / (rank / weight + k - 1), ranks 1-based."""
    parts = [(dense_rank, RRF_DENSE_WEIGHT), (sparse_rank, 1.0)]
    return sum(1 / (r / w + k - 1) for r, w in parts if r is not None)


def test_hybrid_rrf_is_fused_inside_qdrant(store: VectorStore) -> None:
    filled(store)
    hits = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode="hybrid", fusion="rrf", **PLAIN_RRF)
    # dense order a b c d e (ranks 1..5), BM25 order e d c (ranks 1..3)
    ranks = {"a": (1, None), "b": (2, None), "c": (3, 3), "d": (4, 2), "e": (5, 1)}
    expected = {n: rrf(d, s, 60) for n, (d, s) in ranks.items()}
    assert names(hits) == sorted(expected, key=expected.get, reverse=True)
    assert [h.score for h in hits] == pytest.approx([expected[n] for n in names(hits)], rel=1e-5)
    # the RRF constant is honoured, and the prefetch depth limits the candidates
    k1 = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, fusion="rrf", rrf_k=1, weights=(1.0, 1.0))
    assert k1[0].score == pytest.approx(max(rrf(d, s, 1) for d, s in ranks.values()), rel=1e-5)
    shallow = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=1, prefetch_limit=1, **PLAIN_RRF)
    assert names(shallow) == ["a"]  # a (dense only) and e (BM25 only), both 1st: the dense one goes first
    # an empty sparse query (all stop words) falls back to the dense prefetch alone
    only_dense = store.query(dense=Q_DENSE, sparse=SparseVector([], []), limit=5, mode="hybrid")
    assert names(only_dense) == list("abcde")


def test_a_focus_prefetch_joins_the_fusion_with_its_own_filter(store: VectorStore) -> None:
    """``focus=(filter, weight)``: a third prefetch, BM25 among the points the filter holds, fused with its weight."""
    filled(store)
    recs = PointFilter.match("unit_type", "recommendation")
    hits = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, focus=(recs, 0.5), **PLAIN_RRF)
    ranks = {"a": (1, None), "b": (2, None), "c": (3, 3), "d": (4, 2), "e": (5, 1)}
    expected = {n: rrf(d, s, 60) for n, (d, s) in ranks.items()}
    expected["c"] += 1 / (1 / 0.5 + 60 - 1)  # c is the only recommendation: 1st of the third prefetch
    assert names(hits) == sorted(expected, key=expected.get, reverse=True)
    assert [h.score for h in hits] == pytest.approx([expected[n] for n in names(hits)], rel=1e-5)
    # the query's filter applies in the third prefetch too: doc2 holds no recommendation, so nothing is added
    doc2 = PointFilter.match("doc_id", "doc2")
    plain = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, flt=doc2, **PLAIN_RRF)
    focused = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, flt=doc2, focus=(recs, 0.5), **PLAIN_RRF)
    assert [(h.id, h.score) for h in focused] == [(h.id, h.score) for h in plain]


def test_rrf_ties_are_broken_towards_bm25(store: VectorStore) -> None:
    """x is 1st by dense and 2nd by BM25, y the reverse: equal plain RRF, y first on every backend."""
    store.create(DIM, {})
    pts = {
        "x": (_unit_vec((0, 1.0)), SparseVector([1], [0.5])),
        "y": (_unit_vec((0, 1.0), (1, 0.5)), SparseVector([1], [2.0])),
        "z": (_unit_vec((2, 1.0)), SparseVector([9], [1.0])),
    }
    store.upsert([PointRecord(id=_uid(n), payload={"name": n}, dense=d, sparse=sp) for n, (d, sp) in pts.items()])
    hits = store.query(dense=_unit_vec((0, 1.0)), sparse=SparseVector([1], [1.0]), limit=3, **PLAIN_RRF)
    assert [h.payload["name"] for h in hits] == ["y", "x", "z"]
    assert hits[0].score == pytest.approx(rrf(2, 1, 60), rel=1e-6)
    assert hits[0].score - hits[1].score == pytest.approx(rrf(2, 1, 60) - rrf(1, 2, 60), rel=0.05)
    assert 0 < hits[0].score - hits[1].score < 1e-6  # a tie-break, not a re-weighting


def test_rrf_and_dbsf_differ_on_score_scale(store: VectorStore) -> None:
    """DBSF fuses normalised scores, RRF only ranks: a sparse outlier wins under DBSF only."""
    store.create(DIM, {})
    p = {
        "p1": (_unit_vec((0, 1.0)), SparseVector([1, 2], [0.1, 5.0])),
        "p2": (_unit_vec((0, 0.998), (2, 0.063)), SparseVector([1], [10.0])),
        "p3": (_unit_vec((0, 0.999), (1, 0.045)), SparseVector([2], [5.0])),
    }
    for i in range(6):
        p[f"f{i}"] = (_unit_vec((0, -0.5), (3 + i % 5, 1.0)), SparseVector([1, 50 + i], [0.05, 1.0]))
    store.upsert([PointRecord(id=_uid(n), payload={"name": n}, dense=d, sparse=s) for n, (d, s) in p.items()])
    q = dict(dense=_unit_vec((0, 1.0)), sparse=SparseVector([1], [1.0]), limit=3)
    rrf = store.query(**q, fusion="rrf", **PLAIN_RRF)  # type: ignore[arg-type]
    dbsf = store.query(**q, fusion="dbsf")  # type: ignore[arg-type]
    assert rrf[0].payload["name"] == "p1"  # first by dense, second by sparse
    assert dbsf[0].payload["name"] == "p2"  # its sparse score dwarfs the rest
    assert 1.0 < dbsf[0].score <= 2.0 and rrf[0].score < 0.05


def test_filters_apply_in_prefetch_and_at_top_level(store: VectorStore) -> None:
    filled(store)

    def run(flt: SearchFilter, mode: str = "hybrid") -> list[str]:
        return names(store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode=mode, flt=flt.to_point_filter()))  # type: ignore[arg-type]

    assert sorted(run(SearchFilter(doc_ids=["doc2"]))) == ["d", "e"]
    assert sorted(run(SearchFilter(doc_names=["name-doc1"]))) == ["a", "b", "c"]
    assert sorted(run(SearchFilter(unit_types=["table_row"]))) == ["b", "d"]
    assert sorted(run(SearchFilter(grades=["A"]))) == ["b", "d"]
    # page ranges match any page of a unit: b covers 2-3, e covers 5-6
    assert sorted(run(SearchFilter(page_from=3, page_to=4))) == ["b", "c"]
    assert sorted(run(SearchFilter(page_from=6))) == ["e"]
    assert sorted(run(SearchFilter(page_to=1))) == ["a", "d"]
    assert run(SearchFilter(doc_ids=["doc1"], unit_types=["flow_path"])) == []
    # filters restrict every mode, not only the fused result
    assert run(SearchFilter(doc_ids=["doc1"]), mode="sparse") == ["c"]
    assert run(SearchFilter(doc_ids=["doc2"]), mode="dense") == ["d", "e"]
    assert store.count(SearchFilter(doc_ids=["doc1", "doc2"], grades=["A", "B"]).to_point_filter()) == 3


def test_internal_filters_with_must_not_and_ids(store: VectorStore) -> None:
    filled(store)
    flt = PointFilter(must=(Match("source", ("/data/doc1.pdf",)),), must_not=(Match("doc_id", ("doc2",)),))
    assert store.count(flt) == 3
    assert store.count(PointFilter(must=(HasId((_uid("a"), _uid("e"))),))) == 2
    assert store.count(PointFilter(must_not=(Match("unit_type", ("section", "table_row")),))) == 2


async def test_async_query_matches_sync(store: VectorStore) -> None:
    filled(store)
    sync = store.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5)
    asynced = await store.aquery(dense=Q_DENSE, sparse=Q_SPARSE, limit=5)
    assert names(asynced) == names(sync)


@pytest.mark.integration
def test_backends_agree(tmp_path: Path) -> None:
    """Congruence: the embedded engine and qdrant-client return the same rankings and scores."""
    results = []
    for kind in ("edge", "memory"):
        s = filled(make_store(kind, tmp_path / kind))
        got = []
        for mode in ("dense", "sparse", "hybrid"):
            for fusion in ("rrf", "dbsf"):
                hits = s.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5, mode=mode, fusion=fusion)  # type: ignore[arg-type]
                got.append([(NAME[h.id], round(h.score, 5)) for h in hits])
        results.append(got)
        s.close()
    assert results[0] == results[1]


# ---------------------------------------------------------------------------------------------
# embedded backend only: persistence, locking, payload indexes
# ---------------------------------------------------------------------------------------------


@pytest.mark.integration
def test_edge_data_survives_reopen(tmp_path: Path) -> None:
    s = filled(EdgeStore(tmp_path / "edge"))
    s.close()
    again = EdgeStore(tmp_path / "edge")
    assert again.exists() and again.count() == 5 and again.metadata()["owner"] == "contract-test"
    assert names(again.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=2, mode="dense")) == ["a", "b"]
    again.close()


@pytest.mark.integration
def test_edge_data_survives_a_crash_without_flush(tmp_path: Path) -> None:
    """Writes are in the WAL when update() returns: a process killed before flush loses nothing."""
    folder = tmp_path / "edge"
    first = EdgeStore(folder)
    first.create(DIM, {})
    first.close()
    code = (
        "import os, sys, uuid\n"
        "from structaware_retrievers.store import EdgeStore, PointRecord\n"
        "from structaware_retrievers.encoders import SparseVector\n"
        "s = EdgeStore(sys.argv[1])\n"
        "s.upsert([PointRecord(id=str(uuid.uuid5(uuid.NAMESPACE_URL, str(i))), payload={'doc_id': 'x'},"
        " dense=[1.0] + [0.0] * 7, sparse=SparseVector([i], [1.0])) for i in range(10)])\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(folder)], check=True)
    s = EdgeStore(folder)
    assert s.count() == 10
    s.close()


@pytest.mark.integration
def test_edge_folder_is_shared_with_other_processes_in_turns(tmp_path: Path) -> None:
    folder = tmp_path / "edge"
    s = filled(EdgeStore(folder))
    code = (
        "import sys\nfrom structaware_readers.errors import StoreError\n"
        "from structaware_retrievers.store import EdgeStore\n"
        "try:\n    print('COUNT', EdgeStore(sys.argv[1]).count())\nexcept StoreError as e:\n    print('LOCKED', e)\n"
    )
    env = {**os.environ, "STRUCTAWARE_LOCK_TIMEOUT": "1"}  # the other process waits 1 s, then says why
    with s.hold():  # busy (a write transaction): the other process waits, then names this one
        out = subprocess.run(
            [sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True, env=env
        )
    assert "LOCKED" in out.stdout and "another process" in out.stdout and f"pid {os.getpid()}" in out.stdout
    # idle with the shard open: this process lets the other one in (its watcher thread parks the shard)
    assert s.count() == 5
    env = {**os.environ, "STRUCTAWARE_LOCK_TIMEOUT": "120"}  # a hang guard only
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.split() == ["COUNT", "5"], out
    # within one process, handles share the open shard
    second = EdgeStore(folder)
    assert second.count() == 5
    second.close()
    assert s.count() == 5  # the first handle still works (reopening the parked shard)
    s.close()
    out = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, check=True)
    assert "LOCKED" not in out.stdout  # released by the last close()


@pytest.mark.integration
def test_edge_payload_indexes_and_optimize(tmp_path: Path) -> None:
    s = filled(EdgeStore(tmp_path / "edge"))
    with s._using() as shard:  # checking the engine state itself
        schema = shard.info().payload_schema
    assert {k: str(v.data_type).split(".")[-1].lower() for k, v in schema.items()} == PAYLOAD_INDEXES
    # HNSW sub-graphs only where filters keep much of a library; integer fields match exactly and by range
    assert (
        {k for k, v in schema.items() if v.params.enable_hnsw}
        == set(HNSW_FILTER_FIELDS)
        == {"unit_type", "grade_label"}
    )
    assert all(v.params.lookup and v.params.range for k, v in schema.items() if PAYLOAD_INDEXES[k] == "integer")
    s.delete(PointFilter.match("doc_id", "doc2"))
    s.optimize()
    assert s.count() == 3
    assert sorted(names(s.query(dense=Q_DENSE, sparse=Q_SPARSE, limit=5))) == ["a", "b", "c"]
    s.close()


def test_client_store_needs_exactly_one_target() -> None:
    with pytest.raises(StoreError, match="exactly one"):
        ClientStore("x")
    with pytest.raises(StoreError, match="exactly one"):
        ClientStore("x", url="http://localhost:6333", location=":memory:")


@pytest.mark.integration
def test_edge_recovers_from_a_shard_left_without_metadata(tmp_path: Path) -> None:
    """A crash between shard creation and writing collection.json must not block the folder."""
    s = filled(EdgeStore(tmp_path / "edge"))
    s.close()
    (tmp_path / "edge" / "collection.json").unlink()
    again = EdgeStore(tmp_path / "edge")
    assert not again.exists()
    again.create(DIM, {"v": 2})
    assert again.count() == 0 and again.metadata() == {"v": 2}
    again.close()


def test_client_payload_indexes_build_sub_graphs_only_for_type_and_grade() -> None:
    from structaware_retrievers.store.client import field_index_params

    made = {k: field_index_params(k, v) for k, v in PAYLOAD_INDEXES.items()}
    assert {k for k, p in made.items() if p.enable_hnsw} == {"unit_type", "grade_label"}
    assert {k: str(p.type.value) for k, p in made.items()} == PAYLOAD_INDEXES
    assert all(p.lookup and p.range for p in made.values() if str(p.type.value) == "integer")


@pytest.mark.skipif(
    not os.environ.get("QDRANT_URL"), reason="needs a Qdrant server: set QDRANT_URL (and QDRANT_API_KEY)"
)
def test_server_payload_indexes_as_created() -> None:
    s = filled(make_store("server", Path()))
    assert isinstance(s, ClientStore)
    try:
        schema = s.client.get_collection(s.collection).payload_schema
        assert {k: str(v.data_type.value) for k, v in schema.items()} == PAYLOAD_INDEXES
        assert {k for k, v in schema.items() if v.params.enable_hnsw} == set(HNSW_FILTER_FIELDS)
    finally:
        s.client.delete_collection(s.collection)
