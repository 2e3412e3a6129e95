"""A page printed twice over, the second copy shifted a little left and down, is read once.

Some forms are laid over themselves when the page is made: the text layer then holds every line twice, the second
copy 10.7 points left of and 6.4 points below the first, across the line it repeats. Generated input (reportlab,
written here; made-up words and figures): a ruled table (its rules drawn once) with a sentence above it, its text
drawn twice, and a footer drawn once; the second copy of each line runs into the next row's cell. The parser gives
the table no cells, only its region, so its grid is read from the text layer and its rows boxed from it. Each row
must read as printed (the trap: rows of the second copy's lines, cut by the left rule, between the first copy's) and
be outlined on its own characters of the first copy, over no other row's. Every reader of the text layer reads one
copy: pdfplumber's page, PDFium's runs and the page text the text restore compares with. Pages that repeat words on
lines of their own are left as they are: a name signed above and printed below, a name set solid under its
signature, list lines that repeat their words one under the other, a bold drawn twice a hair apart.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pdfplumber")
pytest.importorskip("pypdfium2")
pytest.importorskip("reportlab")

from pdf_chars import char_boxes, holds, over, recovered_row_units, unit_outlines
from structaware_readers.table_recovery.pdfium_text import PdfiumText
from structaware_readers.table_recovery.shown_page import shown_page
from structaware_readers.text.ghost_copy import ghost_glyphs, repeats_lines
from structaware_readers.text.layer import PdfTextLayer

W, H = 612.0, 792.0
FONT, SIZE, LEAD = "Helvetica", 9.0, 14.0
LEFT, RIGHTS = 60.0, [330.0, 420.0]
TOP = 150.0  # the header's top (points from the page top)
PAD = 4.0  # from a row's top rule to its text's top (points)
RULES_X = [LEFT - 6.0, 250.0, RIGHTS[0] + 4.0, RIGHTS[1] + 4.0]
SHIFT = (-10.7, 6.4)  # the second copy: left and down (points)
HEADER = ["Apiary", "2041", "2040"]
ROWS = [
    ["Hive count", "1,264", "1,198"],
    ["Comb frames", "903", "871"],
    ["Queen cells", "2,507", "2,316"],
    ["Drone brood", "342", "415"],
    ["Swarm traps", "58", "49"],
]
ABOVE = "Frame counts below are taken at the close of each season by the apiary keeper."
FOOTER = "Hives lost to winter are left out of every count on this card."


def _draw_card(c, dx: float, dy: float) -> None:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    def line(top: float, cells: list[str]) -> None:
        c.drawString(LEFT + dx, H - top - SIZE - dy, cells[0])
        for right, cell in zip(RIGHTS, cells[1:]):
            c.drawString(right - stringWidth(cell, FONT, SIZE) + dx, H - top - SIZE - dy, cell)

    line(TOP - 2 * LEAD, [ABOVE])
    for k, cells in enumerate([HEADER, *ROWS]):
        line(TOP + k * LEAD, cells)


def _pdf(path: Path, copies: list[tuple[float, float]]) -> None:
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=(W, H), invariant=1)
    c.setFont(FONT, SIZE)
    c.setLineWidth(0.5)
    rules_y = [TOP - PAD + k * LEAD for k in range(len(ROWS) + 2)]
    for x in RULES_X:
        c.line(x, H - rules_y[0], x, H - rules_y[-1])
    for y in rules_y:
        c.line(RULES_X[0], H - y, RULES_X[-1], H - y)
    for dx, dy in copies:
        _draw_card(c, dx, dy)
    c.drawString(LEFT, 60.0, FOOTER)
    c.showPage()
    c.save()


def _rows(pdf: Path):
    bottom = TOP - PAD + (len(ROWS) + 1) * LEAD
    region = ((RULES_X[0] - 1) / W, (TOP - PAD - 1) / H, (RULES_X[-1] + 1) / W, (bottom + 1) / H)
    return recovered_row_units(pdf, region, "card")


@pytest.fixture(scope="module")
def twice(tmp_path_factory) -> Path:
    pdf = tmp_path_factory.mktemp("ghost") / "twice.pdf"
    _pdf(pdf, [(0.0, 0.0), SHIFT])
    return pdf


def test_rows_of_a_page_printed_twice_read_one_copy_and_are_outlined_on_it(twice) -> None:
    units = _rows(twice)
    assert [u.table.cells for u in units] == ROWS  # type: ignore[union-attr]
    printed = [char_boxes(twice, [row[0]]) + char_boxes(twice, row[1:]) for row in ROWS]  # the first copy's
    for r, unit in enumerate(units):
        outlines = unit_outlines(unit, (W, H))
        assert outlines, ROWS[r]
        for ch in printed[r]:
            assert holds(outlines, ch), (ROWS[r], ch, outlines)
        others = [ch for k, chars in enumerate(printed) if k != r for ch in chars]
        assert not any(over(outlines, ch) for ch in others), (ROWS[r], outlines)


def test_every_reader_of_the_text_layer_reads_one_copy(twice) -> None:
    import pdfplumber

    with pdfplumber.open(twice) as plumber:
        text = shown_page(plumber, 1).extract_text()
    assert text.count("Comb frames") == 1 and text.count(ABOVE) == 1 and FOOTER in text
    with PdfiumText(twice) as pdfium:
        runs = " ".join(run.text for run in pdfium.runs(1))
    assert runs.count("Queen cells") == 1 and runs.count("2,507") == 1 and FOOTER in runs
    page = PdfTextLayer(twice).page(1)
    assert page is not None
    assert page.text.count("Drone brood") == 1 and page.text.count(ABOVE) == 1 and FOOTER in page.text
    with pdfplumber.open(twice) as plumber:  # the page itself holds both copies: the readers chose one
        assert plumber.pages[0].extract_text().count("Comb frames") == 2


def _glyphs(lines: list[tuple[float, float, str]]) -> list[tuple[str, float, float, float]]:
    """Glyphs of ``lines`` (left, baseline from the top, text), drawn in that order, 5 points apart, size 9."""
    return [(ch, x + 5.0 * k, y, 9.0) for x, y, text in lines for k, ch in enumerate(text)]


WORDS = "Prune the lower limbs before the buds swell"


def test_a_second_copy_across_its_own_lines_is_named_and_its_blanks_with_it() -> None:
    lines = [(40.0, 100.0 + 14.0 * k, f"{WORDS} {k}") for k in range(6)]
    shifted = [(x + SHIFT[0], y + SHIFT[1], text) for x, y, text in lines]
    glyphs = _glyphs(lines + shifted)
    ghost = ghost_glyphs(glyphs)
    first = len(_glyphs(lines))
    assert ghost == set(range(first, len(glyphs)))  # every glyph of the copy, its spaces too, and none other
    assert repeats_lines("\n".join(text for _, _, text in lines + shifted))


@pytest.mark.parametrize(
    "shift",
    [(-4.8, 14.0), (-15.6, 9.0), (0.0, 14.0), (0.3, 0.3)],
    ids=[
        "name signed above and printed below",
        "name set solid under its signature",
        "list lines one under the other",
        "bold drawn twice",
    ],
)
def test_words_repeated_on_lines_of_their_own_are_no_second_copy(shift) -> None:
    lines = [(40.0, 100.0 + 28.0 * k, f"{WORDS} {k}") for k in range(6)]
    repeated = [(x + shift[0], y + shift[1], text) for x, y, text in lines]
    assert ghost_glyphs(_glyphs(lines + repeated)) == set()


def test_a_page_printed_once_is_read_as_it_is(tmp_path) -> None:
    once = tmp_path / "once.pdf"
    _pdf(once, [(0.0, 0.0)])
    import pdfplumber

    with pdfplumber.open(once) as plumber:
        assert shown_page(plumber, 1) is plumber.pages[0]
    assert [u.table.cells for u in _rows(once)] == ROWS  # type: ignore[union-attr]
