"""StructureIndex end to end with the real default encoders and the embedded Qdrant engine.

Units come from the real MinerU 4.0.12 output of the synthetic English guideline (read with the
package's own loader and unit builder); a subset keeps the dense model's work small.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from structaware_readers.errors import (
    EmptyDocumentError,
    IndexNotFoundError,
    MalformedInputError,
    StoreError,
)
from structaware_readers.models import ParsedDocument, Unit, UnitType
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder, model_assets
from structaware_retrievers.encoders.dense import DEFAULT_PRESET
from structaware_retrievers.index.structure_index import (
    IngestError,
    SearchHit,
    StructureIndex,
    expand_inputs,
)
from structaware_retrievers.query.filters import PointFilter, SearchFilter

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
MINERU = SHARED / "fixtures" / "mineru"
EN = MINERU / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
TINY = MINERU / "mineru-4.0.12_flash-tier_tiny_heading_table"

pytestmark = [
    pytest.mark.skipif(not EN.is_dir(), reason=f"shared fixtures not found at {MINERU}"),
    pytest.mark.usefixtures("offline_env"),
]


@pytest.fixture(scope="module")
def en_doc() -> tuple[ParsedDocument, list[Unit]]:
    """Every unit of the English guideline: sections, graded recommendations, the flowchart figure
    and the 60-row table whose rows differ only in the age band and the grade."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    doc = load_document(EN)
    units = build_units(doc)
    assert sum(u.unit_type == UnitType.TABLE_ROW for u in units) >= 50
    return doc, units


@pytest.fixture(scope="module")
def encoders() -> tuple[DenseEncoder, SparseEncoder]:
    """Encoders shared by the module, with one in-memory cache so each text is embedded once.
    (Tests that count embedding calls build their own encoders.)"""
    cache = EmbeddingCache()
    return DenseEncoder(cache=cache), SparseEncoder(cache=cache)


@pytest.fixture
def index(tmp_path: Path, encoders: tuple[DenseEncoder, SparseEncoder]) -> Iterator[StructureIndex]:
    ix = StructureIndex(tmp_path / "ix", dense=encoders[0], sparse=encoders[1])
    yield ix
    ix.close()


@pytest.fixture
def filled(index: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]]) -> StructureIndex:
    index.add_document(*en_doc)
    return index


def filled_units(ix: StructureIndex) -> list[Unit]:
    return [Unit.from_payload(r.payload) for r in ix.store.scroll()]


def _text(hit: SearchHit) -> str:
    return hit.unit.text


def _variant(doc: ParsedDocument, units: list[Unit], *, doc_id: str | None = None) -> tuple[ParsedDocument, list[Unit]]:
    """The same document under another doc_id (a changed file at the same path)."""
    from structaware_readers.ids import unit_id

    new_id = doc_id or "f" * 16
    new_units = [
        u.model_copy(update={"doc_id": new_id, "unit_id": unit_id(new_id, u.unit_type.value, u.ordinal, u.element_ids)})
        for u in units
    ]
    return doc.model_copy(update={"doc_id": new_id}), new_units


# ---------------------------------------------------------------------------------------------
# retrieval quality on real fixture units
# ---------------------------------------------------------------------------------------------


def test_table_value_question_returns_that_row_first(filled: StructureIndex) -> None:
    """60 rows differ only in the age band and grade: the number in the question must decide.

    BM25 ranks the right row first by a wide margin (``57``/``59`` occur in no other unit). The
    English MiniLM model is number-blind, so under RRF the row wins only because it also sits near
    the top of the dense list on this document; the sparse assertion is the robust one."""
    for q in ("What is the grade for adults 57-59 y?", "clinic target for adults 57-59 y"):
        top = filled.query(q, k=3)
        assert "Adults 57-59 y" in _text(top[0]), (q, [_text(h)[:30] for h in top])
        assert "Adults 57-59 y" in _text(filled.query(q, k=1, mode="sparse")[0])
    hits = filled.query(
        "What is the grade for adults 57-59 y?", k=5, group_size=1, min_score=0
    )  # every row its own hit
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    fused = filled.query("What is the grade for adults 57-59 y?", k=5, group_size=1, rerank=False, min_score=0)
    assert all(a.score >= b.score for a, b in zip(fused, fused[1:]))  # the fused order is the scores' order
    # the second stage re-orders those five hits and keeps each one's score
    assert {h.unit.unit_id: h.score for h in hits} == {h.unit.unit_id: h.score for h in fused}
    # the hit carries the full unit with provenance
    row = hits[0].unit
    assert row.table is not None and row.table.headers[:2] == ["Population", "Clinic target"]
    assert row.pages and row.element_ids and row.grade is not None and row.grade.grade == "B"


