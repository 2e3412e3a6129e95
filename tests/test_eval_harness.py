"""Question loading, judging and an end-to-end ``run_eval`` over a real MinerU fixture.

The question file is written here over the ``synthetic_guideline_en`` MinerU 4.0.12 flash-tier
output (4 pages; a table of 60 rows merged across pages 3-4; graded recommendations on page 2).
Indexes are real Qdrant Edge shards in a temporary folder; the dense model is the package default.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structaware_readers.errors import EmptyDocumentError, InputNotFoundError, MalformedInputError
from structaware_readers.models import Block, BlockKind, ParsedDocument, Unit, UnitType
from structaware_retrievers.evaluation.harness import run_eval
from structaware_retrievers.evaluation.judge import Judge
from structaware_retrievers.evaluation.questions import Question, doc_stem, load_questions, resolve_document

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures/mineru"  # CC0 copy of the shared fixture
STEM = "mineru-4.0.12_flash-tier_synthetic_guideline_en"

QUESTIONS = [
    {  # a table row on page 3 (OHR-Bench style gold: cells joined by '&', LaTeX remnants)
        "qid": "t1",
        "question": "What is the ABPM target for adults aged 57-59 years?",
        "doc": f"pdfs/{STEM}.pdf",
        "gold_pages": [3],
        "gold_text": "Adults 57-59 y & $<140/90$ mmHg & $<135/85$ mmHg & B",
        "evidence_type": "table",
    },
    {  # a row of the same table after the page break (page 4)
        "qid": "t2",
        "question": "Which grade applies to adults aged 195-197 years?",
        "doc": f"pdfs/{STEM}.pdf",
        "gold_pages": [4],
        "gold_text": "Adults 195-197 y & <140/90 mmHg & <135/85 mmHg & C",
        "evidence_type": "table",
    },
    {
        "qid": "x1",
        "question": "When should ambulatory blood pressure monitoring be offered to confirm the diagnosis?",
        "doc": f"pdfs/{STEM}.pdf",
        "gold_pages": [2],
        "gold_text": "If clinic blood pressure is 140/90 mmHg or higher, offer ambulatory blood pressure "
        "monitoring to confirm the diagnosis.",
        "evidence_type": "text",
    },
    {
        "qid": "x2",
        "question": "Should blood pressure be measured in both arms at the first visit?",
        "doc": f"pdfs/{STEM}.pdf",
        "gold_pages": [2],
        "gold_text": ["Measure blood pressure in both arms at the first visit."],
        "evidence_type": "text",
    },
    {  # no gold text: judged on pages only
        "qid": "n1",
        "question": "Diagnostic flowchart for suspected hypertension",
        "doc": f"pdfs/{STEM}.pdf",
        "gold_pages": [2],
    },
]


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def question_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "q.jsonl", QUESTIONS)


def _need_fixture() -> None:
    if not (FIXTURES / STEM).is_dir():
        pytest.skip(f"shared MinerU fixture not found: {FIXTURES / STEM}")


# ----------------------------------------------------------------------------- questions


def test_load_questions(question_file: Path):
    qs = load_questions(question_file)
    assert [q.qid for q in qs] == ["t1", "t2", "x1", "x2", "n1"]
    assert qs[0].doc_stem == STEM and qs[0].gold_pages == (3,) and qs[0].evidence_type == "table"
    assert qs[3].gold_texts == ("Measure blood pressure in both arms at the first visit.",)
    assert qs[4].gold_texts == () and qs[4].evidence_type == "unspecified"
    assert [q.qid for q in load_questions(question_file, limit=2)] == ["t1", "t2"]
    assert doc_stem("pdfs/3M_2018_10K.pdf") == "3M_2018_10K"


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"question": "q", "doc": "d.pdf", "gold_pages": [1]}, "qid"),
        ({"qid": "a", "question": "", "doc": "d.pdf", "gold_pages": [1]}, "question"),
        ({"qid": "a", "question": "q", "doc": "d.pdf", "gold_pages": [0]}, "gold_pages"),
        ({"qid": "a", "question": "q", "doc": "d.pdf", "gold_pages": []}, "gold_pages"),
        ({"qid": "a", "question": "q", "doc": "d.pdf", "gold_pages": [1], "gold_text": 5}, "gold_text"),
    ],
)
def test_bad_question_lines_name_file_and_field(tmp_path: Path, row: dict, field: str):
    path = _write(tmp_path / "bad.jsonl", [row])
    with pytest.raises(MalformedInputError) as info:
        load_questions(path)
    assert info.value.field == field and str(path) in str(info.value) and "line 1" in str(info.value)


def test_question_file_errors(tmp_path: Path):
    with pytest.raises(InputNotFoundError):
        load_questions(tmp_path / "missing.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(EmptyDocumentError):
        load_questions(tmp_path / "empty.jsonl")
    (tmp_path / "broken.jsonl").write_text('{"qid": \n', encoding="utf-8")
    with pytest.raises(MalformedInputError, match="not valid JSON"):
        load_questions(tmp_path / "broken.jsonl")
    row = {"qid": "a", "question": "q", "doc": "d.pdf", "gold_pages": [1]}
    with pytest.raises(MalformedInputError, match="duplicate qid"):
        load_questions(_write(tmp_path / "dup.jsonl", [row, row]))


def test_resolve_document_prefers_parsed_then_docs(tmp_path: Path):
    parsed, docs = tmp_path / "parsed", tmp_path / "docs"
    parsed.mkdir()
    docs.mkdir()
    (docs / "A.pdf").write_bytes(b"%PDF-1.4")
    (parsed / "A.zip").write_bytes(b"PK")
    (docs / "B.pdf").write_bytes(b"%PDF-1.4")
    assert resolve_document("A", [parsed, docs]) == parsed / "A.zip"
    assert resolve_document("B", [parsed, docs]) == docs / "B.pdf"
    with pytest.raises(InputNotFoundError, match="'C'"):
        resolve_document("C", [parsed, docs])


# ----------------------------------------------------------------------------- judging


def test_judge_uses_source_elements_and_gold_page():
    table = Block(block_id="p3-e1", kind=BlockKind.TABLE, text="Drug | Dose\nAlpha | 5 mg\nBeta | 10 mg", page=3)
    para = Block(block_id="p3-e2", kind=BlockKind.PARAGRAPH, text="Beta is given at 10 mg daily.", page=3)
    doc = ParsedDocument(doc_id="d" * 16, source="s", name="n", parser="mineru", page_count=3, blocks=[table, para])

    def unit(text: str, ids: list[str], pages: list[int], context: str = "", doc_id: str = "d" * 16) -> Unit:
        return Unit(
            unit_id=text,
            unit_type=UnitType.TABLE_ROW,
            text=text,
            context=context,
            doc_id=doc_id,
            pages=pages,
            element_ids=ids,
            bboxes=[None] * len(ids),
            element_pages=pages[:1] * len(ids),
        )

    q = Question(
        qid="q",
        question="dose of beta",
        doc="n.pdf",
        doc_stem="n",
        gold_pages=(3,),
        gold_texts=("Beta & 10 mg",),
        evidence_type="table",
    )
    row_alpha = unit("Drug: Alpha, Dose: 5 mg", ["p3-e1"], [3])  # wrong row, right element (the table)
    row_beta = unit("Drug: Beta, Dose: 10 mg", ["p3-e1"], [3])
    other_doc = unit("Drug: Beta, Dose: 10 mg", ["p3-e1"], [3], doc_id="e" * 16)
    wrong_page = unit("Beta 10 mg", ["p3-e1"], [2])
    out = Judge({doc.doc_id: doc}).judge(
        q, doc.doc_id, [other_doc, wrong_page, row_alpha, row_beta], element_addressable=True
    )
    # page hit needs the right document and page: first at rank 3
    assert out.page_rank == 3
    # element hit: rank 3's source element (the whole table) covers the gold row
    assert out.element_rank == 3
    # evidence hit: the retrieved text itself must cover the gold row: only rank 4
    assert out.evidence_rank == 4
    assert out.ctx_chars == sum(len(u.text) for u in [other_doc, wrong_page, row_alpha, row_beta])
    flat = Judge({doc.doc_id: doc}).judge(q, doc.doc_id, [row_alpha, row_beta], element_addressable=False)
    assert flat.element_rank is None and flat.evidence_rank == 2


# ----------------------------------------------------------------------------- end to end


@pytest.mark.integration
@pytest.mark.shared
def test_run_eval_bm25_all_methods(question_file: Path, tmp_path: Path):
    _need_fixture()
    out = tmp_path / "run.json"
    result = run_eval(
        question_file, FIXTURES, retrievers=["bm25"], index_dir=tmp_path / "idx", json_out=out, resamples=500
    )
    methods = ["flat", "heading", "page", "element", "struct", "struct_noctx"]
    assert set(result.outcomes) == {(s, "bm25", m) for s in ("corpus", "document") for m in methods}
    by = {o.qid: o for o in result.outcomes[("document", "bm25", "struct")]}
    # the 57-59 y row unit is first: right page, the table element, and its own text covers the row
    assert (by["t1"].page_rank, by["t1"].element_rank, by["t1"].evidence_rank) == (1, 1, 1)
    # the row after the page break is on page 4; its element is the table's continuation part there
    assert (by["t2"].page_rank, by["t2"].element_rank, by["t2"].evidence_rank) == (1, 1, 1)
    assert by["x2"].evidence_rank == 1  # the recommendation unit
    assert not by["n1"].has_gold_text and by["n1"].element_rank is None
    # one document: corpus scope and document scope rank alike
    for m in methods:
        a = [(o.page_rank, o.element_rank, o.evidence_rank) for o in result.outcomes[("corpus", "bm25", m)]]
        b = [(o.page_rank, o.element_rank, o.evidence_rank) for o in result.outcomes[("document", "bm25", m)]]
        assert a == b, m
    summ = result.summaries()["document"]["bm25"]
    assert summ["flat"]["all"]["EH@5"] is None and summ["flat"]["all"]["EvH@5"] is not None
    assert (
        summ["struct"]["all"]["EH@1"]
        == 1.0
        - sum(o.element_rank != 1 for o in result.outcomes[("document", "bm25", "struct")] if o.has_gold_text) / 4
    )
    assert summ["page"]["all"]["Ctx"] > summ["struct"]["all"]["Ctx"]
    assert set(summ["struct"]) == {"all", "table", "text", "unspecified"}
    sig = result.significance["document"]["bm25"]
    assert set(sig) == {"flat", "heading", "page", "element", "struct_noctx"}
    assert "EH@5" in sig["element"]["all"] and "EH@5" not in sig["flat"]["all"]  # N/A baselines: no EH test
    assert sig["flat"]["all"]["PH@5"]["mcnemar"]["b"] >= 0 and "mcnemar" not in sig["flat"]["all"]["MRR_p"]
    assert result.gold_coverage["table"]["table_block_rate"] == 1.0  # both gold rows are inside a table block
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["per_query"]["document"]["bm25"]["struct"]["t1"] == {
        "page": 1,
        "element": 1,
        "evidence": 1,
        "ctx": by["t1"].ctx_chars,
    }
    assert data["config"]["n_questions"] == 5
    from structaware_retrievers.evaluation.report import render_markdown

    md = render_markdown(data)
    row = next(line for line in md.splitlines() if line.startswith("| BM25 | Struct-aware |"))
    assert row.split(" | ")[2] == f"{summ['struct']['all']['PH@1']:.3f}"
    assert "| BM25 | Flat chunk |" in md and "N/A" in md and "ceiling table" in md
    text = result.render()
    assert "PH@1" in text and "MRR_e" in text and "N/A" in text and "1,000" in text
    # the index folder is reused: a second run skips re-embedding and gives the same ranks
    again = run_eval(
        question_file, FIXTURES, retrievers=["bm25"], methods=["struct"], index_dir=tmp_path / "idx", resamples=10
    )
    assert [o.page_rank for o in again.outcomes[("document", "bm25", "struct")]] == [
        o.page_rank for o in result.outcomes[("document", "bm25", "struct")]
    ]


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.integration
def test_run_eval_dense_hybrid_and_peers(question_file: Path, tmp_path: Path):
    _need_fixture()
    result = run_eval(
        question_file,
        FIXTURES,
        methods=["page", "element"],
        retrievers=["dense", "hybrid"],
        scopes=["document"],
        peers=True,
        resamples=200,
        index_dir=tmp_path / "idx",
    )
    assert set(result.outcomes) == {
        ("document", "dense", "page"),
        ("document", "dense", "element"),
        ("document", "hybrid", "page"),
        ("document", "hybrid", "element"),
        ("document", "llamaindex", "llamaindex"),
        ("document", "langchain", "langchain"),
    }
    summ = result.summaries()["document"]
    # 3 page units: the gold page is always within the top 5
    assert summ["hybrid"]["page"]["all"]["PH@5"] == 1.0
    for peer in ("llamaindex", "langchain"):
        s = summ[peer][peer]["all"]
        assert s["n"] == 5 and s["EH@5"] is None and s["PH@5"] is not None
        assert result.unit_stats[peer]["units"] >= 1
    # LangChain's 4,000-character chunks cover the whole 7-kilobyte body in a few chunks
    assert summ["langchain"]["langchain"]["all"]["PH@5"] == 1.0
    assert "LlamaIndex default" in result.render()


def test_run_eval_rejects_unknown_names(question_file: Path):
    with pytest.raises(ValueError, match="unknown method"):
        run_eval(question_file, FIXTURES, methods=["colpali"])
    with pytest.raises(ValueError, match="unknown retriever"):
        run_eval(question_file, FIXTURES, retrievers=["splade"])
    with pytest.raises(ValueError, match="unknown scope"):
        run_eval(question_file, FIXTURES, scopes=["global"])


def test_run_eval_missing_document(tmp_path: Path):
    q = _write(tmp_path / "q.jsonl", [{"qid": "a", "question": "q", "doc": "pdfs/NOPE.pdf", "gold_pages": [1]}])
    with pytest.raises(InputNotFoundError, match="NOPE"):
        run_eval(q, tmp_path, retrievers=["bm25"])


@pytest.mark.integration
@pytest.mark.shared
def test_stale_eval_index_is_rebuilt(question_file: Path, tmp_path: Path):
    _need_fixture()
    from structaware_retrievers.encoders import SparseEncoder

    first = run_eval(question_file, FIXTURES, methods=["page"], retrievers=["bm25"], index_dir=tmp_path, resamples=10)
    lines: list[str] = []
    second = run_eval(
        question_file,
        FIXTURES,
        methods=["page"],
        retrievers=["bm25"],
        index_dir=tmp_path,
        resamples=10,
        sparse=SparseEncoder(k1=2.0),
        log=lines.append,
    )
    assert any("rebuilding the evaluation index" in line for line in lines)
    assert second.unit_stats["page"]["units"] == first.unit_stats["page"]["units"] == 3
    assert [o.page_rank is not None for o in second.outcomes[("corpus", "bm25", "page")]] == [True] * 5


def test_list_valued_evidence_type(tmp_path: Path):
    rows = [
        {"qid": "a", "question": "q", "doc": "d.pdf", "gold_pages": [1], "evidence_type": ["Table", "Chart", "Table"]},
        {"qid": "b", "question": "q", "doc": "d.pdf", "gold_pages": [1], "evidence_type": []},
    ]
    qs = load_questions(_write(tmp_path / "q.jsonl", rows))
    assert [q.evidence_type for q in qs] == ["Table+Chart", "unspecified"]
    bad = {"qid": "c", "question": "q", "doc": "d.pdf", "gold_pages": [1], "evidence_type": ["Table", 3]}
    with pytest.raises(MalformedInputError) as info:
        load_questions(_write(tmp_path / "bad.jsonl", [bad]))
    assert info.value.field == "evidence_type"


@pytest.mark.integration
def test_questions_on_a_scanned_pdf_count_as_misses_with_a_warning(tmp_path: Path):
    """A PDF no reader can read (an image-only page, as a scanner writes it, with nothing OCR can
    read on it; without structaware[ocr] MinerU's model-free tier refuses any scan): the run goes
    on, its questions are misses, and a warning names it. (A readable scan is read by the OCR
    route: tests/test_ocr_route.py.)"""
    _need_fixture()
    pytest.importorskip("mineru")
    from PIL import Image, ImageDraw

    from structaware_retrievers.evaluation.harness import UnreadableDocumentWarning

    docs = tmp_path / "docs"
    docs.mkdir()
    page = Image.new("RGB", (600, 800), "white")
    ImageDraw.Draw(page).rectangle((50, 50, 550, 300), outline="black")  # a picture with no text in it
    page.save(docs / "scanned_guideline.pdf")
    rows = [
        QUESTIONS[0],
        {
            "qid": "s1",
            "question": "What are the blood pressure targets?",
            "doc": "pdfs/scanned_guideline.pdf",
            "gold_pages": [1],
            "gold_text": "Blood pressure targets",
            "evidence_type": ["Table", "Chart"],
        },
    ]
    logged: list[str] = []
    with pytest.warns(UnreadableDocumentWarning, match="scanned_guideline"):
        result = run_eval(
            _write(tmp_path / "q.jsonl", rows),
            docs,
            parsed=FIXTURES,
            methods=["struct"],
            retrievers=["bm25"],
            index_dir=tmp_path / "idx",
            resamples=10,
            log=logged.append,
        )
    assert any(
        line.startswith("warning: scanned_guideline") and "1 question(s) count as misses" in line for line in logged
    )
    assert "scanned_guideline" in result.config["textless_documents"]
    for scope in ("corpus", "document"):
        by = {o.qid: o for o in result.outcomes[(scope, "bm25", "struct")]}
        assert by["t1"].page_rank == 1
        assert (by["s1"].page_rank, by["s1"].evidence_rank, by["s1"].n_results) == (None, None, 0)
        assert by["s1"].has_gold_text and by["s1"].evidence_type == "Table+Chart"
    summ = result.summaries()["document"]["bm25"]["struct"]
    assert summ["all"]["PH@1"] == 0.5 and summ["Table+Chart"]["PH@5"] == 0.0
