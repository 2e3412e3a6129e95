"""Table-row outlines where a long cell spanning rows is said once, in a unit of its own.

A ruled table built here (reportlab, Helvetica): a drug class and a long comment merged over three rows,
each row boxed over its ruled cells (a text-layer grid), the comment printed once beside the three rows.
The rows' units leave the comment out (it is said in its own unit), so their outlines must not run over
the comment's lines printed beside them; the comment's unit holds all of it.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
The trap: the row under the merged cells, whose short comment is its own, keeps its box across the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, unit_outlines
from structaware_readers.models import Block, BlockKind, ParsedDocument, TableGrid, Unit, UnitType
from structaware_readers.table_recovery.stage8_row_boxes import add_row_boxes
from structaware_readers.units import build_units

#: How far (PDF points) a character may lie outside an outline.
W, H = 612.0, 792.0
LEAD, PAD, SIZE = 14.0, 5.0, 10.0
XS = [72.0, 172.0, 262.0, 362.0, 540.0]

CLASS = "Thiazide diuretics"
COMMENT = [
    "Check salts and kidney function",
    "two weeks after the first dose;",
    "may raise blood sugar and uric",
    "acid; take in the morning; watch",
    "for dizziness when standing up;",
    "lower the dose in older adults;",
    "stop before surgery or fasting.",
]
DRUGS = [
    ["Chlortalidone", "12.5 to 25 mg daily"],
    ["Indapamide", "1.25 to 2.5 mg daily"],
    ["Bendroflumethiazide", "5 mg once a day"],
]
LAST = ["Beta blockers", "Metoprolol", "25 to 100 mg daily", "Slow the heart rate."]


def _table_pdf(path: Path) -> list[float]:
    """The table: class and comment merged over the three drug rows (two lines' height each), the comment
    running down beside all three. Returns the rows' tops (header first) and the table's bottom."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 4, H - (top + 0.75 * LEAD), line)

    row_h = 2 * LEAD + 2 * PAD
    tops = [110.0]
    for _ in range(len(DRUGS) + 2):
        tops.append(tops[-1] + (LEAD + 2 * PAD if len(tops) in (1, len(DRUGS) + 1) else row_h))
    for col, head in enumerate(["Class", "Drug", "Usual dose", "Comments"]):
        text(XS[col], tops[0] + PAD, head)
    text(XS[0], (tops[1] + tops[4]) / 2 - LEAD / 2, CLASS)
    for r, (drug, dose) in enumerate(DRUGS):
        text(XS[1], tops[r + 1] + PAD, drug)
        text(XS[2], tops[r + 1] + PAD, dose)
    for k, line in enumerate(COMMENT):
        text(XS[3], tops[1] + PAD + k * LEAD, line)
    for col, cell in enumerate(LAST):
        text(XS[col], tops[4] + PAD, cell)
    for r, top in enumerate(tops):
        inner = 2 <= r <= 3
        c.line(XS[1] if inner else XS[0], H - top, XS[3] if inner else XS[-1], H - top)
    for x in XS:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> tuple[Path, list[Unit]]:
    """The table as rebuilt from the text layer (each row boxed over its ruled cells), its rows' units."""
    pdf = tmp_path_factory.mktemp("rows") / "comment_beside_rows.pdf"
    tops = _table_pdf(pdf)
    body = [[CLASS, drug, dose, " ".join(COMMENT)] for drug, dose in DRUGS] + [LAST]
    grid = TableGrid(
        header_rows=[["Class", "Drug", "Usual dose", "Comments"]],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=[(XS[0] / W, tops[r + 1] / H, XS[-1] / W, tops[r + 2] / H) for r in range(len(body))],
        body_row_pages=[1] * len(body),
    )
    region = (XS[0] / W - 0.005, tops[0] / H - 0.005, XS[-1] / W + 0.005, tops[-1] / H + 0.005)
    text = "\n".join(" | ".join(r) for r in [*grid.header_rows, *grid.body_rows])
    block = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text=text, bbox=region, table=grid)
    doc = ParsedDocument(doc_id="rows0003", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[block])
    return pdf, [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]


