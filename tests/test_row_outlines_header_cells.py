"""Outlines of a merged cell shared by header rows read as body rows and the body rows under them.

A borderless survey table built here (reportlab, Helvetica): each question printed once, on two lines centred
beside its five answers. The parser read the column header and the first question's first four answers as header
rows (an overlong header); the unit builder reads those four as body rows
(:mod:`structaware_readers.tables.header_trim`). The first question's cell is then shared by four header rows and
one body row: every one of its five rows' units must outline the question's lines as well as its own answer and
score (each character within :data:`pdf_chars.TOL` points of PDFium's positions), and hold no other row's answer
or score. The trap: the second question, merged over body rows only, is outlined with its own five rows and none of
the first question's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid, Unit

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 18.0, 10.0, 120.0
#: Left edge of each column (points).
XS = [72.0, 300.0, 460.0]
HEADER = ["Question", "Answer", "Score"]
Q1 = ["How often do you walk", "to your place of work?"]
Q2 = ["On a usual day, how many", "cups of tea do you drink?"]
A1 = ["Not at all", "Once a week", "Two to three days", "Four to six days", "Every single day"]
A2 = ["None at all", "One or two cups", "Three or four", "Five to seven", "Eight or more"]
S1 = ["0 points", "1 point", "2 points", "3 points", "4 points"]
S2 = ["0 marks", "1 mark", "2 marks", "3 marks", "4 marks"]


def _make_pdf(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x, H - (top + 0.75 * LEAD), line)

    for x, head in zip(XS, HEADER):
        text(x, TOP, head)
    for q, (question, answers, scores) in enumerate([(Q1, A1, S1), (Q2, A2, S2)]):
        first = TOP + LEAD * (1 + 5 * q)
        for k, line in enumerate(question):  # two lines centred beside the five answers
            text(XS[0], first + 1.5 * LEAD + k * LEAD, line)
        for r, (answer, score) in enumerate(zip(answers, scores)):
            text(XS[1], first + r * LEAD, answer)
            text(XS[2], first + r * LEAD, score)
    c.save()


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    pdf = tmp_path_factory.mktemp("hdrcells") / "survey_table.pdf"
    _make_pdf(pdf)
    rows = [[" ".join(q), a, s] for q, answers, scores in ((Q1, A1, S1), (Q2, A2, S2)) for a, s in zip(answers, scores)]
    grid = TableGrid(header_rows=[HEADER, *rows[:4]], body_rows=rows[4:], body_row_pages=[1] * 6)
    region = (XS[0] / W - 0.01, TOP / H - 0.005, 560.0 / W, (TOP + 11 * LEAD) / H + 0.005)
    return pdf, row_units(pdf, grid, region, "survey")


@pytest.mark.parametrize("q", [0, 1])
def test_rows_sharing_a_question_outline_it_with_their_own_lines(table, q) -> None:
    """Each of the question's five rows (four of the first question's read from the header) holds the
    question's lines, its answer and its score, and no other row's answer or score."""
    pdf, units = table
    assert [u.table.cells[1] for u in units] == A1 + A2  # type: ignore[union-attr]
    question, answers, scores = ((Q1, A1, S1), (Q2, A2, S2))[q]
    for r, unit in enumerate(units[5 * q : 5 * q + 5]):
        outlines = unit_outlines(unit, (W, H))
        assert outlines, unit.text
        for ch in char_boxes(pdf, [*question, answers[r], scores[r]], printed_once=True):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        others = [a for k, a in enumerate(A1 + A2 + S1 + S2) if k % 10 != 5 * q + r]
        for ch in char_boxes(pdf, others, printed_once=True):
            assert not over(outlines, ch), (unit.text, ch)
        other_question = (Q2, Q1)[q]
        for ch in char_boxes(pdf, other_question, printed_once=True):
            assert not over(outlines, ch), (unit.text, ch)
