"""The `structaware` command line, run in process (the ``cli`` fixture: typer's ``CliRunner`` on the app);
``test_console_script.py`` runs the installed console script itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structaware_readers.models import Unit

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures"
EN_PDF = FIX / "pdf" / "synthetic_guideline_en.pdf"
EN_OUT = FIX / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
ZH_OUT = FIX / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_zh"
UNIT_FIELDS = {"unit_id", "unit_type", "text", "context", "doc_id", "pages", "element_ids", "bboxes", "section_path"}


def test_units_json_lines_have_every_unit_field(cli):
    res = cli("units", str(EN_OUT), "--json")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    records = [json.loads(line) for line in lines]
    assert (
        len(records) == 69
    )  # issue 11: the filler after Recommendation 2.1's grade is section text; sections split at 600 characters
    for rec in records:
        assert rec.keys() >= UNIT_FIELDS
        Unit.model_validate(rec)  # round-trips into the model
    types = {r["unit_type"] for r in records}
    assert {"section", "table_row", "recommendation", "figure"} <= types
    row = next(r for r in records if r["unit_type"] == "table_row")
    assert row["table"]["headers"] == ["Population", "Clinic target", "ABPM target", "Grade"]
    assert row["pages"] == [3] and row["element_ids"] == ["p3-e1"]


def test_units_human_readable_summary(cli):
    res = cli("units", str(ZH_OUT / "content_list.rendered.json"))
    assert res.returncode == 0, res.stderr
    first = res.stdout.splitlines()[0]
    assert "table_row 60" in first and "recommendation 3" in first


@pytest.mark.parametrize(
    ("content", "name", "expected"),
    [
        (None, "missing.json", "no such file"),
        ("{not json", "broken.json", "broken.json"),
        ('{"hello": "world"}', "unknown.json", "unknown.json"),
        ("[]", "empty.json", "empty.json"),
    ],
)
def test_units_errors_are_one_clear_line(cli, tmp_path, content, name, expected):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    res = cli("units", str(path))
    assert res.returncode != 0
    err_lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(err_lines) == 1, res.stderr
    assert err_lines[0].startswith("error: ") and expected in err_lines[0]
    assert "Traceback" not in res.stderr


@pytest.mark.integration
def test_eval_command_prints_the_table_and_writes_per_query_json(cli, tmp_path):
    stem = "mineru-4.0.12_flash-tier_synthetic_guideline_en"
    questions = tmp_path / "q.jsonl"
    rows = [
        {
            "qid": "t1",
            "question": "Which grade applies to adults aged 195-197 years?",
            "doc": f"pdfs/{stem}.pdf",
            "gold_pages": [4],
            "gold_text": "Adults 195-197 y & <140/90 mmHg & <135/85 mmHg & C",
            "evidence_type": "table",
        },
        {
            "qid": "x1",
            "question": "Should blood pressure be measured in both arms at the first visit?",
            "doc": f"pdfs/{stem}.pdf",
            "gold_pages": [2],
            "evidence_type": "text",
        },
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "run.json"
    res = cli(
        "eval",
        "--questions",
        str(questions),
        "--docs",
        str(FIX / "mineru"),
        "--methods",
        "struct,flat",
        "--retrievers",
        "bm25",
        "--json",
        str(out),
        "--index-dir",
        str(tmp_path / "idx"),
    )
    assert res.returncode == 0, res.stderr
    assert "PH@5" in res.stdout and "Struct-aware" in res.stdout and "Flat chunk" in res.stdout
    data = json.loads(out.read_text())
    per_query = json.dumps(data)
    assert "t1" in per_query and "x1" in per_query


@pytest.mark.integration
def test_an_empty_answer_says_what_it_can_mean(cli, tiny_en_index_dir):
    # exit 0 (the query ran), nothing on stdout, and on stderr the reasons that fit the options given
    cases = {
        ("zzqxv", "--mode", "sparse", "--min-score", "0"): "no results (no unit shares a term with the question)",
        ("blood pressure", "--filter", "page=99", "--min-score", "0"): "no results (the filter matched no unit)",
        ("blood pressure", "--budget-chars", "5", "--min-score", "0"): (
            "no results (no unit shares a term with the question or no hit fits in --budget-chars 5)"
        ),
        ("football world cup results 1998",): (
            "no results (no unit shares a term with the question or no hit reaches --min-score 0.5"
            " (the library may not hold the answer))"
        ),
    }
    for args, message in cases.items():
        res = cli("query", *args, "--index", str(tiny_en_index_dir), "--no-server")
        assert (res.returncode, res.stdout, res.stderr.strip()) == (0, "", message)


def test_version(cli):
    from importlib.metadata import version

    res = cli("--version")
    assert (res.returncode, res.stdout) == (0, f"structaware {version('structaware')}\n")