def test_recommendation_question_and_filters(filled: StructureIndex) -> None:
    q = "measure blood pressure in both arms"
    for mode in ("hybrid", "dense", "sparse"):
        assert "Recommendation 1.1" in _text(filled.query(q, k=3, mode=mode)[0]), mode  # type: ignore[arg-type]
    assert "Recommendation 1.1" in _text(filled.query(q, k=3, fusion="dbsf")[0])
    q = "Should ambulatory blood pressure monitoring be offered to confirm the diagnosis?"
    assert "Recommendation 2.1" in _text(filled.query(q, k=3, mode="sparse")[0])

    # the filters, every hit kept (no table row answers the question: at the default bar none is returned)
    assert filled.query(q, k=20, filter=SearchFilter(unit_types=["table_row"])) == []
    rows_only = filled.query(q, k=20, filter=SearchFilter(unit_types=["table_row"]), min_score=0)
    assert rows_only and all(h.unit.unit_type == UnitType.TABLE_ROW for h in rows_only)
    graded_c = filled.query("blood pressure target", k=20, filter=SearchFilter(grades=["C"]), min_score=0)
    assert graded_c and all(h.unit.grade and h.unit.grade.grade == "C" for h in graded_c)
    page2 = filled.query(q, k=20, filter=SearchFilter(page_from=2, page_to=2), min_score=0)
    assert page2 and all(2 in h.unit.pages for h in page2)
    assert filled.query(q, filter=SearchFilter(doc_ids=["0" * 16])) == []
    rows = sum(u.unit_type == UnitType.TABLE_ROW for u in filled_units(filled))
    assert filled.count(SearchFilter(unit_types=["table_row"])) == rows


async def test_aquery_matches_query(filled: StructureIndex) -> None:
    q = "measure blood pressure in both arms"
    sync = filled.query(q, k=4)
    asynced = await filled.aquery(q, k=4, filter=SearchFilter(unit_types=["recommendation"]))
    assert asynced[0].unit.unit_id == sync[0].unit.unit_id
    assert all(h.unit.unit_type == UnitType.RECOMMENDATION for h in asynced)


def test_a_misspelt_filter_field_is_an_error_not_an_empty_filter() -> None:
    with pytest.raises(MalformedInputError) as err:
        SearchFilter(unit_type=["table_row"])  # unit_types
    assert err.value.field == "SearchFilter.unit_type" and "'unit_types'" in str(err.value)


