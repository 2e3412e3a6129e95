"""Table-row outlines of drugs stacked in one ruled row under sub-labels, rebuilt from the text layer.

A ruled table built here (reportlab, Helvetica): one ruled row per drug class, its drugs stacked in the drug
column as paragraphs, each beside its dose. A short label printed on a line of its own above a drug (a group of
the class) is read into that drug's row (:mod:`structaware_readers.table_recovery.stacked_rows`), so the row's
box must start at the label's line, not at the drug's name: else the label lies in the box of the drug above,
whose unit does not say it. Rows placed from the text layer (pdfplumber), outlined as the loader does.

Positions are read from PDFium's characters; a character may lie :data:`pdf_chars.TOL` points outside an outline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")
pytest.importorskip("pdfplumber")

from pdf_chars import char_boxes, holds, over, row_units, unit_outlines
from structaware_readers.models import Unit

W, H = 612.0, 792.0
SIZE = 10.0
XS = [72.0, 172.0, 312.0, 470.0]
HEADER = ["Class", "Drug", "Dose"]
#: The stacked ruled row: (top in points, column, line); the drug column's paragraphs are a wrapped name, a
#: group label on its own line, and two names; each name has its dose on its first line.
LINES = [
    (140.0, 0, "Quietening"),
    (151.0, 0, "agents"),
    (110.0, 1, "Alphazine"),
    (121.0, 1, "long acting"),
    (140.0, 1, "Slow release"),
    (158.0, 1, "Betazine"),
    (176.0, 1, "Gammazine"),
    (110.0, 2, "10-20 mg daily"),
    (158.0, 2, "5-10 mg daily"),
    (176.0, 2, "1-2 mg twice"),
]
#: A second ruled row holding one drug.
LAST = ["Waking agents", "Deltazine", "3 mg daily"]
#: Ruled lines: the header's top, the stacked row's top and bottom, the table's bottom.
RULES = [80.0, 100.0, 195.0, 220.0]


def _draw(path: Path) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont("Helvetica", SIZE)
    c.setLineWidth(0.5)

    def text(col: int, top: float, line: str) -> None:
        c.drawString(XS[col] + 4, H - (top + SIZE), line)

    for col, head in enumerate(HEADER):
        text(col, RULES[0] + 5, head)
    for top, col, line in LINES:
        text(col, top, line)
    for col, cell in enumerate(LAST):
        text(col, RULES[2] + 7, cell)
    for top in RULES:
        c.line(XS[0], H - top, XS[-1], H - top)
    for x in XS:
        c.line(x, H - RULES[0], x, H - RULES[-1])
    c.save()


@pytest.fixture(scope="module")
def units(tmp_path_factory) -> tuple[Path, list[Unit]]:
    import pdfplumber

    from structaware_readers.table_recovery.pdf_text_layer import grid_from_region

    pdf = tmp_path_factory.mktemp("rows") / "sub_labels.pdf"
    _draw(pdf)
    region = (XS[0] / W - 0.005, RULES[0] / H - 0.005, XS[-1] / W + 0.005, RULES[-1] / H + 0.005)
    with pdfplumber.open(pdf) as doc:
        grid = grid_from_region(doc.pages[0], region, page_number=1)
    assert grid is not None and grid.grid_source == "pdf_text_layer"
    return pdf, row_units(pdf, grid, region, "labels")


def _row(units: list[Unit], name: str) -> Unit:
    return next(u for u in units if name in u.table.cells[1])  # type: ignore[union-attr]


def test_a_group_label_above_a_drug_lies_in_that_drugs_outline(units) -> None:
    """The drug read with the label above it (``Slow release Betazine``) is outlined from the label's line down:
    its outlines hold the label, its name and its dose; the drug above (``Alphazine long acting``), whose unit
    does not say the label, holds none of the label. The trap: the last stacked drug, with no label, keeps its
    box from its own name down, holding none of the label or the drug above; the wrapped name stays whole in the
    first drug's outline."""
    pdf, found = units
    cells = {u.table.cells[1] for u in found}  # type: ignore[union-attr]
    assert {"Alphazine long acting", "Slow release Betazine", "Gammazine", "Deltazine"} <= cells
    labelled = unit_outlines(_row(found, "Betazine"), (W, H))
    for ch in char_boxes(pdf, ["Slow release", "Betazine", "5-10 mg daily"]):
        assert holds(labelled, ch), (ch, labelled)
    first = unit_outlines(_row(found, "Alphazine"), (W, H))
    for ch in char_boxes(pdf, ["Alphazine", "long acting", "10-20 mg daily"]):
        assert holds(first, ch), (ch, first)
    for ch in char_boxes(pdf, ["Slow release", "Betazine"]):
        assert not over(first, ch), (ch, first)
    last = unit_outlines(_row(found, "Gammazine"), (W, H))
    for ch in char_boxes(pdf, ["Gammazine", "1-2 mg twice"]):
        assert holds(last, ch), (ch, last)
    for ch in char_boxes(pdf, ["Slow release", "Betazine", "5-10 mg daily"]):
        assert not over(last, ch), (ch, last)
