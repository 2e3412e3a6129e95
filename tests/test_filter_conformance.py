"""One filter language through every face (issue 27): each filter form, in each ecosystem's spelling,
gives the same unit set through the LlamaIndex retriever, the LlamaIndex vector store, the
LangChain retriever, the LangChain vector store and the CLI, or the same typed error.

The index holds two real MinerU documents (a guideline with graded recommendations, table rows on
pages 3 and 4, a figure; and a CDC guide whose sections run across pages, 3-4 among them). Every face asks for more
hits than there are units, with table grouping off, so what comes back is exactly the set of units
the filter admits; that set is also computed here from the units themselves, by a predicate written
out for each form (the filter semantics of :mod:`structaware_retrievers.filters`), less the units
that are not evidence (the CDC guide's references) unless the form names their type.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_core")

from llama_index.core.vector_stores.types import (  # noqa: E402
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from structaware_readers.errors import MalformedInputError  # noqa: E402
from structaware_readers.models import NON_EVIDENCE_TYPES, Unit  # noqa: E402
from structaware_retrievers.filters import UnsupportedFilterError  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mineru"
GUIDELINE = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
OTHER = FIXTURES / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
QUESTION = "blood pressure treatment recommendation"
K = 500  # more than the units of both documents: every admitted unit comes back


def F(key: str, value: Any, op: FilterOperator = FilterOperator.EQ) -> MetadataFilter:  # noqa: N802
    return MetadataFilter(key=key, value=value, operator=op)


def group(*filters: Any, condition: FilterCondition = FilterCondition.AND) -> MetadataFilters:
    return MetadataFilters(filters=list(filters), condition=condition)


@dataclass
class Form:
    """One filter, spelt for each face, with the units it admits."""

    name: str
    llama: MetadataFilters
    langchain: dict[str, Any]
    cli: list[str]
    admits: Callable[[Unit], bool]
    non_evidence: bool = False  # the form names a reference / front_matter type: the default exclusion is off


def _forms(guide: str, guide_file: str) -> list[Form]:
    return [
        Form(
            "unit_type in",
            group(F("unit_type", ["table_row", "recommendation"], FilterOperator.IN)),
            {"unit_type": {"$in": ["table_row", "recommendation"]}},
            ["--filter", "type=table_row,recommendation"],
            lambda u: u.unit_type.value in ("table_row", "recommendation"),
        ),
        Form(
            "page >= 4 (any page of the unit)",
            group(F("page", 4, FilterOperator.GTE)),
            {"page": {"$gte": 4}},
            ["--filter", '{"page": {"$gte": 4}}'],
            lambda u: any(p >= 4 for p in u.pages),
        ),
        Form(
            "page == 4 (a row continued from page 3)",
            group(F("page_label", "4")),
            {"page": 4},
            ["--filter", "page=4"],
            lambda u: 4 in u.pages,
        ),
        Form(
            "page range 2-3",
            group(F("page", 2, FilterOperator.GTE), F("page", 3, FilterOperator.LTE)),
            {"page": {"$gte": 2, "$lte": 3}},
            ["--filter", "page=2-3"],
            lambda u: any(p >= 2 for p in u.pages) and any(p <= 3 for p in u.pages),
        ),
        Form(
            "file_name",
            group(F("file_name", guide_file)),
            {"file_name": guide_file},
            ["--filter", f"file_name={guide_file}"],
            lambda u: u.file_name == guide_file,
        ),
        Form(
            "nin",
            group(F("unit_type", ["section", "table_row"], FilterOperator.NIN)),
            {"unit_type": {"$nin": ["section", "table_row"]}},
            ["--filter", '{"unit_type": {"$nin": ["section", "table_row"]}}'],
            lambda u: u.unit_type.value not in ("section", "table_row"),
        ),
        Form(
            "or across keys",
            group(F("unit_type", "recommendation"), F("page", 2), condition=FilterCondition.OR),
            {"$or": [{"unit_type": "recommendation"}, {"page": 2}]},
            ["--filter", '{"$or": [{"unit_type": "recommendation"}, {"page": 2}]}'],
            lambda u: u.unit_type.value == "recommendation" or 2 in u.pages,
        ),
        Form(
            "nested or inside and",
            group(
                F("doc_name", guide),
                group(F("grade", "A"), F("unit_type", "figure"), condition=FilterCondition.OR),
            ),
            {"$and": [{"doc_name": guide}, {"$or": [{"grade": "A"}, {"unit_type": "figure"}]}]},
            ["--filter", f"doc={guide}", "--filter", '{"$or": [{"grade": "A"}, {"unit_type": "figure"}]}'],
            lambda u: u.doc_name == guide and ((u.grade is not None and u.grade.grade == "A") or u.unit_type.value == "figure"),
        ),
        Form(
            "is_empty",
            group(F("grade", None, FilterOperator.IS_EMPTY)),
            {"grade": {"$exists": False}},
            ["--filter", '{"grade": {"$exists": false}}'],
            lambda u: u.grade is None or not u.grade.grade,
        ),
        Form(
            "not",
            group(F("unit_type", "section"), F("unit_type", "table_row"), condition=FilterCondition.NOT),
            {"$not": {"$or": [{"unit_type": "section"}, {"unit_type": "table_row"}]}},
            ["--filter", '{"$nor": [{"unit_type": "section"}, {"unit_type": "table_row"}]}'],
            lambda u: u.unit_type.value not in ("section", "table_row"),
        ),
        Form(
            "!=",
            group(F("grade", "A", FilterOperator.NE)),
            {"grade": {"$ne": "A"}},
            ["--filter", '{"grade": {"$ne": "A"}}'],
            lambda u: u.grade is None or u.grade.grade != "A",
        ),
        Form(
            "unit_type == reference (not evidence: searched only when named)",
            group(F("unit_type", "reference")),
            {"unit_type": "reference"},
            ["--filter", "type=reference"],
            lambda u: u.unit_type.value == "reference",
            non_evidence=True,
        ),
        Form(
            "SearchFilter field names",
            group(F("unit_types", ["table_row"], FilterOperator.IN), F("page_from", 4)),
            {"unit_types": ["table_row"], "page_from": 4},
            ["--filter", "type=table_row", "--filter", '{"page_from": 4}'],
            lambda u: u.unit_type.value == "table_row" and any(p >= 4 for p in u.pages),
        ),
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The index folder, its units, and the CLI's answers (asked while no other handle is open)."""
    from typer.testing import CliRunner

    from structaware_readers.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.cli import app
    from structaware_retrievers.index import StructureIndex

    folder = tmp_path_factory.mktemp("conformance-index")
    units: list[Unit] = []
    with StructureIndex(folder) as ix:
        for path in (GUIDELINE, OTHER):
            doc = load_document(path)
            doc_units = build_units(doc)
            ix.add_document(doc, doc_units)
            units += doc_units
    guide = next(u for u in units if u.doc_name and "guideline" in u.source)
    forms = _forms(guide.doc_name, guide.file_name)
    runner = CliRunner()
    cli: dict[str, Any] = {}
    base = ["query", QUESTION, "--index", str(folder), "--no-server", "--json", "-k", str(K), "--group-size", "1"]
    for form in forms:
        res = runner.invoke(app, [*base, *form.cli])
        cli[form.name] = res
    res = runner.invoke(app, [*base, "--filter", '{"context": {"$like": "%pressure%"}}'])
    cli["unsupported"] = res
    return {"folder": folder, "units": units, "forms": forms, "cli": cli}