def test_query_argument_errors(filled: StructureIndex) -> None:
    for kwargs, field in (
        (dict(k=0), "k"),
        (dict(mode="bm25"), "mode"),
        (dict(fusion="max"), "fusion"),
        (dict(rrf_k=0), "rrf_k"),
        (dict(prefetch_limit=0), "prefetch_limit"),
    ):
        with pytest.raises(MalformedInputError, match=field):
            filled.query("blood pressure", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(MalformedInputError, match="empty"):
        filled.query("   ")
    # only stop words: no BM25 terms, so hybrid mode answers with the dense search (case 17), and a
    # BM25-only search says it has nothing to search instead of answering with dense hits (issue 27)
    dense_only = [h.unit.unit_id for h in filled.query("the and of", k=3, mode="dense", min_score=0)]
    assert len(dense_only) == 3
    assert [h.unit.unit_id for h in filled.query("the and of", k=3, min_score=0)] == dense_only
    assert filled.query("the and of", k=3) == []  # a question of stop words answers nothing
    with pytest.raises(MalformedInputError, match="no BM25 term") as err:
        filled.query("the and of", k=3, mode="sparse")
    assert err.value.field == "text"
    assert filled.query("blood pressure", k=3, mode="sparse")  # a question with terms still answers
    assert len(filled.query("的了", k=2, min_score=0)) == 2  # Chinese stop words only, hybrid mode: no error either


# ---------------------------------------------------------------------------------------------
# idempotent, cached, atomic writes
# ---------------------------------------------------------------------------------------------


def test_reingesting_an_unchanged_document_embeds_nothing(
    tmp_path: Path, en_doc: tuple[ParsedDocument, list[Unit]]
) -> None:
    doc, all_units = en_doc
    units = [u for u in all_units if u.unit_type == UnitType.TABLE_ROW][:6]  # few: this test embeds for real
    dense = DenseEncoder()
    ix = StructureIndex(tmp_path / "ix", dense=dense)
    first = ix.add_document(doc, units)
    assert first.written == len(units) and first.embedded == len(units) and not first.skipped
    computed = dense.computed

    again = ix.add_document(doc, units)
    assert again.skipped and again.written == 0 and dense.computed == computed
    assert ix.count() == len(units)

    assert ix.delete_document(doc.doc_id) == len(units)
    back = ix.add_document(doc, units)  # not skipped (the points were gone) but served by the cache
    assert back.written == len(units) and back.embedded == 0 and dense.computed == computed
    ix.close()

    dense2 = DenseEncoder()  # a new process would start like this: the cache is on disk
    ix2 = StructureIndex(tmp_path / "ix", dense=dense2)
    ix2.delete_document(doc.doc_id)
    assert ix2.add_document(doc, units).embedded == 0 and dense2.computed == 0
    assert (tmp_path / "ix" / "embeddings.sqlite").is_file()
    ix2.close()


def test_changed_units_replace_stale_points(filled: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]]) -> None:
    doc, units = en_doc
    before = filled.dense.computed
    changed = [u.model_copy(update={"text": u.text + " (amended)"}) if i == 0 else u for i, u in enumerate(units[:-2])]
    rep = filled.add_document(doc, changed)
    assert rep.removed_stale == 2 and rep.written == len(units) - 2
    assert rep.embedded == 1 and filled.dense.computed == before + 1  # only the amended text
    assert filled.count() == len(units) - 2
    assert {d["units"] for d in filled.documents()} == {len(units) - 2}


def test_new_version_of_a_source_file_replaces_its_old_units(
    filled: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]]
) -> None:
    doc, units = en_doc
    other = doc.model_copy(update={"doc_id": "1" * 16, "source": "/elsewhere/other.pdf", "name": "other"})
    _, other_units = _variant(doc, units[:3], doc_id="1" * 16)
    other_units = [u.model_copy(update={"source": other.source, "doc_name": "other"}) for u in other_units]
    filled.add_document(other, other_units)

    v2, v2_units = _variant(doc, units)
    rep = filled.add_document(v2, v2_units)
    assert rep.removed_old_versions == len(units) and rep.removed_stale == 0
    docs = {d["doc_id"]: d for d in filled.documents()}
    assert set(docs) == {v2.doc_id, other.doc_id}  # the old version is gone, the other file untouched
    assert docs[v2.doc_id]["units"] == len(units) and docs[other.doc_id]["units"] == 3
    assert docs[v2.doc_id]["source"] == doc.source


def test_embedding_failure_writes_nothing(
    index: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, units = en_doc

    def boom(texts: list[str]) -> list:
        raise RuntimeError("encoder crashed")

    sparse = SparseEncoder()
    monkeypatch.setattr(sparse, "_compute", boom)
    ix = StructureIndex(index.path, dense=index.dense, sparse=sparse)
    with pytest.raises(RuntimeError, match="encoder crashed"):
        ix.add_document(doc, units)
    assert not ix.store.exists() and ix.count() == 0
    assert not ix.store.folder.exists()  # the shard prepared aside meanwhile is gone too
    ix.close()


def test_a_new_collection_is_prepared_aside_then_moved_in_place(
    index: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]]
) -> None:
    from structaware_retrievers.store.base import PAYLOAD_INDEXES
    from structaware_retrievers.store.edge import EdgeStore

    index.add_document(*en_doc)
    folder = index.store.folder
    assert sorted(p.name for p in folder.iterdir()) == ["collection.json", "shard"]  # nothing staged is left
    fresh = EdgeStore(folder)  # checks the shard's payload schema itself
    assert fresh.ensure_payload_indexes() == [] and len(PAYLOAD_INDEXES) >= 9
    assert index.count() == len(en_doc[1])
    fresh.close()


