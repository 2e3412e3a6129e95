"""An outline too sparse to use whole still makes the unnumbered titles its top level names chapters
(heading_pass, through :func:`structaware_readers.load.loader.prepare_document` and the unit builder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.units import build_units
from synthetic_docs import synthetic_doc

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


def _write(path: Path, outline: dict[int, list[tuple[str, int]]]) -> Path:
    """A PDF of one page per key of ``outline``, each page bookmarked by its ``(title, level)`` entries."""
    canvas = pytest.importorskip("reportlab.pdfgen.canvas")
    c = canvas.Canvas(str(path))
    for page in sorted(outline):
        for k, (title, level) in enumerate(outline[page]):
            c.bookmarkPage(f"b{page}-{k}")
            c.addOutlineEntry(title, f"b{page}-{k}", level=level)
        c.drawString(72, 720, f"page {page + 1}")
        c.showPage()
    c.save()
    return path


def _outlined_pdf(path: Path) -> Path:
    """Three pages whose outline has three chapters and many run-in entries no block names."""
    outline = {
        0: [("Summary of advice", 0)],
        1: [("Orchard care", 0), *[(f"Key point {k}", 1) for k in range(4)]],
        2: [("Vegetable beds", 0), ("Watering schedule", 1), *[(f"Evidence note {k}", 1) for k in range(4)]],
    }
    return _write(path, outline)


def _doc(rows: list[tuple[int, BlockKind, str, int | None]]) -> ParsedDocument:
    blocks = [
        Block(
            block_id=f"p{page}-e{i}",
            kind=kind,
            text=text,
            page=page,
            level=level,
            bbox=(0.1, 0.05 + 0.05 * i, 0.9, 0.08 + 0.05 * i),
        )
        for i, (page, kind, text, level) in enumerate(rows)
    ]
    return synthetic_doc(blocks, pages=3)


def test_top_level_outline_titles_hold_the_numbered_sections_after_them(tmp_path: Path) -> None:
    pdf = _outlined_pdf(tmp_path / "outlined.pdf")
    doc = _doc(
        [
            (1, P, "Summary of advice", None),  # a chapter title the parser typed as a paragraph
            (1, H, "2.1 Pruning", 2),
            (1, P, "Apple trees are cut while dormant, stone fruit after harvest.", None),
            (2, H, "Orchard care", 4),  # placed below the section before it by the numbering alone
            (2, H, "2.1 Pruning", 2),
            (2, P, "Young trees are shaped in their first three winters so light reaches the centre.", None),
            (3, H, "Vegetable beds", 3),
            (3, H, "2.2 Sowing", 2),
            (3, P, "Beans go in once the soil is warm enough to hold a hand on it for a minute.", None),
            (3, H, "Watering schedule", 3),  # trap: a second-level entry stays where the numbering put it
            (3, P, "Seedlings take a light can every evening in their first dry fortnight.", None),
        ]
    )
    units = build_units(prepare_document(doc, pdf=pdf))
    paths = {" ".join(u.text.split()[:3]): u.section_path for u in units}
    assert paths["Apple trees are"] == ["Summary of advice", "2.1 Pruning"]
    assert paths["Young trees are"] == ["Orchard care", "2.1 Pruning"]
    assert paths["Beans go in"] == ["Vegetable beds", "2.2 Sowing"]
    assert paths["Seedlings take a"] == ["Vegetable beds", "2.2 Sowing", "Watering schedule"]


def _kdigo_style_pdf(path: Path) -> Path:
    """Two pages whose outline names two chapters and, below them, unnumbered subtitles and run-in entries."""
    outline = {
        0: [
            ("Orchard care", 0),
            ("Key information", 1),
            *[(f"Benefit note {k}", 2) for k in range(6)],
            ("Rationale", 1),
        ],
        1: [
            ("Vegetable beds", 0),
            ("Soil notes", 1),
            ("Seed notes", 1),
            ("Planting records", 1),
            *[(f"Harm note {k}", 2) for k in range(3)],
        ],
    }
    return _write(path, outline)


def test_a_subtitle_a_sparse_outline_names_is_a_heading_and_opens_a_discussion(tmp_path: Path) -> None:
    pdf = _kdigo_style_pdf(tmp_path / "subtitles.pdf")
    doc = _doc(
        [
            (1, H, "Orchard care", 1),
            (1, H, "2.1 Pruning", 2),
            (1, P, "Recommendation 2.1.1: We recommend pruning apple trees while they are dormant (1B).", None),
            (1, P, "Key information", None),  # a subtitle the parser typed as a paragraph
            (1, P, "Balance of benefits and harms. Dormant cuts halved canker in two orchard trials.", None),
            (1, H, "Rationale", 3),
            (1, P, "Growers valued fewer infections over an earlier first harvest.", None),
            (2, H, "Vegetable beds", 1),
            (2, P, "Soil notes", None),
            (2, P, "Clay beds drain slowly after rain.", None),
            (2, P, "Seed notes", None),
            (2, P, "Old seed germinates unevenly.", None),
            (2, P, "Planting records", None),  # trap: the title of the table under it stays its caption
            (2, BlockKind.TABLE, "Year Trees planted\n2030 12", None),
        ]
    )
    units = build_units(prepare_document(doc, pdf=pdf))
    first = {" ".join(u.text.split()[:2]): u for u in units}
    rec, balance, growers = first["Recommendation 2.1.1:"], first["Balance of"], first["Growers valued"]
    assert balance.section_path == ["Orchard care", "2.1 Pruning", "Key information"]
    assert "Discusses: Recommendation 2.1.1" in balance.context and balance.linked_ids == [rec.unit_id]
    # a sibling of the numbered section's other subtitles, not nested under the one before it
    assert growers.section_path == ["Orchard care", "2.1 Pruning", "Rationale"]
    # subtitles with no numbered section above them are siblings too
    assert first["Old seed"].section_path == ["Vegetable beds", "Seed notes"]
    assert all("Planting records" not in u.section_path for u in units)