@pytest.fixture(scope="module")
def faces(built: dict[str, Any]):
    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.retriever import StructureAwareRetriever as LCRetriever
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore as LIStore

    from structaware_retrievers.index import StructureIndex

    ix = StructureIndex(built["folder"])

    def li_retriever(f: MetadataFilters) -> set[str]:
        nodes = LIRetriever(ix, similarity_top_k=K, group_size=1, filters=f).retrieve(QUESTION)
        return {n.node.node_id for n in nodes}

    li_store = LIStore(index=ix)

    def li_vector_store(f: MetadataFilters) -> set[str]:
        res = li_store.query(VectorStoreQuery(query_str=QUESTION, similarity_top_k=K, filters=f))
        return set(res.ids or [])

    def lc_retriever(f: dict[str, Any]) -> set[str]:
        docs = LCRetriever(index=ix, k=K, group_size=1).invoke(QUESTION, filter=f)
        return {d.id for d in docs}

    lc_store = LCStore(StructureAwareEmbeddings(encoder=ix.dense), index=ix)

    def lc_vector_store(f: dict[str, Any]) -> set[str]:
        return {d.id for d in lc_store.similarity_search(QUESTION, k=K, filter=f)}

    yield {"li_retriever": li_retriever, "li_vector_store": li_vector_store, "lc_retriever": lc_retriever,
           "lc_vector_store": lc_vector_store}  # fmt: skip
    ix.close()


