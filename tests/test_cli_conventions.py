"""CLI conventions: flags shown as flags, several values after one ``--filter``, and one set of exit
codes for every command (0 done, 1 ingest partly failed, 2 nothing done), run in process (the ``cli``
fixture)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from structaware_retrievers.cli import expand_filter_values

REPO = Path(__file__).resolve().parents[1]
EN_OUT = REPO / "tests" / "fixtures" / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
COMMANDS = ["units", "ingest", "query", "documents", "delete", "eval"]


@pytest.fixture
def run(cli):
    """The command in process, its help laid out 120 columns wide."""
    return lambda *args, cwd=None: cli(*args, cwd=cwd, env={"COLUMNS": "120"})


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_flags_as_flags(run, command: str) -> None:
    res = run(command, "--help")
    assert res.returncode == 0, res.stderr
    assert "<bool>" not in res.stdout and "BOOLEAN" not in res.stdout
    help_line = next(line for line in res.stdout.splitlines() if line.strip().startswith("--help"))
    assert help_line.split()[:2] == ["--help", "Show"]
    if command in ("units", "query"):
        json_line = next(line for line in res.stdout.splitlines() if line.strip().startswith("--json"))
        assert json_line.split()[1] in ("one", "JSON")  # the help text follows the flag directly


def test_filter_words_after_one_filter_are_filters() -> None:
    assert expand_filter_values(["q", "--filter", "type=table_row", "grade=A", "-k", "3"]) == [
        "q",
        "--filter",
        "type=table_row",
        "--filter",
        "grade=A",
        "-k",
        "3",
    ]
    assert expand_filter_values(["--filter=type=a", "page=3-4", "what is x=y"]) == [
        "--filter=type=a",
        "--filter",
        "page=3-4",
        "what is x=y",
    ]
    # only known keys are taken, and `--` ends option parsing as usual
    assert expand_filter_values(["--filter", "doc=a", "x=1"]) == ["--filter", "doc=a", "x=1"]
    assert expand_filter_values(["--filter", "doc=a", "--", "grade=A"]) == ["--filter", "doc=a", "--", "grade=A"]


@pytest.mark.integration
def test_exit_codes_are_the_same_across_commands(run, tmp_path: Path) -> None:
    # no index yet: query and documents both refuse with 2, naming the missing index
    for args in (["query", "blood pressure"], ["documents"]):
        res = run(*args, cwd=tmp_path)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "missing or empty" in res.stderr and res.stderr.startswith("error: ")
    assert run("delete", "0123456789abcdef", cwd=tmp_path).returncode == 2
    assert run("ingest", str(tmp_path / "nope.json"), cwd=tmp_path).returncode == 2  # the only input failed

    res = run("ingest", str(EN_OUT), "--no-progress", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = run("documents", cwd=tmp_path)
    assert res.returncode == 0 and "synthetic_guideline_en" in res.stdout

    one = run("query", "adults 57-59 y", "--json", "-k", "50", "--filter", "type=table_row", "grade=B", cwd=tmp_path)
    repeated = run(
        "query",
        "adults 57-59 y",
        "--json",
        "-k",
        "50",
        "--filter",
        "type=table_row",
        "--filter",
        "grade=B",
        cwd=tmp_path,
    )
    assert one.returncode == repeated.returncode == 0, one.stderr
    hits = [json.loads(line) for line in one.stdout.splitlines()]
    assert hits and {h["unit_type"] for h in hits} == {"table_row"} and {h["grade"]["grade"] for h in hits} == {"B"}
    assert {h["unit_id"] for h in hits} == {json.loads(line)["unit_id"] for line in repeated.stdout.splitlines()}
    bad = run(
        "query", "x", "--filter", "type=table_row", "colour=red", cwd=tmp_path
    )  # not a filter key: extra argument
    assert bad.returncode == 2
