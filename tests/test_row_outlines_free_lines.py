"""A row whose words the row below all says, outlined on its own lines, on a table built here.

A two-column table (reportlab, Helvetica) of advice by grade: the third row (``Severe``) says two lines of advice
that the fourth row (``Very`` / ``severe``, its grade on two lines) says again, with one more line of its own. The
third row holds no word of its own, and the fourth row's grade is on no one line: stage 8 finds the third row by
its first line and reads on while the lines are its words, into the fourth row. Its outlines must hold its grade
and its two lines, and none of the fourth row's lines (every character within :data:`pdf_chars.TOL` points of
PDFium's positions); the fourth row keeps its own. So when each grade is printed centred down its row, the third
row's first line above its grade's: its outlines reach up to it, and not over the row above. The trap
(:func:`test_a_first_line_inside_another_row_is_not_taken`): a row whose key line lies within another row's lines
gets none of them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import TableGrid
from structaware_readers.table_recovery.free_lines import free_lines
from structaware_readers.table_recovery.text_lines import TextLine

W, H = 612.0, 792.0
LEAD, SIZE, TOP = 13.0, 9.0, 120.0
XS = [72.0, 170.0]
HEADER = ["Grade", "Advice"]
SHARED = ["Open the window at night", "Keep a fan beside the bed"]
#: Printed rows: grade lines, advice lines.
PRINTED = [
    (["Mild"], ["Sip warm tea with honey"]),
    (["Moderate"], ["Take a short nap after lunch", "Lie down in a cool room"]),
    (["Severe"], SHARED),
    (["Very", "severe"], [*SHARED, "Call the nurse at once"]),
]


def _make_pdf(path: Path, centred: bool) -> float:
    """The table on page 1 (``centred``: each grade printed centred down its advice, below the first line);
    returns the bottom of its last line (points from the top)."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)

    def put(x: float, top: float, text: str) -> None:
        c.drawString(x, H - top - SIZE, text)

    for x, text in zip(XS, HEADER):
        put(x, TOP, text)
    top = TOP + 1.5 * LEAD
    for grade, advice in PRINTED:
        down = (len(advice) - len(grade) + 1) // 2 if centred else 0
        for col, lines in enumerate((grade, advice)):
            for k, line in enumerate(lines):
                put(XS[col], top + (k + (down if col == 0 else 0)) * LEAD, line)
        top += (len(advice) + 0.8) * LEAD
    c.save()
    return top


@pytest.mark.parametrize("centred", [False, True])
def test_a_row_of_words_the_next_row_says_is_outlined_on_its_own_lines(tmp_path, centred: bool) -> None:
    """Its lines read down from its grade's line, and (``centred``) up to its first line above it; not the
    lines of the row above (the trap) nor those of the row below."""
    pdf = tmp_path / "free_lines.pdf"
    bottom = _make_pdf(pdf, centred)
    rows = [[" ".join(grade), " ".join(advice)] for grade, advice in PRINTED]
    grid = TableGrid(header_rows=[HEADER], body_rows=rows, grid_source="parser_html")
    region = (XS[0] / W - 0.02, (TOP - LEAD) / H, 0.9, (bottom + LEAD) / H)
    units = row_units(pdf, grid, region, "free")
    by_row = {u.table.row_index: u for u in units if u.table is not None}
    assert sorted(by_row) == [0, 1, 2, 3]
    whole = tuple(v * s for v, s in zip(region, (W, H, W, H)))
    third = unit_outlines(by_row[2], (W, H))
    assert third and all(o != whole for o in third), third
    for ch in char_boxes(pdf, ["Severe", *SHARED]):  # the first of each: the third row's
        assert holds(third, ch), (ch, third)
    for ch in char_boxes(pdf, ["Very", "severe", "Call the nurse at once", "Lie down in a cool room"]):
        assert not over(third, ch), (ch, third)
    fourth = unit_outlines(by_row[3], (W, H))
    for ch in char_boxes(pdf, ["Very", "severe", "Call the nurse at once"]):
        assert holds(fourth, ch), (ch, fourth)


def test_a_first_line_inside_another_row_is_not_taken() -> None:
    """Lines read on from a row's key line are cut where another row's lines start, and reach up over the
    lines above that lie within no other row's and are the row's words; a key line lying within another row's
    lines is that row's, and the row gets none."""
    lines = [
        TextLine(w.split(), 0.1, y, 0.5, y + 0.02)
        for w, y in zip(["a", "b", "c d", "e", "f"], (0.2, 0.3, 0.33, 0.36, 0.39))
    ]
    own = "bcdef"
    assert free_lines(lines, lines[2:], [(0.355, 0.45)], own) == lines[1:3]
    assert free_lines(lines, lines[2:], [(0.29, 0.45)], own) == []
    assert free_lines(lines, lines[2:], [(0.10, 0.31)], own) == lines[2:]
    assert free_lines(lines, lines[2:], [(0.50, 0.60)], own) == lines[1:]  # "a" is not the row's