def _cli_ids(result: Any) -> set[str]:
    assert result.exit_code == 0, result.output
    return {json.loads(line)["unit_id"] for line in result.stdout.splitlines() if line.strip()}


def test_every_face_gives_the_units_each_filter_form_admits(built: dict[str, Any], faces: dict[str, Any]) -> None:
    units = built["units"]
    assert len(units) < K
    for form in built["forms"]:
        expected = {
            u.unit_id for u in units if form.admits(u) and (form.non_evidence or u.unit_type not in NON_EVIDENCE_TYPES)
        }
        assert 0 < len(expected) < len(units), form.name  # a form that admits all or nothing tests nothing
        got = {
            "li_retriever": faces["li_retriever"](form.llama),
            "li_vector_store": faces["li_vector_store"](form.llama),
            "lc_retriever": faces["lc_retriever"](form.langchain),
            "lc_vector_store": faces["lc_vector_store"](form.langchain),
            "cli": _cli_ids(built["cli"][form.name]),
        }
        for face, ids in got.items():
            assert ids == expected, (form.name, face, sorted(ids ^ expected)[:5])


def test_the_forms_admit_what_they_say(built: dict[str, Any]) -> None:
    """The traps of the fixture are there: units on pages 3 and 4, graded and ungraded units, two files."""
    units = built["units"]
    assert any(u.pages == [3, 4] for u in units)
    assert any(u.grade is not None and u.grade.grade == "A" for u in units)
    assert any(u.grade is None for u in units)
    assert len({u.file_name for u in units}) == 2
    assert any(u.unit_type.value == "reference" for u in units)  # the CDC guide's bibliography


def test_no_face_returns_reference_units_unless_asked(built: dict[str, Any], faces: dict[str, Any]) -> None:
    """Without a filter every face leaves the bibliography out; a filter on other unit types keeps
    it out (``unit_type != section`` does not ask for references)."""
    units = {u.unit_id: u for u in built["units"]}
    evidence = {i for i, u in units.items() if u.unit_type not in NON_EVIDENCE_TYPES}
    assert evidence != set(units)
    for face in ("li_retriever", "li_vector_store"):
        assert faces[face](group()) == evidence, face
    for face in ("lc_retriever", "lc_vector_store"):
        assert faces[face]({}) == evidence, face
    not_section = faces["lc_retriever"]({"unit_type": {"$ne": "section"}})
    assert not_section and all(units[i].unit_type.value not in ("section", "reference") for i in not_section)


def test_an_operator_qdrant_cannot_evaluate_is_the_same_typed_error_everywhere(
    built: dict[str, Any], faces: dict[str, Any]
) -> None:
    text_match = group(F("context", "pressure", FilterOperator.TEXT_MATCH))
    like = {"context": {"$like": "%pressure%"}}
    for face, arg in (
        ("li_retriever", text_match),
        ("li_vector_store", text_match),
        ("lc_retriever", like),
        ("lc_vector_store", like),
    ):
        with pytest.raises(UnsupportedFilterError) as err:
            faces[face](arg)
        assert err.value.field == "filter.context", face
        assert ("'text_match'" if face.startswith("li") else "'$like'") in err.value.message, face
    cli = built["cli"]["unsupported"]
    assert cli.exit_code == 2 and "'$like'" in cli.output and "filter.context" in cli.output


