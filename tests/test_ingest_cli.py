"""`structaware ingest` as a new user meets it: exit codes as the README states them, a summary that
counts failures, the documents' warnings on stderr, re-reading after `pip install 'structaware[pdf]'`
(and with `--force`), and no progress bars in a log file or pipe."""

from __future__ import annotations

import fcntl
import os
import pty
import shutil
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from typer.testing import CliRunner

from structaware_retrievers.cli import app

REPO = Path(__file__).resolve().parents[1]
FIX = REPO / "tests" / "fixtures"
TINY = FIX / "mineru" / "mineru-4.0.12_flash-tier_tiny_heading_table"  # 4 units
CDC = FIX / "mineru" / "mineru-4.0.12_flash-tier_cdc_2016_outpatient_infection_prevention_guide"  # 8 warnings
BORDERLESS = FIX / "mineru" / "mineru-4.0.12_flash-tier_borderless_tables"


def console(*args: str, cwd: Path, cache: Path, stderr: int = subprocess.PIPE) -> subprocess.CompletedProcess:
    """The installed console script (for what only a process shows: its stderr a pipe or a terminal)."""
    exe = shutil.which("structaware", path=str(Path(sys.executable).parent)) or "structaware"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "STRUCTAWARE_CACHE_DIR": str(cache)}
    env.pop("STRUCTAWARE_INDEX", None)
    return subprocess.run(
        [exe, *args], check=False, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=cwd, timeout=600
    )


@pytest.fixture
def run(cli, fresh_cache: Path):
    """The command in process, with a cache of its own (no parse of another test)."""
    return lambda *args, cwd: cli(*args, cwd=cwd, env={"STRUCTAWARE_CACHE_DIR": str(fresh_cache)})


def summary_line(res: subprocess.CompletedProcess) -> str:
    (line,) = [ln for ln in res.stdout.splitlines() if ln.startswith("ingested ")]
    return line