def test_write_failure_rolls_back_this_document_only(
    filled: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, units = en_doc
    other = doc.model_copy(update={"doc_id": "2" * 16, "source": "/elsewhere/b.pdf", "name": "b"})
    _, other_units = _variant(doc, units[:2], doc_id="2" * 16)
    other_units = [u.model_copy(update={"source": other.source}) for u in other_units]
    filled.add_document(other, other_units)

    def snapshot() -> dict[str, dict]:
        return {r.id: r.payload for r in filled.store.scroll()}

    before = snapshot()
    store = filled.store
    real_commit = store.delete_payload
    calls = {"n": 0}

    def flaky_commit(ids: list[str], keys: list[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError("disk full")
        real_commit(ids, keys)

    monkeypatch.setattr(store, "delete_payload", flaky_commit)
    # 3 units dropped (stale), 2 changed, the rest rewritten unchanged
    changed = [u.model_copy(update={"text": "CHANGED " + u.text}) if i < 2 else u for i, u in enumerate(units[3:])]
    with pytest.raises(StoreError, match="rolled back"):
        filled.add_document(doc, changed)
    assert snapshot() == before  # every point of this document restored, the other document untouched
    assert all("CHANGED" not in _text(h) for h in filled.query("changed", k=5, mode="sparse"))
    assert calls["n"] == 2  # the failed commit, then the rollback's unhiding of the replaced points
    assert filled.store.count(PointFilter(include_hidden=True)) == len(before)  # nothing hidden left behind


def test_failed_cleanup_after_commit_is_finished_by_the_next_write(
    filled: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]], monkeypatch: pytest.MonkeyPatch
) -> None:
    doc, units = en_doc
    store = filled.store
    real_delete = store.delete_ids
    monkeypatch.setattr(store, "delete_ids", lambda ids: (_ for _ in ()).throw(OSError("disk full")))
    filled.add_document(doc, units[3:])  # committed; removing the 3 stale points failed
    assert filled.count() == len(units) - 3  # the stale points are hidden already
    assert store.count(PointFilter(include_hidden=True)) == len(units)
    monkeypatch.setattr(store, "delete_ids", real_delete)
    filled.delete_document("0" * 16)  # any write repairs first
    assert store.count(PointFilter(include_hidden=True)) == len(units) - 3


# ---------------------------------------------------------------------------------------------
# missing / empty / mismatched indexes, validation
# ---------------------------------------------------------------------------------------------


def test_missing_and_empty_index_raise_index_not_found(
    tmp_path: Path, encoders: tuple[DenseEncoder, SparseEncoder], en_doc: tuple[ParsedDocument, list[Unit]]
) -> None:
    ix = StructureIndex(tmp_path / "nothing-here", dense=encoders[0], sparse=encoders[1])
    with pytest.raises(IndexNotFoundError, match="ingest"):
        ix.query("blood pressure")
    assert not (tmp_path / "nothing-here").exists()  # opening and querying create nothing
    assert ix.count() == 0 and ix.documents() == [] and ix.delete_document("x") == 0

    doc, units = en_doc
    ix.add_document(doc, units[:2])
    ix.delete_document(doc.doc_id)
    with pytest.raises(IndexNotFoundError, match="empty"):
        ix.query("blood pressure")
    ix.close()


def test_default_path_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STRUCTAWARE_INDEX", str(tmp_path / "env-index"))
    ix = StructureIndex()
    assert ix.path == tmp_path / "env-index"
    monkeypatch.delenv("STRUCTAWARE_INDEX")
    assert StructureIndex().path == Path(".structaware") / "index"


def test_index_config_is_written_and_mismatched_encoders_are_refused(filled: StructureIndex, tmp_path: Path) -> None:
    cfg = json.loads((tmp_path / "ix" / "structaware" / "collection.json").read_text())["metadata"]
    assert cfg["dense"] == {"model_name": DEFAULT_PRESET, "model_id": filled.dense.model_id, "dim": 384 + 512}
    assert cfg["sparse"]["model_id"] == filled.sparse.model_id and cfg["schema_version"] == "1"
    filled.close()

    with pytest.raises(StoreError, match="Fix: open it with a SparseEncoder"):
        StructureIndex(tmp_path / "ix", dense=filled.dense, sparse=SparseEncoder(k1=2.0))
    local = DenseEncoder(model_path=model_assets.default_model_dir())
    with pytest.raises(StoreError, match=re.escape(f"built with dense model '{DEFAULT_PRESET}'")) as err:
        StructureIndex(tmp_path / "ix", dense=local, sparse=filled.sparse)
    assert err.value.field == "dense.model_id"
    again = StructureIndex(tmp_path / "ix", dense=filled.dense, sparse=filled.sparse)
    assert again.count() > 0
    again.close()


def test_add_document_validates_units(index: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]]) -> None:
    doc, units = en_doc
    with pytest.raises(EmptyDocumentError, match="no units"):
        index.add_document(doc, [])
    foreign = units[0].model_copy(update={"doc_id": "0" * 16})
    with pytest.raises(MalformedInputError, match="doc_id"):
        index.add_document(doc, [foreign])
    with pytest.raises(MalformedInputError, match="duplicate"):
        index.add_document(doc, [units[0], units[0]])
    assert not index.store.exists()


