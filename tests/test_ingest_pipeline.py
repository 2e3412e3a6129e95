"""``StructureIndex.ingest``: skip unchanged inputs of every kind before parsing, re-embed only
changed units, parse the next document while the current one embeds (same result as sequential).

Real components throughout: the package readers on real MinerU / Unstructured outputs, the
default dense model, a Qdrant Edge index in a temporary folder.
"""

from __future__ import annotations

import json
import shutil
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from structaware_readers.load import loader
from structaware_readers.units import UnitOptions, build_units
from structaware_retrievers.encoders import DenseEncoder, SparseEncoder
from structaware_retrievers.index.ledger import input_fingerprint
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.filters import SearchFilter

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
ELEMENTS = FIXTURES / "unstructured" / "generated" / "sample.md.json"


pytestmark = pytest.mark.usefixtures("offline_env")


@pytest.fixture(scope="module")
def dense() -> DenseEncoder:
    return DenseEncoder()


def _content_list(**changes: str) -> list[dict[str, Any]]:
    """The tiny fixture's content list with some block texts replaced (index -> text)."""
    blocks = json.loads((TINY / "content_list.rendered.json").read_text(encoding="utf-8"))
    for i, text in changes.items():
        blocks[int(i[1:])]["text"] = text
    return blocks


def _write(path: Path, blocks: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps(blocks), encoding="utf-8")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A folder with one input of each kind: MinerU output folder, MinerU zip, MinerU JSON file,
    Unstructured elements JSON."""
    root = tmp_path / "corpus"
    shutil.copytree(TINY, root / "a")
    with zipfile.ZipFile(root / "b.zip", "w") as z:
        z.writestr("b_content_list.json", json.dumps(_content_list(b0="1 Management of High Blood Pressure")))
    shutil.copyfile(ELEMENTS, root / "c.json")
    _write(root / "d.json", _content_list(b1="1.1 Targets for blood pressure"))
    return root


class ParseSpy:
    """Wraps ``loader.load_document``: records each parsed path and the thread that parsed it."""

    def __init__(self, real: Callable[..., Any]) -> None:
        self.real = real
        self.calls: list[tuple[str, str]] = []

    def __call__(self, path: Any, **kwargs: Any) -> Any:
        self.calls.append((Path(path).name, threading.current_thread().name))
        return self.real(path, **kwargs)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> ParseSpy:
    s = ParseSpy(loader.load_document)
    monkeypatch.setattr(loader, "load_document", s)
    return s


def _points(ix: StructureIndex) -> list[tuple[str, str]]:
    return sorted((r.id, json.dumps(r.payload, sort_keys=True)) for r in ix.store.scroll())


def test_unchanged_inputs_of_every_kind_are_skipped_before_parsing(
    tmp_path: Path, corpus: Path, dense: DenseEncoder, spy: ParseSpy
) -> None:
    with StructureIndex(tmp_path / "ix", dense=dense) as ix:
        first = ix.ingest([corpus])
        assert first.ok and first.documents == 4 and first.skipped_unchanged == 0
        assert sorted(spy.names) == ["a", "b.zip", "c.json", "d.json"]
        count = ix.count()

    spy.calls.clear()
    with StructureIndex(tmp_path / "ix", dense=dense) as ix:  # the ledger persists with the index
        again = ix.ingest([corpus])
        assert spy.calls == []  # nothing was read: skipped on the content hash alone
        assert again.ok and again.documents == 0 and again.skipped_unchanged == 4
        assert again.embedding_seconds == 0 and ix.count() == count
        assert [r.doc_id for r in again.reports] == [r.doc_id for r in first.reports]
        assert [r.doc_name for r in again.reports] == [r.doc_name for r in first.reports]
        assert all(r.skipped for r in again.reports)

        # a document deleted from the index is not trusted to the ledger: it is read again
        ix.delete_document(first.reports[0].doc_id)
        back = ix.ingest([corpus])
        assert spy.names == ["a"] and back.documents == 1 and back.skipped_unchanged == 3
        assert ix.count() == count

        # other unit options change the units: every input is read again
        spy.calls.clear()
        ix.ingest([corpus], unit_options=UnitOptions(include_context=False))
        assert sorted(spy.names) == ["a", "b.zip", "c.json", "d.json"]


def test_a_changed_input_is_parsed_again_and_re_embeds_only_changed_units(
    tmp_path: Path, corpus: Path, dense: DenseEncoder, spy: ParseSpy
) -> None:
    target = corpus / "d.json"
    with StructureIndex(tmp_path / "ix", dense=dense, sparse=SparseEncoder()) as ix:
        ix.ingest([corpus])
        old_texts = {u.embedding_text() for u in build_units(loader.load_document(target))}

        new_text = "Recommendation 1: Offer drug treatment to adults with stage 2 hypertension (strong, high-quality)."
        _write(target, _content_list(b1="1.1 Targets for blood pressure", b2=new_text))
        new_units = build_units(loader.load_document(target))
        changed = {u.embedding_text() for u in new_units} - old_texts
        assert 0 < len(changed) < len(new_units)  # the edit touches some units, not all

        spy.calls.clear()
        before = ix.dense.computed
        summary = ix.ingest([corpus])
        assert spy.names == ["d.json"]
        assert summary.documents == 1 and summary.skipped_unchanged == 3
        assert ix.dense.computed - before == len(changed)
        (report,) = [r for r in summary.reports if not r.skipped]
        assert report.embedded == len(changed) and report.removed_old_versions == len(new_units)
        only_d = SearchFilter(doc_ids=[report.doc_id])
        assert {u.unit_id for u in new_units} == {
            h.unit.unit_id for h in ix.query("blood", k=10, filter=only_d, group_size=1)
        }
        hit = ix.query("drug treatment stage 2 hypertension", k=1, mode="sparse", filter=only_d)[0]
        assert hit.unit.text == new_text.replace(" (strong, high-quality)", "")  # the grade goes to metadata


def test_parsing_ahead_gives_the_same_index_as_a_sequential_run(
    tmp_path: Path, corpus: Path, dense: DenseEncoder, spy: ParseSpy
) -> None:
    bad = corpus / "e_broken.json"
    bad.write_text("{not json", encoding="utf-8")
    results = {}
    for overlap in (False, True):
        spy.calls.clear()
        with StructureIndex(tmp_path / f"ix-{overlap}", dense=dense) as ix:
            summary = ix.ingest([corpus], overlap=overlap, progress=overlap)
            results[overlap] = (summary, _points(ix), list(spy.calls))
    (seq, seq_points, seq_calls), (par, par_points, par_calls) = results[False], results[True]
    assert par_points == seq_points and len(par_points) > 0
    assert (
        (par.documents, par.units, par.skipped_unchanged)
        == (seq.documents, seq.units, seq.skipped_unchanged)
        == (
            4,
            len(seq_points),
            0,
        )
    )
    assert [f.path for f in par.failed] == [f.path for f in seq.failed] == [str(bad)]
    assert [r.doc_id for r in par.reports] == [r.doc_id for r in seq.reports]
    # sequential: parsed on the caller's thread; overlapped: on the parse worker
    assert {t for _, t in seq_calls} == {threading.current_thread().name}
    assert {t for _, t in par_calls} == {"structaware-ingest-parse"}


def test_input_fingerprint_covers_content_names_and_settings(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    shutil.copytree(TINY, folder)
    base = input_fingerprint(folder, "s")
    assert input_fingerprint(folder, "s") == base and input_fingerprint(folder, "t") != base
    (folder / "markdown.md").write_text("changed", encoding="utf-8")
    changed = input_fingerprint(folder, "s")
    assert changed != base
    (folder / "markdown.md").rename(folder / "renamed.md")
    assert input_fingerprint(folder, "s") not in (base, changed)
    one = folder / "structured_content.json"
    assert input_fingerprint(one) == input_fingerprint(one) != input_fingerprint(folder / "middle_json.json")


def test_an_embedding_cache_that_cannot_be_opened_fails_each_input_and_writes_nothing(
    tmp_path: Path, dense: DenseEncoder
) -> None:
    # the cache is opened while the first input parses; its failure is still reported per input, by name
    (tmp_path / "ix" / "embeddings.sqlite").mkdir(parents=True)  # a folder where the SQLite file goes
    for overlap in (True, False):
        with StructureIndex(tmp_path / "ix", dense=DenseEncoder(model=dense.backend)) as ix:
            summary = ix.ingest([TINY], overlap=overlap)
            assert (summary.documents, summary.units) == (0, 0) and not ix.store.exists()
            (failure,) = summary.failed
            assert failure.path == str(TINY) and failure.error_type == "StoreError"
            assert "embeddings.sqlite" in failure.message and "sqlite" in failure.message
            # the new shard prepared aside while it embeds is gone with the failure, not left to a
            # thread that outlives the call and races the next ingest on the same folder
            assert not any(t.name == "structaware-prepare-collection" for t in threading.enumerate())
            assert not (tmp_path / "ix" / ".shard-staged").exists()
    (tmp_path / "ix" / "embeddings.sqlite").rmdir()
    with StructureIndex(tmp_path / "ix", dense=dense) as ix:
        summary = ix.ingest([TINY])
        assert summary.documents == 1 and not summary.failed and len(ix.query("blood pressure", k=3)) == 3


def test_a_forced_re_ingest_of_an_unchanged_document_rewrites_nothing(tmp_path: Path, dense: DenseEncoder) -> None:
    # row bboxes rebuilt from the PDF text layer have 17 significant digits; the store gave them back
    # with the last one changed, so every row looked changed and was written again (Unit.bboxes rounds)
    folder = tmp_path / "borderless_tables"
    shutil.copytree(FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_borderless_tables", folder)
    shutil.copy(FIXTURES / "pdf" / "borderless_tables.pdf", folder / "borderless_tables.pdf")
    with StructureIndex(tmp_path / "ix", dense=dense) as ix:
        (first,) = ix.ingest([folder]).reports
        (again,) = ix.ingest([folder], reparse=True).reports
        stored = {r.id: r.payload for r in ix.store.scroll(None)}
    assert first.written == 15 and (again.skipped, again.written) == (True, 0)
    doc = loader.load_document(folder)
    assert any(b.table is not None and b.table.grid_source == "pdf_text_layer" for b in doc.blocks)
    units = build_units(doc)
    assert all(stored[u.unit_id] == u.to_payload() for u in units)