@pytest.mark.parametrize(
    ("llama", "langchain", "field", "words"),
    [
        (group(F("unit_typ", "table_row")), {"unit_typ": "table_row"}, "filter.unit_typ", "did you mean 'unit_type'"),
        (group(F("page", "three")), {"page": "three"}, "filter.page", "expected a number"),
        (group(F("unit_type", [], FilterOperator.IN)), {"unit_type": {"$in": []}}, "filter.unit_type", "empty list"),
        (group(F("page", "x", FilterOperator.GT)), {"page": {"$gt": "x"}}, "filter.page", "expected a number"),
        # a 0-based page (MinerU's page_idx) would shift the set by one page: refused, as SearchFilter does
        (group(F("page", 0)), {"page": 0}, "filter.page", "pages are 1-based"),
        (group(F("page_from", 0)), {"page_from": 0}, "filter.page", "pages are 1-based"),
    ],
)
def test_bad_values_are_the_same_typed_error_everywhere(faces, llama, langchain, field, words) -> None:
    for face in ("li_retriever", "li_vector_store", "lc_retriever", "lc_vector_store"):
        with pytest.raises(MalformedInputError) as err:
            faces[face](llama if face.startswith("li") else langchain)
        assert err.value.field == field and words in err.value.message, face


def test_own_metadata_keys_are_not_unit_keys(faces) -> None:
    """A key that is no unit key is the user's own metadata: nothing of an ingested index has it."""
    assert faces["lc_vector_store"]({"author": "x"}) == set()
    assert faces["li_retriever"](group(F("author", "x"))) == set()


def test_one_fusion_default_every_face_the_same_ranking_and_scores(built: dict[str, Any], faces: dict[str, Any]) -> None:
    """Issue 27 item 2: the vector stores fused with RRF k=60 and equal weights, the retrievers and the
    CLI with fusion.py's defaults; now every face ranks and scores a question alike, and an override
    reaches the engine from every face."""
    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.retriever import StructureAwareRetriever as LCRetriever
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore as LIStore
    from typer.testing import CliRunner

    from structaware_retrievers.cli import app
    from structaware_retrievers.index import StructureIndex

    question, k = "blood pressure target for adults", 6
    runner = CliRunner()
    base = ["query", question, "--index", str(built["folder"]), "--no-server", "--json", "-k", str(k), "--group-size", "1"]
    cli = {}
    for label, extra in (("default", []), ("paper", ["--rrf-k", "60", "--weights", "1,1"])):
        res = runner.invoke(app, [*base, *extra])
        assert res.exit_code == 0, res.output
        cli[label] = [json.loads(line)["score"] for line in res.stdout.splitlines() if line.strip()]

    with StructureIndex(built["folder"]) as ix:
        for label, over in (("default", {}), ("paper", {"rrf_k": 60, "weights": (1.0, 1.0)})):
            reference = [h.score for h in ix.query(question, k=k, group_size=1, **over)]
            lc_store = LCStore(StructureAwareEmbeddings(encoder=ix.dense), index=ix, **over)
            got = {
                "li_retriever": [n.score for n in LIRetriever(ix, similarity_top_k=k, group_size=1, **over).retrieve(question)],
                "li_vector_store": LIStore(index=ix, **over).query(
                    VectorStoreQuery(query_str=question, similarity_top_k=k)
                ).similarities,
                "lc_retriever": [d.metadata["score"] for d in LCRetriever(index=ix, k=k, group_size=1, **over).invoke(question)],
                "lc_vector_store": [s for _, s in lc_store.similarity_search_with_score(question, k=k)],
                "cli": cli[label],
            }
            for face, scores in got.items():
                assert scores == pytest.approx(reference, rel=1e-6), (label, face)
        assert reference[0] < 0.1  # the paper's k=60 scores are small: the override did reach the engine
