"""Decimal-numbered titles typed as paragraphs become headings when the numbering around them says so
(structure.numbered_titles, through :func:`structaware_readers.load.loader.prepare_document` and the unit builder).

Every case has a near miss that must stay a paragraph.
"""

from __future__ import annotations

from structaware_readers.load.loader import prepare_document
from structaware_readers.models import Block, BlockKind, ParsedDocument
from structaware_readers.units import build_units
from synthetic_docs import synthetic_doc

H, P = BlockKind.HEADING, BlockKind.PARAGRAPH


def _doc(rows: list[tuple[BlockKind, str]]) -> ParsedDocument:
    blocks = [
        Block(block_id=f"p1-e{i}", kind=kind, text=text, page=1, bbox=(0.1, 0.02 + 0.03 * i, 0.9, 0.04 + 0.03 * i))
        for i, (kind, text) in enumerate(rows)
    ]
    return synthetic_doc(blocks)


def _paths(doc: ParsedDocument) -> dict[str, list[str]]:
    """First words of each unit's text -> its section path."""
    return {" ".join(u.text.split()[:3]): u.section_path for u in build_units(doc)}


def _kinds(doc: ParsedDocument) -> dict[str, BlockKind]:
    return {b.text: b.kind for b in doc.blocks}


def test_numbered_titles_between_numbered_headings_become_headings() -> None:
    doc = prepare_document(
        _doc(
            [
                (H, "3 Orchard care"),
                (H, "3.2 Pruning"),
                (P, "Young trees are shaped in their first three winters so that light reaches the centre."),
                (P, "3.2.1 Timing of cuts"),  # a title the parser missed
                (P, "Apple trees are cut while dormant, stone fruit after harvest to keep silver leaf away."),
                (H, "3.2.2 Tools and hygiene"),
                (P, "Blades are wiped with alcohol between trees when canker has been seen in the row."),
                (P, "3.3 Watering"),  # back up a level, before its first child
                (H, "3.3.1 Young trees"),
                (P, "A newly planted tree takes a full can every week of its first dry summer."),
            ]
        )
    )
    kinds = _kinds(doc)
    assert kinds["3.2.1 Timing of cuts"] is H and kinds["3.3 Watering"] is H
    paths = _paths(doc)
    assert paths["Apple trees are"] == ["3 Orchard care", "3.2 Pruning", "3.2.1 Timing of cuts"]
    assert paths["Blades are wiped"] == ["3 Orchard care", "3.2 Pruning", "3.2.2 Tools and hygiene"]
    assert paths["A newly planted"] == ["3 Orchard care", "3.3 Watering", "3.3.1 Young trees"]


def test_a_title_run_on_into_its_text_counts_in_the_numbering_but_stays_a_paragraph() -> None:
    run_on = "3.2.1 Timing of cuts Point 3.2.1.1: Apple trees are cut while dormant, never in a wet week."
    doc = prepare_document(
        _doc(
            [
                (H, "3.2 Pruning"),
                (P, run_on),
                (P, "3.2.2 Tools and hygiene"),
                (P, "Blades are wiped with alcohol between trees when canker has been seen in the row."),
                (H, "3.2.3 Disposal of prunings"),
            ]
        )
    )
    kinds = _kinds(doc)
    assert kinds["3.2.2 Tools and hygiene"] is H
    assert kinds[run_on] is P
    assert _paths(doc)["Blades are wiped"] == ["3.2 Pruning", "3.2.2 Tools and hygiene"]


def test_numbered_paragraphs_the_numbering_does_not_place_stay_paragraphs() -> None:
    doc = prepare_document(
        _doc(
            [
                (H, "3.2 Pruning"),
                (P, "5.1 Storage of fruit"),  # trap: not the number after 3.2, nor before 3.3
                (P, "3.2.1 Cut just above an outward-facing bud."),  # trap: a sentence
                (H, "3.3 Watering"),
                (P, "3.3.1 Young trees"),  # trap: no numbered heading after it
                (P, "A newly planted tree takes a full can every week of its first dry summer."),
            ]
        )
    )
    kinds = _kinds(doc)
    assert kinds["5.1 Storage of fruit"] is P
    assert kinds["3.2.1 Cut just above an outward-facing bud."] is P
    assert kinds["3.3.1 Young trees"] is P
    assert [u.section_path for u in build_units(doc) if "newly planted" in u.text] == [["3.3 Watering"]]
