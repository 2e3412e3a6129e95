"""Lines printed across each other are read as two lines, never their letters interleaved: a line of
small text across a line of bigger text is no subscript of it, and two lines pdfplumber chains into one
(their tops linked by a stray glyph between them) are read apart; the cell reads both lines whole, top
to bottom.

Generated PDFs (reportlab): a 9 pt line with a 6 pt line printed 4.5 pt lower across it (a form printed
twice a few points apart), two 9 pt lines 3.3 pt apart with a blank between them, and a line with real
scripts (``CO2``, ``Class^a``) that stay scripts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pdfplumber = pytest.importorskip("pdfplumber")
canvas = pytest.importorskip("reportlab.pdfgen.canvas")

from structaware_readers.table_recovery.crossed_lines import crossing_glyphs
from structaware_readers.table_recovery.reading_direction import LINE_OVERLAP, SUP_SIZE, cell_lines, reading_text
from structaware_readers.table_recovery.tangled_lines import untangled_lines

BIG = "Other findings noted: none so far"
SMALL = "* Earlier events: note the date of each one"


def _pdf(path: Path, draw) -> Path:
    c = canvas.Canvas(str(path), pagesize=(400, 200))
    draw(c)
    c.save()
    return path


def _chars(path: Path) -> list[dict]:
    with pdfplumber.open(path) as pdf:
        return list(pdf.pages[0].chars)


def _crossed(c) -> None:
    c.setFont("Helvetica", 9)
    c.drawString(60, 120, BIG)
    c.setFont("Helvetica", 6)
    c.drawString(50, 115.5, SMALL)  # baseline 4.5 pt lower, starting left of the big line: across it


def test_small_line_across_a_big_one_reads_as_its_own_line(tmp_path):
    chars = _chars(_pdf(tmp_path / "crossed.pdf", _crossed))
    assert reading_text(chars) == f"{BIG} {SMALL}"


def test_crossing_glyphs_are_the_small_line(tmp_path):
    chars = _chars(_pdf(tmp_path / "crossed.pdf", _crossed))
    crossing = crossing_glyphs(chars, small=SUP_SIZE, overlap=LINE_OVERLAP)
    assert "".join(chars[i]["text"] for i in sorted(crossing)) == SMALL


def _scripts(c) -> None:
    c.setFont("Helvetica", 9)
    c.drawString(50, 120, "Measure CO")
    x = 50 + c.stringWidth("Measure CO", "Helvetica", 9)
    c.setFont("Helvetica", 6)
    c.drawString(x, 117.5, "2")
    x += c.stringWidth("2", "Helvetica", 6)
    c.setFont("Helvetica", 9)
    c.drawString(x, 120, " before each Class")
    x += c.stringWidth(" before each Class", "Helvetica", 9)
    c.setFont("Helvetica", 6)
    c.drawString(x, 124, "a,b,c")
    x += c.stringWidth("a,b,c", "Helvetica", 6)
    c.setFont("Helvetica", 9)
    c.drawString(x, 120, " visit")


def test_scripts_stay_scripts(tmp_path):
    chars = _chars(_pdf(tmp_path / "scripts.pdf", _scripts))
    assert crossing_glyphs(chars, small=SUP_SIZE, overlap=LINE_OVERLAP) == set()
    assert reading_text(chars) == "Measure CO2 before each Class^a,b,c visit"


def _chained(c) -> None:
    c.setFont("Helvetica", 9)
    c.drawString(50, 120, "Residence")
    c.drawString(48, 116.7, "Location:")  # tops 3.3 pt apart: two lines to pdfplumber's tolerance of 3
    c.drawString(120, 118.4, " ")  # a blank between them, which chains the two tops into one line


def test_lines_chained_by_a_stray_glyph_read_apart(tmp_path):
    chars = _chars(_pdf(tmp_path / "chained.pdf", _chained))
    assert len(untangled_lines(chars, 3)) == 2
    assert reading_text(chars) == "Residence Location:"
    assert [text for _, text in cell_lines(chars)] == ["Residence", "Location:"]


def test_lines_side_by_side_stay_one_line(tmp_path):
    def draw(c) -> None:
        c.setFont("Helvetica", 9)
        c.drawString(50, 120, "Home address")
        c.drawString(150, 116.7, "north side")
        c.drawString(120, 118.4, " ")

    chars = _chars(_pdf(tmp_path / "side.pdf", draw))
    assert len(untangled_lines(chars, 3)) == 1
