"""``structaware show``: PNG pictures of the hits of a question or of units by id, inline in a terminal
that can show pictures, and the file it needs named when the PDF is not at hand."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from structaware_retrievers.cli import app
from structaware_retrievers.cli.terminal_image import inline_protocol, write_inline
from structaware_retrievers.index.structure_index import StructureIndex
from structaware_retrievers.query.fusion import DEFAULT_GROUP_SIZE

FIXTURES = Path(__file__).resolve().parent / "fixtures"
EN_PDF = FIXTURES / "pdf" / "synthetic_guideline_en.pdf"
EN_MINERU = FIXTURES / "mineru" / "mineru-4.0.12_flash-tier_synthetic_guideline_en"
QUESTION = "clinic target for adults 57-59 y"


pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("offline_env")]


@pytest.fixture(scope="module")
def index_with_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MinerU's output with its PDF beside it (``<name>.pdf``): the index remembers the output, the
    picture finds the PDF beside it, and the table rows have their own boxes."""
    work = tmp_path_factory.mktemp("show")
    shutil.copytree(EN_MINERU, work / "synthetic_guideline_en")
    shutil.copy(EN_PDF, work / "synthetic_guideline_en.pdf")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("STRUCTAWARE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "sa-cache"))
        with StructureIndex(work / "ix") as ix:
            ix.ingest([work / "synthetic_guideline_en"]).raise_for_errors()
    return work / "ix"


def _meta(path: Path) -> dict:
    return json.loads(Image.open(path).text["structaware"])


def test_show_writes_the_picture_of_the_top_hits(index_with_pdf: Path, tmp_path: Path) -> None:
    out = tmp_path / "hit.png"
    res = CliRunner().invoke(
        app,
        [
            "show",
            QUESTION,
            "--index",
            str(index_with_pdf),
            "-o",
            str(out),
            "--filter",
            "type=table_row",
            "--min-score",
            "0",
        ],
    )
    assert res.exit_code == 0, res.output
    meta = _meta(out)
    # the hit's row and its group's rows (the default group size)
    assert meta["unit_type"] == "table_row" and len(meta["outlines"]) == DEFAULT_GROUP_SIZE
    assert all(o["box"][3] - o["box"][1] < 30 for o in meta["outlines"])  # rows, not the table
    assert f"-> {out}" in res.output and meta["unit_id"] in res.output
    # several hits: FILE-<rank>.png; a folder: <doc>-p<page>-<id>.png in it
    res = CliRunner().invoke(
        app, ["show", QUESTION, "--index", str(index_with_pdf), "-k", "2", "-o", str(out), "--crop", "--min-score", "0"]
    )
    assert res.exit_code == 0, res.output
    assert [p.name for p in sorted(tmp_path.glob("hit-*.png"))] == ["hit-1.png", "hit-2.png"]
    assert Image.open(tmp_path / "hit-1.png").height < Image.open(out).height  # cropped
    res = CliRunner().invoke(
        app, ["show", "--unit", meta["unit_id"], "--index", str(index_with_pdf), "-o", str(tmp_path / "pics")]
    )
    assert res.exit_code == 0, res.output
    (one,) = (tmp_path / "pics").glob("*.png")
    assert one.name == f"synthetic_guideline_en-p{meta['pages'][0]}-{meta['unit_id'][:8]}.png"
    assert len(_meta(one)["outlines"]) == 1  # the unit alone: no group rows were named


def test_show_names_the_pdf_an_index_of_parser_output_needs(tiny_en_index_dir: Path, tmp_path: Path) -> None:
    args = [
        "show",
        QUESTION,
        "--index",
        str(tiny_en_index_dir),
        "--filter",
        "type=table_row",
        "-o",
        str(tmp_path / "x.png"),
    ]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 2
    assert "mineru-4.0.12_flash-tier_synthetic_guideline_en.pdf" in res.output and "--pdf" in res.output
    assert not (tmp_path / "x.png").exists()
    res = CliRunner().invoke(app, [*args, "--pdf", str(EN_PDF)])
    assert res.exit_code == 0, res.output and (tmp_path / "x.png").is_file()


def test_show_usage_errors(tiny_en_index_dir: Path) -> None:
    for args in ([], [QUESTION, "--unit", "00000000-0000-5000-8000-000000000000"]):
        res = CliRunner().invoke(app, ["show", "--index", str(tiny_en_index_dir), *args])
        assert res.exit_code == 2 and "a question or --unit" in res.output
    res = CliRunner().invoke(app, ["show", "--index", str(tiny_en_index_dir), "--unit", "nope"])
    assert res.exit_code == 2 and "not a unit id" in res.output
    res = CliRunner().invoke(
        app, ["show", "--index", str(tiny_en_index_dir), "--unit", "00000000-0000-5000-8000-000000000000"]
    )
    assert res.exit_code == 2 and "no unit 00000000-0000-5000-8000-000000000000" in res.output


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_inline_pictures_only_on_a_terminal_that_can_show_them() -> None:
    assert inline_protocol(_Tty(), {"TERM": "xterm-kitty"}) == "kitty"
    assert inline_protocol(_Tty(), {"TERM": "xterm-256color", "TERM_PROGRAM": "iTerm.app"}) == "iterm"
    assert inline_protocol(_Tty(), {"TERM_PROGRAM": "WezTerm"}) == "iterm"
    assert inline_protocol(_Tty(), {"TERM": "xterm-256color"}) is None  # a terminal that cannot
    assert inline_protocol(io.StringIO(), {"TERM": "xterm-kitty"}) is None  # a pipe or a file: never escapes
    png = b"\x89PNG" + bytes(range(256)) * 30  # 7,684 bytes: three kitty chunks of base64
    kitty = _Tty()
    write_inline(png, kitty, "kitty")
    chunks = kitty.getvalue().rstrip("\n").split("\x1b\\")[:-1]
    assert [c.split(";")[0] for c in chunks] == ["\x1b_Ga=T,f=100,m=1", "\x1b_Gm=1", "\x1b_Gm=0"]
    assert all(len(c.split(";", 1)[1]) <= 4096 for c in chunks)
    iterm = _Tty()
    write_inline(png, iterm, "iterm")
    assert iterm.getvalue().startswith(f"\x1b]1337;File=inline=1;size={len(png)};") and iterm.getvalue().endswith(
        "\x07\n"
    )
    with pytest.raises(ValueError, match="unknown inline image protocol"):
        write_inline(png, _Tty(), "sixel")