def test_index_reopens_with_the_same_results(filled: StructureIndex, tmp_path: Path) -> None:
    q = "grade for adults 63-65 y"

    def ranked(ix: StructureIndex) -> list[tuple[float, str]]:  # equal scores may come in any order
        return sorted((-round(h.score, 6), h.unit.unit_id) for h in ix.query(q, k=5, min_score=0))

    before = ranked(filled)
    assert len(before) == 5
    filled.close()
    again = StructureIndex(tmp_path / "ix", dense=filled.dense, sparse=filled.sparse)
    assert ranked(again) == before
    again.close()


def test_qdrant_client_backend_in_memory(
    encoders: tuple[DenseEncoder, SparseEncoder], en_doc: tuple[ParsedDocument, list[Unit]], tmp_path: Path
) -> None:
    from qdrant_client import QdrantClient

    client = QdrantClient(":memory:")
    ix = StructureIndex(tmp_path / "cache-only", client=client, dense=encoders[0], sparse=encoders[1])
    ix.add_document(*en_doc)
    hits = ix.query("What is the grade for adults 57-59 y?", k=3)
    assert "Adults 57-59 y" in _text(hits[0])
    assert client.get_collection("structaware").config.metadata["dense"]["dim"] == encoders[0].dim == 896
    ix.close()
    with pytest.raises(StoreError, match="sparse"):
        StructureIndex(client=client, dense=encoders[0], sparse=SparseEncoder(b=0.5))
    with pytest.raises(StoreError, match="not both"):
        StructureIndex(url="http://localhost:6333", client=client)


# ---------------------------------------------------------------------------------------------
# ingest from paths
# ---------------------------------------------------------------------------------------------


def test_ingest_reads_builds_and_reports_failures(tmp_path: Path, encoders: tuple[DenseEncoder, SparseEncoder]) -> None:
    ix = StructureIndex(tmp_path / "ix", dense=encoders[0], sparse=encoders[1])
    missing = tmp_path / "missing.pdf"
    summary = ix.ingest([TINY, missing], progress=True)
    assert summary.documents == 1 and summary.units == ix.count() > 0 and summary.skipped_unchanged == 0
    assert [f.path for f in summary.failed] == [str(missing)]
    assert summary.failed[0].error_type == "InputNotFoundError"
    assert summary.seconds >= summary.embedding_seconds > 0
    with pytest.raises(IngestError, match=r"missing\.pdf"):
        summary.raise_for_errors()
    (doc,) = ix.documents()
    assert doc["doc_name"] == TINY.name and doc["source"] == str(TINY.resolve()) and doc["units"] == summary.units

    again = ix.ingest([TINY])
    assert again.ok and again.documents == 0 and again.skipped_unchanged == 1 and again.embedding_seconds == 0
    hit = ix.query("Which population has a clinic BP target of < 150/90 mmHg?", k=1, mode="sparse")[0]
    assert hit.unit.unit_type == UnitType.TABLE_ROW and "Age >= 80" in hit.unit.text
    ix.close()


