"""The lean ONNX runner of the default dense model: same vectors as fastembed, token-budget
batches, a cached optimised graph, dynamic int8 products (the default model's way to run), model
digests checked by size and mtime, and a query path that imports neither fastembed nor a framework."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders import model_assets
from structaware_retrievers.encoders.fastembed_model import DYNAMIC_INT8_ID_SUFFIX, FastembedModel
from structaware_retrievers.encoders.model_assets import ModelUnavailableError
from structaware_retrievers.encoders.onnx_text import (
    ALLOW_SPINNING,
    OnnxMeanPoolEmbedder,
    quantize_dynamic_int8,
    token_budget_batches,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures"
TINY = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"
TEXTS = [
    "Hand hygiene is the most effective way to prevent infection.",
    "首次就诊时应测量双上臂血压",
    "x",
    "Table 2 | Adults 57-59 y | grade A | " * 60,  # beyond 256 word pieces: truncated
    "",
]


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


def test_vectors_equal_fastembeds_for_the_default_model(tmp_path: Path) -> None:
    from fastembed import TextEmbedding

    folder = model_assets.default_model_dir()
    lean = OnnxMeanPoolEmbedder(folder, model_key="minilm@test", optimized_dir=tmp_path / "opt", max_batch_tokens=300)
    ours = np.vstack(list(lean.embed(TEXTS)))
    ref = TextEmbedding(model_assets.FASTEMBED_BASE_MODEL, specific_model_path=str(folder), local_files_only=True)
    theirs = np.vstack(list(ref.embed(TEXTS)))
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, atol=2e-6)
    assert lean.count_tokens(TEXTS)[3] == 256  # truncated at tokenizer_config's model_max_length
    # its threads sleep between calls (an ingest's parse workers share the cores); fastembed's spin,
    # and the vectors are equal all the same (above)
    assert lean.session.get_session_options().get_session_config_entry(ALLOW_SPINNING) == "0"
    np.testing.assert_allclose(next(lean.query_embed(TEXTS[0])), theirs[0], atol=2e-6)

    # the optimised graph was saved once, its weights beside it as external data (memory-mapped
    # on load); a new runner loads it and gives the same vectors
    (saved,) = (tmp_path / "opt").glob("minilm@test-ort*")
    assert sorted(p.name for p in saved.iterdir()) == ["model.data", "model.onnx"]
    assert (saved / "model.data").stat().st_size > 20 * (saved / "model.onnx").stat().st_size
    again = OnnxMeanPoolEmbedder(folder, model_key="minilm@test", optimized_dir=tmp_path / "opt")
    np.testing.assert_allclose(np.vstack(list(again.embed(TEXTS))), ours, atol=2e-6)
    assert list((tmp_path / "opt").iterdir()) == [saved]

    # without weight pre-packing (`structaware query`'s one-query session): the same vectors
    unpacked = OnnxMeanPoolEmbedder(
        folder, model_key="minilm@test", optimized_dir=tmp_path / "opt", threads=1, prepack=False
    )
    np.testing.assert_allclose(np.vstack(list(unpacked.embed(TEXTS))), ours, atol=2e-6)


def test_dynamic_int8_runs_integer_products_one_text_a_call(tmp_path: Path) -> None:
    import onnx

    folder = model_assets.default_model_dir()
    exact = np.vstack(list(OnnxMeanPoolEmbedder(folder, model_key="minilm@test").embed(TEXTS)))
    quant = OnnxMeanPoolEmbedder(folder, model_key="minilm@test+q", optimized_dir=tmp_path / "opt", dynamic_int8=True)
    ours = np.vstack(list(quant.embed(TEXTS)))
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours * exact).sum(axis=1)
    assert cosines.min() > 0.97  # the same model, in 8-bit arithmetic
    assert np.abs(ours - exact).max() > 1e-3  # and not the float32 products
    # a text's vector does not depend on the texts beside it (the activations' scale is per call)
    for i, text in enumerate(TEXTS):
        assert np.array_equal(next(quant.query_embed(text)), ours[i])
    # the saved graph multiplies in int8 (ONNX Runtime's fused integer ops), its weights a quarter of float32's
    (saved,) = (tmp_path / "opt").glob("minilm@test_q-ort*")
    graph = onnx.load(str(saved / "model.onnx"), load_external_data=False)
    ops = {node.op_type for node in graph.graph.node}
    assert {"DynamicQuantizeMatMul", "MatMulIntegerToFloat"} & ops
    assert (saved / "model.data").stat().st_size < 30_000_000  # float32 after folding: about 90 MB
    again = OnnxMeanPoolEmbedder(folder, model_key="minilm@test+q", optimized_dir=tmp_path / "opt", dynamic_int8=True)
    assert np.array_equal(np.vstack(list(again.embed(TEXTS))), ours)  # loaded from the cache: the same vectors


def test_dynamic_int8_runs_texts_side_by_side_each_on_one_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = model_assets.default_model_dir()
    kwargs = {"model_key": "minilm@test+q", "optimized_dir": tmp_path / "opt", "dynamic_int8": True}
    alone, side = OnnxMeanPoolEmbedder(folder, threads=1, **kwargs), OnnxMeanPoolEmbedder(folder, threads=2, **kwargs)
    assert alone.parallel_texts() == 1 and side.parallel_texts() == 2
    assert (
        OnnxMeanPoolEmbedder(folder, model_key="minilm@test", threads=2).parallel_texts() == 1
    )  # float32: token batches
    texts = TEXTS * 3
    names: list[str] = []
    run = side._run

    def spy(encodings: list, session: object = None) -> np.ndarray:
        names.append(threading.current_thread().name)
        return run(encodings, session)

    monkeypatch.setattr(side, "_run", spy)
    vectors = np.vstack(list(side.embed(texts)))
    assert np.array_equal(vectors, np.vstack(list(alone.embed(texts))))  # the same vectors, in input order
    assert len(names) == len(texts) and all(n.startswith("structaware-embed") for n in names)
    assert side.text_session.get_session_options().intra_op_num_threads == 1
    assert side.session.get_session_options().intra_op_num_threads == 2  # one text (a query) on both cores
    names.clear()
    assert np.array_equal(next(side.query_embed(texts[1])), vectors[1]) and names == ["MainThread"]
    first = side.embed(texts)
    assert np.array_equal(next(first), vectors[0])
    first.close()  # a caller that stops early: the texts still queued are cancelled, none left running
    assert not [t for t in threading.enumerate() if t.name.startswith("structaware-embed")]


def test_the_default_model_runs_dynamic_int8_and_reads_float32_indexes() -> None:
    default, exact = FastembedModel(), FastembedModel(dynamic_int8=False)
    assert default.dynamic_int8 and not exact.dynamic_int8
    assert default.model_id == exact.model_id + DYNAMIC_INT8_ID_SUFFIX
    assert default.compatible_model_ids == (exact.model_id,) and exact.compatible_model_ids == ()
    # fastembed runs catalogue models: it cannot quantise them, and asking is an error naming the field
    with pytest.raises(MalformedInputError) as err:
        FastembedModel("BAAI/bge-small-en-v1.5", dynamic_int8=True)
    assert err.value.field == "dynamic_int8"


def test_quantising_without_the_onnx_package_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    source = model_assets.default_model_dir() / "model.onnx"
    with pytest.raises(ModelUnavailableError, match="pip install onnx") as err:
        quantize_dynamic_int8(source, tmp_path)
    assert err.value.field == "onnx" and err.value.path == str(source)


def test_token_budget_batches_bound_padded_tokens() -> None:
    lengths = [5, 256, 12, 12, 40, 3, 300, 8, 8, 8]
    batches = token_budget_batches(lengths, max_tokens=64, max_count=4)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 4
        assert len(b) * max(lengths[i] for i in b) <= 64 or len(b) == 1  # a long text goes alone
    assert [6] in batches and [1] in batches
    assert [lengths[b[0]] for b in batches] == sorted(lengths[b[0]] for b in batches)  # short first


def test_model_digest_is_rehashed_only_when_size_or_mtime_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))  # no digest entry of an earlier run
    f = tmp_path / "model.onnx"
    f.write_bytes(b"a" * 1000)
    first = model_assets.file_digest(f)
    assert first == model_assets.sha256_file(f)
    (entry,) = [p for p in (model_assets.cache_dir() / "models" / "digests").iterdir() if p.read_text() == first]
    st = f.stat()
    f.write_bytes(b"b" * 1000)  # same size; the stamp is restored so only a stat check can be fooled
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert model_assets.file_digest(f) == first  # trusted on size + mtime, as documented
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert model_assets.file_digest(f) == model_assets.sha256_file(f) != first
    assert entry.read_text() == first  # a new stamp is a new entry: a written entry is never rewritten


def test_query_path_imports_no_fastembed_and_no_framework(tmp_path: Path) -> None:
    from structaware_retrievers.index.structure_index import StructureIndex

    with StructureIndex(tmp_path / "ix") as ix:
        assert ix.ingest([TINY]).documents == 1
    script = (
        "import sys\n"
        "from structaware_retrievers.cli import main\n"
        f"sys.argv = ['structaware', 'query', 'clinic blood pressure target', '--index', {str(tmp_path / 'ix')!r}, '-k', '1']\n"
        "main()\n"
    )
    # -X importtime names every module the process imports, on stderr (the command ends with
    # os._exit after its answer, so nothing can run after main())
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.splitlines()[0].startswith("1. [") and "tiny_heading_table" in out.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in out.stderr.splitlines() if "|" in line}
    assert {"structaware_retrievers", "onnxruntime", "qdrant_edge"} <= imported  # the parse is right
    heavy = {"fastembed", "llama_index", "langchain", "huggingface_hub", "qdrant_client", "jieba", "torch"}
    heavy |= {"scipy", "unstructured", "mineru", "pdfplumber", "pypdfium2", "filelock", "asyncio", "fitz", "onnx"}
    assert imported & heavy == set()