def _row(units: list[Unit], i: int, *, span: bool = False) -> Unit:
    """Row ``i``'s unit, or the unit saying the long comment once (``span``)."""
    got = [u for u in units if u.table.row_index == i and (u.table.cells[-1] == " ".join(COMMENT)) == span]  # type: ignore[union-attr]
    assert len(got) == 1, [u.text for u in units]
    return got[0]


def test_a_row_outline_leaves_out_a_long_cell_said_in_another_unit(table) -> None:
    """Each drug row's outlines hold its drug, dose and class, and none of the comment's characters (said
    once, in its own unit, which holds all of them) though the comment is printed beside every drug row.
    The trap: the row under the merged cells keeps one box across the table, holding its own comment."""
    pdf, units = table
    comment = _row(units, 0, span=True)
    for ch in char_boxes(pdf, COMMENT):
        assert holds(unit_outlines(comment, (W, H)), ch), (comment.text, ch)
    for i, (drug, dose) in enumerate(DRUGS):
        unit = _row(units, i)
        assert not unit.table.cells[3].strip()  # type: ignore[union-attr]
        outlines = unit_outlines(unit, (W, H))
        for ch in char_boxes(pdf, [drug, dose, CLASS]):
            assert holds(outlines, ch), (unit.text, ch, outlines)
        for ch in char_boxes(pdf, COMMENT):
            assert not over(outlines, ch), (unit.text, ch, outlines)
    last = _row(units, len(DRUGS))
    outlines = unit_outlines(last, (W, H))
    assert len(outlines) == 1 and outlines[0][2] == pytest.approx(XS[-1], abs=0.5)
    for ch in char_boxes(pdf, LAST):
        assert holds(outlines, ch), (last.text, ch, outlines)


INFECTION = "Sore ear"
KEY_POINTS = [
    "Most cases settle in three days",
    "without any treatment at all;",
    "offer pain relief first and ask",
    "the patient to come back if the",
    "pain or fever lasts beyond the",
    "third day; refer a child under",
    "three months with a high fever.",
]
#: Medicine, dose and length of the three rows the infection spans (two lines each); the third row's
#: length is the first's: a short line of two rows' words.
MEDICINES = [
    (["First choice:", "amoxicillin"], "500mg TDS", "5 days"),
    (["Penicillin allergy:", "clarithromycin"], "250mg BD", "7 days"),
    (["Pregnant:", "erythromycin"], "250mg QDS", "5 days"),
]
NEXT = ["Bee sting", "Cold compress", "Ice pack", "None", "1 day"]
BX = [72.0, 132.0, 292.0, 412.0, 482.0, 540.0]


def _block_pdf(path: Path) -> list[float]:
    """An infection and its key points merged over three medicine rows (ruled between the medicine rows
    only), the key points running down beside all three; one row after it. Returns the rows' tops (header
    first) and the table's bottom."""
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def text(x: float, top: float, line: str) -> None:
        c.drawString(x + 4, H - (top + 0.75 * LEAD), line)

    tops = [110.0]
    for height in [LEAD + 2 * PAD, *([2 * LEAD + 2 * PAD] * len(MEDICINES)), LEAD + 2 * PAD]:
        tops.append(tops[-1] + height)
    for col, head in enumerate(["Infection", "Key points", "Medicine", "Dose", "Length"]):
        text(BX[col], tops[0] + PAD, head)
    text(BX[0], tops[1] + PAD, INFECTION)
    for k, line in enumerate(KEY_POINTS):
        text(BX[1], tops[1] + PAD + k * LEAD, line)
    for r, (medicine, dose, length) in enumerate(MEDICINES):
        for k, line in enumerate(medicine):
            text(BX[2], tops[r + 1] + PAD + k * LEAD, line)
        text(BX[3], tops[r + 1] + PAD, dose)
        text(BX[4], tops[r + 1] + PAD, length)
    for col, cell in enumerate(NEXT):
        text(BX[col], tops[-2] + PAD, cell)
    for r, top in enumerate(tops):
        inner = 2 <= r <= len(MEDICINES)
        c.line(BX[2] if inner else BX[0], H - top, BX[-1], H - top)
    for x in BX:
        c.line(x, H - tops[0], x, H - tops[-1])
    c.save()
    return tops


