"""Table-row outlines where a double ruling split a printed row, its thin part read as a row that only echoes it.

A ruled checklist built here (reportlab, Helvetica): a topic column, then three visit columns each printing
``yes no``. Rebuilt from the text layer, the second printed row comes twice: an echo row first, its ruled box
reaching from a little above the printed row to a little below it, repeating the answers of the first and last
visit and nothing else; then the printed row, boxed on its own band. The third printed row is split the other
way: the echo row takes the first and last visit's answers, the printed row keeps the middle one. Rows placed by
stage 8. Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside
an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, PAD, SIZE = 14.0, 5.0, 10.0
XS = [72.0, 252.0, 342.0, 432.0, 522.0]
HEADER = ["Topic", "Visit one", "Visit two", "Visit three"]
TOPICS = ["Daily walking plan", "Salt in home cooking", "Sleep and rest habits"]
ANSWER = "yes no"


def _checklist(path: Path) -> list[float]:
    """The checklist; returns the rows' tops (header first) and the table's bottom, in points from the page top."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)
    tops = [110.0]
    for _ in range(len(TOPICS) + 1):
        tops.append(tops[-1] + LEAD + 2 * PAD)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 4, H - (top + PAD + 0.75 * LEAD), line)

    for col, head in enumerate(HEADER):
        text(XS[col], tops[0], head)
    for r, topic in enumerate(TOPICS):
        text(XS[0], tops[r + 1], topic)
        for col in (1, 2, 3):
            text(XS[col], tops[r + 1], ANSWER)
    for top in tops:
        c.line(XS[0], H - top, XS[-1], H - top)
        c.line(XS[0], H - top - 2, XS[-1], H - top - 2)  # the double ruling
    for x in XS:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


@pytest.fixture(scope="module")
def checklist(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The checklist as rebuilt from the text layer, each echo row before the printed row it repeats."""
    pdf = tmp_path_factory.mktemp("rows") / "echo_rows.pdf"
    tops = _checklist(pdf)
    all_answers = [ANSWER] * 3
    body = [
        [TOPICS[0], *all_answers],
        ["", ANSWER, "", ANSWER],  # echoes the printed row below
        [TOPICS[1], *all_answers],
        ["", ANSWER, "", ANSWER],  # takes the answers the printed row below lacks
        [TOPICS[2], "", ANSWER, ""],
    ]

    def box(top: float, bottom: float) -> tuple[float, float, float, float]:
        return (XS[0] / W, top / H, XS[-1] / W, bottom / H)

    boxes = [
        box(tops[1], tops[2]),
        box(tops[2], tops[3]),
        box(tops[2] + 2, tops[3] - 1),
        box(tops[3], tops[4]),
        box(tops[3] + 2, tops[4] - 1),
    ]
    grid = TableGrid(
        header_rows=[HEADER],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    region = (XS[0] / W - 0.005, tops[0] / H - 0.005, XS[-1] / W + 0.005, tops[-1] / H + 0.005)
    return pdf, tops, row_units(pdf, grid, region, "echo")


def test_a_row_echoing_the_row_its_box_holds_is_outlined_on_its_answers(checklist) -> None:
    """Each echo row's outline holds the answers it repeats or takes and none of the topic its ruled box reached
    over. The trap: the printed rows keep their own boxes, holding their topics and answers, and the first row,
    whose box holds no other row, keeps its band."""
    pdf, tops, units = checklist
    assert len(units) == 5
    for r, topic in ((1, TOPICS[1]), (3, TOPICS[2])):
        echo = unit_outlines(units[r], (W, H))
        for ch in char_boxes(pdf, [topic]):
            assert not over(echo, ch), (units[r].text, ch, echo)
        assert echo[0][0] < XS[1] + 8 and echo[0][2] > XS[3] + 8, echo
    for r, topic in ((0, TOPICS[0]), (2, TOPICS[1]), (4, TOPICS[2])):
        own = unit_outlines(units[r], (W, H))
        for ch in char_boxes(pdf, [topic]):
            assert holds(own, ch), (units[r].text, ch, own)
    first = unit_outlines(units[0], (W, H))
    assert first[0][1] == pytest.approx(tops[1], abs=0.5) and first[0][3] == pytest.approx(tops[2], abs=0.5)
