"""Parsing a library costs pages, not processes (issue 24): long-lived parse workers run MinerU's
Python API (imports paid once per worker), read inputs in parallel, fail one input at a time with
the readers' own typed errors, and an interrupted ingest resumes without embedding twice.

Real components: MinerU 4.x (flash tier, offline) on the repository's fixture PDFs, the package's
readers, the default dense model, a Qdrant Edge index in a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from structaware_readers.errors import InputNotFoundError, MalformedInputError, ParserUnavailableError
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache
from structaware_retrievers.index.parse_workers import ParseWorkers, read_input
from structaware_retrievers.index.structure_index import StructureIndex

pytestmark = pytest.mark.integration

pytest.importorskip("mineru", reason="MinerU (structaware[mineru]) parses the fixture PDFs")

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PDF_EN = FIXTURES / "pdf" / "synthetic_guideline_en.pdf"
PDF_ZH = FIXTURES / "pdf" / "synthetic_guideline_zh.pdf"
CORRUPT = FIXTURES / "pdf" / "corrupt_truncated.pdf"
EN_OUTPUT = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
ZH_OUTPUT = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty parse cache: MinerU really runs (workers take the environment at start)."""
    folder = tmp_path / "parse-cache"
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(folder))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return folder


def _payloads(units: list) -> list[dict]:
    return [u.to_payload() for u in units]


