"""One filter language through every face (issue 27): each filter form, in each ecosystem's spelling,
gives the same unit set through the LlamaIndex retriever, the LlamaIndex vector store, the
LangChain retriever, the LangChain vector store and the CLI, or the same typed error.

The index holds two real MinerU documents (a guideline with graded recommendations, table rows on
pages 3 and 4, a figure; and a CDC guide whose sections run across pages, 3-4 among them). Every face asks for more
hits than there are units, with table grouping off, so what comes back is exactly the set of units
the filter admits; that set is also computed here from the units themselves, by a predicate written
out for each form (the filter semantics of :mod:`structaware_retrievers.query.filters`), less the units
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

from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from structaware_readers.errors import MalformedInputError, UnknownFilterError, UnsupportedFilterError
from structaware_readers.models import NON_EVIDENCE_TYPES, Unit

pytestmark = pytest.mark.integration  # one index of two documents with the default encoders

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "mineru"
GUIDELINE = FIXTURES / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
OTHER = FIXTURES / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"
QUESTION = "blood pressure treatment recommendation"
K = 500  # more than the units of both documents: every admitted unit comes back


def F(key: str, value: Any, op: FilterOperator = FilterOperator.EQ) -> MetadataFilter:
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
            lambda u: (
                u.doc_name == guide
                and ((u.grade is not None and u.grade.grade == "A") or u.unit_type.value == "figure")
            ),
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

    from structaware_readers.load.loader import load_document
    from structaware_readers.units import build_units
    from structaware_retrievers.cli import app
    from structaware_retrievers.index.structure_index import StructureIndex

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
    base = [
        "query",
        QUESTION,
        "--index",
        str(folder),
        "--no-server",
        "--json",
        "-k",
        str(K),
        "--group-size",
        "1",
        "--min-score",
        "0",
    ]
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
    from structaware_retrievers.index.structure_index import StructureIndex

    ix = StructureIndex(built["folder"])

    def li_retriever(f: MetadataFilters) -> set[str]:
        nodes = LIRetriever(ix, similarity_top_k=K, group_size=1, min_score=0, filters=f).retrieve(QUESTION)
        return {n.node.node_id for n in nodes}

    li_store = LIStore(index=ix)

    def li_vector_store(f: MetadataFilters) -> set[str]:
        res = li_store.query(VectorStoreQuery(query_str=QUESTION, similarity_top_k=K, filters=f))
        return set(res.ids or [])

    def lc_retriever(f: dict[str, Any]) -> set[str]:
        docs = LCRetriever(index=ix, k=K, group_size=1, min_score=0).invoke(QUESTION, filter=f)
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


def test_own_metadata_keys_no_unit_carries_are_errors_not_empty_answers(faces) -> None:
    """A key that is no unit key is the user's own metadata; no unit of an ingested index carries
    ``author``, so the filter would answer nothing: an error naming the key (it used to be ``set()``)."""
    for face, arg in (
        ("lc_vector_store", {"author": "x"}),
        ("lc_retriever", {"metadata.author": "x"}),
        ("li_retriever", group(F("author", "x"))),
        ("li_vector_store", group(F("author", "x"))),
    ):
        with pytest.raises(UnknownFilterError) as err:
            faces[face](arg)
        assert (
            err.value.field == "filter.author" and "no unit of this index carries the key 'author'" in err.value.message
        )


def test_one_fusion_default_every_face_the_same_ranking_and_scores(
    built: dict[str, Any], faces: dict[str, Any]
) -> None:
    """Issue 27 item 2: the vector stores fused with RRF k=60 and equal weights, the retrievers and the
    CLI with fusion.py's defaults; now every face ranks and scores a question alike, and an override
    reaches the engine from every face."""
    from typer.testing import CliRunner

    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.retriever import StructureAwareRetriever as LCRetriever
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore as LIStore
    from structaware_retrievers.cli import app
    from structaware_retrievers.index.structure_index import StructureIndex

    question, k = "blood pressure target for adults", 6
    runner = CliRunner()
    base = [
        "query",
        question,
        "--index",
        str(built["folder"]),
        "--no-server",
        "--json",
        "-k",
        str(k),
        "--group-size",
        "1",
    ]
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
                "li_retriever": [
                    n.score for n in LIRetriever(ix, similarity_top_k=k, group_size=1, **over).retrieve(question)
                ],
                "li_vector_store": LIStore(index=ix, **over)
                .query(VectorStoreQuery(query_str=question, similarity_top_k=k))
                .similarities,
                "lc_retriever": [
                    d.metadata["score"] for d in LCRetriever(index=ix, k=k, group_size=1, **over).invoke(question)
                ],
                "lc_vector_store": [s for _, s in lc_store.similarity_search_with_score(question, k=k)],
                "cli": cli[label],
            }
            for face, scores in got.items():
                assert scores == pytest.approx(reference, rel=1e-6), (label, face)
        assert reference[0] < 0.1  # the paper's k=60 scores are small: the override did reach the engine


# --------------------------------------------------------------------------------------------
# a filter that would match nothing by mistake: one typed error in the five faces
# --------------------------------------------------------------------------------------------

#: (dict spelling, LlamaIndex spelling, field, words of the message): each matches nothing by mistake.
MISTAKES = [
    ({"foo": "table_row"}, group(F("foo", "table_row")), "filter.foo", "no unit of this index carries the key 'foo'"),
    ({"metadata.foo": "bar"}, group(F("metadata.foo", "bar")), "filter.foo", "no unit of this index carries the key 'foo'"),
    ({"unit_typ": "table_row"}, group(F("unit_typ", "table_row")), "filter.unit_typ", "did you mean 'unit_type'"),
    ({"unit_type": "tabel_row"}, group(F("unit_type", "tabel_row")), "filter.unit_type", "unknown unit type 'tabel_row', so the filter would match nothing: did you mean 'table_row'?"),
    ({"type": {"$in": ["table_row", "figures"]}}, group(F("type", ["table_row", "figures"], FilterOperator.IN)), "filter.unit_type", "unknown unit type 'figures'"),
    ({"grade_system": "GRAD"}, group(F("grade_system", "GRAD")), "filter.grade_system", "did you mean 'GRADE'?"),
    ({"grade_strength": {"$ne": "strongly"}}, group(F("grade_strength", "strongly", FilterOperator.NE)), "filter.grade_strength", "unknown grade strength 'strongly'"),
    ({"grade_strength": "good practise statement"}, group(F("grade_strength", "good practise statement")), "filter.grade_strength", "did you mean 'good practice statement'?"),
]  # fmt: skip
#: Traps: filters spelt right that may well match nothing in this index, which is an answer, not an error.
RIGHT = [
    ({"unit_type": "flow_path"}, group(F("unit_type", "flow_path"))),
    ({"grade_system": "zh"}, group(F("grade_system", "zh"))),
    ({"grade_strength": "moderate", "grade_direction": "neither"}, group(F("grade_strength", "moderate"), F("grade_direction", "neither"))),
    ({"grade_source": {"$in": ["document_default", ""]}}, group(F("grade_source", ["document_default", ""], FilterOperator.IN))),
    ({"grade_system": "KDIGO", "grade_strength": "strong"}, group(F("grade_system", "KDIGO"), F("grade_strength", "strong"))),
    ({"grade_strength": "good practice statement", "grade_source": "heading"}, group(F("grade_strength", "good practice statement"), F("grade_source", "heading"))),
]  # fmt: skip


@pytest.fixture(scope="module")
def five_faces(tiny_en_index_dir: Path) -> Any:
    """The CLI's answers (asked before any handle is open), then one open index behind ``structaware
    serve``, the MCP server, and the LlamaIndex and LangChain retrievers and vector stores; each face
    is a function of (dict spelling, LlamaIndex spelling) -> (error type name, field, message) or the
    unit ids it answered."""
    import asyncio
    import threading
    import urllib.error
    import urllib.request

    from mcp import Client
    from typer.testing import CliRunner

    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.retriever import StructureAwareRetriever as LCRetriever
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore as LIStore
    from structaware_retrievers.cli import app
    from structaware_retrievers.index.structure_index import StructureIndex
    from structaware_retrievers.serve.app import make_server
    from structaware_retrievers.serve.mcp import make_mcp_server

    question = "blood pressure target for adults"
    runner = CliRunner()
    cli_answers = {}
    for d in [m[0] for m in MISTAKES] + [r[0] for r in RIGHT]:
        args = [
            "query",
            question,
            "--index",
            str(tiny_en_index_dir),
            "--no-server",
            "--json",
            "--filter",
            json.dumps(d),
        ]
        cli_answers[json.dumps(d)] = runner.invoke(app, args)

    def cli(d: dict[str, Any], _: Any) -> Any:
        res = cli_answers[json.dumps(d)]
        if res.exit_code == 0:
            return {json.loads(line)["unit_id"] for line in res.stdout.splitlines() if line.strip()}
        assert res.exit_code == 2, res.output
        return ("exit 2", None, res.output)

    ix = StructureIndex(tiny_en_index_dir)
    srv = make_server(ix, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()

    def serve(d: dict[str, Any], _: Any) -> Any:
        req = urllib.request.Request(
            f"{srv.url}/query",
            data=json.dumps({"text": question, "filter": d}).encode(),
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return {h["unit_id"] for h in json.loads(resp.read())["hits"]}
        except urllib.error.HTTPError as err:
            body = json.loads(err.read())
            assert err.code == 400 and set(body) == {"error", "message", "field", "detail"}, body
            return (body["error"], body["field"], body["message"])

    async def _mcp(d: dict[str, Any]) -> Any:
        async with Client(make_mcp_server(ix)) as client:
            return await client.call_tool("search", {"query": question, "filter": d})

    def mcp(d: dict[str, Any], _: Any) -> Any:
        res = asyncio.run(_mcp(d))
        if res.is_error:
            return ("tool error", None, res.content[0].text)
        return {r["unit_id"] for r in res.structured_content["results"]}

    def raised(call: Callable[[], Any]) -> Any:
        try:
            return call()
        except MalformedInputError as exc:
            assert isinstance(exc, ValueError)  # the frameworks' usual exception type
            return (type(exc).__name__, exc.field, exc.message)

    lc_store = LCStore(StructureAwareEmbeddings(encoder=ix.dense), index=ix)
    li_store = LIStore(index=ix)
    faces = {
        "cli": cli,
        "serve": serve,
        "mcp": mcp,
        "li_retriever": lambda _, f: raised(
            lambda: {n.node.node_id for n in LIRetriever(ix, filters=f).retrieve(question)}
        ),
        "li_vector_store": lambda _, f: raised(
            lambda: set(li_store.query(VectorStoreQuery(query_str=question, similarity_top_k=5, filters=f)).ids or [])
        ),
        "lc_retriever": lambda d, _: raised(
            lambda: {doc.id for doc in LCRetriever(index=ix).invoke(question, filter=d)}
        ),
        "lc_vector_store": lambda d, _: raised(
            lambda: {doc.id for doc in lc_store.similarity_search(question, filter=d)}
        ),
    }
    yield faces
    srv.shutdown()
    srv.server_close()
    thread.join(30)
    ix.close()


@pytest.mark.usefixtures("offline_env")
@pytest.mark.parametrize(("as_dict", "as_llama", "field", "words"), MISTAKES)
def test_a_filter_that_matches_nothing_by_mistake_is_one_typed_error_in_every_face(
    five_faces: dict[str, Any], as_dict: dict[str, Any], as_llama: MetadataFilters, field: str, words: str
) -> None:
    for face, ask in five_faces.items():
        got = ask(as_dict, as_llama)
        assert isinstance(got, tuple), (face, got)  # not an empty answer
        error, got_field, message = got
        assert words in message, (face, message)
        if face in ("cli", "mcp"):  # one line: "<field>: <message>"
            assert f"{field}: " in message, (face, message)
        else:
            assert (error, got_field) == ("UnknownFilterError", field), face


@pytest.mark.usefixtures("offline_env")
@pytest.mark.parametrize(("as_dict", "as_llama"), RIGHT)
def test_a_filter_spelt_right_is_answered_even_when_nothing_matches(
    five_faces: dict[str, Any], as_dict: dict[str, Any], as_llama: MetadataFilters
) -> None:
    for face, ask in five_faces.items():
        assert isinstance(ask(as_dict, as_llama), set), face


@pytest.mark.usefixtures("offline_env")
def test_metadata_keys_written_through_the_vector_stores_become_keys_of_the_index(tmp_path: Path) -> None:
    """A LangChain document's metadata and a LlamaIndex node's metadata are keys of the index they are
    written to: every face filters on them (not refused as keys no unit carries), and a misspelling
    of one is refused with the key it resembles and the keys the index carries."""
    from langchain_core.documents import Document
    from llama_index.core.schema import TextNode
    from typer.testing import CliRunner

    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.retriever import StructureAwareRetriever as LCRetriever
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore
    from llama_index.retrievers.structaware import StructureAwareRetriever as LIRetriever
    from llama_index.vector_stores.structaware import StructureAwareVectorStore as LIStore
    from structaware_retrievers.cli import app

    question = "home blood pressure monitoring"
    folder = tmp_path / "ix"
    lc = LCStore(StructureAwareEmbeddings(), path=folder)
    lc.add_documents([
        Document("Offer home blood pressure monitoring to adults with suspected white-coat hypertension.",
                 id="nurse-note", metadata={"audience": "nurses", "year": 2021}),
        Document("Confirm the diagnosis with ambulatory blood pressure monitoring before starting drug treatment.",
                 id="physician-note", metadata={"audience": "physicians", "year": 2019}),
    ])  # fmt: skip
    li = LIStore(index=lc.index)
    li.add([TextNode(text="Recheck blood pressure at every clinic visit for adults on treatment.", id_="clinic-node",
                     metadata={"setting": "clinic"})])  # fmt: skip

    assert [d.id for d in lc.similarity_search(question, k=5, filter={"audience": "nurses"})] == ["nurse-note"]
    assert [d.id for d in lc.similarity_search(question, k=5, filter={"metadata.year": {"$lt": 2020}})] == [
        "physician-note"
    ]
    got = lc.similarity_search(question, k=5, filter={"setting": "clinic"})  # a LlamaIndex node's key
    assert [d.page_content for d in got] == ["Recheck blood pressure at every clinic visit for adults on treatment."]
    res = li.query(VectorStoreQuery(query_str=question, similarity_top_k=5, filters=group(F("audience", "physicians"))))
    assert [n.get_content() for n in res.nodes] == [
        "Confirm the diagnosis with ambulatory blood pressure monitoring before starting drug treatment."
    ]  # a LangChain document's key, from the LlamaIndex store
    assert li.query(
        VectorStoreQuery(query_str=question, similarity_top_k=5, filters=group(F("setting", "clinic")))
    ).ids == ["clinic-node"]
    nodes = LIRetriever(
        lc.index, similarity_top_k=5, min_score=0, filters=group(F("year", 2020, FilterOperator.GTE))
    ).retrieve(question)
    assert [n.node.text for n in nodes] == [
        "Offer home blood pressure monitoring to adults with suspected white-coat hypertension."
    ]
    docs = LCRetriever(index=lc.index, k=5, min_score=0).invoke(
        question, filter={"setting": {"$in": ["clinic", "ward"]}}
    )
    assert [d.page_content for d in docs] == ["Recheck blood pressure at every clinic visit for adults on treatment."]

    for ask in (
        lambda: lc.similarity_search(question, filter={"audiense": "nurses"}),
        lambda: li.query(VectorStoreQuery(query_str=question, filters=group(F("audiense", "nurses")))),
        lambda: LCRetriever(index=lc.index).invoke(question, filter={"audiense": "nurses"}),
    ):
        with pytest.raises(UnknownFilterError) as err:
            ask()
        assert err.value.field == "filter.audiense"
        assert "did you mean 'audience'?" in err.value.message and "(audience, setting, year)" in err.value.message
    lc.close()

    res = CliRunner().invoke(
        app, ["query", question, "--index", str(folder), "--no-server", "--json", "--filter", '{"audience": "nurses"}']
    )
    assert res.exit_code == 0, res.output
    assert [json.loads(line)["text"][:22] for line in res.stdout.splitlines()] == ["Offer home blood press"]


@pytest.mark.usefixtures("offline_env")
def test_metadata_keys_with_spaces_and_signs_are_filtered_on_not_a_crash(tmp_path: Path) -> None:
    """A metadata key with a space or a sign (``care team``, ``dose (mg)``) is quoted in the payload path:
    filtered on where the index carries it, refused as unknown where it does not (not an engine error),
    and a key no path can name (a double quote) is a typed error naming it."""
    from langchain_core.documents import Document

    from langchain_structaware import StructureAwareEmbeddings
    from langchain_structaware.vectorstores import StructureAwareVectorStore as LCStore

    lc = LCStore(StructureAwareEmbeddings(), path=tmp_path / "ix")
    lc.add_documents([
        Document("Recheck potassium within a week of starting spironolactone.", id="ward", metadata={"care team": "ward"}),
        Document("Recheck potassium at the next clinic visit.", id="clinic", metadata={"care team": "clinic", "dose (mg)": 25}),
    ])  # fmt: skip
    question = "when to recheck potassium"
    assert [d.id for d in lc.similarity_search(question, k=5, filter={"care team": "ward"})] == ["ward"]
    assert [d.id for d in lc.similarity_search(question, k=5, filter={"metadata.dose (mg)": {"$gte": 20}})] == [
        "clinic"
    ]
    with pytest.raises(UnknownFilterError) as err:  # trap: spelt almost right, on a key with a space
        lc.similarity_search(question, filter={"care teem": "ward"})
    assert "did you mean 'care team'?" in err.value.message
    with pytest.raises(UnsupportedFilterError) as bad:
        lc.similarity_search(question, filter={'care "team"': "ward"})
    assert 'care "team"' in bad.value.message
    lc.close()


def test_the_closed_vocabularies_hold_every_value_the_grade_readers_write() -> None:
    """The vocabularies a filter value is checked against are read from their sources; the grades
    read from every example of the grades catalogue fall inside them (a strength or direction a
    grade module starts writing must be added to the catalogue, or filters on it would be refused)."""
    from structaware_readers.grades import GRADE_SYSTEMS, detect_grade
    from structaware_readers.models import UnitType
    from structaware_retrievers.query.filter_vocabulary import vocabulary

    grades = [g for s in GRADE_SYSTEMS for e in s.examples if (g := detect_grade(e)) is not None]
    assert len(grades) > 40
    for key, attr in (
        ("grade_system", "system"),
        ("grade_strength", "strength"),
        ("grade_direction", "direction"),
        ("grade_source", "source"),
    ):
        seen = {getattr(g, attr) for g in grades} - {""}
        assert seen and seen <= set(vocabulary(key)), (key, seen - set(vocabulary(key)))
    assert {"strong", "weak", "conditional", "moderate"} <= {g.strength for g in grades}
    assert vocabulary("unit_type") == tuple(t.value for t in UnitType)
    assert vocabulary("grade") is None and vocabulary("doc_name") is None  # open keys