@pytest.fixture(scope="module")
def block(tmp_path_factory) -> tuple[Path, list[float], list[Unit]]:
    """The table as rebuilt from the text layer: the first medicine row boxed over its ruled cells, which
    reach down the whole block (the infection's and key points' cells), the others over their own cells."""
    pdf = tmp_path_factory.mktemp("rows") / "block_of_rows.pdf"
    tops = _block_pdf(pdf)
    body = [[INFECTION, " ".join(KEY_POINTS), " ".join(m), dose, length] for m, dose, length in MEDICINES] + [NEXT]
    boxes = [(BX[0] / W, tops[1] / H, BX[-1] / W, tops[4] / H)]
    boxes += [(BX[2] / W, tops[r + 1] / H, BX[-1] / W, tops[r + 2] / H) for r in (1, 2)]
    boxes.append((BX[0] / W, tops[4] / H, BX[-1] / W, tops[5] / H))
    grid = TableGrid(
        header_rows=[["Infection", "Key points", "Medicine", "Dose", "Length"]],
        body_rows=body,
        grid_source="pdf_text_layer",
        body_row_bboxes=boxes,
        body_row_pages=[1] * len(body),
    )
    region = (BX[0] / W - 0.005, tops[0] / H - 0.005, BX[-1] / W + 0.005, tops[-1] / H + 0.005)
    text = "\n".join(" | ".join(r) for r in [*grid.header_rows, *grid.body_rows])
    blk = Block(block_id="p1-e1", kind=BlockKind.TABLE, page=1, text=text, bbox=region, table=grid)
    doc = ParsedDocument(doc_id="rows0004", source=str(pdf), name="rows", parser="mineru", page_count=1, blocks=[blk])
    return pdf, tops, [u for u in build_units(add_row_boxes(doc, pdf)) if u.unit_type is UnitType.TABLE_ROW]


def test_a_row_boxed_down_a_block_of_rows_is_cut_above_the_next_row(block) -> None:
    """The first medicine row, ruled down the whole block (its infection and key points cells span the three
    rows), is outlined on its own lines and its infection: none of the other medicine rows' characters and none
    of the key points' (said once, in their own unit, which holds them all) lie inside its outlines, though a
    line of the third row (its length) holds the first row's words. The trap: the other two medicine rows
    and the row after the block keep their boxes."""
    pdf, tops, units = block
    kp = " ".join(KEY_POINTS)
    first = [u for u in units if u.table.row_index == 0 and u.table.cells[1] != kp]  # type: ignore[union-attr]
    span = [u for u in units if u.table.row_index == 0 and u.table.cells[1] == kp]  # type: ignore[union-attr]
    assert len(first) == 1 and len(span) == 1, [u.text for u in units]
    for ch in char_boxes(pdf, KEY_POINTS):
        assert holds(unit_outlines(span[0], (W, H)), ch), (span[0].text, ch)
    outlines = unit_outlines(first[0], (W, H))
    medicine, dose, _ = MEDICINES[0]
    for ch in char_boxes(pdf, [*medicine, dose, INFECTION]):
        assert holds(outlines, ch), (first[0].text, ch, outlines)
    others = [line for m, d, _ in MEDICINES[1:] for line in [*m, d]] + KEY_POINTS
    for ch in char_boxes(pdf, others):
        assert not over(outlines, ch), (first[0].text, ch, outlines)
    for r in (1, 2, 3):
        own = [u for u in units if u.table.row_index == r]
        assert len(own) == 1
        box = unit_outlines(own[0], (W, H))[0]
        assert box[1] == pytest.approx(tops[r + 1], abs=0.5) and box[3] == pytest.approx(tops[r + 2], abs=0.5)
