"""What a cold one-question process does less of, with the same answers.

- BM25's Chinese segmentation reads jieba's dictionary word by word from an SQLite copy in the
  user cache (``encoders.jieba_dict``): the same tokens as jieba with its whole dictionary loaded.
- The forked model child of ``structaware query`` loads only the half of the routed dense model
  that the question needs (``cli.fast_path.question_hint``, ``LanguageRoutedModel.load_for``).
- The data model does not import ``html`` (the Mermaid label cleaner imports it where it is used).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

jieba = pytest.importorskip("jieba")

from structaware_retrievers.encoders import jieba_dict

# clinical-guideline wording written for this test: dose ranges, grades, drug names that jieba's
# dictionary does not hold (its HMM then guesses words), a number glued to Han text
ZH_TEXTS = [
    "推荐意见2.3：对于合并慢性肾脏病的高血压患者，首选血管紧张素转换酶抑制剂或血管紧张素受体拮抗剂（强推荐，中等质量证据）。",
    "氨氯地平起始剂量为每日5毫克，最大剂量每日10毫克；老年患者应从小剂量开始并监测踝部水肿。",
    "诊室血压≥140/90 mmHg且家庭血压≥135/85 mmHg时，可确诊高血压；动态血压监测有助于识别白大衣高血压。",
    "沙库巴曲缬沙坦与恩格列净联用时需评估估算肾小球滤过率和血钾水平。",
    "首次就诊时应测量双上臂血压，以读数较高一侧作为后续测量的参考。",
]


@pytest.fixture(scope="module")
def dictionary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The SQLite copy of jieba's dictionary, built once into a fresh user cache folder."""
    cache = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(cache))
        path = jieba_dict.dictionary_file()
    assert path is not None and path.is_file() and path.parent == cache / "bm25"
    return path


@pytest.fixture(scope="module")
def full() -> object:
    """jieba as it loads by default: the whole dictionary in memory."""
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def _lazy(path: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(path.parent.parent))
    tok = jieba_dict.lazy_tokenizer()
    assert isinstance(tok.FREQ, jieba_dict.LazyFreq)  # the copy was used, not a full load
    return tok


def test_lazy_dictionary_segments_like_the_whole_dictionary(dictionary, full, monkeypatch) -> None:
    lazy = _lazy(dictionary, monkeypatch)
    assert lazy.total == full.total
    for text in ZH_TEXTS:
        assert list(lazy.cut_for_search(text)) == list(full.cut_for_search(text))
        assert list(lazy.cut(text, HMM=False)) == list(full.cut(text, HMM=False))
    assert lazy.FREQ._full is None  # a few sentences: read word by word, never loaded whole


def test_lazy_dictionary_entries_match_including_prefixes_and_misses(dictionary, full, monkeypatch) -> None:
    freq = _lazy(dictionary, monkeypatch).FREQ
    words = ["高血压", "血压", "氨氯地平", "首次", "就诊"]
    prefixes = [w for w in full.FREQ if len(w) > 3 and full.FREQ[w] == 0][:3]  # a word's prefix: frequency 0
    misses = ["血压高首", "沙库巴曲缬", "mmhg"]  # trap: near-misses that are no entry at all
    assert prefixes
    for key in words + prefixes + misses:
        assert (key in freq) == (key in full.FREQ), key
        assert freq.get(key) == full.FREQ.get(key), key
    for key in prefixes:
        assert key in freq and freq[key] == 0  # present with 0, not missing
    for key in misses:
        assert key not in freq and freq.get(key, -1) == -1
        with pytest.raises(KeyError):
            freq[key]


def test_many_lookups_switch_to_the_whole_dictionary_with_the_same_tokens(dictionary, full, monkeypatch) -> None:
    monkeypatch.setattr(jieba_dict, "FULL_AFTER", 20)  # a document-sized run, scaled down
    lazy = _lazy(dictionary, monkeypatch)
    for text in ZH_TEXTS:
        assert list(lazy.cut_for_search(text)) == list(full.cut_for_search(text))
    assert lazy.FREQ._full is not None


