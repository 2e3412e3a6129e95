"""The language-routed dense model (an English and a multilingual model in one vector) with the real
packaged models, and a mixed English + Chinese index: every English question's top hit is English,
every Chinese question's top hit Chinese, the unit that answers it (issue 23)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from structaware_readers.errors import MalformedInputError
from structaware_retrievers.encoders import DenseEncoder, EmbeddingCache, SparseEncoder
from structaware_retrievers.encoders.dense import BILINGUAL_PRESET, DEFAULT_PRESET
from structaware_retrievers.encoders.fastembed_model import DYNAMIC_INT8_ID_SUFFIX, FastembedModel
from structaware_retrievers.encoders.language_routed import LanguageRoutedModel, no_cjk_half
from structaware_retrievers.index.structure_index import StructureIndex

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mineru"
EN = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
ZH = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"

PASSAGES = [
    "Measure blood pressure in both arms at the first visit.",
    "Quarterly revenue rose five percent on higher subscription sales.",
    "首次就诊时应测量双上臂血压。",
    "本季度收入因订阅销售增长而上升百分之五。",
]


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(scope="module")
def halves() -> tuple[DenseEncoder, DenseEncoder]:
    return DenseEncoder("all-MiniLM-L6-v2-int8"), DenseEncoder("use-multilingual-v3")


def test_the_default_is_the_language_routed_preset_and_covers_chinese() -> None:
    enc = DenseEncoder()
    assert DEFAULT_PRESET == BILINGUAL_PRESET == enc.model_name
    assert isinstance(enc.backend, LanguageRoutedModel) and enc.dim == 384 + 512
    assert enc.covers("诊室血压达到多少需要做动态血压监测确诊？") and enc.covers("What is the ABPM target?")
    # the trap: the English-only preset still declares English alone (hybrid then searches BM25 for CJK)
    assert not DenseEncoder("all-MiniLM-L6-v2-int8").covers("诊室血压达到多少需要做动态血压监测确诊？")


def test_each_query_language_ranks_as_its_own_model(halves: tuple[DenseEncoder, DenseEncoder]) -> None:
    en, ml = halves
    routed = DenseEncoder(model=LanguageRoutedModel(en, ml))
    docs = routed.embed_array(PASSAGES)
    assert docs.shape == (4, 896) and np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    # an English question: the English model's cosine / sqrt(2) on every passage, so its ranking
    query = "Where should blood pressure be measured first?"
    own = en.embed_array(PASSAGES) @ np.asarray(en.embed_query(query))
    q = np.asarray(routed.embed_query(query))
    assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-5)
    assert docs @ q == pytest.approx(own / np.sqrt(2), abs=1e-5)
    assert np.argsort(-(docs @ q)).tolist() == np.argsort(-own).tolist()
    # a Chinese question: the multilingual model's cosine / sqrt(2) on the Chinese passages (its
    # ranking there); the English ones, embedded by the English model alone, score the fixed half's
    # cosine, below both Chinese passages
    query = "血压应该在哪里测量？"
    m_q = np.asarray(ml.embed_query(query))
    q = np.asarray(routed.embed_query(query))
    got = docs @ q
    assert got[2:] == pytest.approx(ml.embed_array(PASSAGES[2:]) @ m_q / np.sqrt(2), abs=1e-5)
    assert got[:2] == pytest.approx([no_cjk_half(512) @ m_q / np.sqrt(2)] * 2, abs=1e-5)
    assert got[:2].max() < got[2:].min()
    zh_q = np.asarray(routed.embed_query("血压应该在哪里测量？"))
    en_q = np.asarray(routed.embed_query("Where should blood pressure be measured first?"))
    assert not zh_q[:384].any() and zh_q[384:].any()  # a Chinese query: the multilingual half only
    assert en_q[:384].any() and not en_q[384:].any()  # an English query, share 0: the English half only


def test_passages_without_a_cjk_letter_skip_the_multilingual_model(halves: tuple[DenseEncoder, DenseEncoder]) -> None:
    """English passages cost the English model alone, and an English question scores them exactly as
    with both models (the layout of indexes built before the routing, still read and written)."""
    en, ml = halves
    routed = LanguageRoutedModel(DenseEncoder("all-MiniLM-L6-v2-int8"), DenseEncoder("use-multilingual-v3"))
    assert routed.route_passages
    docs = routed.embed_documents(PASSAGES)
    assert (routed.english.computed, routed.multilingual.computed) == (4, 2)  # USE ran on the Chinese two only
    assert np.allclose(docs[:2, 384:], no_cjk_half(512) / np.sqrt(2))
    assert np.linalg.norm(no_cjk_half(512)) == pytest.approx(1.0)
    before = LanguageRoutedModel(en, ml, route_passages=False)
    old = before.embed_documents(PASSAGES)
    assert np.allclose(docs[2:], old[2:], atol=1e-6)  # a Chinese passage: unchanged (up to batching)
    for query in ("Where should blood pressure be measured first?", "quarterly revenue growth"):
        q = np.asarray(routed.embed_query(query))
        assert docs @ q == pytest.approx(old @ q, abs=1e-6)
    # the two layouts are told apart, and the routed model takes an index of the other as its own
    assert routed.model_id == before.model_id + "+cjk-free-passages-english-only"
    assert routed.compatible_model_ids[0] == before.model_id
    # and the layouts of MiniLM with float32 products (before dynamic int8), routed or not
    exact = before.model_id.replace(DYNAMIC_INT8_ID_SUFFIX, "")
    assert routed.compatible_model_ids[1:] == (exact + "+cjk-free-passages-english-only", exact)
    assert before.compatible_model_ids == (exact,)
    # beta > 0 reads the multilingual half of English passages: no routing then, and asking for it is an error
    mixing = LanguageRoutedModel(en, ml, english_query_share=0.5)
    assert not mixing.route_passages and mixing.model_id == before.model_id
    with pytest.raises(MalformedInputError, match="route_passages"):
        LanguageRoutedModel(en, ml, english_query_share=0.5, route_passages=True)


def test_an_index_built_before_the_routing_opens_and_takes_new_documents(tmp_path: Path) -> None:
    from structaware_readers.errors import ModelMismatchError
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    cache = EmbeddingCache()
    en = load_document(EN)

    def encoder(route: bool) -> DenseEncoder:
        english, multilingual = (
            DenseEncoder(name, cache=cache) for name in ("all-MiniLM-L6-v2-int8", "use-multilingual-v3")
        )
        model = LanguageRoutedModel(english, multilingual, name=BILINGUAL_PRESET, route_passages=route)
        return DenseEncoder(model=model, cache=cache)

    question = "What is the grade for adults 57-59 y?"

    with StructureIndex(tmp_path / "ix", dense=encoder(False), sparse=SparseEncoder(cache=cache)) as ix:
        ix.add_document(en, build_units(en))
        old_hits = [(h.unit.unit_id, h.rank) for h in ix.query(question, k=5, mode="dense")]
        old_count = ix.count()
    zh = load_document(ZH)
    with StructureIndex(tmp_path / "ix", dense=encoder(True), sparse=SparseEncoder(cache=cache)) as ix:
        assert ix.count() == old_count
        ix.add_document(zh, build_units(zh))
        assert ix.count() == old_count + len(build_units(zh))
        hits = ix.query(question, k=5, mode="dense", filter={"doc_id": en.doc_id})
        assert [(h.unit.unit_id, h.rank) for h in hits] == old_hits
    # another model's index is still refused
    english, multilingual = DenseEncoder("all-MiniLM-L6-v2-int8"), DenseEncoder("use-multilingual-v3")
    other = DenseEncoder(model=LanguageRoutedModel(english, multilingual, name="other"))
    with pytest.raises(ModelMismatchError):
        StructureIndex(tmp_path / "ix", dense=other, sparse=SparseEncoder(cache=cache))


def test_an_index_built_with_float32_products_opens_with_the_default_model(tmp_path: Path) -> None:
    """An index of the default model before dynamic int8 (MiniLM's products in float32) opens with
    today's default, keeps its units, takes new documents and finds the same unit first."""
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    cache = EmbeddingCache()
    exact = LanguageRoutedModel(
        DenseEncoder(model=FastembedModel(dynamic_int8=False), cache=cache),
        DenseEncoder("use-multilingual-v3", cache=cache),
        name=BILINGUAL_PRESET,
    )
    en, zh = load_document(EN), load_document(ZH)
    questions = ["What is the grade for adults 57-59 y?", "Which blood pressure target applies to older adults?"]
    with StructureIndex(
        tmp_path / "ix", dense=DenseEncoder(model=exact, cache=cache), sparse=SparseEncoder(cache=cache)
    ) as ix:
        ix.add_document(en, build_units(en))
        before = [ix.query(q, k=3, mode="dense", min_score=0)[0].unit.unit_id for q in questions]
        count = ix.count()
    default = DenseEncoder(cache=cache)
    assert default.model_id == exact.model_id.replace(
        "@" + exact.english.model_id, "@" + default.backend.english.model_id
    )
    assert default.model_id != exact.model_id and exact.model_id in default.compatible_ids
    with StructureIndex(tmp_path / "ix", dense=default, sparse=SparseEncoder(cache=cache)) as ix:
        assert ix.count() == count
        ix.add_document(zh, build_units(zh))
        assert ix.count() == count + len(build_units(zh))
        assert [
            ix.query(q, k=3, mode="dense", filter={"doc_id": en.doc_id}, min_score=0)[0].unit.unit_id for q in questions
        ] == before


def test_an_english_query_share_mixes_in_the_multilingual_model(halves: tuple[DenseEncoder, DenseEncoder]) -> None:
    en, ml = halves
    routed = DenseEncoder(model=LanguageRoutedModel(en, ml, english_query_share=0.5))
    query = "Where should blood pressure be measured first?"
    got = routed.embed_array(PASSAGES) @ np.asarray(routed.embed_query(query))
    e = en.embed_array(PASSAGES) @ np.asarray(en.embed_query(query))
    m = ml.embed_array(PASSAGES) @ np.asarray(ml.embed_query(query))
    assert got == pytest.approx((e + 0.5 * m) / (np.sqrt(2) * np.sqrt(1 + 0.25)), abs=1e-5)
    for bad in (-0.1, float("inf"), "0.5"):
        with pytest.raises(MalformedInputError, match="english_query_share"):
            LanguageRoutedModel(en, ml, english_query_share=bad)  # type: ignore[arg-type]


def test_each_half_is_cached_under_its_own_model_id(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "c.sqlite")
    english = DenseEncoder("all-MiniLM-L6-v2-int8", cache=cache)
    english.embed_array(PASSAGES[:2])  # an English-only index embedded these before
    routed = DenseEncoder(cache=cache)
    routed.embed_array(PASSAGES)
    model = routed.backend
    assert isinstance(model, LanguageRoutedModel)
    assert model.english.computed == 2  # the first two came from the cache
    assert model.multilingual.computed == 2  # the two Chinese passages (English ones skip it)
    assert routed.computed == 2
    again = DenseEncoder(cache=cache)
    again.embed_array(PASSAGES)
    assert again.computed == 0  # every half from the cache; the concatenation itself is not stored
    assert not cache.get(routed.model_id, [])  # nothing under the routed id
    cache.close()


# ----------------------------------------------------------------------------- mixed-language index

#: (question, document, start of the answering unit's text): each question has its twin in the other
#: language, and both documents hold the answer (they are translations of each other)
MIXED = [
    ("What is the blood pressure target for adults 57-59 y?", "en", "Population: Adults 57-59 y"),
    ("57-59岁成人的诊室血压目标是多少？", "zh", "人群: 57-59岁成人"),
    ("Should blood pressure be measured in both arms at the first visit?", "en", "Recommendation 1.1"),
    ("首次就诊时应该测量哪侧手臂的血压？", "zh", "推荐意见1.1"),
    (
        "When should ambulatory blood pressure monitoring be offered to confirm the diagnosis?",
        "en",
        "Recommendation 2.1",
    ),
    ("诊室血压达到多少需要做动态血压监测确诊？", "zh", "推荐意见2.1"),
    ("What blood pressure target is suggested for adults under 65 years?", "en", "Recommendation 3.1"),
    ("65岁以下患者的血压应控制在多少以下？", "zh", "推荐意见3.1"),
    ("What is the grade for adults 129-131 y?", "en", "Population: Adults 129-131 y"),
    ("129-131岁成人的推荐等级是什么？", "zh", "人群: 129-131岁成人"),
]


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StructureIndex, dict[str, str]]]:
    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units

    cache = EmbeddingCache()
    ix = StructureIndex(
        tmp_path_factory.mktemp("mixed") / "ix", dense=DenseEncoder(cache=cache), sparse=SparseEncoder(cache=cache)
    )
    doc_ids = {}
    for lang, folder in (("en", EN), ("zh", ZH)):
        doc = load_document(folder)
        ix.add_document(doc, build_units(doc))
        doc_ids[lang] = doc.doc_id
    yield ix, doc_ids
    ix.close()