@pytest.mark.integration
def test_exit_codes_follow_the_readme_and_the_summary_counts_failures(run, tmp_path: Path) -> None:
    empty_pdf = tmp_path / "empty.pdf"
    empty_pdf.write_bytes(b"")
    corrupt_zip = tmp_path / "corrupt.zip"
    corrupt_zip.write_bytes(b"PK\x03\x04 not a zip archive")
    (tmp_path / "empty-folder").mkdir()

    # nothing ingested because every input failed: 2, the summary says how many failed
    for bad in ("missing.json", str(empty_pdf), str(corrupt_zip)):
        res = run("ingest", bad, cwd=tmp_path)
        assert res.returncode == 2, (bad, res.stdout, res.stderr)
        assert summary_line(res).startswith("ingested 0 documents, 0 units into ")
        assert summary_line(res).endswith("; 1 failed")
        (err,) = [ln for ln in res.stderr.splitlines() if ln.startswith("error: ")]
        assert Path(bad).name in err
    res = run("ingest", "missing.json", str(empty_pdf), cwd=tmp_path)
    assert res.returncode == 2 and summary_line(res).endswith("; 2 failed")
    assert len([ln for ln in res.stderr.splitlines() if ln.startswith("error: ")]) == 2
    assert run("ingest", "empty-folder", cwd=tmp_path).returncode == 2  # no input found: nothing done

    # some failed, some ingested: 1
    res = run("ingest", str(TINY), "missing.json", cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    assert summary_line(res).startswith("ingested 1 documents, 4 units into ")
    assert summary_line(res).endswith("; 1 failed")
    # the good input is in the index (unchanged), the other failed: still 1, not "nothing done"
    res = run("ingest", str(TINY), "missing.json", cwd=tmp_path)
    assert res.returncode == 1 and "1 unchanged" in summary_line(res) and "; 1 failed" in summary_line(res)
    # all fine, including all skipped as unchanged: 0, no failure counted
    res = run("ingest", str(TINY), cwd=tmp_path)
    assert res.returncode == 0 and "1 unchanged" in summary_line(res) and "failed" not in res.stdout


@pytest.mark.integration
def test_document_warnings_are_shown_a_few_per_document(run, tmp_path: Path) -> None:
    res = run("ingest", str(CDC), cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    name = CDC.name
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith(f"warning: {name}: ")]
    # the reader's 8 warnings (tables on pages 21-39 left without a grid) and one naming the cover's
    # figures that give no unit: the first 3, then a count
    assert [ln.split(": ", 2)[2].split(",")[0] for ln in lines[:3]] == ["page 21", "page 26", "page 31"]
    assert all("table has no cell structure" in ln for ln in lines[:3])
    assert lines[3:] == [f"warning: {name}: ... and 6 more warnings (`structaware units` lists them all)"]


@pytest.fixture(params=["mineru_output_beside_its_pdf", "pdf"])
def borderless(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Borderless tables as an input: MinerU's output folder with its PDF beside it (``<name>.pdf``),
    or the PDF itself (parsed by MinerU's flash tier, its parse cached under ``tmp_path``)."""
    pdf = tmp_path / "borderless_tables.pdf"
    shutil.copy(FIX / "pdf" / "borderless_tables.pdf", pdf)
    if request.param == "pdf":
        return pdf
    shutil.copytree(BORDERLESS, tmp_path / "borderless_tables")
    return tmp_path / "borderless_tables"


@pytest.mark.integration
def test_installing_the_pdf_extra_re_reads_an_unchanged_input(
    tmp_path: Path, borderless: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: Path
) -> None:
    runner = CliRunner()
    args = ["ingest", str(borderless), "--index", str(tmp_path / "ix"), "--no-progress"]
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("STRUCTAWARE_CACHE_DIR", str(fresh_cache))
    hidden = tmp_path / "no-pdfplumber"  # PDFs are read in parse worker processes: hide it there too
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text('import sys\nsys.modules["pdfplumber"] = None\n', encoding="utf-8")
    with monkeypatch.context() as without_pdfplumber:
        without_pdfplumber.setitem(sys.modules, "pdfplumber", None)  # `import pdfplumber` raises ImportError
        without_pdfplumber.setenv(
            "PYTHONPATH", os.pathsep.join(filter(None, [str(hidden), os.environ.get("PYTHONPATH")]))
        )
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        assert "ingested 1 documents, 14 units" in res.stdout  # the borderless table's rows unrecovered
        assert "warning: borderless_tables: the PDF found was not used" in res.stderr
        assert "pip install 'structaware[pdf]'" in res.stderr
        again = runner.invoke(app, args)
        assert "1 unchanged" in again.stdout and "warning:" not in again.stderr  # skipped before reading
        forced = runner.invoke(app, [*args, "--force"])  # read again: its warning shows again
        assert forced.exit_code == 0 and "the PDF found was not used" in forced.stderr
    # pdfplumber importable again (as after `pip install 'structaware[pdf]'`): read again, rows rebuilt
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "ingested 1 documents, 15 units" in res.stdout and "warning:" not in res.stderr
    assert "1 unchanged" in runner.invoke(app, args).stdout
    if borderless.suffix == ".pdf":  # the same bytes from another path, same settings: not read again
        copy = shutil.copy(borderless, tmp_path / "copy.pdf")
        other = runner.invoke(app, ["ingest", str(copy), *args[2:]])
        assert other.exit_code == 0 and "1 unchanged" in other.stdout


def test_force_is_in_the_help_and_the_readme() -> None:
    res = CliRunner().invoke(app, ["ingest", "--help"])
    assert res.exit_code == 0 and "--force" in res.stdout
    assert "--force" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.e2e
def test_no_progress_bars_unless_stderr_is_a_terminal(tmp_path: Path, fresh_cache: Path) -> None:
    piped = console("ingest", str(TINY), "--index", "piped", cwd=tmp_path, cache=fresh_cache)  # stderr is a pipe
    assert piped.returncode == 0, piped.stderr
    assert "index: " not in piped.stderr and "\r" not in piped.stderr
    assert summary_line(piped).startswith("ingested 1 documents, 4 units")

    leader, follower = pty.openpty()  # stderr is a terminal (24 x 120): the bars are drawn there
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    try:
        tty = console("ingest", str(TINY), "--index", "tty", cwd=tmp_path, cache=fresh_cache, stderr=follower)
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert tty.returncode == 0
    # two bars: pages parsed and units indexed
    assert (
        b"parse: " in drawn
        and b"index: " in drawn
        and b"unit" in drawn
        and summary_line(tty).startswith("ingested 1 documents, 4 units")
    )