def test_an_unwritable_cache_loads_the_whole_dictionary(tmp_path, full, monkeypatch) -> None:
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))

    def refuse(target: Path, data: bytes) -> bool:
        raise OSError("read-only file system")

    monkeypatch.setattr(jieba_dict, "write_once", refuse)
    tok = jieba_dict.lazy_tokenizer()
    assert isinstance(tok.FREQ, dict)
    assert list(tok.cut_for_search(ZH_TEXTS[0])) == list(full.cut_for_search(ZH_TEXTS[0]))


def test_bm25_tokens_of_chinese_text_are_unchanged(dictionary, full, monkeypatch) -> None:
    from structaware_retrievers.encoders import tokenize

    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(dictionary.parent.parent))
    monkeypatch.setattr(tokenize, "_jieba_tok", None)  # made again under this cache folder
    lazy_tokens = [tokenize.Bm25Tokenizer()(t) for t in ZH_TEXTS]
    assert isinstance(tokenize._jieba().FREQ, jieba_dict.LazyFreq)
    monkeypatch.setattr(tokenize, "_jieba_tok", full)
    assert lazy_tokens == [tokenize.Bm25Tokenizer()(t) for t in ZH_TEXTS]
    assert lazy_tokens[4][:2] == ["首次", "就诊"]


def test_question_hint_finds_a_chinese_question_on_the_command_line() -> None:
    from structaware_retrievers.cli.fast_path import question_hint

    assert question_hint(["首次就诊时如何测量血压", "--index", "ix", "-k", "5"]) == "首次就诊时如何测量血压"
    assert question_hint(["--index", "ix", "-k", "5", "ACEI类药物的起始剂量"]) == "ACEI类药物的起始剂量"
    # traps: an English question, and one that only quotes a Chinese drug name, route to English
    assert question_hint(["how should blood pressure be measured", "--index", "ix"]) is None
    assert question_hint(["usual adult dose of 氨氯地平 for stage 2 hypertension", "-k", "5"]) is None


class _Half:
    def __init__(self, name: str) -> None:
        self.model_name = self.model_id = name
        self.dim = 4
        self.languages = None
        self.computed = 0
        self.cache = None
        self.backend = object()
        self.loads = 0

    @property
    def model(self) -> object:
        self.loads += 1
        return self


def test_load_for_loads_the_half_the_question_uses() -> None:
    from structaware_retrievers.encoders.language_routed import LanguageRoutedModel

    routed = LanguageRoutedModel(_Half("en"), _Half("multi"))
    routed.load_for("老年患者的血压控制目标")
    assert (routed.english.loads, routed.multilingual.loads) == (0, 1)
    routed = LanguageRoutedModel(_Half("en"), _Half("multi"))
    routed.load_for("target blood pressure for older adults (老年)")  # trap: mostly English
    assert (routed.english.loads, routed.multilingual.loads) == (1, 0)
    routed = LanguageRoutedModel(_Half("en"), _Half("multi"), english_query_share=0.5)
    routed.load_for("target blood pressure for older adults")  # English queries read both halves
    assert (routed.english.loads, routed.multilingual.loads) == (1, 1)


def test_the_data_model_does_not_import_html() -> None:
    code = "import sys, structaware_readers.models, structaware_readers.mermaid; print('html' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_mermaid_labels_still_decode_entities() -> None:
    from structaware_readers.mermaid.labels import clean_label

    assert clean_label("Systolic &ge; 140 #lt; 160<br>mmHg") == "Systolic ≥ 140 < 160 mmHg"
    assert clean_label("#notanentity; stays") == "#notanentity; stays"  # trap: an unknown name is kept


def test_a_damaged_copy_loads_the_whole_dictionary(dictionary, full, tmp_path, monkeypatch) -> None:
    bad = tmp_path / "cache" / "bm25" / dictionary.name  # the name this jieba looks for, other bytes
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not an SQLite database" * 100)
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path / "cache"))
    tok = jieba_dict.lazy_tokenizer()
    assert isinstance(tok.FREQ, dict)
    assert list(tok.cut_for_search(ZH_TEXTS[1])) == list(full.cut_for_search(ZH_TEXTS[1]))