@pytest.mark.parametrize("question,lang,start", MIXED, ids=[f"{m[1]}{i}" for i, m in enumerate(MIXED)])
def test_a_mixed_index_answers_each_question_in_its_own_language_first(
    mixed_index: tuple[StructureIndex, dict[str, str]], question: str, lang: str, start: str
) -> None:
    ix, doc_ids = mixed_index
    top = ix.query(question, k=5, group_size=1)[0].unit
    assert (top.doc_id, top.text[: len(start)]) == (doc_ids[lang], start), (question, top.doc_name, top.text[:60])


def test_the_other_language_unit_competes_and_a_multilingual_model_alone_would_put_it_first(
    mixed_index: tuple[StructureIndex, dict[str, str]], halves: tuple[DenseEncoder, DenseEncoder]
) -> None:
    """The trap beside the test above: the Chinese row holding the same answer is a real rival (second
    in hybrid search, its numbers match BM25), and USE alone ranks it above the English row for the
    English question (the failure that kept USE from being the default)."""
    ix, doc_ids = mixed_index
    question, _, en_start = MIXED[0]
    zh_start = MIXED[1][2]
    hits = ix.query(question, k=5, group_size=1, min_score=0)  # the ranking, every hit kept
    assert hits[0].unit.text.startswith(en_start)
    assert any(h.unit.doc_id == doc_ids["zh"] and h.unit.text.startswith(zh_start) for h in hits[1:])
    # the routed dense list alone: the English row above the Chinese one (MiniLM reads the English
    # question); among the table's 60 English rows, which differ by age band only, dense search alone
    # does not tell 57-59 from 48-50 (1st in float32 products, 11th in dynamic int8): BM25 does, above
    dense = {h.unit.unit_id: h.rank for h in ix.query(question, k=50, group_size=1, mode="dense")}
    en_id, zh_id = (
        next(h.unit.unit_id for h in hits if h.unit.text.startswith(start)) for start in (en_start, zh_start)
    )
    assert dense[en_id] < dense.get(zh_id, 99)
    rows = {
        h.unit.doc_id: h.unit.embedding_text()
        for h in hits
        if h.unit.text.startswith(en_start) or h.unit.text.startswith(zh_start)
    }
    _, ml = halves
    en_cos, zh_cos = ml.embed_array([rows[doc_ids["en"]], rows[doc_ids["zh"]]]) @ np.asarray(ml.embed_query(question))
    assert zh_cos > en_cos
