"""A merged cell printed sideways a word at a time, outlined with each row it covers, on a table built here.

A table (reportlab, Helvetica) prints a topic on its side down its first column, beside the three rows it covers,
in two turned lines (``Seed trays,`` | ``water cans``), each word drawn on its own so that PDFium reads one run a
word. Every word alone is a word another cell of those rows says too (``Seed packets``, ``Trays``, ``Water``,
``Cans``): only the words of a turned line read together are the topic's alone. Every row's unit must outline
its own line and the topic (every character within :data:`pdf_chars.TOL` points of PDFium's positions). The trap
(:func:`test_runs_side_by_side_or_apart_are_not_joined_as_turned`): runs printed across, or turned but apart, are
not joined as one turned line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, row_units, unit_outlines
from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.broken_runs import joined_runs
from structaware_readers.table_recovery.text_lines import TextLine

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 16.0, 9.0, 120.0
XS = [72.0, 110.0, 300.0]
HEADER = ["Topic", "Item", "Count"]
TOPIC = [["Seed", "trays,"], ["water", "cans"]]
ROWS = [["Seed packets -- label", "4"], ["Trays stacked by size", "12"], ["Water the beds, Cans and buckets", "7"]]


def _make_pdf(path: Path) -> float:
    """The table on page 1, the topic turned a quarter (read top down); returns the bottom of the rows (points
    from the page top)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    first = top = TOP + 1.5 * LEAD
    for row in ROWS:
        for x, text in zip(XS[1:], row):
            put(x, top, text)
        top += LEAD
    for k, line in enumerate(TOPIC):  # the first turned line right of the second: read top down
        down = first
        for word in line:
            c.saveState()
            c.translate(XS[0] + 1.6 * SIZE * (1 - k), H - down)
            c.rotate(-90)
            c.drawString(0, 0, word)
            c.restoreState()
            down += stringWidth(word + " ", "Helvetica", SIZE)
    c.save()
    return top


def test_a_topic_printed_sideways_word_by_word_is_outlined_with_each_row(tmp_path) -> None:
    pdf = tmp_path / "turned_words.pdf"
    bottom = _make_pdf(pdf)
    topic = " ".join(w for line in TOPIC for w in line)
    grid = TableGrid(header_rows=[HEADER], body_rows=[[topic, *row] for row in ROWS], grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.9, (bottom + LEAD) / H)
    units = row_units(pdf, grid, region, "turned")
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2]
    words = char_boxes(pdf, [w for line in TOPIC for w in line][1:])  # "Seed" is first found in a row's cell
    for r, unit in by_row.items():
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, ROWS[r]) + words:
            assert holds(outlines, ch), (unit.text, ch, outlines)


def test_runs_side_by_side_or_apart_are_not_joined_as_turned() -> None:
    """Two turned runs one under the other join in the order the cell says them (read bottom up here); two
    printed across one under the other, or turned but a column apart, stay apart."""
    text = "watercansseedtrays"
    upper, lower = TextLine(["seed"], 0.10, 0.30, 0.11, 0.34), TextLine(["cans"], 0.10, 0.345, 0.11, 0.38)
    joined = joined_runs([upper, lower], text)
    assert [ln.words for ln in joined] == [["cans", "seed"]]
    assert (joined[0].y0, joined[0].y1) == (0.30, 0.38)
    across = [TextLine(["seed"], 0.10, 0.30, 0.14, 0.31), TextLine(["cans"], 0.10, 0.312, 0.14, 0.322)]
    assert len(joined_runs(across, text)) == 2
    apart = [upper, TextLine(["cans"], 0.13, 0.345, 0.14, 0.38)]
    assert len(joined_runs(apart, text)) == 2