def test_ingest_skips_an_indexed_pdf_without_parsing_it(
    filled: StructureIndex, en_doc: tuple[ParsedDocument, list[Unit]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Running MinerU again on an unchanged PDF would take minutes: its hash is looked up first."""
    from structaware_readers.ids import doc_id_from_file
    from structaware_readers.load import loader

    pdf = SHARED / "fixtures" / "pdf" / "synthetic_guideline_en.pdf"
    if not pdf.is_file():
        pytest.skip(f"{pdf} not found")
    doc, units = en_doc
    as_pdf, pdf_units = _variant(doc, units[:3], doc_id=doc_id_from_file(pdf))
    as_pdf = as_pdf.model_copy(update={"source": str(pdf)})
    pdf_units = [u.model_copy(update={"source": str(pdf)}) for u in pdf_units]
    filled.add_document(as_pdf, pdf_units)

    def no_parsing(*args: object, **kwargs: object) -> None:
        raise AssertionError("the PDF was parsed again")

    monkeypatch.setattr(loader, "load_document", no_parsing)
    summary = filled.ingest([pdf])
    assert summary.ok and summary.skipped_unchanged == 1 and summary.documents == 0
    assert summary.reports[0].doc_id == as_pdf.doc_id and summary.reports[0].units == 3
    # parsing is forced: here it fails, and is reported (read on this thread: a parse worker would
    # run the real load_document in its own process)
    forced = filled.ingest([pdf], reparse=True, overlap=False)
    assert forced.failed and "parsed again" in forced.failed[0].message


def test_expand_inputs(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "a" / "auto").mkdir(parents=True)
    (root / "a" / "auto" / "a_content_list.json").write_text("[]")
    (root / "a" / "auto" / "a_middle.json").write_text("{}")
    (root / "a.pdf").write_bytes(b"%PDF-1.7")  # its MinerU output is under a/: not indexed twice
    (root / "b.pdf").write_bytes(b"%PDF-1.7")
    (root / "sub").mkdir()
    (root / "sub" / "elements.json").write_text("[]")
    (root / "sub" / "notes.txt").write_text("x")
    (root / ".structaware").mkdir()
    (root / ".structaware" / "x.json").write_text("{}")
    got = expand_inputs([root, root / "b.pdf", tmp_path / "nope.pdf"])  # b.pdf twice: listed once
    assert got == [root / "a" / "auto", root / "b.pdf", root / "sub" / "elements.json", tmp_path / "nope.pdf"]
    assert expand_inputs([EN]) == [EN]  # a MinerU output folder is one document


@pytest.mark.skipif(
    not os.environ.get("QDRANT_URL"), reason="needs a Qdrant server: set QDRANT_URL (and QDRANT_API_KEY)"
)
async def test_server_index_roundtrip(
    encoders: tuple[DenseEncoder, SparseEncoder], en_doc: tuple[ParsedDocument, list[Unit]], tmp_path: Path
) -> None:
    """The same front class over a real server: config in collection metadata, async search."""
    import uuid

    collection = f"structaware-test-{uuid.uuid4().hex[:8]}"
    ix = StructureIndex(
        tmp_path, url=os.environ["QDRANT_URL"], api_key=os.environ.get("QDRANT_API_KEY"), collection=collection,
        dense=encoders[0], sparse=encoders[1],
    )  # fmt: skip
    try:
        ix.add_document(*en_doc)
        hits = await ix.aquery("What is the grade for adults 57-59 y?", k=3, mode="sparse")
        assert "Adults 57-59 y" in _text(hits[0])
        assert ix.store.metadata()["dense"]["dim"] == encoders[0].dim
    finally:
        ix.store.client.delete_collection(collection)  # type: ignore[attr-defined]
        ix.close()