def test_one_worker_parses_several_pdfs_with_mineru_in_process_and_matches_a_direct_read(
    cache_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "renamed.bin"  # not named .pdf: MinerU routes by extension, the worker must not care
    shutil.copyfile(PDF_EN, copy)
    with ParseWorkers(1) as pool:
        futures = [pool.submit(p, "auto", None) for p in (PDF_EN, PDF_ZH, copy)]
        results = [f.result(timeout=600) for f in futures]
        assert pool.started == 1  # one process for all three: MinerU imported once
    (en_doc, en_units), (zh_doc, zh_units), (copy_doc, copy_units) = results
    assert (en_doc.name, en_doc.page_count, zh_doc.page_count) == ("synthetic_guideline_en", 4, 4)
    assert len(en_units) > 50 and len(zh_units) > 20
    assert copy_doc.doc_id == en_doc.doc_id and len(copy_units) == len(en_units)
    # the parse went through MinerU in the worker and into the cache (same entry a mineru-kit run writes)
    entries = sorted(p.parent.name for p in (cache_dir / "mineru").glob("*/flash-*.json"))
    assert entries == sorted({en_doc.doc_id, zh_doc.doc_id})
    # the caller's own read (from that cache) gives the same units, field for field
    doc, units = read_input(PDF_EN, "auto", None)
    assert _payloads(units) == _payloads(en_units) and doc.doc_id == en_doc.doc_id


def test_a_bad_input_fails_alone_with_the_readers_typed_error(cache_dir: Path, tmp_path: Path) -> None:
    with ParseWorkers(2) as pool:
        bad = pool.submit(CORRUPT, "auto", None)
        missing = pool.submit(tmp_path / "gone.pdf", "auto", None)
        good = pool.submit(EN_OUTPUT, "auto", None)
        with pytest.raises(MalformedInputError) as corrupt:
            bad.result(timeout=600)
        with pytest.raises(InputNotFoundError) as gone:
            missing.result(timeout=600)
        doc, units = good.result(timeout=600)
    assert str(CORRUPT) in str(corrupt.value) and corrupt.value.path == str(CORRUPT)
    assert gone.value.path is not None and "gone.pdf" in gone.value.path
    assert doc.name.endswith("synthetic_guideline_en") and len(units) > 50
    # the same error the caller's own read raises
    with pytest.raises(MalformedInputError) as direct:
        read_input(CORRUPT, "auto", None)
    assert type(direct.value) is type(corrupt.value)


def _first_pid(pool: ParseWorkers) -> int:
    deadline = time.monotonic() + 60
    while not pool.pids and time.monotonic() < deadline:
        time.sleep(0.01)
    return pool.pids[0]


def test_a_read_past_the_time_out_kills_its_worker_and_the_next_input_gets_a_new_one(cache_dir: Path) -> None:
    with ParseWorkers(1, timeout=0.5) as pool:  # MinerU's import alone takes longer
        slow = pool.submit(PDF_EN, "auto", None)
        first = _first_pid(pool)
        with pytest.raises(ParserUnavailableError) as err:
            slow.result(timeout=600)
        assert pool.pids == []
        assert "longer than 0.5 s" in str(err.value) and err.value.path == str(PDF_EN)
        with pytest.raises(ProcessLookupError):  # its whole process group is gone
            os.killpg(first, 0)
        pool.timeout = 600
        doc, _ = pool.submit(EN_OUTPUT, "auto", None).result(timeout=600)
        assert doc.name.endswith("synthetic_guideline_en") and pool.started == 2


_CROPS_SCRIPT = """
import json, sys
from pathlib import Path

import mineru.backend.analysis.pdf.window as window
from mineru.parser import MinerUParser
from structaware_readers.mineru.in_process import parse_in_process

calls = []
rendering = window.attach_visual_block_images_from_pdf


def counted(*args, **kwargs):
    calls.append(1)
    return rendering(*args, **kwargs)


if __name__ == "__main__":  # MinerU's render processes are spawned: they import this file
    window.attach_visual_block_images_from_pdf = counted
    pdf = Path(sys.argv[1])
    skipped = parse_in_process(pdf, tier="flash")  # a worker's parse
    out = {"skipped": skipped, "calls_skipping": len(calls), "restored": window.attach_visual_block_images_from_pdf is counted}
    out["rendered"] = json.loads(MinerUParser(tier="flash").parse(pdf).to_json())  # MinerU as it comes
    out["calls_rendering"] = len(calls)
    print(json.dumps(out))
"""


def _without_crop_rotations(middle: dict) -> dict:
    for page in middle.get("extensions", {}).get("docvortex_layout", {}).get("pages", []):
        page.pop("image_rotations", None)
    return middle


def test_a_worker_s_mineru_renders_no_image_crops_and_returns_the_same_middle_json(tmp_path: Path) -> None:
    """MinerU's flash tier renders an image of every table and figure that its middle JSON never
    carries; a worker's parse skips them (structaware_readers.mineru.in_process) and returns what MinerU
    as it comes returns, but the crops' rotations. Real MinerU on three VA/DoD pages with tables, in a
    process of its own (MinerU reconfigures its logging)."""
    import json
    import subprocess
    import sys

    script = tmp_path / "crops.py"
    script.write_text(_CROPS_SCRIPT, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(script), str(FIXTURES / "pdf" / "vadod_htn_2020_p23-25.pdf")],
        capture_output=True, text=True, timeout=600, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["calls_skipping"] == 0 and out["restored"]  # no crop rendered; MinerU's own function back after
    assert out["calls_rendering"] == 1  # MinerU as it comes renders them
    blocks = [b for page in out["rendered"]["pages"] for b in page["blocks"]]
    assert sum(b.get("type") == "table" for b in blocks) >= 2  # pages whose tables MinerU would crop
    assert _without_crop_rotations(out["skipped"]) == _without_crop_rotations(out["rendered"])


def test_a_worker_s_default_ocr_engine_runs_on_one_thread() -> None:
    """One worker per core: OCR in a worker (scanned pages, algorithm images) runs on one ONNX Runtime
    thread, not on every core. The worker's own loop, in a process of its own, answering a request."""
    import pickle
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from structaware_readers import parse_workers\n"
        "from structaware_readers.ocr import default_engine\n"
        "sys.exit(parse_workers.worker_main(read=lambda path, order, options: default_engine().threads))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], input=pickle.dumps((PDF_EN, "auto", None)), capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert pickle.loads(proc.stdout) == ("ok", 1)


def test_a_worker_that_dies_fails_its_input_only(cache_dir: Path) -> None:
    with ParseWorkers(1) as pool:
        fut = pool.submit(PDF_EN, "auto", None)
        os.kill(_first_pid(pool), signal.SIGKILL)
        with pytest.raises(ParserUnavailableError) as err:
            fut.result(timeout=600)
        assert "parse worker died" in str(err.value) and err.value.path == str(PDF_EN)
        doc, _ = pool.submit(EN_OUTPUT, "auto", None).result(timeout=600)
        assert doc.name.endswith("synthetic_guideline_en")


def test_ingesting_pdfs_in_parse_workers_gives_the_index_a_sequential_run_gives(
    cache_dir: Path, tmp_path: Path
) -> None:
    dense = DenseEncoder()
    points = {}
    for label, kwargs in (("workers", {"workers": 2}), ("sequential", {"overlap": False})):
        with StructureIndex(tmp_path / label, dense=dense) as ix:
            summary = ix.ingest([PDF_EN, PDF_ZH, CORRUPT], **kwargs)
            points[label] = sorted((r.id, repr(sorted(r.payload.items()))) for r in ix.store.scroll())
            assert (summary.documents, len(summary.failed)) == (2, 1)
            assert summary.failed[0].path == str(CORRUPT) and summary.failed[0].error_type == "MalformedInputError"
    assert points["workers"] == points["sequential"] and len(points["workers"]) > 70


class _Interrupted(DenseEncoder):
    """The default model, stopped (as by Ctrl-C) when it is asked for its ``stop_at``-th slice."""

    def __init__(self, stop_at: int, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.stop_at, self.calls = stop_at, 0

    def _compute(self, texts: list[str]) -> list[np.ndarray]:
        self.calls += 1
        if self.calls == self.stop_at:
            raise KeyboardInterrupt
        return super()._compute(texts)


#: one ONNX model, so that each slice is one ``_compute`` call (a model of several models, as the
#: default, slices inside each of its models: ``test_an_interrupted_default_ingest_keeps_each_model_s_slices``)
MINILM = "all-MiniLM-L6-v2-int8"


def test_an_interrupted_ingest_resumes_without_embedding_a_finished_slice_twice(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "ix" / "embeddings.sqlite")
    stopped = _Interrupted(3, model_name=MINILM, cache=cache)
    stopped.commit_every = 16
    with StructureIndex(tmp_path / "ix", dense=stopped) as ix:
        with pytest.raises(KeyboardInterrupt):
            ix.ingest([EN_OUTPUT])
        assert not ix.store.exists() or ix.count() == 0  # nothing of the document is visible
    assert stopped.computed == 32  # two slices were done, and kept

    resumed = DenseEncoder(MINILM, cache=cache)
    with StructureIndex(tmp_path / "ix", dense=resumed) as ix:
        summary = ix.ingest([EN_OUTPUT])
        assert summary.documents == 1 and summary.units > 32
        ids = sorted(r.id for r in ix.store.scroll())
    fresh = DenseEncoder(MINILM)
    with StructureIndex(tmp_path / "clean", dense=fresh) as clean:
        clean.ingest([EN_OUTPUT])
        assert sorted(r.id for r in clean.store.scroll()) == ids
    assert resumed.computed == fresh.computed - 32  # only what the first run had not embedded


def test_an_interrupted_default_ingest_keeps_each_model_s_slices(tmp_path: Path) -> None:
    """The default model is MiniLM and USE in one vector (encoders/language_routed.py): each of its
    two models stores its slices as they are done, so a run stopped inside the second model keeps
    the first model's vectors and the second's finished slices. The Chinese guideline: every unit
    has a CJK letter, so both models embed each (an English unit skips USE)."""
    from structaware_retrievers.encoders.dense import DEFAULT_PRESET
    from structaware_retrievers.encoders.language_routed import LanguageRoutedModel

    cache = EmbeddingCache(tmp_path / "ix" / "embeddings.sqlite")
    english, multilingual = DenseEncoder(MINILM), _Interrupted(3, model_name="use-multilingual-v3")
    multilingual.commit_every = 16
    stopped = DenseEncoder(model=LanguageRoutedModel(english, multilingual, name=DEFAULT_PRESET), cache=cache)
    with StructureIndex(tmp_path / "ix", dense=stopped) as ix:
        with pytest.raises(KeyboardInterrupt):
            ix.ingest([ZH_OUTPUT])
        assert not ix.store.exists() or ix.count() == 0
    n = english.computed  # distinct unit texts (two units may share one)
    assert n > 32 and multilingual.computed == 32  # MiniLM had embedded every text, USE two slices

    resumed = DenseEncoder(cache=cache)  # the default preset: the same model id, so the same cache entries
    assert resumed.model_id == stopped.model_id
    with StructureIndex(tmp_path / "ix", dense=resumed) as ix:
        summary = ix.ingest([ZH_OUTPUT])
        assert summary.documents == 1 and summary.units >= n and summary.reports[0].embedded == n - 32
    assert (resumed.backend.english.computed, resumed.backend.multilingual.computed) == (0, n - 32)
